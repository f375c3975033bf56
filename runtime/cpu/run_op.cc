// Running one CPU operator for the CLI; see run_op.h.
#include "runtime/cpu/run_op.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"
#include "runtime/cpu/layout.h"
#include "runtime/cpu/reference.h"
#include "runtime/io/npy.h"
#include "runtime/io/report_json.h"

namespace weft::rt::cpu {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <typename T>
std::vector<T> random_values(int64_t n, std::mt19937& rng) {
  std::vector<T> v(static_cast<size_t>(n));
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (T& x : v) x = d(rng);
  } else {
    for (T& x : v) x = static_cast<T>(rng());
  }
  return v;
}

template <typename T>
NpyArray npy_of(std::vector<int64_t> shape, const std::vector<T>& v) {
  NpyArray a;
  a.type = std::is_same_v<T, float>     ? NpyType::kFloat32
           : std::is_same_v<T, int32_t> ? NpyType::kInt32
                                        : NpyType::kInt8;
  a.shape = std::move(shape);
  a.data.resize(v.size() * sizeof(T));
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

CpuOp build(const CpuRunRequest& r, DType dt) {
  if (r.op == "dense") return dense(r.m, r.n, r.k, dt, r.dense_schedule.value_or(DenseSchedule{}));
  if (r.op == "conv2d") return conv2d(r.conv, dt, r.conv_schedule.value_or(ConvSchedule{}));
  throw UserError("the CPU backend has no operator '" + r.op + "' (dense or conv2d)");
}

// Compares with the reference: exact for integers, within 1e-5 per accumulated product
// (inputs in [-1, 1]) for float32.
template <typename T, typename R>
void compare(const std::vector<T>& got, const std::vector<R>& want, double terms,
             nlohmann::ordered_json& j) {
  int64_t mismatches = 0;
  double max_err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    max_err = std::max(max_err, e);
    if constexpr (std::is_floating_point_v<T>) {
      if (e > 1e-5 * terms + 1e-6) ++mismatches;
    } else {
      if (e != 0) ++mismatches;
    }
  }
  j["correct"] = mismatches == 0;
  j["mismatches"] = mismatches;
  j["max_abs_error"] = max_err;
}

template <typename In, typename Out>
void run_typed(const CpuRunRequest& r, DType dt, nlohmann::ordered_json& j, OutputSet& outputs) {
  using Acc = std::conditional_t<std::is_same_v<In, float>, double, int32_t>;
  const auto t_compile = Clock::now();
  CpuKernel kernel(build(r, dt));
  j["compile_seconds"] = since(t_compile);
  ThreadPool pool(r.threads);
  std::mt19937 rng(r.seed);

  std::vector<In> x, w;
  std::vector<Out> y;
  std::vector<int64_t> x_shape, w_shape, y_shape;
  std::vector<void*> bufs;
  std::vector<In> xb, wb;
  std::vector<int32_t> w_pairs;  // int8 conv2d weights, paired
  std::vector<Out> yb;
  double terms = 0;
  if (r.op == "dense") {
    x = random_values<In>(r.m * r.k, rng);
    w = random_values<In>(r.n * r.k, rng);
    y.resize(static_cast<size_t>(r.m * r.n));
    x_shape = {r.m, r.k};
    w_shape = {r.n, r.k};
    y_shape = {r.m, r.n};
    bufs = {x.data(), w.data(), y.data()};
    terms = static_cast<double>(r.k);
  } else {
    const Conv2dShape& s = r.conv;
    x = random_values<In>(s.n * s.c * s.h * s.w, rng);
    w = random_values<In>(s.o * s.c * s.kh * s.kw, rng);
    const int64_t cb = conv_in_block(s.c), nob = (s.o + kConvOutBlock - 1) / kConvOutBlock;
    xb = to_blocked(x, s.n, s.c, s.h, s.w, cb);
    wb = pack_conv_weights(w, s.o, s.c, s.kh, s.kw, cb, kConvOutBlock);
    if constexpr (std::is_same_v<In, int8_t>) {
      w_pairs = pair_conv_weights(wb, nob, s.c / cb, s.kh, s.kw, cb, kConvOutBlock);
    }
    yb.resize(static_cast<size_t>(s.n * nob * s.oh() * s.ow() * kConvOutBlock));
    x_shape = {s.n, s.c, s.h, s.w};
    w_shape = {s.o, s.c, s.kh, s.kw};
    y_shape = {s.n, s.o, s.oh(), s.ow()};
    bufs = {xb.data(), w_pairs.empty() ? static_cast<void*>(wb.data()) : w_pairs.data(), yb.data()};
    terms = static_cast<double>(s.c * s.kh * s.kw);
  }
  kernel.run(bufs, &pool);  // warm-up
  std::vector<double> times;
  for (int i = 0; i < r.repeats; ++i) {
    const auto t0 = Clock::now();
    kernel.run(bufs, &pool);
    times.push_back(since(t0));
  }
  std::sort(times.begin(), times.end());
  const double wall = times[times.size() / 2];
  if (r.op == "conv2d") {
    const Conv2dShape& s = r.conv;
    y = from_blocked(yb, s.n, s.o, s.oh(), s.ow(), kConvOutBlock);
    compare(y, conv2d_reference<In, Acc>(x, w, s), terms, j);
  } else {
    compare(y, dense_reference<In, Acc>(x, w, r.m, r.n, r.k), terms, j);
  }
  j["wall_seconds"] = wall;
  j["wall_seconds_min"] = times.front();
  j["timed_runs"] = r.repeats;
  j[dt == DType::kFloat32 ? "gflops" : "gops"] = kernel.op().ops / wall * 1e-9;

  if (!r.save_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(r.save_dir, ec);
    if (ec)
      throw UserError("--save: cannot create directory '" + r.save_dir + "': " + ec.message());
    const std::filesystem::path dir(r.save_dir);
    outputs.add((dir / "input.npy").string(), encode_npy(npy_of(x_shape, x)));
    outputs.add((dir / "weight.npy").string(), encode_npy(npy_of(w_shape, w)));
    outputs.add((dir / "output.npy").string(), encode_npy(npy_of(y_shape, y)));
    j["saved"] = r.save_dir;
  }
}

void check_request(const CpuRunRequest& r) {
  if (r.threads < 1 || r.threads > 1024)
    throw UserError("--threads " + std::to_string(r.threads) + " is outside [1, 1024]");
  if (r.repeats < 1 || r.repeats > 100000)
    throw UserError("--repeats " + std::to_string(r.repeats) + " is outside [1, 100000]");
}

}  // namespace

nlohmann::ordered_json run_cpu_op(const CpuRunRequest& r, OutputSet& outputs) {
  check_request(r);
  const DType dt = parse_dtype(r.dtype, "--dtype");
  nlohmann::ordered_json j;
  j["op"] = r.op;
  if (r.op == "dense") {
    j["shape"] = {{"M", r.m}, {"N", r.n}, {"K", r.k}};
  } else if (r.op == "conv2d") {
    const Conv2dShape& s = r.conv;
    j["shape"] = conv2d_shape_json(s.n, s.h, s.w, s.c, s.o, s.kh, s.kw, s.stride, s.pad);
  }
  j["target"] = "llvm";
  j["dtype"] = r.dtype;
  j["output_dtype"] = dt == DType::kFloat32 ? "float32" : "int32";
  j["threads"] = r.threads;
  j["host_cpu"] = compiler::codegen::host_cpu_name();
  j["host_isa"] = compiler::codegen::host_isa().key();
  if (!r.schedule_info.is_null()) j["schedule"] = r.schedule_info;
  if (dt == DType::kFloat32) {
    run_typed<float, float>(r, dt, j, outputs);
  } else {
    run_typed<int8_t, int32_t>(r, dt, j, outputs);
  }
  return j;
}

std::string cpu_op_llvm_ir(const CpuRunRequest& r) {
  const DType dt = parse_dtype(r.dtype, "--dtype");
  return compiler::codegen::emit_llvm({build(r, dt).func});
}

}  // namespace weft::rt::cpu
