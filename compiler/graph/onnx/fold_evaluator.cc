// The shared helpers of import-time constant folding; see fold_evaluator.h.
#include "compiler/graph/onnx/fold_evaluator.h"

#include <algorithm>
#include <cstring>

#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {

int64_t wrap_add(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
}
int64_t wrap_sub(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
}
int64_t wrap_mul(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
}

void FoldEvaluator::fail(const std::string& what) const {
  throw UserError(m_.path + ": " + n_.where() + ": " + what);
}

const TensorData& FoldEvaluator::input(size_t i) const {
  if (i >= in_.size() || !in_[i]) fail("input " + std::to_string(i) + " is missing");
  return *in_[i];
}

int64_t FoldEvaluator::int_attr(const std::string& name, int64_t dflt) const {
  auto it = n_.attrs.find(name);
  if (it == n_.attrs.end()) return dflt;
  if (it->second.kind != Attribute::Kind::kInt) fail("attribute '" + name + "' must be an integer");
  return it->second.i;
}

std::vector<int64_t> FoldEvaluator::int_list(size_t i, const std::string& what) const {
  const TensorData& t = input(i);
  if (t.type != ElemType::kInt64 && t.type != ElemType::kInt32)
    fail(what + " must be int64, not " + elem_type_name(t.type));
  if (t.shape.size() > 1) fail(what + " of shape " + shape_string(t.shape) + " is not 1-D");
  return t.to_int64();
}

std::vector<int64_t> FoldEvaluator::int_list_any(size_t i) const {
  const TensorData& t = input(i);
  if (t.type != ElemType::kInt64 && t.type != ElemType::kInt32)
    fail("input " + std::to_string(i) + " must be int64 or int32, not " + elem_type_name(t.type));
  return t.to_int64();
}

int64_t FoldEvaluator::norm_axis(int64_t axis, int64_t rank) const {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    fail("axis " + std::to_string(axis) + " is outside -" + std::to_string(rank) + ".." +
         std::to_string(rank - 1));
  return a;
}

TensorData FoldEvaluator::blank(ElemType type, std::vector<int64_t> shape) const {
  TensorData t;
  t.type = type;
  t.shape = std::move(shape);
  for (int64_t d : t.shape)
    if (d < 0) fail("the result's shape " + shape_string(t.shape) + " has a negative dimension");
  // An empty shape's other sizes may be any: only a non-empty one is held to the limit.
  int64_t n = std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end() ? 0 : 1;
  for (int64_t d : t.shape) {
    if (n == 0) break;
    if (n > kMaxFoldedElements / d)
      fail("the result's shape " + shape_string(t.shape) + " has more than 2^24 elements");
    n *= d;
  }
  t.bytes.assign(static_cast<size_t>(n * elem_bytes(type)), 0);
  return t;
}

void FoldEvaluator::copy_elem(const TensorData& src, int64_t si, TensorData* dst, int64_t di) {
  const int b = elem_bytes(src.type);
  std::memcpy(dst->bytes.data() + di * b, src.bytes.data() + si * b, static_cast<size_t>(b));
}

void FoldEvaluator::put(TensorData* t, int64_t i, int64_t iv, double dv) {
  uint8_t* p = t->bytes.data() + i * elem_bytes(t->type);
  switch (t->type) {
    case ElemType::kFloat32: {
      const float f = static_cast<float>(dv);
      std::memcpy(p, &f, 4);
      break;
    }
    case ElemType::kInt64:
      std::memcpy(p, &iv, 8);
      break;
    case ElemType::kInt32: {
      const int32_t v = static_cast<int32_t>(iv);
      std::memcpy(p, &v, 4);
      break;
    }
    case ElemType::kInt8:
      *p = static_cast<uint8_t>(static_cast<int8_t>(iv));
      break;
    case ElemType::kUint8:
      *p = static_cast<uint8_t>(iv);
      break;
    case ElemType::kBool:
      *p = iv != 0;
      break;
  }
}

std::vector<int64_t> FoldEvaluator::broadcast_shape(
    const std::vector<std::vector<int64_t>>& shapes) const {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto& s : shapes) {
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& o = out[rank - s.size() + k];
      if (s[k] == o || s[k] == 1) continue;
      if (o != 1) {
        std::string all;
        for (const auto& t : shapes) all += (all.empty() ? "" : " and ") + shape_string(t);
        fail("shapes " + all + " do not broadcast");
      }
      o = s[k];
    }
  }
  return out;
}

int64_t FoldEvaluator::source_index(const std::vector<int64_t>& out, const std::vector<int64_t>& in,
                                    int64_t flat) {
  int64_t src = 0, stride = 1;
  for (size_t k = out.size(); k-- > 0;) {
    const int64_t c = flat % out[k];
    flat /= out[k];
    const size_t lead = out.size() - in.size();
    if (k < lead) continue;
    const int64_t d = in[k - lead];
    if (d != 1) src += c * stride;
    stride *= d;
  }
  return src;
}

}  // namespace weft::compiler::onnx_import
