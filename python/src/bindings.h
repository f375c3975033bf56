// What the binding files of the `_weft` extension share: the Python-side wrappers of the
// compiler's handles (an expression, an axis, a tensor, a schedule), the conversions between
// Python values and the compiler's (dtype and scope names, numbers to constants, JSON to
// dicts), and the one registration function per area that module.cc calls.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/te/schedule.h"
#include "compiler/te/tensor.h"

namespace weft::py_bind {

namespace py = pybind11;
namespace ir = compiler::ir;
namespace te = compiler::te;

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

/// "int8", "int32", "int64", "float32", "float16" as a dtype; weft::UserError otherwise.
ir::DType parse_dtype(const std::string& name, const std::string& where);
/// A memory scope by its IR name ("global", "acc.inp", "local", "shared", ...) or VTA's
/// ("local.inp_buffer", "local.wgt_buffer", "local.acc_buffer"); UserError otherwise.
ir::Scope parse_scope(const std::string& name);
/// A Python int, float, bool, Expr or IterVar as an expression; a bare number takes `like`'s
/// dtype when given (so that `x + 1` keeps x's type). UserError for anything else.
ir::Expr to_expr(py::handle h, const ir::Expr& like = nullptr);
/// JSON as the equivalent Python dict / list / number / string.
py::object to_python(const nlohmann::json& j);
py::object to_python(const nlohmann::ordered_json& j);

void bind_errors(py::module_& m);
void bind_te(py::module_& m);
void bind_schedule(py::module_& m);
void bind_build(py::module_& m);
void bind_ops(py::module_& m);
void bind_graph(py::module_& m);

}  // namespace weft::py_bind
