// weft.te's expressions and tensors: Expr with Python's arithmetic operators, IterVar (an axis
// usable wherever an expression is), reduce_axis, sum/max/min, casts, select, placeholder and
// compute. compute calls the Python lambda once on fresh variables to learn its body (and its
// dtype, unless given), then defines the tensor through te::compute / te::compute_reduce with
// those variables replaced by the tensor's own axes.
#include <pybind11/stl.h>

#include "compiler/ir/printer.h"
#include "compiler/ir/substitute.h"
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"

namespace weft::py_bind {

namespace {

// `a op b` where either side may be a Python number (which takes the other side's dtype).
ir::Expr arith(ir::BinOp op, py::handle x, py::handle y) {
  const bool x_num = !py::isinstance<PyExpr>(x) && !py::isinstance<PyIterVar>(x);
  ir::Expr b = to_expr(y, x_num ? nullptr : to_expr(x));
  ir::Expr a = to_expr(x, b);
  return ir::binary(op, a, b);
}

// The arithmetic and comparison operators of Expr and IterVar (self converts to an Expr).
template <typename Cls>
void def_operators(Cls& c) {
  using B = ir::BinOp;
  auto op = [](B o) {
    return [o](py::handle self, py::handle other) { return PyExpr{arith(o, self, other)}; };
  };
  auto rop = [](B o) {
    return [o](py::handle self, py::handle other) { return PyExpr{arith(o, other, self)}; };
  };
  c.def("__add__", op(B::kAdd)).def("__radd__", rop(B::kAdd));
  c.def("__sub__", op(B::kSub)).def("__rsub__", rop(B::kSub));
  c.def("__mul__", op(B::kMul)).def("__rmul__", rop(B::kMul));
  c.def("__floordiv__", op(B::kFloorDiv)).def("__rfloordiv__", rop(B::kFloorDiv));
  c.def("__mod__", op(B::kFloorMod)).def("__rmod__", rop(B::kFloorMod));
  c.def("__rshift__", op(B::kShr));
  c.def("__lt__", op(B::kLt)).def("__ge__", op(B::kGe));
  c.def("__gt__", rop(B::kLt)).def("__le__", rop(B::kGe));
  c.def("__and__", op(B::kAnd)).def("__rand__", rop(B::kAnd));
  c.def("__neg__", [](py::handle self) {
    const ir::Expr e = to_expr(self);
    return PyExpr{ir::sub(to_expr(py::int_(0), e), e)};
  });
  c.def("__truediv__", [](py::handle, py::handle) -> PyExpr {
    throw UserError("'/' is not in Weft's IR: use '//' (floor division) on integers");
  });
  c.def("astype", [](py::handle self, const std::string& dtype) {
    return PyExpr{ir::cast(parse_dtype(dtype, "astype"), to_expr(self))};
  });
  c.def_property_readonly("dtype",
                          [](py::handle self) { return ir::dtype_name(to_expr(self)->dtype); });
  // No __eq__: expressions compare by identity (== would have to build an expression).
  c.def("__bool__", [](py::handle) -> bool {
    throw UserError("a tensor expression has no truth value (use te.select for a condition)");
  });
}

std::vector<te::IterVar> axes_of(py::handle axis) {
  std::vector<te::IterVar> out;
  if (py::isinstance<PyIterVar>(axis)) {
    out.push_back(axis.cast<const PyIterVar&>().iv);
  } else if (py::isinstance<py::sequence>(axis)) {
    for (py::handle h : axis.cast<py::sequence>()) {
      if (!py::isinstance<PyIterVar>(h)) throw UserError("axis: expected te.reduce_axis values");
      out.push_back(h.cast<const PyIterVar&>().iv);
    }
  } else {
    throw UserError("axis: expected a te.reduce_axis or a list of them");
  }
  return out;
}

std::vector<int64_t> shape_of(py::handle shape, const std::string& what) {
  std::vector<int64_t> out;
  if (py::isinstance<py::int_>(shape)) return {shape.cast<int64_t>()};
  if (!py::isinstance<py::sequence>(shape))
    throw UserError(what + ": the shape must be a tuple of ints");
  for (py::handle h : shape.cast<py::sequence>()) {
    if (!py::isinstance<py::int_>(h)) throw UserError(what + ": the shape must be a tuple of ints");
    const int64_t d = h.cast<int64_t>();
    if (d <= 0)
      throw UserError(what + ": dimension " + std::to_string(d) + " is not positive");
    out.push_back(d);
  }
  if (out.empty()) throw UserError(what + ": a tensor needs at least one dimension");
  return out;
}

// te.compute: the lambda's body on fresh variables, then the tensor over its own axes.
PyTensor compute(py::handle shape_h, const py::function& f, const std::string& name,
                 const std::optional<std::string>& dtype) {
  const std::vector<int64_t> shape = shape_of(shape_h, "compute '" + name + "'");
  std::vector<ir::Var> vars;
  py::tuple args(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    vars.push_back(ir::make_var("ax" + std::to_string(d)));
    args[d] = PyExpr{ir::ref(vars.back())};
  }
  py::object body = f(*args);
  auto rename = [&vars](const ir::Expr& e, const std::vector<ir::Expr>& axes) {
    ir::VarMap map;
    for (size_t d = 0; d < vars.size(); ++d) map[vars[d].get()] = axes[d];
    return ir::substitute(e, map);
  };
  if (py::isinstance<PyReduce>(body)) {
    const te::Reduce r = body.cast<const PyReduce&>().r;
    const ir::DType t = dtype ? parse_dtype(*dtype, "compute '" + name + "'") : r.value->dtype;
    return PyTensor{te::compute_reduce(
        shape, t,
        [&](const std::vector<ir::Expr>& axes) {
          return te::Reduce{rename(r.value, axes), r.axes, r.op};
        },
        name)};
  }
  const ir::Expr value = to_expr(body);
  const ir::DType t = dtype ? parse_dtype(*dtype, "compute '" + name + "'") : value->dtype;
  return PyTensor{te::compute(
      shape, t, [&](const std::vector<ir::Expr>& axes) { return rename(value, axes); }, name)};
}

PyExpr load(const PyTensor& t, py::handle index) {
  std::vector<ir::Expr> idx;
  if (py::isinstance<py::tuple>(index)) {
    for (py::handle h : index.cast<py::tuple>()) idx.push_back(to_expr(h));
  } else {
    idx.push_back(to_expr(index));
  }
  for (const ir::Expr& e : idx) {
    if (ir::is_float(e->dtype))
      throw UserError("tensor '" + t.t->name + "' indexed with a float expression");
  }
  return PyExpr{t.t(std::move(idx))};
}

py::list iter_vars(const std::vector<te::IterVar>& v) {
  py::list out;
  for (const te::IterVar& iv : v) out.append(PyIterVar{iv});
  return out;
}

}  // namespace

void bind_te(py::module_& root) {
  py::module_ m = root.def_submodule("te", "tensor expressions (weft.te re-exports these)");

  auto expr = py::class_<PyExpr>(m, "Expr", "A tensor expression.");
  def_operators(expr);
  expr.def("__repr__", [](const PyExpr& e) { return ir::to_string(e.e); });

  auto iv = py::class_<PyIterVar>(m, "IterVar", "A loop axis (usable as an expression).");
  def_operators(iv);
  iv.def_property_readonly("name", [](const PyIterVar& v) { return v.iv->name(); })
      .def_property_readonly("extent", [](const PyIterVar& v) { return v.iv->extent; })
      .def_property_readonly("dom", [](const PyIterVar& v) { return py::make_tuple(0, v.iv->extent); })
      .def_property_readonly("var", [](const PyIterVar& v) { return PyExpr{ir::ref(v.iv->var)}; })
      .def_property_readonly("is_reduce", [](const PyIterVar& v) { return v.iv->reduce; })
      .def("__repr__", [](const PyIterVar& v) {
        return "IterVar(" + v.iv->name() + ", extent=" + std::to_string(v.iv->extent) +
               (v.iv->reduce ? ", reduce)" : ")");
      });

  py::class_<PyReduce>(m, "Reduce", "A reduction (te.sum, te.max); a compute lambda returns it.")
      .def("__repr__", [](const PyReduce& r) {
        return std::string(r.r.op == te::ReduceOp::kSum ? "sum(" : "max(") +
               ir::to_string(r.r.value) + ")";
      });

  py::class_<PyTensor>(m, "Tensor", "A placeholder or a computed tensor.")
      .def("__getitem__", &load)
      .def_property_readonly("name", [](const PyTensor& t) { return t.t->name; })
      .def_property_readonly("dtype", [](const PyTensor& t) { return ir::dtype_name(t.t->dtype); })
      .def_property_readonly("shape", [](const PyTensor& t) { return py::tuple(py::cast(t.t->shape)); })
      .def_property_readonly("ndim", [](const PyTensor& t) { return t.t->shape.size(); })
      .def_property_readonly("axis", [](const PyTensor& t) { return iter_vars(t.t->axes); })
      .def_property_readonly("reduce_axis",
                             [](const PyTensor& t) { return iter_vars(t.t->reduce_axes); })
      .def_property_readonly("op", [](const PyTensor& t) { return t; },
                             "The tensor itself (TVM spells the axes C.op.axis).")
      .def_property_readonly("is_placeholder", [](const PyTensor& t) { return t.t->is_placeholder; })
      .def("__repr__", [](const PyTensor& t) {
        std::string s;
        for (int64_t d : t.t->shape) s += (s.empty() ? "" : ", ") + std::to_string(d);
        return "Tensor(" + t.t->name + ", (" + s + "), " + ir::dtype_name(t.t->dtype) + ")";
      });

  m.def("placeholder",
        [](py::handle shape, const std::string& dtype, const std::string& name) {
          return PyTensor{te::placeholder(shape_of(shape, "placeholder '" + name + "'"),
                                          parse_dtype(dtype, "placeholder '" + name + "'"), name)};
        },
        py::arg("shape"), py::arg("dtype") = "float32", py::arg("name") = "placeholder",
        "An input tensor.");
  m.def("compute", &compute, py::arg("shape"), py::arg("fcompute"), py::arg("name") = "compute",
        py::arg("dtype") = py::none(),
        "A computed tensor: fcompute(i, j, ...) returns its element (an Expr, or te.sum / "
        "te.max over reduce axes); dtype defaults to the body's.");
  m.def("reduce_axis",
        [](py::handle dom, const std::string& name) {
          int64_t lo = 0, hi = 0;
          if (py::isinstance<py::int_>(dom)) {
            hi = dom.cast<int64_t>();
          } else {
            auto t = dom.cast<std::pair<int64_t, int64_t>>();
            lo = t.first, hi = t.second;
          }
          if (lo != 0)
            throw UserError("reduce_axis '" + name + "': the range must start at 0, not " +
                            std::to_string(lo));
          return PyIterVar{te::reduce_axis(hi, name)};
        },
        py::arg("dom"), py::arg("name") = "rv", "A reduction axis over range(0, n): dom = (0, n).");
  m.def("sum",
        [](py::handle value, py::handle axis) {
          return PyReduce{te::sum(to_expr(value), axes_of(axis))};
        },
        py::arg("expr"), py::arg("axis"), "The sum of expr over reduce axes.");
  m.def("max",
        [](py::handle a, py::handle b, py::handle axis) -> py::object {
          if (!axis.is_none()) {
            if (!b.is_none()) throw UserError("te.max: give either axis= or a second operand");
            return py::cast(PyReduce{te::maximum(to_expr(a), axes_of(axis))});
          }
          if (b.is_none()) throw UserError("te.max: give axis= (a reduction) or two operands");
          return py::cast(PyExpr{arith(ir::BinOp::kMax, a, b)});
        },
        py::arg("expr"), py::arg("other") = py::none(), py::arg("axis") = py::none(),
        "te.max(expr, axis=k): the maximum over reduce axes; te.max(a, b): element-wise.");
  m.def("min", [](py::handle a, py::handle b) { return PyExpr{arith(ir::BinOp::kMin, a, b)}; },
        py::arg("a"), py::arg("b"), "The element-wise minimum.");
  m.def("cast",
        [](py::handle v, const std::string& dtype) {
          return PyExpr{ir::cast(parse_dtype(dtype, "cast"), to_expr(v))};
        },
        py::arg("value"), py::arg("dtype"));
  m.def("const",
        [](py::handle v, const std::string& dtype) {
          const ir::DType t = parse_dtype(dtype, "const");
          if (ir::is_float(t)) return PyExpr{ir::fimm(v.cast<double>(), t)};
          return PyExpr{ir::imm(v.cast<int64_t>(), t)};
        },
        py::arg("value"), py::arg("dtype") = "int32");
  m.def("select",
        [](py::handle c, py::handle a, py::handle b) {
          const ir::Expr x = to_expr(a, py::isinstance<PyExpr>(b) ? to_expr(b) : nullptr);
          return PyExpr{ir::select(to_expr(c), x, to_expr(b, x))};
        },
        py::arg("cond"), py::arg("true_value"), py::arg("false_value"),
        "true_value where cond is non-zero, else false_value.");
}

}  // namespace weft::py_bind
