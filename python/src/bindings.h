// What the binding files of the `_weft` extension share: the Python-side wrappers of the
// compiler's handles (an expression, an axis, a tensor, a schedule), the conversions between
// Python values and the compiler's (dtype and scope names, numbers to constants, JSON to
// dicts), and the one registration function per area that module.cc calls.
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/quantize.h"
#include "compiler/ir/ir.h"
#include "compiler/te/schedule.h"
#include "compiler/te/tensor.h"
#include "driver/timeline.h"

namespace weft::py_bind {

namespace py = pybind11;
namespace ir = compiler::ir;
namespace te = compiler::te;
namespace cg = compiler::graph;

/// An expression (weft.te.Expr).
struct PyExpr {
  ir::Expr e;
};
/// A loop axis (weft.te.IterVar): a tensor's axis, a reduction axis or a schedule's leaf.
struct PyIterVar {
  te::IterVar iv;
};
/// A reduction body (weft.te.Reduce): what te.sum / te.max return inside a compute lambda.
struct PyReduce {
  te::Reduce r;
};
/// A tensor (weft.te.Tensor).
struct PyTensor {
  te::Tensor t;
};
/// A schedule (weft.te.Schedule); stages are looked up by tensor on every use because
/// compute_inline removes a stage.
struct PySchedule {
  std::shared_ptr<te::Schedule> s;
};

/// A network (weft.Graph): built in (weft.models) or imported (weft.from_onnx).
struct PyGraph {
  std::shared_ptr<cg::Graph> g;
  /// Imported values that are uint8 in the ONNX file (held as int8 = uint8 - 128).
  std::set<cg::ValueId> uint8_values;
  /// An imported QDQ model: the float graph the accelerator quantizes, with the model's scales
  /// as fixed exponents (compiler/graph/onnx/qdq.h); empty otherwise.
  std::shared_ptr<cg::Graph> qdq_float;
  std::map<std::string, int> qdq_exponents;
  bool qdq_per_channel = false;
  std::string qdq_error;  // why the QDQ model cannot be mapped (the accelerator refuses it)
};

/// A schedule's arguments as weft.build takes them: the placeholders (inputs) and computed
/// tensors (outputs) in the caller's order, each with its position among a kernel's buffers
/// (inputs first).
struct BuildArgs {
  std::vector<te::Tensor> inputs, outputs, all;
  std::vector<size_t> slot;  // all[i] is kernel buffer slot[i]
  /// The data of the caller's arrays, one per tensor in `all` (tensor_array each); UserError
  /// naming function `func` for a wrong count.
  std::vector<void*> arrays(const py::args& arrays, const std::string& func) const;
};
/// Splits and checks the argument list of weft.build / weft.lower; UserError naming the tensor.
BuildArgs split_args(const PySchedule& s, const py::sequence& args);
/// The data of a NumPy array for tensor `t`: exactly its dtype and shape, C-contiguous, and
/// writable for a computed tensor; UserError naming `where` otherwise.
void* tensor_array(py::handle h, const te::Tensor& t, const std::string& where);
/// weft.build for the accelerator (bind_accel.cc) and the GPU (bind_gpu.cc): the module object.
py::object build_accel(const PySchedule& s, BuildArgs a, const std::string& name,
                       const std::string& config, const std::string& platform);
py::object build_cuda(const PySchedule& s, BuildArgs a, const std::string& name);
/// The CUDA C of a schedule (weft.lower(..., target="cuda")).
std::string cuda_source(const PySchedule& s, const BuildArgs& a, const std::string& name);

/// "int8", "int32", "int64", "float32", "float16" as a dtype; weft::UserError otherwise.
ir::DType parse_dtype(const std::string& name, const std::string& where);
/// A memory scope by its IR name ("global", "acc.inp", "local", "shared", ...) or VTA's
/// ("local.inp_buffer", "local.wgt_buffer", "local.acc_buffer"); UserError otherwise.
ir::Scope parse_scope(const std::string& name);
/// A Python int, float, bool, Expr or IterVar as an expression; a bare number takes `like`'s
/// dtype when given (so that `x + 1` keeps x's type). UserError for anything else.
ir::Expr to_expr(py::handle h, const ir::Expr& like = nullptr);
/// A float32 array of exactly `shape` with finite elements, copied in C order; UserError naming
/// `what` otherwise.
std::vector<float> f32_array(py::handle h, const std::vector<int64_t>& shape,
                             const std::string& what);
/// The quantizer's options from weft.compile's `calibrate` (a number of synthetic samples, or
/// float32 samples of the input's shape, one or stacked on a leading axis) and `per_channel`.
cg::QuantizeOptions quantize_options(const cg::Graph& g, py::handle calibrate, bool per_channel);
/// Runs `body` with the GIL released on a worker thread while this thread polls for signals:
/// on Ctrl-C it calls `cancel` (until `body` returns) and raises KeyboardInterrupt; otherwise it
/// rethrows what `body` threw.
void run_interruptible(const std::function<void()>& body, const std::function<void()>& cancel);
/// An int8 array of `ndim` dimensions (copied in C order) and its shape; UserError naming
/// `where` for another type, dtype, rank, or an empty array.
std::vector<int8_t> int8_array(py::handle h, const std::string& where, size_t ndim,
                               std::vector<int64_t>* shape);
/// UserError "OP: NAME V is out of range (at least 1)" for a knob given below 1.
void check_knobs_at_least_1(const std::string& op,
                            const std::vector<std::pair<const char*, std::optional<int64_t>>>& knobs);
/// An operator run as weft.ops returns it: {"output": int8 array of `shape`, "stats": the
/// report, "timeline": the trace's document or None}.
py::dict op_result(const std::vector<int64_t>& shape, const std::vector<int8_t>& out,
                   const nlohmann::ordered_json& report, const driver::Timeline* trace);
/// JSON as the equivalent Python dict / list / number / string.
py::object to_python(const nlohmann::json& j);
py::object to_python(const nlohmann::ordered_json& j);

void bind_errors(py::module_& m);
void bind_te(py::module_& m);
void bind_schedule(py::module_& m);
void bind_build(py::module_& m);
void bind_ops(py::module_& m);
void bind_conv2d(py::module_& ops);
void bind_op_target(py::module_& ops);
void bind_graph(py::module_& m);
void bind_onnx(py::module_& m);
void bind_network(py::module_& m);
void bind_isa(py::module_& m);
void bind_accel(py::module_& m);
void bind_gpu(py::module_& m);
void bind_image(py::module_& m);
void bind_tune(py::module_& m);

}  // namespace weft::py_bind
