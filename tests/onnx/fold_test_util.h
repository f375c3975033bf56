// Helpers of the constant folder's unit tests (fold_constants_test.cc, fold_mask_ops_test.cc):
// typed constants and a one-node model whose node the folder evaluates.
#pragma once

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "compiler/graph/onnx/fold_constants.h"

namespace weft::compiler::onnx_import {

inline TensorData typed(ElemType type, std::vector<int64_t> shape, const std::vector<double>& v) {
  TensorData t;
  t.type = type;
  t.shape = std::move(shape);
  t.bytes.resize(v.size() * static_cast<size_t>(elem_bytes(type)));
  for (size_t i = 0; i < v.size(); ++i) {
    uint8_t* p = t.bytes.data() + i * static_cast<size_t>(elem_bytes(type));
    if (type == ElemType::kFloat32) {
      const float f = static_cast<float>(v[i]);
      std::memcpy(p, &f, 4);
    } else if (type == ElemType::kInt64) {
      const int64_t x = static_cast<int64_t>(v[i]);
      std::memcpy(p, &x, 8);
    } else {
      *p = static_cast<uint8_t>(static_cast<int64_t>(v[i]));
    }
  }
  return t;
}
inline TensorData i64(std::vector<int64_t> shape, const std::vector<double>& v) {
  return typed(ElemType::kInt64, std::move(shape), v);
}

inline Attribute int_attr(int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  return a;
}

struct Case {
  Model model;
  Node node;
  TensorData eval(const std::vector<const TensorData*>& ins) {
    return evaluate_constant_node(model, node, ins);
  }
};

inline Case make(const std::string& op, std::map<std::string, Attribute> attrs = {}) {
  Case c;
  c.model.path = "'m.onnx'";
  c.node.name = "n";
  c.node.op = op;
  c.node.attrs = std::move(attrs);
  c.node.outputs = {"y"};
  return c;
}

}  // namespace weft::compiler::onnx_import
