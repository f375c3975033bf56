// Power-of-two int8 quantization; see quantize.h.
#include "compiler/graph/quantize.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/interpret.h"
#include "compiler/graph/models/resnet.h"
#include "compiler/graph/quantize_matmul.h"
#include "compiler/graph/passes/fold_batch_norm.h"
#include "compiler/graph/pow2_scales.h"
#include "compiler/graph/verify.h"
#include "compiler/ops/int8_rounding.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

namespace {
constexpr int kMaxShift = 31;  // the epilogue's and the CPU kernels' largest right shift
}  // namespace

int pow2_exponent(double max_abs) {
  if (!(max_abs > 0)) return -20;
  return static_cast<int>(std::ceil(std::log2(max_abs / 127.0)));
}

namespace {

[[noreturn]] void unsupported(const Node& n, const std::string& what) {
  throw UserError("quantize: node '" + n.name + "' (" + op_name(n.kind) + "): " + what);
}

struct UnionFind {
  std::vector<int> p;
  explicit UnionFind(size_t n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  int find(int x) { return p[x] == x ? x : p[x] = find(p[x]); }
  void unite(int a, int b) { p[find(a)] = find(b); }
};

// The Add input that becomes the fused residual: the other one is a Conv read only by the Add.
int residual_input(const Graph& g, const Node& add) {
  auto fusable = [&](ValueId v) {
    const Node* p = g.producer(v);
    return p && p->kind == OpKind::Conv && g.consumers(v).size() == 1;
  };
  if (fusable(add.inputs[0])) return 1;
  if (fusable(add.inputs[1])) return 0;
  return -1;
}

// Operators the int8 path has no kernel for and whose int8 form would cost accuracy (softmax
// and layer norm inputs, means, transposes of attention heads), and a BatchNormalization that
// fold_batch_norm left (it does not follow a convolution: DenseNet's pre-activation BN -> ReLU
// -> Conv): kept in fp32 on the CPU.
bool float_only(OpKind k) {
  return k == OpKind::Transpose || k == OpKind::Slice || k == OpKind::Softmax || k == OpKind::ReduceMean ||
         k == OpKind::LayerNormalization || k == OpKind::Resize || k == OpKind::BatchNormalization;
}

}  // namespace

Graph quantize(const Graph& network, const QuantizeOptions& opt) {
  Graph g = network;
  passes::fold_batch_norm(g);
  verify(g, "fold_batch_norm");
  // --- calibration ---
  std::vector<std::vector<std::vector<float>>> samples = opt.calibration;
  if (samples.empty())
    for (int s = 0; s < std::max(1, opt.synthetic_samples); ++s) {
      std::vector<std::vector<float>> one;
      for (ValueId in : g.inputs())
        one.push_back(normal_calibration_sample(g.value(in).type, opt.seed + 101 * s));
      samples.push_back(one);
    }
  std::vector<double> maxabs(g.num_values(), 0.0);
  std::vector<MagnitudeHistogram> seen(g.num_values());
  for (const auto& sample : samples)
    interpret<float>(g, sample, [&](ValueId v, const std::vector<float>& data) {
      double m = maxabs[v];
      for (float x : data) m = std::max(m, static_cast<double>(std::fabs(x)));
      maxabs[v] = m;
      seen[v].add(data.data(), data.size());
    });
  // --- scale groups ---
  UnionFind uf(g.num_values());
  const std::vector<NodeId> order = g.topo_order();
  for (NodeId id : order) {
    const Node& n = g.node(id);
    switch (n.kind) {
      case OpKind::Relu:
      case OpKind::Clip:
      case OpKind::MaxPool:
      case OpKind::Flatten:
      case OpKind::Reshape:
        uf.unite(n.outputs[0], n.inputs[0]);
        break;
      case OpKind::Concat:
        for (ValueId in : n.inputs) uf.unite(n.outputs[0], in);
        break;
      case OpKind::Add: {
        int r = residual_input(g, n);
        if (r >= 0) uf.unite(n.outputs[0], n.inputs[r]);
        break;
      }
      default:
        break;
    }
  }
  // A constant Concat input (ViT's class token) is stored in int8 at the Concat's shared scale,
  // so its own values count towards that scale; other constants (weights, shapes) do not.
  std::set<ValueId> concat_consts;
  for (NodeId id : order) {
    const Node& n = g.node(id);
    if (n.kind != OpKind::Concat) continue;
    for (ValueId in : n.inputs) {
      const Value& c = g.value(in);
      if (!c.is_constant()) continue;
      if (c.type.dtype != DType::F32) unsupported(n, "a constant input '" + c.name + "' is not f32");
      concat_consts.insert(in);
      for (int64_t i = 0, e = c.type.elements(); i < e; ++i)
        maxabs[in] = std::max(maxabs[in], static_cast<double>(std::fabs(c.data->f32()[i])));
    }
  }
  std::map<int, double> group_max;
  for (size_t v = 0; v < g.num_values(); ++v) {
    if (g.value(static_cast<ValueId>(v)).is_constant() && !concat_consts.count(static_cast<ValueId>(v)))
      continue;
    double& m = group_max[uf.find(static_cast<int>(v))];
    m = std::max(m, maxabs[v]);
  }
  std::map<int, int> group_exp;
  for (auto& [grp, m] : group_max) group_exp[grp] = pow2_exponent(m);
  // Below the largest magnitude where the grid is closer (pow2_scales.h), for groups of many
  // values; not where a few large values carry the result: softmax's probabilities (the
  // largest weigh most in the product with V) and the graph's outputs (below).
  {
    std::map<int, MagnitudeHistogram> hist;
    std::set<int> by_max;
    for (size_t v = 0; v < g.num_values(); ++v) {
      if (g.value(static_cast<ValueId>(v)).is_constant()) continue;
      const int grp = uf.find(static_cast<int>(v));
      hist[grp].merge(seen[v]);
      const Node* p = g.producer(static_cast<ValueId>(v));
      if (p && p->kind == OpKind::Softmax) by_max.insert(grp);
    }
    for (ValueId o : g.outputs()) by_max.insert(uf.find(o));
    for (auto& [grp, e] : group_exp)
      if (!by_max.count(grp) && hist[grp].count() >= 4096) e = hist[grp].best_exponent(e);
  }
  // A graph output (the logits) gets one more bit of range: clipping there is what the user
  // sees, nothing after it averages it out, and its largest magnitude is calibrated on few
  // values (a handful of logits per sample); one step of a coarser grid costs little there.
  for (ValueId o : g.outputs())
    if (!g.value(o).is_constant() && group_max.count(uf.find(o))) ++group_exp[uf.find(o)];
  for (size_t v = 0; v < g.num_values(); ++v) {
    auto it = opt.fixed_exponents.find(g.value(static_cast<ValueId>(v)).name);
    if (it != opt.fixed_exponents.end()) group_exp[uf.find(static_cast<int>(v))] = it->second;
  }
  auto expo = [&](ValueId v) { return group_exp.at(uf.find(v)); };

  // --- weights ---
  // Exponents per output channel of a layer's constant weight (all equal per tensor), least
  // squared error (pow2_scales.h), computed once per layer. A Gemm/MatMul weight is [K, N]
  // (an output channel's weights a column) unless transB.
  std::map<NodeId, std::vector<int>> weight_exp_memo;
  auto weight_exps = [&](const Node& n) -> const std::vector<int>& {
    auto it = weight_exp_memo.find(n.id);
    if (it != weight_exp_memo.end()) return it->second;
    const Value& w = g.value(n.inputs[1]);
    const bool columns = n.kind != OpKind::Conv && !(n.kind == OpKind::Gemm && n.get_int("transB", 0));
    const int64_t rows = columns ? w.type.shape[1] : w.type.shape[0];
    const int64_t count = w.type.elements(), per = count / rows;
    const float* d = w.data->f32();
    // A QDQ model's weights are on its own grid already: cover them, clip nothing.
    const int below = opt.fixed_exponents.empty() ? 8 : 0;
    // Per channel with per_channel, or where the tensor has an outlier (pow2_scales.h); a QDQ
    // model's per-tensor weights keep its one grid.
    if (opt.fixed_exponents.empty() || opt.per_channel)
      return weight_exp_memo[n.id] =
                 weight_row_exponents(d, rows, per, columns, opt.per_channel, below);
    return weight_exp_memo[n.id] =
               std::vector<int>(static_cast<size_t>(rows), weight_exponent(d, count, 1, below));
  };
  // Whether a layer's weights are per channel (all of them with per_channel; else those with
  // an outlier): its shifts are per channel too.
  auto per_channel = [&](const std::vector<int>& ew) {
    return opt.per_channel ||
           std::adjacent_find(ew.begin(), ew.end(), std::not_equal_to<>()) != ew.end();
  };

  // Raise output exponents where a layer's shift would be negative (rare; a left shift is not
  // an epilogue operation).
  for (int iter = 0; iter < 4; ++iter)
    for (NodeId id : order) {
      const Node& n = g.node(id);
      if (n.kind != OpKind::Conv && n.kind != OpKind::Gemm && n.kind != OpKind::MatMul) continue;
      const Value& w = g.value(n.inputs[1]);
      if (!w.is_constant()) {  // a product of two activations (quantize_matmul.h)
        int& eo = group_exp[uf.find(n.outputs[0])];
        if (n.kind == OpKind::MatMul) eo = std::max(eo, expo(n.inputs[0]) + expo(n.inputs[1]));
        continue;
      }
      if (n.kind != OpKind::Conv && w.type.rank() != 2) continue;  // kept in fp32
      const std::vector<int>& ew = weight_exps(n);
      const int lo = expo(n.inputs[0]) + *std::max_element(ew.begin(), ew.end());
      int& eo = group_exp[uf.find(n.outputs[0])];
      eo = std::max(eo, lo);
    }

  // --- rewrite ---
  Graph q(g.name());
  std::map<ValueId, ValueId> map;
  // Values computed in fp32 (kept_fp32 below), and int8 values dequantized for fp32 nodes:
  // the fp32 value in q. An fp32 value is quantized (at its calibrated scale) when an int8
  // node first reads it.
  std::map<ValueId, ValueId> fp32;
  std::set<ValueId> computed_fp32;
  for (ValueId in : g.inputs()) {
    const Value& v = g.value(in);
    if (v.type.dtype != DType::F32) throw UserError("quantize: input '" + v.name + "' is not f32");
    ValueId nv = q.add_input(v.name, v.type);
    fp32[in] = nv;  // quantized where an int8 node reads it; fp32 nodes read it as it is
  }
  auto scale_attr = [&](ValueId v) -> Attr { return std::ldexp(1.0, expo(v)); };
  auto m = [&](const Node& n, size_t i) {
    const ValueId v = n.inputs.at(i);
    auto it = map.find(v);
    if (it != map.end()) return it->second;
    if (concat_consts.count(v)) {  // in int8 at its group's scale
      const Value& c = g.value(v);
      std::vector<int8_t> cq(static_cast<size_t>(c.type.elements()));
      for (size_t k = 0; k < cq.size(); ++k)
        cq[k] = ops::quantize(c.data->f32()[k], expo(v));
      TensorType ct(DType::I8, c.type.shape);
      ct.quant = QuantParams::pow2(expo(v));
      return map[v] = q.add_constant(c.name, ct, ConstData::from_i8(cq));
    }
    auto f = fp32.find(v);
    if (f == fp32.end()) unsupported(n, "input " + std::to_string(i) + " is not a computed tensor");
    return map[v] = q.add_op(OpKind::Quantize, g.value(v).name + ".q", {f->second},
                             {{"out_scale", scale_attr(v)}});
  };
  // A float element-wise node the int8 path has no operator for (Sigmoid, Mul, ... and an Add
  // that broadcasts) stays in fp32, for the CPU's LLVM kernels: its int8 inputs are
  // dequantized, its constants kept, and chains of such nodes stay in fp32 between them.
  auto float_in = [&](const Node& n, ValueId v) {
    const Value& val = g.value(v);
    auto f = fp32.find(v);
    if (f == fp32.end() && val.is_constant()) {
      f = fp32.emplace(v, q.add_constant(val.name, val.type, val.data)).first;
    } else if (f == fp32.end()) {
      auto it = map.find(v);
      if (it == map.end()) unsupported(n, "an input is not a computed tensor");
      f = fp32.emplace(v, q.add_op(OpKind::Dequantize, val.name + ".dq", {it->second})).first;
    }
    return f->second;
  };
  // `why`: the reason the partition reports for it (its default: the quantizer has no int8
  // form of the operator).
  auto kept_fp32 = [&](const Node& n, const char* why = nullptr) {
    std::vector<ValueId> ins;
    for (ValueId v : n.inputs) ins.push_back(float_in(n, v));
    NodeFacts f;
    if (why) f.cpu_reason = std::string("fp32: ") + why;
    fp32[n.outputs[0]] = q.add_op(n.kind, g.value(n.outputs[0]).name, ins, n.attrs, f);
    computed_fp32.insert(n.outputs[0]);
  };
  for (NodeId id : order) {
    const Node& n = g.node(id);
    const std::string& name = g.value(n.outputs[0]).name;
    ValueId out = kNone;
    switch (n.kind) {
      case OpKind::Conv:
      case OpKind::Gemm:
      case OpKind::MatMul: {
        const Value& w = g.value(n.inputs[1]);
        if (n.kind == OpKind::MatMul && !w.is_constant() &&
            is_batched_product(g.value(n.inputs[0]).type, w.type)) {
          // Attention's products: a batched int8 dense, the second operand packed at run time.
          ActivationProduct p;
          p.name = name;
          p.a_q = m(n, 0);
          p.b_f32 = float_in(n, n.inputs[1]);
          p.b_sole_use = g.consumers(n.inputs[1]).size() == 1;
          p.b_exponent = expo(n.inputs[1]);
          p.shift = expo(n.outputs[0]) - expo(n.inputs[0]) - p.b_exponent;
          p.out_scale = std::ldexp(1.0, expo(n.outputs[0]));
          p.out_shape = g.value(n.outputs[0]).type.shape;
          out = quantize_activation_matmul(q, p);
          break;
        }
        if (n.kind != OpKind::Conv && (!w.is_constant() || w.type.rank() != 2)) {
          kept_fp32(n);  // a product of two activations (attention) runs on the CPU in fp32
          continue;
        }
        if (!w.is_constant()) unsupported(n, "the weight is not a constant");
        if (n.kind == OpKind::Gemm &&
            (n.get_float("alpha", 1.0) != 1.0 || n.get_float("beta", 1.0) != 1.0 ||
             n.get_int("transA", 0))) {
          kept_fp32(n);  // QDense has no scaling or transposed input: the CPU in fp32
          continue;
        }
        // A MatMul of an N-d activation by a 2D weight (a transformer's linear layer) is a
        // dense layer over the rows of its input seen as [rows, K].
        const std::vector<int64_t> xshape = g.value(n.inputs[0]).type.shape;
        if (n.kind == OpKind::MatMul && xshape.size() < 2) {
          kept_fp32(n);  // a vector times a matrix: no rows for a dense layer
          continue;
        }
        // Weights as [rows=out channels][per] in the QConv/QDense order.
        std::vector<int64_t> wshape = w.type.shape;
        std::vector<float> wf(w.data->f32(), w.data->f32() + w.type.elements());
        const bool transpose = n.kind != OpKind::Conv && !(n.kind == OpKind::Gemm && n.get_int("transB", 0));
        if (transpose) {  // [K,N] -> [N,K]
          const int64_t K = wshape[0], N = wshape[1];
          std::vector<float> t(wf.size());
          for (int64_t k = 0; k < K; ++k)
            for (int64_t j = 0; j < N; ++j) t[j * K + k] = wf[k * N + j];
          wf = t;
          wshape = {N, K};
        }
        const int64_t rows = wshape[0], per = static_cast<int64_t>(wf.size()) / rows;
        // Least squared error per channel or per tensor (weight_exps), raised below where the
        // shift would pass the epilogue's range.
        std::vector<int> ew = weight_exps(n);
        const bool pc = per_channel(ew);
        // The bias, if any (at 2^(ex+ew) below, with the shift's rounding term).
        const float* bf = nullptr;
        int64_t bn = 0;
        if (n.inputs.size() > 2 && n.inputs[2] != kNone) {
          const Value& b = g.value(n.inputs[2]);
          if (!b.is_constant()) unsupported(n, "the bias is not a constant");
          bf = b.data->f32();
          bn = b.type.elements();
          if (bn != rows && bn != 1) unsupported(n, "the bias is not per output channel");
        }
        const int ex = expo(n.inputs[0]), eo = expo(n.outputs[0]);
        // A requantization shift past the epilogue's 31 (an output scale 2^32 or more above the
        // product's: GoogLeNet's random initialization) is folded into the weight's exponent,
        // down to a shift that leaves the int32 accumulator room for the bias: the coarser
        // weights move the accumulator by far less than an output LSB (K x 2^(6 - shift) LSBs
        // at most).
        for (int64_t r = 0; r < rows; ++r) {
          if (eo - ex - ew[r] <= kMaxShift) continue;
          const double b_lsb = bf ? std::fabs(std::ldexp(bf[bn == 1 ? 0 : r], -eo)) : 0.0;
          const int cap = std::min(kMaxShift, 29 - static_cast<int>(std::ceil(std::log2(1.0 + b_lsb))));
          ew[r] = std::max(ew[r], eo - ex - std::max(cap, 0));
        }
        if (!pc) std::fill(ew.begin(), ew.end(), *std::max_element(ew.begin(), ew.end()));
        std::vector<int8_t> wq(wf.size());
        for (int64_t r = 0; r < rows; ++r)
          weights_on_grid(wf.data() + r * per, per, ew[r], wq.data() + r * per);
        TensorType wt(DType::I8, wshape);
        wt.quant = pc ? QuantParams::pow2_per_channel(ew, 0) : QuantParams::pow2(ew[0]);
        ValueId wv = q.add_constant(w.name, wt, ConstData::from_i8(wq));
        std::vector<int64_t> shifts;
        for (int64_t r = 0; r < rows; ++r) shifts.push_back(eo - ex - ew[r]);
        std::vector<int32_t> bq(rows);
        for (int64_t r = 0; r < rows; ++r) {
          const double b = bf ? bf[bn == 1 ? 0 : r] : 0.0;
          const double v = ops::round_clip(std::ldexp(b, -(ex + ew[r])), -1e9, 1e9);
          bq[r] = static_cast<int32_t>(v) +
                  (shifts[r] > 0 ? (int32_t{1} << (shifts[r] - 1)) : 0);
        }
        TensorType bt(DType::I32, {rows});
        ValueId bv = q.add_constant(n.name + ".bias", bt, ConstData::from_i32(bq));
        Attrs a;
        NodeFacts f;
        if (pc)
          f.shifts = shifts;
        else
          f.shift = shifts[0];
        f.relu = false;
        a["out_scale"] = scale_attr(n.outputs[0]);
        if (n.kind == OpKind::Conv) {
          for (const char* k : {"strides", "pads", "dilations"})
            if (n.has(k)) a[k] = n.attrs.at(k);
          if (n.get_int("group", 1) != 1) a["group"] = n.attrs.at("group");  // split_groups
          if (n.get_string("auto_pad", "NOTSET") != "NOTSET" && n.get_string("auto_pad", "") != "VALID")
            unsupported(n, "auto_pad");
          out = q.add_op(OpKind::QConv, name, {m(n, 0), wv, bv}, a, f);
        } else if (xshape.size() == 2) {
          out = q.add_op(OpKind::QDense, name, {m(n, 0), wv, bv}, a, f);
        } else {
          const int64_t k = xshape.back();
          const std::vector<int64_t> yshape = g.value(n.outputs[0]).type.shape;
          const ValueId x2 = add_reshape(q, m(n, 0), {-1, k}, name + ".rows");
          const ValueId y2 = q.add_op(OpKind::QDense, name + ".2d", {x2, wv, bv}, a, f);
          out = add_reshape(q, y2, yshape, name);
        }
        break;
      }
      case OpKind::Relu:
      case OpKind::MaxPool:
      case OpKind::Flatten:
      case OpKind::Reshape: {
        if ((n.kind == OpKind::Flatten || n.kind == OpKind::Reshape) &&
            computed_fp32.count(n.inputs[0])) {
          kept_fp32(n);  // a view of an fp32 value stays fp32 (no round trip through int8)
          continue;
        }
        std::vector<ValueId> ins = {m(n, 0)};
        if (n.kind == OpKind::Reshape) {
          const Value& s = g.value(n.inputs[1]);
          std::vector<int32_t> sv(s.data->i32(), s.data->i32() + s.type.elements());
          ins.push_back(q.add_constant(s.name, s.type, ConstData::from_i32(sv)));
        }
        out = q.add_op(n.kind, name, ins, n.attrs);
        break;
      }
      case OpKind::Clip: {
        // Clip(x, lo, hi) on the shared scale 2^e: the bounds become integers, round(lo / 2^e)
        // and round(hi / 2^e) within [-128, 127] (each within half an LSB of the float bound).
        // Clip(0, hi) with hi at or above the int8 range is a ReLU (fused into the conv's
        // epilogue on the accelerator); one that clips nothing is dropped; others stay an int8
        // Clip with attributes min/max (integers) on the CPU.
        double lo = n.get_float("min", -INFINITY), hi = n.get_float("max", INFINITY);
        auto bound = [&](size_t i, double& b) {
          if (n.inputs.size() <= i || n.inputs[i] == kNone) return;
          const Value& c = g.value(n.inputs[i]);
          if (!c.is_constant() || c.type.dtype != DType::F32 || c.type.elements() != 1)
            unsupported(n, "a Clip bound that is not a float32 scalar constant");
          b = c.data->f32()[0];
        };
        bound(1, lo);
        bound(2, hi);
        const int e = expo(n.inputs[0]);
        auto qb = [&](double b) { return ops::round_clip(std::ldexp(b, -e), -128.0, 127.0); };
        const double ql = qb(lo), qh = qb(hi);
        if (ql > qh) unsupported(n, "min is above max");
        if (ql <= -128 && qh >= 127) {
          out = m(n, 0);
        } else if (ql == 0 && qh >= 127) {
          out = q.add_op(OpKind::Relu, name, {m(n, 0)}, {});
        } else {
          out = q.add_op(OpKind::Clip, name, {m(n, 0)}, {{"min", ql}, {"max", qh}});
        }
        break;
      }
      case OpKind::Concat: {
        std::vector<ValueId> ins;
        for (size_t i = 0; i < n.inputs.size(); ++i) ins.push_back(m(n, i));
        out = q.add_op(OpKind::Concat, name, ins, n.attrs);
        break;
      }
      case OpKind::Add:
      case OpKind::AveragePool:
      case OpKind::GlobalAveragePool: {
        if (n.kind != OpKind::Add && computed_fp32.count(n.inputs[0])) {
          // An average of an fp32 value (EfficientNet's squeeze of a SiLU output): exact in
          // fp32, then quantized once at its own scale, where the int8 pool would average
          // values rounded to its input's coarser grid.
          kept_fp32(n, "a mean of a value computed in fp32, quantized once at its own scale");
          continue;
        }
        if (n.kind == OpKind::Add && computed_fp32.count(n.inputs[0]) &&
            computed_fp32.count(n.inputs[1])) {
          // A sum of two fp32 values (a transformer's residual stream between its fp32
          // LayerNorms): an int8 Add would round both to one per-tensor grid on which the
          // small rows (ViT's class token) keep no digits, and gain nothing on the CPU.
          kept_fp32(n, "an Add of two values computed in fp32 (a residual stream), quantized "
                       "once where an int8 node reads it");
          continue;
        }
        Attrs a = n.attrs;
        a["out_scale"] = scale_attr(n.outputs[0]);
        if (n.kind == OpKind::Add &&
            (g.value(n.inputs[0]).type.shape != g.value(n.inputs[1]).type.shape ||
             g.value(n.inputs[0]).is_constant() || g.value(n.inputs[1]).is_constant())) {
          kept_fp32(n);  // the int8 Add adds two computed tensors of one shape
          continue;
        }
        std::vector<ValueId> ins = {m(n, 0)};
        if (n.kind == OpKind::Add) ins.push_back(m(n, 1));
        out = q.add_op(n.kind, name, ins, a);
        break;
      }
      default:
        if (!unary_of(n) && !binary_of(n.kind) && !float_only(n.kind))
          unsupported(n, "not supported by the int8 quantizer");
        kept_fp32(n);
        continue;
    }
    map[n.outputs[0]] = out;
  }
  std::vector<ValueId> outs;
  for (ValueId o : g.outputs()) {
    if (computed_fp32.count(o) || !map.count(o)) {  // computed in fp32, or an input
      outs.push_back(fp32.at(o));
      continue;
    }
    ValueId d = q.add_op(OpKind::Dequantize, g.value(o).name + ".f32", {map.at(o)});
    outs.push_back(d);
  }
  q.set_outputs(outs);
  verify(q, "quantize");
  return q;
}

}  // namespace weft::compiler::graph
