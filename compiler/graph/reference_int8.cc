// The int8 reference interpreter; see reference_int8.h. Its rounding is int8_rounding.h's; its
// loops over windows and sums are interpret_kernels.h's on integers (int64 sums, so no
// intermediate wraps before the epilogue's).
#include "compiler/graph/reference_int8.h"

#include <algorithm>
#include <map>

#include "compiler/graph/interpret.h"
#include "compiler/graph/interpret_kernels.h"
#include "compiler/ops/int8_rounding.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

namespace {

using IVec = std::vector<int32_t>;

int exp_of(const TensorType& t) {
  if (!t.quant.present() || !t.quant.is_pow2() || t.quant.per_channel())
    throw UserError("reference_int8: a tensor of type " + t.str() +
                    " has no per-tensor power-of-two scale");
  return t.quant.exponent();
}

[[noreturn]] void fail(const Node& n, const std::string& what) {
  throw UserError("reference_int8: node '" + n.name + "' (" + op_name(n.kind) + "): " + what);
}

std::vector<int64_t> widen(const IVec& v) { return std::vector<int64_t>(v.begin(), v.end()); }

IVec quantized(const std::vector<float>& f, int e) {
  IVec o(f.size());
  for (size_t i = 0; i < f.size(); ++i) o[i] = ops::quantize(f[i], e);
  return o;
}

// The window of a pooling node over NCHW `xt` to `ot` (dilations are not read: int8 pools have
// none).
Window2d pool_window(const Node& n, const TensorType& xt, const TensorType& ot) {
  Window2d s;
  s.n = xt.shape[0], s.c = xt.shape[1], s.h = xt.shape[2], s.w = xt.shape[3];
  s.oh = ot.shape[2], s.ow = ot.shape[3];
  if (n.kind == OpKind::GlobalAveragePool) {
    s.kh = s.h, s.kw = s.w;
    return s;
  }
  const auto k = n.get_ints("kernel_shape"), st = n.get_ints("strides", {1, 1}),
             pd = n.get_ints("pads", {0, 0, 0, 0});
  s.kh = k[0], s.kw = k[1], s.sh = st[0], s.sw = st[1];
  s.pt = pd[0], s.pl = pd[1], s.pb = pd[2], s.pr = pd[3];
  return s;
}

// QConv/QDense (and their accelerator forms): int64 sums, then the accelerator's epilogue.
IVec qconv(const Graph& g, const Node& n, const IVec& a, const IVec& w, const IVec* bias,
           const IVec* res) {
  const TensorType& xt = g.value(n.inputs[0]).type;
  const TensorType& wt = g.value(n.inputs[1]).type;
  const TensorType& ot = g.value(n.outputs[0]).type;
  const bool conv = n.kind == OpKind::QConv || n.kind == OpKind::AccelConv;
  const int64_t slices = n.facts.slices.value_or(1);  // a batched dense: pairs of matrices
  const int64_t O = wt.shape[0] / slices;
  std::vector<int64_t> shifts = n.facts.shifts.value_or(std::vector<int64_t>{});
  if (shifts.empty()) shifts.assign(static_cast<size_t>(O), n.facts.shift.value_or(0));
  const bool relu = n.facts.relu.value_or(false);
  std::vector<int64_t> acc(static_cast<size_t>(ot.elements()));
  int64_t plane = 1;  // output elements per channel and image
  if (conv) {
    Window2d s;
    s.n = xt.shape[0], s.c = xt.shape[1], s.h = xt.shape[2], s.w = xt.shape[3];
    s.kh = wt.shape[2], s.kw = wt.shape[3], s.oh = ot.shape[2], s.ow = ot.shape[3];
    const auto st = n.get_ints("strides", {1, 1}), pd = n.get_ints("pads", {0, 0, 0, 0}),
               dl = n.get_ints("dilations", {1, 1});
    s.sh = st[0], s.sw = st[1], s.dh = dl[0], s.dw = dl[1];
    s.pt = pd[0], s.pl = pd[1], s.pb = pd[2], s.pr = pd[3];
    conv2d_kernel<int64_t>(widen(a).data(), widen(w).data(), nullptr, acc.data(), s, O,
                           n.get_int("group", 1));
    plane = s.oh * s.ow;
  } else {
    const auto wa = widen(a), ww = widen(w);
    const int64_t M = xt.shape[0] / slices, K = xt.shape[1];
    for (int64_t s = 0; s < slices; ++s)
      dense_kernel<int64_t>(wa.data() + s * M * K, ww.data() + s * O * K, acc.data() + s * M * O,
                            M, O, K);
  }
  IVec o(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    const size_t c = static_cast<size_t>((static_cast<int64_t>(i) / plane) % O);
    o[i] = ops::accel_epilogue(acc[i], bias ? (*bias)[c] : 0, static_cast<int>(shifts[c]),
                               res ? (*res)[i] : 0, relu);
  }
  return o;
}

// Written from the op's definition (ops.def), by output element: channel oc of the output is
// input channel oc / (k*k) at tap ((oc / k) % k, oc % k), or a constant channel past C*k*k.
IVec im2col(const Node& n, const TensorType& xt, const TensorType& ot, const IVec& a) {
  const int64_t k = n.facts.kernel.value_or(1), s = n.facts.stride.value_or(1),
                y0 = n.facts.y0.value_or(0);
  const auto pd = n.facts.gather_pads.value_or(std::vector<int64_t>{0, 0, 0, 0});
  const auto consts = n.facts.consts.value_or(std::vector<int64_t>{});
  const int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t OC = ot.shape[1], OH = ot.shape[2], OW = ot.shape[3];
  IVec o(static_cast<size_t>(ot.elements()), 0);
  for (int64_t bt = 0; bt < xt.shape[0]; ++bt)
    for (int64_t oc = 0; oc < OC; ++oc) {
      const int64_t c = oc / (k * k), ky = (oc / k) % k, kx = oc % k;
      if (c >= C) {  // a constant channel
        const int64_t v = consts.at(static_cast<size_t>(oc - C * k * k));
        std::fill_n(o.begin() + (bt * OC + oc) * OH * OW, OH * OW, static_cast<int32_t>(v));
        continue;
      }
      for (int64_t yy = 0; yy < OH; ++yy)
        for (int64_t xx = 0; xx < OW; ++xx) {
          const int64_t iy = s * (y0 + yy) + ky - pd[0], ix = s * xx + kx - pd[1];
          if (iy >= 0 && iy < H && ix >= 0 && ix < W)
            o[((bt * OC + oc) * OH + yy) * OW + xx] = a[((bt * C + c) * H + iy) * W + ix];
        }
    }
  return o;
}

IVec space_to_depth(const Node& n, const TensorType& xt, const TensorType& ot, const IVec& a) {
  const int64_t b = n.facts.block.value_or(2);
  const auto pd = n.facts.gather_pads.value_or(std::vector<int64_t>{0, 0, 0, 0});
  const int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t OC = ot.shape[1], OH = ot.shape[2], OW = ot.shape[3];
  IVec o(static_cast<size_t>(ot.elements()), 0);
  for (int64_t bt = 0; bt < xt.shape[0]; ++bt)
    for (int64_t oc = 0; oc < OC; ++oc) {
      const int64_t c = oc / (b * b), by = (oc / b) % b, bx = oc % b;
      for (int64_t yy = 0; yy < OH; ++yy)
        for (int64_t xx = 0; xx < OW; ++xx) {
          const int64_t iy = b * yy + by - pd[0], ix = b * xx + bx - pd[1];
          if (iy >= 0 && iy < H && ix >= 0 && ix < W)
            o[((bt * OC + oc) * OH + yy) * OW + xx] = a[((bt * C + c) * H + iy) * W + ix];
        }
    }
  return o;
}

IVec pool(const Node& n, const TensorType& xt, const TensorType& ot, const IVec& a) {
  const Window2d s = pool_window(n, xt, ot);
  IVec o(static_cast<size_t>(ot.elements()));
  if (n.kind == OpKind::MaxPool) {
    max_pool_kernel<int32_t>(a.data(), o.data(), s);
    return o;
  }
  const int d = exp_of(xt) - exp_of(ot);
  avg_pool_kernel<int32_t, int64_t>(
      a.data(), o.data(), s, n.get_int("count_include_pad", 0) != 0,
      [d](int64_t sum, int64_t count) { return ops::requantize_average(sum, count, d); });
  return o;
}

// Tells `observe` the value `y` just computed, as real numbers (reference_int8.h).
void show(const Int8ValueObserver& observe, const Graph& g, ValueId y,
          const std::map<ValueId, std::vector<float>>& fv, const std::map<ValueId, IVec>& iv) {
  auto f = fv.find(y);
  if (f != fv.end()) return observe(y, f->second);
  const TensorType& t = g.value(y).type;
  auto i = iv.find(y);
  if (i == iv.end() || !t.quant.present() || !t.quant.is_pow2() || t.quant.per_channel()) return;
  std::vector<float> o(i->second.size());
  for (size_t k = 0; k < o.size(); ++k) o[k] = ops::dequantize(i->second[k], t.quant.exponent());
  observe(y, o);
}

}  // namespace

std::vector<std::vector<float>> reference_int8(const Graph& g,
                                               const std::vector<std::vector<float>>& inputs,
                                               const Int8ValueObserver& observe) {
  std::map<ValueId, IVec> iv;
  std::map<ValueId, std::vector<float>> fv;
  auto ins = g.inputs();
  if (inputs.size() != ins.size()) throw UserError("reference_int8: wrong number of inputs");
  for (size_t i = 0; i < ins.size(); ++i) {
    if (static_cast<int64_t>(inputs[i].size()) != g.value(ins[i]).type.elements())
      throw UserError("reference_int8: input '" + g.value(ins[i]).name + "' has the wrong size");
    fv[ins[i]] = inputs[i];
  }
  auto ints = [&](ValueId v) -> const IVec& {
    auto it = iv.find(v);
    if (it != iv.end()) return it->second;
    const Value& val = g.value(v);
    if (!val.is_constant()) throw InternalError("reference_int8: '" + val.name + "' not computed");
    IVec d(static_cast<size_t>(val.type.elements()));
    if (val.type.layout.kind == Layout::Plain) {
      for (size_t i = 0; i < d.size(); ++i)
        d[i] = val.type.dtype == DType::I8 ? val.data->i8()[i] : val.data->i32()[i];
    } else {
      // A packed weight [O/bo][I/bi][rest][bo][bi] back to its logical order.
      if (val.type.dtype != DType::I8) throw UserError("reference_int8: packed constant '" + val.name + "' is not int8");
      const int64_t O = val.type.shape[0], I = val.type.shape[1], bo = val.type.layout.n,
                    bi = val.type.layout.c, ib = (I + bi - 1) / bi;
      const int64_t rest = val.type.elements() / (O * I);
      for (int64_t o = 0; o < O; ++o)
        for (int64_t i = 0; i < I; ++i)
          for (int64_t r = 0; r < rest; ++r)
            d[(o * I + i) * rest + r] =
                val.data->i8()[(((o / bo) * ib + i / bi) * rest + r) * bo * bi + (o % bo) * bi + i % bi];
    }
    return iv[v] = d;
  };
  for (NodeId id : g.topo_order()) {
    const Node& n = g.node(id);
    const ValueId x = n.inputs[0], y = n.outputs[0];
    const TensorType& xt = g.value(x).type;
    const TensorType& ot = g.value(y).type;
    if (ot.dtype == DType::F32 && n.kind != OpKind::Dequantize) {  // kept in fp32 (quantize.h)
      auto floats = [&](ValueId v) -> const std::vector<float>& {
        const Value& val = g.value(v);
        if (val.is_constant() && !fv.count(v))
          fv[v].assign(val.data->f32(), val.data->f32() + val.type.elements());
        return fv.at(v);
      };
      std::vector<float> o(static_cast<size_t>(ot.elements()));
      std::vector<const float*> ins;
      for (ValueId v : n.inputs) ins.push_back(v == kNone ? nullptr : floats(v).data());
      run_float_node(g, n, ins, o.data());
      fv[y] = std::move(o);
      if (observe) observe(y, fv[y]);
      continue;
    }
    switch (n.kind) {
      case OpKind::Quantize:
        iv[y] = quantized(fv.at(x), exp_of(ot));
        break;
      case OpKind::Dequantize: {
        const IVec& a = ints(x);
        const int e = exp_of(xt);
        std::vector<float> o(a.size());
        for (size_t i = 0; i < a.size(); ++i) o[i] = ops::dequantize(a[i], e);
        fv[y] = o;
        break;
      }
      case OpKind::QConv:
      case OpKind::AccelConv:
      case OpKind::QDense:
      case OpKind::AccelDense: {
        const bool conv = n.kind == OpKind::QConv || n.kind == OpKind::AccelConv;
        const auto has = [&](size_t k) { return n.inputs.size() > k && n.inputs[k] != kNone; };
        iv[y] = qconv(g, n, ints(x), ints(n.inputs[1]), has(2) ? &ints(n.inputs[2]) : nullptr,
                      conv && has(3) ? &ints(n.inputs[3]) : nullptr);
        break;
      }
      case OpKind::Relu: {
        IVec o = ints(x);
        for (int32_t& v : o) v = std::max(v, 0);
        iv[y] = o;
        break;
      }
      case OpKind::Clip: {  // int8 bounds (quantize.cc)
        IVec o = ints(x);
        const int32_t lo = static_cast<int32_t>(n.get_float("min", -128)),
                      hi = static_cast<int32_t>(n.get_float("max", 127));
        for (int32_t& v : o) v = std::min(std::max(v, lo), hi);
        iv[y] = o;
        break;
      }
      case OpKind::Unpack:
        if (n.facts.out_h) {  // rows [y0, y0 + out_h) of each plane
          const IVec& a = ints(x);
          const int64_t H = xt.shape[2], W = xt.shape[3], y0 = n.facts.y0.value_or(0),
                        h = ot.shape[2];
          IVec o;
          for (int64_t p = 0; p < xt.shape[0] * xt.shape[1]; ++p)
            o.insert(o.end(), a.begin() + (p * H + y0) * W, a.begin() + (p * H + y0 + h) * W);
          iv[y] = o;
          break;
        }
        iv[y] = ints(x);
        break;
      case OpKind::Flatten:
      case OpKind::Reshape:
      case OpKind::Pack:
        iv[y] = ints(x);
        break;
      case OpKind::Slice: {  // int8 channel slices (split_groups)
        IVec o(static_cast<size_t>(ot.elements()));
        slice_kernel<int32_t>(ints(x).data(), xt.shape, static_cast<size_t>(n.get_int("axis", 0)),
                              n.get_int("start", 0), n.get_int("end", 0), o.data(),
                              n.get_int("step", 1));
        iv[y] = o;
        break;
      }
      case OpKind::SpaceToDepth:
        iv[y] = space_to_depth(n, xt, ot, ints(x));
        break;
      case OpKind::Im2Col:  // an f32 input is quantized first, as weft.Quantize does
        iv[y] = im2col(n, xt, ot, xt.dtype == DType::F32 ? quantized(fv.at(x), exp_of(ot)) : ints(x));
        break;
      case OpKind::Concat: {
        int64_t axis = n.get_int("axis", 0);
        if (axis < 0) axis += xt.rank();
        int64_t outer = 1;
        for (int64_t d = 0; d < axis; ++d) outer *= ot.shape[d];
        std::vector<const int32_t*> parts;
        std::vector<int64_t> inner;
        for (ValueId in : n.inputs) {
          parts.push_back(ints(in).data());
          inner.push_back(static_cast<int64_t>(ints(in).size()) / outer);
        }
        IVec o(static_cast<size_t>(ot.elements()));
        concat_kernel<int32_t>(parts, inner, outer, o.data());
        iv[y] = o;
        break;
      }
      case OpKind::Add:
      case OpKind::Requantize: {
        const int eo = exp_of(ot);
        const IVec& a = ints(x);
        const int sa = eo - exp_of(xt);
        IVec o(a.size());
        if (n.kind == OpKind::Add) {
          const IVec& b = ints(n.inputs[1]);
          const int sb = eo - exp_of(g.value(n.inputs[1]).type);
          for (size_t i = 0; i < a.size(); ++i) o[i] = ops::requantize_add(a[i], sa, b[i], sb);
        } else {
          for (size_t i = 0; i < a.size(); ++i) o[i] = ops::requantize(a[i], sa);
        }
        iv[y] = o;
        break;
      }
      case OpKind::MaxPool:
      case OpKind::AveragePool:
      case OpKind::GlobalAveragePool:
        iv[y] = pool(n, xt, ot, ints(x));
        break;
      default:
        fail(n, "is not an int8 operator");
    }
    if (observe) show(observe, g, y, fv, iv);
  }
  std::vector<std::vector<float>> res;
  for (ValueId o : g.outputs()) {
    if (fv.count(o)) {
      res.push_back(fv[o]);
    } else {
      const IVec& v = ints(o);
      res.emplace_back(v.begin(), v.end());
    }
  }
  return res;
}

}  // namespace weft::compiler::graph
