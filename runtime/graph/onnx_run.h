// `weft run MODEL.onnx --target llvm` from start to finish: read the input .npy, import the
// model, run it on the fp32 LLVM path (a first run compiles the kernels, a second is timed),
// optionally check it against the float64 reference, and report per node (engine, host time,
// share of the total) as JSON; with a save folder, stage output.npy (the first output as
// float32) and report.json on an OutputSet, with a trace file a Chrome-trace timeline. Nothing
// is staged unless everything before succeeded.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "compiler/graph/onnx/onnx_import.h"
#include "driver/device.h"
#include "runtime/graph/host_array.h"
#include "runtime/io/files.h"

namespace weft::rt::graph {

/// What to run.
struct OnnxRunRequest {
  std::string model, input, save, trace;
  int threads = 1;
  int64_t batch = 0;   // > 0: a symbolic batch dimension set to this (onnx_model.h: LoadOptions)
  bool check = false;  // llvm: also run the float64 reference; accel: compare with fp32 (llvm)
  // --target accel
  std::string config = "gemm8x8", engine = "cycle", platform = "sim", calibrate;
  bool per_channel = false;
  // --target accel: also compare every value of the int8 graph with the fp32 graph's on the
  // input (compiler/graph/quant_error.h), as the report's "fp32_compare"
  bool compare_fp32 = false;
  // conv schedules: the tuning records first (--tune-db, then the shipped ones) unless no_records
  std::string tune_db;
  bool no_records = false;
  // compiled accelerator programs kept across runs (runtime/graph/program_cache.h); "" for none
  std::string program_cache;
  // --target accel: the rest of the device's options (the xrt engine's board or emulation,
  // faults to inject) and the time each kernel may take.
  driver::DeviceOptions device;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // The energy table that prices the run (hardware/cost; "" the shipped default).
  std::string energy;
  // Told each phase as it starts (import, compile, run, check), for progress on stderr.
  std::function<void(const std::string&)> phase = [](const std::string&) {};
};

/// Reads `path` (.npy: float32, int8, uint8 or int32) as the graph's input `k`; UserError naming
/// the file when it is unreadable or its dtype or shape differ from the input's (a uint8 array
/// only for a uint8 input, read as int8 = uint8 - 128 like the importer holds it).
HostArray read_input_npy(const std::string& path, const compiler::onnx_import::Imported& model,
                         size_t k = 0);

/// How far an output is from its reference: max |a - ref| / max |ref| (the figure the fp32
/// path is held to, 1e-4), and the largest element-wise |a - ref| / |ref|.
struct OutputError {
  double relative_to_max = 0, elementwise = 0;
};
OutputError output_error(const HostArray& a, const HostArray& ref);

/// Runs the request on the LLVM path; files go to `outputs` (the caller commits).
nlohmann::ordered_json run_onnx_llvm(const OnnxRunRequest& request, OutputSet& outputs);

/// Runs the request on the accelerator: import, quantize (calibrated on --calibrate's samples,
/// else synthetic ones), the graph pipeline, the network executor on the engine; the report
/// is the executor's plus the model's fields. Same files as run_onnx_llvm.
nlohmann::ordered_json run_onnx_accel(const OnnxRunRequest& request, OutputSet& outputs);

/// Calibration samples from a .npy: float32 of the input's shape (one sample) or with one
/// more leading axis (a batch of samples); UserError naming the file otherwise.
std::vector<std::vector<float>> read_calibration_npy(const std::string& path,
                                                     const std::vector<int64_t>& input_shape);

/// The output array as float32 .npy bytes.
std::vector<uint8_t> output_npy(const HostArray& a);

/// A Chrome trace (Perfetto) of per-node records: one track per engine.
nlohmann::json node_trace(const std::string& process, const nlohmann::json& nodes);

}  // namespace weft::rt::graph
