// The int8 reference interpreter; see reference_int8.h.
#include "compiler/graph/reference_int8.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

int32_t rshift_round(int64_t v, int s) {
  if (s <= 0) return static_cast<int32_t>(v * (int64_t{1} << -s));
  return static_cast<int32_t>((v + (int64_t{1} << (s - 1))) >> s);
}

int64_t div_round(int64_t num, int64_t den) {
  const int64_t n = 2 * num + den, d = 2 * den;
  return n >= 0 ? n / d : -((-n + d - 1) / d);
}

namespace {

using IVec = std::vector<int32_t>;

int32_t sat8(int64_t v) { return static_cast<int32_t>(std::clamp<int64_t>(v, -128, 127)); }
int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

int exp_of(const TensorType& t) {
  if (!t.quant.present() || !t.quant.is_pow2() || t.quant.per_channel())
    throw UserError("reference_int8: a tensor of type " + t.str() +
                    " has no per-tensor power-of-two scale");
  return t.quant.exponent();
}

[[noreturn]] void fail(const Node& n, const std::string& what) {
  throw UserError("reference_int8: node '" + n.name + "' (" + op_name(n.kind) + "): " + what);
}

}  // namespace

std::vector<std::vector<float>> reference_int8(const Graph& g,
                                               const std::vector<std::vector<float>>& inputs) {
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
    switch (n.kind) {
      case OpKind::Quantize: {
        const auto& f = fv.at(x);
        const int e = exp_of(ot);
        IVec o(f.size());
        for (size_t i = 0; i < f.size(); ++i)
          o[i] = sat8(static_cast<int64_t>(std::nearbyint(std::ldexp(static_cast<double>(f[i]), -e))));
        iv[y] = o;
        break;
      }
      case OpKind::Dequantize: {
        const IVec& a = ints(x);
        const int e = exp_of(xt);
        std::vector<float> o(a.size());
        for (size_t i = 0; i < a.size(); ++i) o[i] = std::ldexp(static_cast<float>(a[i]), e);
        fv[y] = o;
        break;
      }
      case OpKind::QConv:
      case OpKind::AccelConv:
      case OpKind::QDense:
      case OpKind::AccelDense: {
        const bool conv = n.kind == OpKind::QConv || n.kind == OpKind::AccelConv;
        const IVec& a = ints(x);
        const Value& wv = g.value(n.inputs[1]);
        const IVec& w = ints(n.inputs[1]);
        const IVec* bias = n.inputs.size() > 2 && n.inputs[2] != kNone ? &ints(n.inputs[2]) : nullptr;
        const IVec* res = conv && n.inputs.size() > 3 && n.inputs[3] != kNone ? &ints(n.inputs[3]) : nullptr;
        const int64_t O = wv.type.shape[0];
        std::vector<int64_t> shifts = n.facts.shifts.value_or(std::vector<int64_t>{});
        if (shifts.empty()) shifts.assign(O, n.facts.shift.value_or(0));
        const bool relu = n.facts.relu.value_or(false);
        IVec o(static_cast<size_t>(ot.elements()));
        if (conv) {
          const auto st = n.get_ints("strides", {1, 1}), pd = n.get_ints("pads", {0, 0, 0, 0}),
                     dl = n.get_ints("dilations", {1, 1});
          const int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
          const int64_t KH = wv.type.shape[2], KW = wv.type.shape[3], OH = ot.shape[2], OW = ot.shape[3];
          for (int64_t b = 0; b < xt.shape[0]; ++b)
            for (int64_t oc = 0; oc < O; ++oc)
              for (int64_t oy = 0; oy < OH; ++oy)
                for (int64_t ox = 0; ox < OW; ++ox) {
                  int64_t acc = 0;
                  for (int64_t c = 0; c < C; ++c)
                    for (int64_t ky = 0; ky < KH; ++ky) {
                      const int64_t iy = oy * st[0] + ky * dl[0] - pd[0];
                      if (iy < 0 || iy >= H) continue;
                      for (int64_t kx = 0; kx < KW; ++kx) {
                        const int64_t ix = ox * st[1] + kx * dl[1] - pd[1];
                        if (ix < 0 || ix >= W) continue;
                        acc += int64_t{a[((b * C + c) * H + iy) * W + ix]} *
                               w[((oc * C + c) * KH + ky) * KW + kx];
                      }
                    }
                  const size_t at = static_cast<size_t>(((b * O + oc) * OH + oy) * OW + ox);
                  int64_t v = wrap32(wrap32(acc) + int64_t{bias ? (*bias)[oc] : 0});
                  v = static_cast<int32_t>(v) >> shifts[oc];
                  if (res) v = wrap32(v + (*res)[at]);
                  o[at] = static_cast<int32_t>(std::clamp<int64_t>(v, relu ? 0 : -128, 127));
                }
        } else {
          const int64_t M = xt.shape[0], K = xt.shape[1];
          for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < O; ++j) {
              int64_t acc = 0;
              for (int64_t k = 0; k < K; ++k) acc += int64_t{a[i * K + k]} * w[j * K + k];
              int64_t v = wrap32(wrap32(acc) + int64_t{bias ? (*bias)[j] : 0});
              v = static_cast<int32_t>(v) >> shifts[j];
              o[i * O + j] = static_cast<int32_t>(std::clamp<int64_t>(v, relu ? 0 : -128, 127));
            }
        }
        iv[y] = o;
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
      case OpKind::SpaceToDepth: {
        const IVec& a = ints(x);
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
        iv[y] = o;
        break;
      }
      case OpKind::Im2Col: {
        // Written from the op's definition (ops.def), by output element. An f32 input is
        // quantized first, as weft.Quantize does.
        IVec qx;
        if (xt.dtype == DType::F32) {
          const auto& f = fv.at(x);
          const int e = exp_of(ot);
          qx.resize(f.size());
          for (size_t i = 0; i < f.size(); ++i)
            qx[i] = sat8(static_cast<int64_t>(std::nearbyint(std::ldexp(static_cast<double>(f[i]), -e))));
        }
        const IVec& a = xt.dtype == DType::F32 ? qx : ints(x);
        const int64_t k = n.facts.kernel.value_or(1), s = n.facts.stride.value_or(1),
                      y0 = n.facts.y0.value_or(0);
        const auto pd = n.facts.gather_pads.value_or(std::vector<int64_t>{0, 0, 0, 0});
        const int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
        const int64_t OC = ot.shape[1], OH = ot.shape[2], OW = ot.shape[3];
        IVec o(static_cast<size_t>(ot.elements()), 0);
        for (int64_t bt = 0; bt < xt.shape[0]; ++bt)
          for (int64_t oc = 0; oc < OC; ++oc) {
            const int64_t c = oc / (k * k), ky = (oc / k) % k, kx = oc % k;
            if (c >= C) {  // a constant channel
              const int64_t v = (*n.facts.consts)[static_cast<size_t>(oc - C * k * k)];
              for (int64_t i = 0; i < OH * OW; ++i) o[static_cast<size_t>((bt * OC + oc) * OH * OW + i)] = static_cast<int32_t>(v);
              continue;
            }
            for (int64_t yy = 0; yy < OH; ++yy)
              for (int64_t xx = 0; xx < OW; ++xx) {
                const int64_t iy = s * (y0 + yy) + ky - pd[0], ix = s * xx + kx - pd[1];
                if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                  o[((bt * OC + oc) * OH + yy) * OW + xx] = a[((bt * C + c) * H + iy) * W + ix];
              }
          }
        iv[y] = o;
        break;
      }
      case OpKind::Concat: {
        int64_t axis = n.get_int("axis", 0);
        if (axis < 0) axis += xt.rank();
        int64_t outer = 1;
        for (int64_t d = 0; d < axis; ++d) outer *= ot.shape[d];
        IVec o;
        for (int64_t k = 0; k < outer; ++k)
          for (ValueId in : n.inputs) {
            const IVec& v = ints(in);
            const int64_t chunk = static_cast<int64_t>(v.size()) / outer;
            o.insert(o.end(), v.begin() + k * chunk, v.begin() + (k + 1) * chunk);
          }
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
          for (size_t i = 0; i < a.size(); ++i)
            o[i] = sat8(int64_t{rshift_round(a[i], sa)} + rshift_round(b[i], sb));
        } else {
          for (size_t i = 0; i < a.size(); ++i) o[i] = sat8(rshift_round(a[i], sa));
        }
        iv[y] = o;
        break;
      }
      case OpKind::MaxPool:
      case OpKind::AveragePool:
      case OpKind::GlobalAveragePool: {
        const IVec& a = ints(x);
        const int64_t NC = xt.shape[0] * xt.shape[1], H = xt.shape[2], W = xt.shape[3];
        const bool global = n.kind == OpKind::GlobalAveragePool;
        const auto k = global ? std::vector<int64_t>{H, W} : n.get_ints("kernel_shape");
        const auto st = global ? std::vector<int64_t>{1, 1} : n.get_ints("strides", {1, 1});
        const auto pd = global ? std::vector<int64_t>{0, 0, 0, 0} : n.get_ints("pads", {0, 0, 0, 0});
        const bool incl = n.get_int("count_include_pad", 0) != 0;
        const int64_t OH = ot.shape[2], OW = ot.shape[3];
        const int d = n.kind == OpKind::MaxPool ? 0 : exp_of(xt) - exp_of(ot);
        IVec o(static_cast<size_t>(ot.elements()));
        for (int64_t p = 0; p < NC; ++p)
          for (int64_t oy = 0; oy < OH; ++oy)
            for (int64_t ox = 0; ox < OW; ++ox) {
              int64_t acc = n.kind == OpKind::MaxPool ? -128 : 0, cnt = 0;
              for (int64_t ky = 0; ky < k[0]; ++ky)
                for (int64_t kx = 0; kx < k[1]; ++kx) {
                  const int64_t iy = oy * st[0] + ky - pd[0], ix = ox * st[1] + kx - pd[1];
                  if (iy < 0 || iy >= H || ix < 0 || ix >= W) {
                    if (incl && iy < H + pd[2] && ix < W + pd[3]) ++cnt;
                    continue;
                  }
                  const int32_t v = a[(p * H + iy) * W + ix];
                  acc = n.kind == OpKind::MaxPool ? std::max<int64_t>(acc, v) : acc + v;
                  ++cnt;
                }
              int64_t r = acc;
              if (n.kind != OpKind::MaxPool) {
                const int64_t num = d >= 0 ? acc * (int64_t{1} << d) : acc;
                const int64_t den = d >= 0 ? cnt : cnt * (int64_t{1} << -d);
                r = sat8(div_round(num, den));
              }
              o[(p * OH + oy) * OW + ox] = static_cast<int32_t>(r);
            }
        iv[y] = o;
        break;
      }
      default:
        fail(n, "is not an int8 operator");
    }
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
