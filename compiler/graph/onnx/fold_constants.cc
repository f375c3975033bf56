// Constant folding of exporters' shape sub-graphs at import; see fold_constants.h. Values are
// TensorData (element bytes plus shape); operators that only move elements copy bytes, so they
// work for every element type, and the arithmetic ones widen to int64 or double.
#include "compiler/graph/onnx/fold_constants.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "compiler/graph/onnx/fold_evaluator.h"
#include "compiler/graph/onnx/fold_mask_ops.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {

namespace {

class Evaluator : public FoldEvaluator {
 public:
  using FoldEvaluator::FoldEvaluator;

  TensorData run() {
    const std::string& op = n_.op;
    if (op == "Shape") return shape();
    if (op == "Gather") return gather();
    if (op == "Unsqueeze" || op == "Squeeze") return squeeze();
    if (op == "Concat") return concat();
    if (op == "ConstantOfShape") return constant_of_shape();
    if (op == "Expand") return broadcast_copy(input(0), {&input(0), &input(1)}, true);
    if (op == "Range") return range();
    if (op == "Cast") return cast();
    if (op == "Equal") return equal();
    if (op == "Where") return where();
    if (op == "Slice") return slice();
    if (op == "Reshape") return reshape();
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") return arithmetic();
    if (auto r = evaluate_mask_op(*this)) return *std::move(r);
    fail("operator " + op + " is not folded at import");
  }

 private:
  TensorData ints(const std::vector<int64_t>& v) const {
    TensorData t = blank(ElemType::kInt64, {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i) put(&t, static_cast<int64_t>(i), v[i], 0);
    return t;
  }

  // `data` broadcast against the shapes of `all` (Expand: the second is a shape input).
  TensorData broadcast_copy(const TensorData& data, std::vector<const TensorData*> all,
                            bool second_is_shape) {
    std::vector<std::vector<int64_t>> shapes;
    for (size_t i = 0; i < all.size(); ++i)
      shapes.push_back(second_is_shape && i == 1 ? int_list(1, "the shape") : all[i]->shape);
    TensorData out = blank(data.type, broadcast_shape(shapes));
    for (int64_t i = 0, n = out.elements(); i < n; ++i)
      copy_elem(data, source_index(out.shape, data.shape, i), &out, i);
    return out;
  }

  TensorData shape() {
    const auto& s = input(0).shape;
    const int64_t r = static_cast<int64_t>(s.size());
    auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
    const int64_t b = clamp(int_attr("start", 0)), e = clamp(int_attr("end", r));
    return ints(std::vector<int64_t>(s.begin() + b, s.begin() + std::max(b, e)));
  }

  TensorData gather() {
    const TensorData& d = input(0);
    if (d.shape.empty()) fail("data is a scalar");
    const int64_t axis = norm_axis(int_attr("axis", 0), static_cast<int64_t>(d.shape.size()));
    const std::vector<int64_t> idx = int_list_any(1);
    std::vector<int64_t> shape(d.shape.begin(), d.shape.begin() + axis);
    const auto& is = input(1).shape;
    shape.insert(shape.end(), is.begin(), is.end());
    shape.insert(shape.end(), d.shape.begin() + axis + 1, d.shape.end());
    TensorData out = blank(d.type, shape);
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= d.shape[k];
    for (size_t k = axis + 1; k < d.shape.size(); ++k) inner *= d.shape[k];
    const int64_t dim = d.shape[axis];
    int64_t o = 0;
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t j : idx) {
        const int64_t at = j < 0 ? j + dim : j;
        if (at < 0 || at >= dim)
          fail("index " + std::to_string(j) + " is outside axis " + std::to_string(axis) + " of " +
               shape_string(d.shape));
        for (int64_t k = 0; k < inner; ++k) copy_elem(d, (a * dim + at) * inner + k, &out, o++);
      }
    return out;
  }

  TensorData squeeze() {
    TensorData out = input(0);
    std::vector<int64_t> axes;
    auto it = n_.attrs.find("axes");
    if (it != n_.attrs.end())
      axes = it->second.ints;
    else if (has(1))
      axes = int_list(1, "axes");
    const auto& s = out.shape;
    const int64_t r = static_cast<int64_t>(s.size());
    std::vector<int64_t> shape;
    if (n_.op == "Unsqueeze") {
      const int64_t out_rank = r + static_cast<int64_t>(axes.size());
      std::set<int64_t> at;
      for (int64_t a : axes)
        if (!at.insert(norm_axis(a, out_rank)).second)
          fail("axis " + std::to_string(a) + " is repeated");
      for (int64_t d = 0, next = 0; d < out_rank; ++d) shape.push_back(at.count(d) ? 1 : s[next++]);
    } else {
      std::set<int64_t> at;
      for (int64_t a : axes) at.insert(norm_axis(a, r));
      for (int64_t d = 0; d < r; ++d) {
        const bool drop = axes.empty() ? s[d] == 1 : at.count(d) != 0;
        if (drop && s[d] != 1)
          fail("axis " + std::to_string(d) + " of " + shape_string(s) + " is not 1");
        if (!drop) shape.push_back(s[d]);
      }
    }
    out.shape = shape;
    return out;
  }

  TensorData concat() {
    const TensorData& first = input(0);
    if (first.shape.empty()) fail("input 0 is a scalar");
    const int64_t r = static_cast<int64_t>(first.shape.size());
    auto it = n_.attrs.find("axis");
    if (it == n_.attrs.end()) fail("attribute 'axis' is missing");
    const int64_t axis = norm_axis(it->second.i, r);
    std::vector<int64_t> shape = first.shape;
    shape[axis] = 0;
    for (size_t i = 0; i < in_.size(); ++i) {
      const TensorData& t = input(i);
      bool same = t.type == first.type && t.shape.size() == first.shape.size();
      for (int64_t k = 0; same && k < r; ++k) same = k == axis || t.shape[k] == first.shape[k];
      if (!same)
        fail("input " + std::to_string(i) + " (" + elem_type_name(t.type) + " " +
             shape_string(t.shape) + ") does not concatenate with input 0 (" +
             elem_type_name(first.type) + " " + shape_string(first.shape) + ") on axis " +
             std::to_string(axis));
      shape[axis] += t.shape[axis];
    }
    TensorData out = blank(first.type, shape);
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= shape[k];
    for (int64_t k = axis + 1; k < r; ++k) inner *= shape[k];
    int64_t o = 0;
    for (int64_t a = 0; a < outer; ++a)
      for (const TensorData* t : in_) {
        const int64_t block = t->shape[axis] * inner;
        for (int64_t k = 0; k < block; ++k) copy_elem(*t, a * block + k, &out, o++);
      }
    return out;
  }

  TensorData constant_of_shape() {
    TensorData value = TensorData::from_float({1}, {0.0f});
    auto it = n_.attrs.find("value");
    if (it != n_.attrs.end()) {
      if (it->second.kind != Attribute::Kind::kTensor || it->second.t.elements() != 1)
        fail("attribute 'value' must be a one-element tensor");
      value = it->second.t;
    }
    TensorData out = blank(value.type, int_list(0, "the shape"));
    for (int64_t i = 0, n = out.elements(); i < n; ++i) copy_elem(value, 0, &out, i);
    return out;
  }

  TensorData range() {
    for (size_t i = 0; i < 3; ++i)
      if (input(i).elements() != 1) fail("input " + std::to_string(i) + " is not a scalar");
    const ElemType t = input(0).type;
    const double start = input(0).to_double()[0], limit = input(1).to_double()[0],
                 delta = input(2).to_double()[0];
    if (delta == 0) fail("delta is 0");
    const double steps = std::ceil((limit - start) / delta);
    if (!(steps <= double(kMaxFoldedElements))) fail("the range has more than 2^24 elements");
    TensorData out = blank(t, {std::max<int64_t>(0, static_cast<int64_t>(steps))});
    const int64_t istart = input(0).to_int64()[0], idelta = input(2).to_int64()[0];
    for (int64_t i = 0, n = out.elements(); i < n; ++i)
      put(&out, i, wrap_add(istart, wrap_mul(i, idelta)), start + static_cast<double>(i) * delta);
    return out;
  }

  TensorData cast() {
    const int64_t to = int_attr("to", -1);
    ElemType t;
    switch (to) {
      case 1:
        t = ElemType::kFloat32;
        break;
      case 2:
        t = ElemType::kUint8;
        break;
      case 3:
        t = ElemType::kInt8;
        break;
      case 6:
        t = ElemType::kInt32;
        break;
      case 7:
        t = ElemType::kInt64;
        break;
      case 9:
        t = ElemType::kBool;
        break;
      default:
        fail("Cast to " + onnx_type_name(static_cast<int32_t>(to)) +
             " is not folded (float32, uint8, int8, int32, int64 or bool)");
    }
    const TensorData& x = input(0);
    TensorData out = blank(t, x.shape);
    const std::vector<double> d = x.to_double();
    const std::vector<int64_t> iv = x.to_int64();
    for (int64_t i = 0, n = out.elements(); i < n; ++i) {
      // float to integer truncates (to_int64 saturates); to bool is "not zero" of the value
      const int64_t v = t == ElemType::kBool ? (d[i] != 0) : iv[i];
      put(&out, i, v, d[i]);
    }
    return out;
  }

  TensorData equal() {
    const TensorData &a = input(0), &b = input(1);
    if (a.type != b.type)
      fail(std::string("inputs differ in type (") + elem_type_name(a.type) + " and " +
           elem_type_name(b.type) + ")");
    TensorData out = blank(ElemType::kBool, broadcast_shape({a.shape, b.shape}));
    const auto da = a.to_double(), db = b.to_double();
    const auto ia = a.to_int64(), ib = b.to_int64();
    const bool fl = a.type == ElemType::kFloat32;
    for (int64_t i = 0, n = out.elements(); i < n; ++i) {
      const int64_t sa = source_index(out.shape, a.shape, i),
                    sb = source_index(out.shape, b.shape, i);
      put(&out, i, fl ? da[sa] == db[sb] : ia[sa] == ib[sb], 0);
    }
    return out;
  }

  TensorData where() {
    const TensorData &c = input(0), &x = input(1), &y = input(2);
    if (c.type != ElemType::kBool) fail("the condition must be bool");
    if (x.type != y.type) fail("X and Y differ in type");
    TensorData out = blank(x.type, broadcast_shape({c.shape, x.shape, y.shape}));
    const auto cv = c.to_int64();
    for (int64_t i = 0, n = out.elements(); i < n; ++i) {
      const bool take_x = cv[source_index(out.shape, c.shape, i)] != 0;
      const TensorData& src = take_x ? x : y;
      copy_elem(src, source_index(out.shape, src.shape, i), &out, i);
    }
    return out;
  }

  TensorData slice() {
    const TensorData& d = input(0);
    const int64_t r = static_cast<int64_t>(d.shape.size());
    const std::vector<int64_t> starts = int_list(1, "starts"), ends = int_list(2, "ends");
    std::vector<int64_t> axes, steps;
    if (has(3))
      axes = int_list(3, "axes");
    else
      for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
    if (has(4))
      steps = int_list(4, "steps");
    else
      steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size())
      fail("starts, ends, axes and steps differ in length");
    std::vector<int64_t> first(r, 0), step(r, 1), shape = d.shape;
    std::set<int64_t> seen;
    for (size_t k = 0; k < starts.size(); ++k) {
      const int64_t a = norm_axis(axes[k], r), dim = d.shape[a], s = steps[k];
      if (!seen.insert(a).second) fail("axis " + std::to_string(axes[k]) + " is repeated");
      if (s == 0) fail("step 0 on axis " + std::to_string(a));
      auto at = [&](int64_t v, int64_t lo, int64_t hi) {
        return std::clamp<int64_t>(v < 0 ? v + dim : v, lo, hi);
      };
      const int64_t b = s > 0 ? at(starts[k], 0, dim) : at(starts[k], -1, dim - 1);
      const int64_t e = s > 0 ? at(ends[k], 0, dim) : at(ends[k], -1, dim - 1);
      const int64_t n = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / (-s);
      first[a] = b;
      step[a] = s;
      shape[a] = std::max<int64_t>(0, n);
    }
    TensorData out = blank(d.type, shape);
    for (int64_t i = 0, n = out.elements(); i < n; ++i) {
      int64_t flat = i, src = 0, stride = 1;
      for (int64_t k = r; k-- > 0;) {
        const int64_t c = flat % shape[k];
        flat /= shape[k];
        src += (first[k] + c * step[k]) * stride;
        stride *= d.shape[k];
      }
      copy_elem(d, src, &out, i);
    }
    return out;
  }

  TensorData reshape() {
    TensorData out = input(0);
    std::vector<int64_t> shape = int_list(1, "the shape");
    const bool allow_zero = int_attr("allowzero", 0) != 0;
    int64_t known = 1, infer = -1;
    for (size_t k = 0; k < shape.size(); ++k) {
      if (shape[k] == 0 && !allow_zero) {
        if (k >= out.shape.size())
          fail("shape " + shape_string(shape) + " copies a missing dimension");
        shape[k] = out.shape[k];
      }
      if (shape[k] == -1) {
        if (infer >= 0) fail("shape " + shape_string(shape) + " has more than one -1");
        infer = static_cast<int64_t>(k);
        continue;
      }
      if (shape[k] < 0) fail("shape " + shape_string(shape) + " has a negative dimension");
      if (__builtin_mul_overflow(known, shape[k], &known))
        fail("cannot reshape " + shape_string(out.shape) + " to " + shape_string(shape) +
             ": the dimensions' product is past int64");
    }
    const int64_t n = out.elements();
    if (infer >= 0) {
      if (known == 0 || n % known)
        fail("cannot reshape " + shape_string(out.shape) + " to " + shape_string(shape));
      shape[infer] = n / known;
    } else if (known != n) {
      fail("cannot reshape " + shape_string(out.shape) + " to " + shape_string(shape));
    }
    out.shape = shape;
    return out;
  }

  TensorData arithmetic() {
    const TensorData &a = input(0), &b = input(1);
    const bool integer = a.type == ElemType::kInt64 || a.type == ElemType::kInt32;
    if (!(integer || a.type == ElemType::kFloat32) || b.type != a.type)
      fail(std::string("is folded for int64, int32 or float32 inputs of one type, not ") +
           elem_type_name(a.type) + " and " + elem_type_name(b.type));
    TensorData out = blank(a.type, broadcast_shape({a.shape, b.shape}));
    const char op = n_.op[0];
    if (!integer) {  // in double, rounded once to float32: float32's own result
      const auto da = a.to_double(), db = b.to_double();
      for (int64_t i = 0, n = out.elements(); i < n; ++i) {
        const double x = da[source_index(out.shape, a.shape, i)],
                     y = db[source_index(out.shape, b.shape, i)];
        put(&out, i, 0, op == 'A' ? x + y : op == 'S' ? x - y : op == 'M' ? x * y : x / y);
      }
      return out;
    }
    const auto ia = a.to_int64(), ib = b.to_int64();
    for (int64_t i = 0, n = out.elements(); i < n; ++i) {
      const int64_t x = ia[source_index(out.shape, a.shape, i)],
                    y = ib[source_index(out.shape, b.shape, i)];
      int64_t v = 0;
      switch (op) {
        case 'A':
          v = wrap_add(x, y);
          break;
        case 'S':
          v = wrap_sub(x, y);
          break;
        case 'M':
          v = wrap_mul(x, y);
          break;
        default:
          if (y == 0) fail("integer division by zero");
          // The one quotient that overflows wraps to itself.
          v = y == -1 ? wrap_sub(0, x) : x / y;
      }
      put(&out, i, v, 0);
    }
    return out;
  }

};

}  // namespace

const std::vector<std::string>& foldable_operators() {
  static const std::vector<std::string> ops = {
      "Shape",   "Gather", "Unsqueeze", "Squeeze", "Concat", "ConstantOfShape",
      "Expand",  "Range",  "Cast",      "Equal",   "Where",  "Slice",
      "Reshape", "Add",    "Sub",       "Mul",     "Div"};
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v = ops;
    for (const auto& o : mask_fold_operators()) v.push_back(o);
    return v;
  }();
  return all;
}

TensorData evaluate_constant_node(const Model& model, const Node& n,
                                  const std::vector<const TensorData*>& inputs) {
  return Evaluator(model, n, inputs).run();
}

bool fold_node(Model* model, const Node& n, const StaticShapeOf& shape_of, bool float_arithmetic) {
  Model& m = *model;
  const auto& ops = foldable_operators();
  if (!n.domain.empty() || n.outputs.size() != 1 || n.inputs.empty() ||
      std::find(ops.begin(), ops.end(), n.op) == ops.end())
    return false;
  std::vector<const TensorData*> ins;
  TensorData shape_only;  // Shape of a computed value whose shape is static
  for (const std::string& in : n.inputs) {
    if (in.empty()) {
      ins.push_back(nullptr);
      continue;
    }
    auto c = m.initializers.find(in);
    if (c != m.initializers.end()) {
      // Float operators on a large weight are the importer's (a folded result holds at most
      // 2^24 elements).
      if (c->second.type == ElemType::kFloat32 && c->second.elements() > kMaxFoldedElements)
        return false;
      ins.push_back(&c->second);
      continue;
    }
    if (n.op != "Shape" || !shape_of(in, &shape_only.shape)) return false;
    ins.push_back(&shape_only);
  }
  // Arithmetic on float constants is the importer's (it keeps float nodes) unless asked for.
  if (n.op == "Add" || n.op == "Sub" || n.op == "Mul" || n.op == "Div") {
    if (ins.size() != 2 || !ins[0] || !ins[1]) return false;
    if (ins[0]->type == ElemType::kFloat32 && !float_arithmetic) return false;
  }
  TensorData v = evaluate_constant_node(m, n, ins);
  ValueType vt;
  vt.type = v.type;
  vt.shape = v.shape;
  vt.has_shape = true;
  m.types[n.outputs[0]] = vt;
  m.initializers[n.outputs[0]] = std::move(v);
  return true;
}

void fold_constants(Model* model) {
  Model& m = *model;
  const StaticShapeOf from_inference = [&m](const std::string& name, std::vector<int64_t>* shape) {
    auto t = m.types.find(name);
    if (t == m.types.end() || !t->second.has_shape ||
        std::any_of(t->second.shape.begin(), t->second.shape.end(), [](int64_t d) { return d < 0; }))
      return false;
    *shape = t->second.shape;
    return true;
  };
  std::vector<Node> kept;
  for (Node& n : m.nodes)
    if (!fold_node(&m, n, from_inference, false)) kept.push_back(std::move(n));
  m.nodes = std::move(kept);
}

}  // namespace weft::compiler::onnx_import
