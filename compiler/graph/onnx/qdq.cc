// QDQ models onto the power-of-two int8 path; see qdq.h.
#include "compiler/graph/onnx/qdq.h"

#include <cmath>

#include "compiler/graph/verify.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {

using graph::DType;
using graph::Graph;
using graph::Node;
using graph::OpKind;
using graph::TensorType;
using graph::ValueId;

bool has_qdq(const Graph& g) {
  for (const Node& n : g.nodes())
    if (!n.dead && (n.kind == OpKind::QuantizeLinear || n.kind == OpKind::DequantizeLinear ||
                    n.kind == OpKind::QLinearConv))
      return true;
  return false;
}

namespace {

class Mapper {
 public:
  explicit Mapper(const Graph& g) : g_(g) { out_.graph.set_name(g.name()); }

  QdqMapping run() {
    for (ValueId in : g_.inputs()) {
      const auto& v = g_.value(in);
      if (v.type.dtype != DType::F32)
        throw UserError("graph input '" + v.name + "' is int8: a QDQ model mapped onto the "
                        "accelerator takes a float input (quantized by its QuantizeLinear)");
      map_[in] = out_.graph.add_input(v.name, v.type);
    }
    for (graph::NodeId id : g_.topo_order()) node(g_.node(id));
    for (ValueId o : g_.outputs()) out_.graph.add_output(fp(o, nullptr));
    graph::verify(out_.graph, "map_qdq");
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const Node& n, const std::string& what) const {
    throw UserError("QDQ on the accelerator: node '" + n.name + "' (" + graph::op_name(n.kind) +
                    "): " + what);
  }

  // The float value standing for `v` in the new graph (constants copied on first use).
  ValueId fp(ValueId v, const Node* /*user*/) {
    auto it = map_.find(v);
    if (it != map_.end()) return it->second;
    const auto& val = g_.value(v);
    if (val.is_constant()) return map_[v] = out_.graph.add_constant(val.name, val.type, val.data);
    throw InternalError("map_qdq: value '" + val.name + "' read before it is mapped");
  }

  double scalar(const Node& n, size_t i, const char* what) const {
    const auto& v = g_.value(n.inputs.at(i));
    if (!v.is_constant() || v.type.elements() != 1)
      fail(n, std::string(what) + " must be a per-tensor constant");
    return v.type.dtype == DType::F32 ? double(v.data->f32()[0])
           : v.type.dtype == DType::I8 ? double(v.data->i8()[0])
                                       : double(v.data->i32()[0]);
  }
  void want_zero_point(const Node& n, size_t i) const {
    if (i < n.inputs.size() && n.inputs[i] != graph::kNone && scalar(n, i, "the zero point") != 0)
      fail(n, "a nonzero zero point (uint8 or asymmetric int8) is not supported on the "
              "accelerator, whose int8 is symmetric");
  }
  // Power-of-two exponent for a scale, recording a change.
  int exponent(const std::string& value, double s) {
    const int e = static_cast<int>(std::lround(std::log2(s)));
    if (std::exp2(e) != s) out_.changed.push_back({value, s, e});
    return e;
  }
  std::vector<float> dequantized(const Node& n, ValueId q, ValueId scale, ValueId zp, int64_t axis) {
    const auto& w = g_.value(q);
    const auto& s = g_.value(scale);
    if (!w.is_constant() || !s.is_constant()) fail(n, "needs constant weights and scales");
    const int64_t count = w.type.elements(), ns = s.type.elements();
    if (ns > 1) out_.per_channel_weights = true;
    int64_t inner = 1;
    if (ns > 1)
      for (int64_t d = axis + 1; d < w.type.rank(); ++d) inner *= w.type.shape[d];
    std::vector<float> out(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      const int64_t c = ns > 1 ? (i / inner) % w.type.shape[axis] : 0;
      int32_t zero = 0;
      if (zp != graph::kNone) {
        const auto& z = g_.value(zp);
        zero = z.type.dtype == DType::I8 ? z.data->i8()[c] : z.data->i32()[c];
      }
      const int32_t qv = w.type.dtype == DType::I8 ? w.data->i8()[i] : w.data->i32()[i];
      out[i] = static_cast<float>(double(qv - zero) * double(s.data->f32()[c]));
    }
    return out;
  }

  void node(const Node& n) {
    auto in = [&](size_t i) { return i < n.inputs.size() ? n.inputs[i] : graph::kNone; };
    switch (n.kind) {
      case OpKind::QuantizeLinear: {
        want_zero_point(n, 2);
        const ValueId x = fp(n.inputs[0], &n);
        out_.exponents[out_.graph.value(x).name] =
            exponent(out_.graph.value(x).name, scalar(n, 1, "the scale"));
        map_[n.outputs[0]] = x;  // the int8 view of x
        return;
      }
      case OpKind::DequantizeLinear: {
        const auto& q = g_.value(n.inputs[0]);
        if (q.is_constant()) {  // weights
          auto w = dequantized(n, n.inputs[0], n.inputs[1], in(2), n.get_int("axis", 1));
          map_[n.outputs[0]] = out_.graph.add_constant(
              g_.value(n.outputs[0]).name, TensorType(DType::F32, q.type.shape),
              graph::ConstData::from_f32(w));
          return;
        }
        want_zero_point(n, 2);
        auto it = map_.find(n.inputs[0]);
        if (it == map_.end()) fail(n, "reads an int8 value that no QuantizeLinear made");
        map_[n.outputs[0]] = it->second;
        return;
      }
      case OpKind::QLinearConv: {
        want_zero_point(n, 2);
        want_zero_point(n, 7);
        auto it = map_.find(n.inputs[0]);
        if (it == map_.end()) fail(n, "reads an int8 value that no QuantizeLinear made");
        const double xs = scalar(n, 1, "x_scale"), ys = scalar(n, 6, "y_scale");
        const auto& ws = g_.value(n.inputs[4]);
        auto w = dequantized(n, n.inputs[3], n.inputs[4], in(5), 0);
        const auto& wt = g_.value(n.inputs[3]).type;
        std::vector<ValueId> ins = {it->second,
                                    out_.graph.add_constant(n.name + ".w",
                                                            TensorType(DType::F32, wt.shape),
                                                            graph::ConstData::from_f32(w))};
        if (in(8) != graph::kNone) {
          const auto& b = g_.value(in(8));
          if (!b.is_constant()) fail(n, "needs a constant bias");
          std::vector<float> bf(static_cast<size_t>(b.type.elements()));
          for (size_t c = 0; c < bf.size(); ++c)
            bf[c] = static_cast<float>(double(b.data->i32()[c]) * xs *
                                       double(ws.data->f32()[ws.type.elements() > 1 ? c : 0]));
          ins.push_back(out_.graph.add_constant(n.name + ".b",
                                                TensorType(DType::F32, b.type.shape),
                                                graph::ConstData::from_f32(bf)));
        }
        graph::Attrs a = n.attrs;
        const ValueId y = out_.graph.add_op(OpKind::Conv, n.name, ins, a);
        out_.exponents[out_.graph.value(y).name] = exponent(out_.graph.value(y).name, ys);
        map_[n.outputs[0]] = y;
        return;
      }
      default: {
        std::vector<ValueId> ins;
        for (ValueId v : n.inputs) ins.push_back(v == graph::kNone ? v : fp(v, &n));
        const graph::NodeId id = out_.graph.add_node(
            n.kind, n.name, ins, n.attrs, {g_.value(n.outputs[0]).type},
            {g_.value(n.outputs[0]).name});
        map_[n.outputs[0]] = out_.graph.node(id).outputs[0];
        return;
      }
    }
  }

  const Graph& g_;
  QdqMapping out_;
  std::map<ValueId, ValueId> map_;
};

}  // namespace

QdqMapping map_qdq(const Graph& g) { return Mapper(g).run(); }

}  // namespace weft::compiler::onnx_import
