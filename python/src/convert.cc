// Conversions between Python values and the compiler's; see bindings.h.
#include <pybind11/numpy.h>

#include <cmath>
#include <cstring>
#include <map>

#include "hardware/isa/errors.h"
#include "python/src/bindings.h"

namespace weft::py_bind {

ir::DType parse_dtype(const std::string& name, const std::string& where) {
  static const std::map<std::string, ir::DType> kTypes = {{"int8", ir::DType::kInt8},
                                                          {"int32", ir::DType::kInt32},
                                                          {"int64", ir::DType::kInt64},
                                                          {"float32", ir::DType::kFloat32},
                                                          {"float16", ir::DType::kFloat16}};
  auto it = kTypes.find(name);
  if (it == kTypes.end())
    throw UserError(where + ": unknown dtype '" + name +
                    "' (int8, int32, int64, float32 or float16)");
  return it->second;
}

ir::Scope parse_scope(const std::string& name) {
  static const std::map<std::string, ir::Scope> kVta = {{"local.inp_buffer", ir::Scope::kInp},
                                                        {"local.wgt_buffer", ir::Scope::kWgt},
                                                        {"local.acc_buffer", ir::Scope::kAcc},
                                                        {"local.uop_buffer", ir::Scope::kUop}};
  if (auto it = kVta.find(name); it != kVta.end()) return it->second;
  std::string all;
  for (ir::Scope s : {ir::Scope::kGlobal, ir::Scope::kInp, ir::Scope::kWgt, ir::Scope::kAcc,
                      ir::Scope::kUop, ir::Scope::kLocal, ir::Scope::kShared}) {
    if (name == ir::scope_name(s)) return s;
    all += std::string(all.empty() ? "" : ", ") + ir::scope_name(s);
  }
  throw UserError("unknown scope '" + name + "' (" + all +
                  ", or VTA's local.inp_buffer, local.wgt_buffer, local.acc_buffer)");
}

ir::Expr to_expr(py::handle h, const ir::Expr& like) {
  if (py::isinstance<PyExpr>(h)) return h.cast<const PyExpr&>().e;
  if (py::isinstance<PyIterVar>(h)) return ir::ref(h.cast<const PyIterVar&>().iv->var);
  const bool like_float = like && ir::is_float(like->dtype);
  if (py::isinstance<py::bool_>(h) || py::isinstance<py::int_>(h)) {
    const int64_t v = h.cast<int64_t>();
    if (!like) return ir::imm(v);
    return like_float ? ir::fimm(double(v), like->dtype) : ir::imm(v, like->dtype);
  }
  if (py::isinstance<py::float_>(h))
    return ir::fimm(h.cast<double>(), like_float ? like->dtype : ir::DType::kFloat32);
  throw UserError("cannot use a " + std::string(py::str(py::type::of(h).attr("__name__"))) +
                  " (" + std::string(py::repr(h)) + ") in a tensor expression");
}

std::vector<float> f32_array(py::handle h, const std::vector<int64_t>& shape,
                             const std::string& what) {
  if (!py::isinstance<py::array>(h))
    throw UserError(what + ": expected a numpy.ndarray, got " +
                    std::string(py::str(py::type::of(h).attr("__name__"))));
  py::array a = py::reinterpret_borrow<py::array>(h);
  const std::string dtype = py::str(a.dtype());
  std::vector<int64_t> got(a.shape(), a.shape() + a.ndim());
  if (dtype != "float32") throw UserError(what + ": dtype " + dtype + ", expected float32");
  if (got != shape)
    throw UserError(what + ": shape " + cg::shape_str(got) + ", expected " + cg::shape_str(shape));
  py::array_t<float, py::array::c_style | py::array::forcecast> c(a);
  std::vector<float> v(static_cast<size_t>(c.size()));
  if (!v.empty()) std::memcpy(v.data(), c.data(), v.size() * sizeof(float));
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw UserError(what + ": element " + std::to_string(i) + " is not finite");
  return v;
}

py::object to_python(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}
py::object to_python(const nlohmann::ordered_json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

}  // namespace weft::py_bind
