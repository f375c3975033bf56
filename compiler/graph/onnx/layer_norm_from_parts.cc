// Written-out LayerNorms into LayerNormalization nodes; see layer_norm_from_parts.h.
#include "compiler/graph/onnx/layer_norm_from_parts.h"

#include <vector>

#include "compiler/graph/onnx/chain_match.h"

namespace weft::compiler::onnx_import {

using graph::Graph;
using graph::kNone;
using graph::Node;
using graph::NodeId;
using graph::OpKind;
using graph::ValueId;

namespace {

// A float32 constant of `len` elements (shape [len], or with leading 1s).
bool row_constant(const Graph& g, ValueId v, int64_t len) {
  if (v == kNone) return false;
  const graph::Value& c = g.value(v);
  return c.is_constant() && c.type.dtype == graph::DType::F32 && !c.type.shape.empty() &&
         c.type.shape.back() == len && c.type.elements() == len;
}

// Whether n is a ReduceMean over the last axis of its rank-r input, keeping it.
bool mean_of_last(const Node& n, int64_t r) {
  if (n.kind != OpKind::ReduceMean || n.get_int("keepdims", 1) != 1) return false;
  const std::vector<int64_t> axes = n.get_ints("axes");
  return axes.size() == 1 && (axes[0] == r - 1 || axes[0] == -1);
}

}  // namespace

int layer_norm_from_parts(Graph& g) {
  int rewritten = 0;
  for (NodeId id : g.topo_order()) {
    const Node& mean = g.node(id);
    if (mean.dead || mean.inputs.size() != 1) continue;
    const ValueId x = mean.inputs[0];
    const graph::TensorType& xt = g.value(x).type;
    const int64_t r = static_cast<int64_t>(xt.shape.size());
    if (xt.dtype != graph::DType::F32 || r < 1 || !mean_of_last(mean, r)) continue;
    const int64_t len = xt.shape.back();
    // d = x - mean, read by the square and by the division.
    const Node* sub = only_reader(g, mean.outputs[0], OpKind::Sub);
    if (!sub || sub->inputs.size() != 2 || sub->inputs[0] != x || sub->inputs[1] != mean.outputs[0])
      continue;
    const ValueId d = sub->outputs[0];
    const std::vector<NodeId> dr = chain_readers(g, d);
    if (dr.size() != 2) continue;
    const Node* pow = &g.node(dr[0]);
    const Node* div = &g.node(dr[1]);
    if (pow->kind == OpKind::Div) std::swap(pow, div);
    double two = 0, eps = 0;
    if (pow->kind != OpKind::Pow || div->kind != OpKind::Div || pow->inputs.size() != 2 ||
        pow->inputs[0] != d || !scalar_constant(g, pow->inputs[1], &two) || two != 2.0 ||
        div->inputs.size() != 2 || div->inputs[0] != d)
      continue;
    // var = ReduceMean(d^2) + eps, its square root the divisor.
    const Node* var = only_reader(g, pow->outputs[0], OpKind::ReduceMean);
    if (!var || !mean_of_last(*var, r)) continue;
    const Node* add_eps = only_reader(g, var->outputs[0], OpKind::Add);
    if (!add_eps || !scalar_constant(g, other_operand(*add_eps, var->outputs[0]), &eps) || eps < 0)
      continue;
    const Node* sqrt = only_reader(g, add_eps->outputs[0], OpKind::Sqrt);
    if (!sqrt || only_reader(g, sqrt->outputs[0], OpKind::Div) != div ||
        div->inputs[1] != sqrt->outputs[0])
      continue;
    // * scale, then + bias where there is one.
    const Node* mul = only_reader(g, div->outputs[0], OpKind::Mul);
    if (!mul) continue;
    const ValueId scale = other_operand(*mul, div->outputs[0]);
    if (!row_constant(g, scale, len)) continue;
    const Node* add_bias = only_reader(g, mul->outputs[0], OpKind::Add);
    const ValueId bias = add_bias ? other_operand(*add_bias, mul->outputs[0]) : kNone;
    if (!row_constant(g, bias, len)) add_bias = nullptr;
    const Node& last = add_bias ? *add_bias : *mul;
    if (g.value(last.outputs[0]).type.shape != xt.shape) continue;
    // The last node becomes the LayerNormalization (its output, and so every reader, stays).
    std::vector<NodeId> gone{mean.id, sub->id, pow->id, var->id, add_eps->id, sqrt->id, div->id};
    if (add_bias) gone.push_back(mul->id);
    Node& ln = g.node(last.id);
    ln.name = chain_name(mean.name, "LayerNormalization");
    ln.kind = OpKind::LayerNormalization;
    ln.inputs = add_bias ? std::vector<ValueId>{x, scale, bias} : std::vector<ValueId>{x, scale};
    ln.attrs.clear();
    ln.attrs["axis"] = graph::Attr{r - 1};
    ln.attrs["epsilon"] = graph::Attr{eps};
    for (NodeId n : gone) g.erase_node(n);
    ++rewritten;
  }
  if (rewritten) g.prune();
  return rewritten;
}

}  // namespace weft::compiler::onnx_import
