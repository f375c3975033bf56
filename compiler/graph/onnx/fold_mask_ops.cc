// Folders for the operators of computed attention masks; see fold_mask_ops.h. Integer results
// are computed in int64 and float ones in double (exact for float32 Mod, and rounded once on
// the store, as float32 arithmetic would).
#include "compiler/graph/onnx/fold_mask_ops.h"

#include <cmath>
#include <set>

namespace weft::compiler::onnx_import {

namespace {

bool is_integer(ElemType t) {
  return t == ElemType::kInt64 || t == ElemType::kInt32 || t == ElemType::kInt8 ||
         t == ElemType::kUint8;
}

// Mod: fmod=0 takes the divisor's sign (Python's %), fmod=1 the dividend's (C's fmod).
TensorData mod(const FoldEvaluator& e) {
  const TensorData &a = e.input(0), &b = e.input(1);
  if (a.type != b.type) e.fail("inputs differ in type");
  const bool fmod = e.int_attr("fmod", 0) != 0;
  if (!is_integer(a.type) && !fmod) e.fail("fmod must be 1 for floating-point inputs");
  TensorData out = e.blank(a.type, e.broadcast_shape({a.shape, b.shape}));
  const auto ia = a.to_int64(), ib = b.to_int64();
  const auto da = a.to_double(), db = b.to_double();
  for (int64_t i = 0, n = out.elements(); i < n; ++i) {
    const int64_t sa = FoldEvaluator::source_index(out.shape, a.shape, i),
                  sb = FoldEvaluator::source_index(out.shape, b.shape, i);
    if (!is_integer(a.type)) {
      FoldEvaluator::put(&out, i, 0, std::fmod(da[sa], db[sb]));
      continue;
    }
    const int64_t x = ia[sa], y = ib[sb];
    if (y == 0) e.fail("integer Mod by zero");
    int64_t r = y == -1 ? 0 : x % y;
    if (!fmod && r != 0 && ((r < 0) != (y < 0))) r += y;
    FoldEvaluator::put(&out, i, r, 0);
  }
  return out;
}

// Not, And, Or, Xor on bool tensors.
TensorData logic(const FoldEvaluator& e) {
  const std::string& op = e.node().op;
  const size_t n_in = op == "Not" ? 1 : 2;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t k = 0; k < n_in; ++k) {
    if (e.input(k).type != ElemType::kBool)
      e.fail("input " + std::to_string(k) + " must be bool, not " + elem_type_name(e.input(k).type));
    shapes.push_back(e.input(k).shape);
  }
  TensorData out = e.blank(ElemType::kBool, e.broadcast_shape(shapes));
  const auto a = e.input(0).to_int64();
  const auto b = n_in == 2 ? e.input(1).to_int64() : std::vector<int64_t>{};
  for (int64_t i = 0, n = out.elements(); i < n; ++i) {
    const bool x = a[FoldEvaluator::source_index(out.shape, shapes[0], i)] != 0;
    if (n_in == 1) {
      FoldEvaluator::put(&out, i, !x, 0);
      continue;
    }
    const bool y = b[FoldEvaluator::source_index(out.shape, shapes[1], i)] != 0;
    FoldEvaluator::put(&out, i, op == "And" ? (x && y) : op == "Or" ? (x || y) : (x != y), 0);
  }
  return out;
}

// Less, LessOrEqual, Greater, GreaterOrEqual.
TensorData compare(const FoldEvaluator& e) {
  const TensorData &a = e.input(0), &b = e.input(1);
  if (a.type != b.type) e.fail("inputs differ in type");
  TensorData out = e.blank(ElemType::kBool, e.broadcast_shape({a.shape, b.shape}));
  const bool integer = is_integer(a.type);
  const auto ia = a.to_int64(), ib = b.to_int64();
  const auto da = a.to_double(), db = b.to_double();
  const std::string& op = e.node().op;
  for (int64_t i = 0, n = out.elements(); i < n; ++i) {
    const int64_t sa = FoldEvaluator::source_index(out.shape, a.shape, i),
                  sb = FoldEvaluator::source_index(out.shape, b.shape, i);
    // int64 compared as integers (doubles lose precision past 2^53)
    const int c = integer ? (ia[sa] < ib[sb] ? -1 : ia[sa] > ib[sb])
                          : (da[sa] < db[sb] ? -1 : da[sa] > db[sb] ? 1 : (da[sa] == db[sb] ? 0 : 2));
    bool v = false;  // c == 2: a NaN compares false
    if (op == "Less") v = c == -1;
    if (op == "LessOrEqual") v = c == -1 || c == 0;
    if (op == "Greater") v = c == 1;
    if (op == "GreaterOrEqual") v = c == 1 || c == 0;
    FoldEvaluator::put(&out, i, v, 0);
  }
  return out;
}

TensorData neg(const FoldEvaluator& e) {
  const TensorData& a = e.input(0);
  TensorData out = e.blank(a.type, a.shape);
  const auto ia = a.to_int64();
  const auto da = a.to_double();
  for (int64_t i = 0, n = out.elements(); i < n; ++i)
    FoldEvaluator::put(&out, i, wrap_sub(0, ia[i]), -da[i]);
  return out;
}

TensorData transpose(const FoldEvaluator& e) {
  const TensorData& x = e.input(0);
  const int64_t r = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> perm;
  auto it = e.node().attrs.find("perm");
  if (it != e.node().attrs.end()) {
    perm = it->second.ints;
  } else {
    for (int64_t k = r; k-- > 0;) perm.push_back(k);
  }
  std::set<int64_t> seen;
  bool ok = static_cast<int64_t>(perm.size()) == r;
  for (int64_t p : perm) ok = ok && p >= 0 && p < r && seen.insert(p).second;
  if (!ok)
    e.fail("perm " + shape_string(perm) + " is not a permutation of the " + std::to_string(r) +
             " axes");
  std::vector<int64_t> shape;
  for (int64_t p : perm) shape.push_back(x.shape[p]);
  // An empty tensor has nothing to move, and its other sizes may be any (strides from them
  // would overflow).
  if (x.elements() == 0) return e.blank(x.type, shape);
  std::vector<int64_t> in_stride(r, 1);
  for (int64_t k = r - 1; k > 0; --k) in_stride[k - 1] = in_stride[k] * x.shape[k];
  TensorData out = e.blank(x.type, shape);
  for (int64_t i = 0, n = out.elements(); i < n; ++i) {
    int64_t flat = i, src = 0;
    for (int64_t k = r; k-- > 0;) {
      src += (flat % shape[k]) * in_stride[perm[k]];
      flat /= shape[k];
    }
    FoldEvaluator::copy_elem(x, src, &out, i);
  }
  return out;
}

// ScatterND (reduction "none", the default): a copy of data with the slices that indices'
// last axis names replaced by updates.
TensorData scatter_nd(const FoldEvaluator& e) {
  auto it = e.node().attrs.find("reduction");
  if (it != e.node().attrs.end() && it->second.s != "none")
    e.fail("reduction '" + it->second.s + "' is not folded (only 'none')");
  const TensorData &data = e.input(0), &idx = e.input(1), &upd = e.input(2);
  if (upd.type != data.type) e.fail("updates and data differ in type");
  const std::vector<int64_t> ind = e.int_list_any(1);
  if (idx.shape.empty()) e.fail("indices is a scalar");
  const int64_t k = idx.shape.back(), r = static_cast<int64_t>(data.shape.size());
  if (k < 1 || k > r)
    e.fail("indices' last dimension " + std::to_string(k) + " is outside 1.." + std::to_string(r));
  std::vector<int64_t> want(idx.shape.begin(), idx.shape.end() - 1);
  want.insert(want.end(), data.shape.begin() + k, data.shape.end());
  if (upd.shape != want)
    e.fail("updates of shape " + shape_string(upd.shape) + " do not match " + shape_string(want));
  int64_t slice = 1;
  for (int64_t d = k; d < r; ++d) slice *= data.shape[d];
  TensorData out = data;
  for (int64_t t = 0, n = static_cast<int64_t>(ind.size()) / k; t < n; ++t) {
    int64_t at = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t j = ind[t * k + d];
      const int64_t dim = data.shape[d];
      if (j < 0) j += dim;
      if (j < 0 || j >= dim)
        e.fail("index " + std::to_string(ind[t * k + d]) + " is outside axis " +
               std::to_string(d) + " of " + shape_string(data.shape));
      at = at * dim + j;
    }
    for (int64_t s = 0; s < slice; ++s) FoldEvaluator::copy_elem(upd, t * slice + s, &out, at * slice + s);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& mask_fold_operators() {
  static const std::vector<std::string> ops = {
      "Mod", "Not", "And", "Or", "Xor", "Less", "LessOrEqual", "Greater", "GreaterOrEqual",
      "Neg", "Transpose", "ScatterND"};
  return ops;
}

std::optional<TensorData> evaluate_mask_op(const FoldEvaluator& e) {
  const std::string& op = e.node().op;
  if (op == "Mod") return mod(e);
  if (op == "Not" || op == "And" || op == "Or" || op == "Xor") return logic(e);
  if (op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual")
    return compare(e);
  if (op == "Neg") return neg(e);
  if (op == "Transpose") return transpose(e);
  if (op == "ScatterND") return scatter_nd(e);
  return std::nullopt;
}

}  // namespace weft::compiler::onnx_import
