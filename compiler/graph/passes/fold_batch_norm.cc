// Pass fold_batch_norm; see fold_batch_norm.h.
#include "compiler/graph/passes/fold_batch_norm.h"

#include <cmath>

namespace weft::compiler::graph::passes {

int fold_batch_norm(Graph& g) {
  int folded = 0;
  for (NodeId id : g.topo_order()) {
    const Node bn = g.node(id);
    if (bn.kind != OpKind::BatchNormalization || bn.dead) continue;
    const Node* conv = g.producer(bn.inputs[0]);
    if (!conv || conv->kind != OpKind::Conv || g.consumers(bn.inputs[0]).size() != 1) continue;
    const Value& wv = g.value(conv->inputs[1]);
    bool consts = wv.is_constant() && wv.type.dtype == DType::F32;
    for (int i = 1; i < 5; ++i) consts &= g.value(bn.inputs[i]).is_constant();
    const bool has_bias = conv->inputs.size() > 2 && conv->inputs[2] != kNone;
    if (has_bias) consts &= g.value(conv->inputs[2]).is_constant();
    if (!consts) continue;
    const int64_t oc = wv.type.shape[0], per = wv.type.elements() / oc;
    const float *gam = g.value(bn.inputs[1]).data->f32(), *beta = g.value(bn.inputs[2]).data->f32(),
                *mean = g.value(bn.inputs[3]).data->f32(), *var = g.value(bn.inputs[4]).data->f32();
    const double eps = bn.get_float("epsilon", 1e-5);
    std::vector<float> w(wv.data->f32(), wv.data->f32() + wv.type.elements()), b(oc, 0.0f);
    for (int64_t o = 0; o < oc; ++o) {
      const double s = gam[o] / std::sqrt(static_cast<double>(var[o]) + eps);
      for (int64_t i = 0; i < per; ++i) w[o * per + i] = static_cast<float>(w[o * per + i] * s);
      const double b0 = has_bias ? g.value(conv->inputs[2]).data->f32()[o] : 0.0;
      b[o] = static_cast<float>((b0 - mean[o]) * s + beta[o]);
    }
    const Node c = *conv;
    const std::string wname = wv.name;
    const TensorType wtype = wv.type, otype = g.value(c.outputs[0]).type;
    const std::string oname = g.value(c.outputs[0]).name;
    ValueId nw = g.add_constant(wname, wtype, ConstData::from_f32(w));
    ValueId nb = g.add_constant(c.name + ".b", TensorType(DType::F32, {oc}), ConstData::from_f32(b));
    NodeId nc =
        g.add_node(OpKind::Conv, c.name, {c.inputs[0], nw, nb}, c.attrs, {otype}, {oname}, c.facts);
    g.replace_uses(bn.outputs[0], g.node(nc).outputs[0]);
    g.erase_node(id);
    g.erase_node(c.id);
    ++folded;
  }
  g.prune();
  return folded;
}

}  // namespace weft::compiler::graph::passes
