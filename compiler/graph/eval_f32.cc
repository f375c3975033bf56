// The fp32 evaluator; see eval_f32.h.
#include "compiler/graph/eval_f32.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

namespace {

using Vec = std::vector<float>;

Vec const_f32(const Value& v) {
  if (v.type.dtype != DType::F32) throw UserError("eval_f32: constant '" + v.name + "' is not f32");
  return Vec(v.data->f32(), v.data->f32() + v.type.elements());
}

Vec conv(const Node& n, const TensorType& xt, const Vec& x, const TensorType& wt, const Vec& w,
         const Vec* bias, const TensorType& ot) {
  const auto st = n.get_ints("strides", {1, 1}), pd = n.get_ints("pads", {0, 0, 0, 0}),
             dl = n.get_ints("dilations", {1, 1});
  const int64_t group = n.get_int("group", 1);
  const int64_t N = xt.shape[0], C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t O = wt.shape[0], CI = wt.shape[1], KH = wt.shape[2], KW = wt.shape[3];
  const int64_t OH = ot.shape[2], OW = ot.shape[3], opg = O / group;
  Vec out(static_cast<size_t>(ot.elements()));
  for (int64_t b = 0; b < N; ++b)
    for (int64_t o = 0; o < O; ++o) {
      const int64_t g0 = (o / opg) * CI;
      float* op = &out[((b * O + o) * OH) * OW];
      const float bv = bias ? (*bias)[o] : 0.0f;
      for (int64_t i = 0; i < OH * OW; ++i) op[i] = bv;
      for (int64_t c = 0; c < CI; ++c)
        for (int64_t ky = 0; ky < KH; ++ky)
          for (int64_t kx = 0; kx < KW; ++kx) {
            const float wv = w[((o * CI + c) * KH + ky) * KW + kx];
            const float* xp = &x[((b * C + g0 + c) * H) * W];
            // Output columns whose input column lies inside: [x_lo, x_hi).
            const int64_t off = kx * dl[1] - pd[1];
            int64_t x_lo = off >= 0 ? 0 : (-off + st[1] - 1) / st[1];
            int64_t x_hi = W - off <= 0 ? 0 : (W - off + st[1] - 1) / st[1];
            x_hi = std::min(x_hi, OW);
            for (int64_t y = 0; y < OH; ++y) {
              const int64_t iy = y * st[0] + ky * dl[0] - pd[0];
              if (iy < 0 || iy >= H) continue;
              float* orow = op + y * OW;
              const float* irow = xp + iy * W + off;
              if (st[1] == 1) {
                for (int64_t xx = x_lo; xx < x_hi; ++xx) orow[xx] += wv * irow[xx];
              } else {
                for (int64_t xx = x_lo; xx < x_hi; ++xx) orow[xx] += wv * irow[xx * st[1]];
              }
            }
          }
    }
  (void)C;
  return out;
}

Vec pool(const Node& n, const TensorType& xt, const Vec& x, const TensorType& ot, bool max) {
  const auto k = n.get_ints("kernel_shape"), st = n.get_ints("strides", {1, 1}),
             pd = n.get_ints("pads", {0, 0, 0, 0});
  const bool incl = n.get_int("count_include_pad", 0) != 0;
  const int64_t NC = xt.shape[0] * xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t OH = ot.shape[2], OW = ot.shape[3];
  Vec out(static_cast<size_t>(ot.elements()));
  for (int64_t p = 0; p < NC; ++p)
    for (int64_t y = 0; y < OH; ++y)
      for (int64_t xx = 0; xx < OW; ++xx) {
        float acc = max ? -std::numeric_limits<float>::infinity() : 0.0f;
        int64_t cnt = 0;
        for (int64_t ky = 0; ky < k[0]; ++ky)
          for (int64_t kx = 0; kx < k[1]; ++kx) {
            const int64_t iy = y * st[0] + ky - pd[0], ix = xx * st[1] + kx - pd[1];
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) {
              if (incl && iy < H + pd[2] && ix < W + pd[3]) ++cnt;
              continue;
            }
            const float v = x[(p * H + iy) * W + ix];
            acc = max ? std::max(acc, v) : acc + v;
            ++cnt;
          }
        out[(p * OH + y) * OW + xx] = max ? acc : acc / static_cast<float>(cnt);
      }
  return out;
}

}  // namespace

std::vector<std::vector<float>> eval_f32(const Graph& g, const std::vector<std::vector<float>>& inputs,
                                         const ValueObserver& observe) {
  std::map<ValueId, Vec> env;
  auto ins = g.inputs();
  if (inputs.size() != ins.size())
    throw UserError("eval_f32: " + std::to_string(inputs.size()) + " inputs given, the graph has " +
                    std::to_string(ins.size()));
  for (size_t i = 0; i < ins.size(); ++i) {
    if (static_cast<int64_t>(inputs[i].size()) != g.value(ins[i]).type.elements())
      throw UserError("eval_f32: input '" + g.value(ins[i]).name + "' has " +
                      std::to_string(inputs[i].size()) + " elements, its type " +
                      g.value(ins[i]).type.str() + " needs " +
                      std::to_string(g.value(ins[i]).type.elements()));
    env[ins[i]] = inputs[i];
    if (observe) observe(ins[i], inputs[i]);
  }
  auto get = [&](ValueId v) -> const Vec& {
    auto it = env.find(v);
    if (it != env.end()) return it->second;
    const Value& val = g.value(v);
    if (!val.is_constant()) throw InternalError("eval_f32: value '" + val.name + "' not computed");
    return env[v] = const_f32(val);
  };
  for (NodeId id : g.topo_order()) {
    const Node& n = g.node(id);
    const TensorType& xt = g.value(n.inputs[0]).type;
    const TensorType& ot = g.value(n.outputs[0]).type;
    if (xt.dtype != DType::F32 || xt.layout.kind != Layout::Plain)
      throw UserError("eval_f32: node '" + n.name + "' (" + op_name(n.kind) + ") is not plain fp32");
    const Vec& x = get(n.inputs[0]);
    Vec out;
    switch (n.kind) {
      case OpKind::Conv: {
        const Vec* b = n.inputs.size() > 2 && n.inputs[2] != kNone ? &get(n.inputs[2]) : nullptr;
        out = conv(n, xt, x, g.value(n.inputs[1]).type, get(n.inputs[1]), b, ot);
        break;
      }
      case OpKind::BatchNormalization: {
        const Vec &sc = get(n.inputs[1]), &bi = get(n.inputs[2]), &mu = get(n.inputs[3]),
                  &var = get(n.inputs[4]);
        const double eps = n.get_float("epsilon", 1e-5);
        const int64_t C = xt.shape[1], inner = xt.elements() / (xt.shape[0] * C);
        out = x;
        for (int64_t i = 0; i < xt.elements(); ++i) {
          const int64_t c = (i / inner) % C;
          out[i] = static_cast<float>((x[i] - mu[c]) / std::sqrt(var[c] + eps) * sc[c] + bi[c]);
        }
        break;
      }
      case OpKind::Relu:
        out = x;
        for (float& v : out) v = std::max(v, 0.0f);
        break;
      case OpKind::Clip: {
        float lo = static_cast<float>(n.get_float("min", -INFINITY)),
              hi = static_cast<float>(n.get_float("max", INFINITY));
        if (n.inputs.size() > 1 && n.inputs[1] != kNone) lo = get(n.inputs[1])[0];
        if (n.inputs.size() > 2 && n.inputs[2] != kNone) hi = get(n.inputs[2])[0];
        out = x;
        for (float& v : out) v = std::min(std::max(v, lo), hi);
        break;
      }
      case OpKind::MaxPool:
      case OpKind::AveragePool:
        out = pool(n, xt, x, ot, n.kind == OpKind::MaxPool);
        break;
      case OpKind::GlobalAveragePool: {
        const int64_t NC = xt.shape[0] * xt.shape[1], inner = xt.elements() / NC;
        out.assign(static_cast<size_t>(NC), 0.0f);
        for (int64_t p = 0; p < NC; ++p) {
          double s = 0;
          for (int64_t i = 0; i < inner; ++i) s += x[p * inner + i];
          out[p] = static_cast<float>(s / static_cast<double>(inner));
        }
        break;
      }
      case OpKind::Add: {
        const TensorType& yt = g.value(n.inputs[1]).type;
        const Vec& y = get(n.inputs[1]);
        out.resize(static_cast<size_t>(ot.elements()));
        // General broadcasting by index arithmetic.
        const int64_t r = ot.rank();
        for (int64_t i = 0; i < ot.elements(); ++i) {
          int64_t rem = i, ia = 0, ib = 0, sa = 1, sb = 1;
          for (int64_t d = r - 1; d >= 0; --d) {
            const int64_t idx = rem % ot.shape[d];
            rem /= ot.shape[d];
            const int64_t da = d - (r - xt.rank()), db = d - (r - yt.rank());
            if (da >= 0) {
              ia += (xt.shape[da] == 1 ? 0 : idx) * sa;
              sa *= xt.shape[da];
            }
            if (db >= 0) {
              ib += (yt.shape[db] == 1 ? 0 : idx) * sb;
              sb *= yt.shape[db];
            }
          }
          out[i] = x[ia] + y[ib];
        }
        break;
      }
      case OpKind::Flatten:
      case OpKind::Reshape:
        out = x;
        break;
      case OpKind::Gemm:
      case OpKind::MatMul: {
        const TensorType& bt = g.value(n.inputs[1]).type;
        const Vec& bm = get(n.inputs[1]);
        if (xt.rank() != 2 || bt.rank() != 2)
          throw UserError("eval_f32: node '" + n.name + "': only 2D products are evaluated");
        const bool ta = n.get_int("transA", 0), tb = n.get_int("transB", 0);
        const float alpha = static_cast<float>(n.get_float("alpha", 1.0)),
                    beta = static_cast<float>(n.get_float("beta", 1.0));
        const int64_t M = ot.shape[0], N = ot.shape[1], K = ta ? xt.shape[0] : xt.shape[1];
        const Vec* c = n.kind == OpKind::Gemm && n.inputs.size() > 2 && n.inputs[2] != kNone
                           ? &get(n.inputs[2])
                           : nullptr;
        const int64_t cn = c ? static_cast<int64_t>(c->size()) : 0;
        out.assign(static_cast<size_t>(M * N), 0.0f);
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            float s = 0;
            for (int64_t k = 0; k < K; ++k)
              s += x[ta ? k * M + i : i * K + k] * bm[tb ? j * K + k : k * N + j];
            float cv = 0;
            if (c) cv = cn == M * N ? (*c)[i * N + j] : cn == N ? (*c)[j] : cn == 1 ? (*c)[0] : (*c)[i];
            out[i * N + j] = alpha * s + beta * cv;
          }
        break;
      }
      case OpKind::Concat: {
        int64_t axis = n.get_int("axis", 0);
        if (axis < 0) axis += xt.rank();
        int64_t outer = 1;
        for (int64_t d = 0; d < axis; ++d) outer *= ot.shape[d];
        for (int64_t o = 0; o < outer; ++o)
          for (ValueId in : n.inputs) {
            const Vec& v = get(in);
            const int64_t chunk = static_cast<int64_t>(v.size()) / outer;
            out.insert(out.end(), v.begin() + o * chunk, v.begin() + (o + 1) * chunk);
          }
        break;
      }
      default:
        throw UserError("eval_f32: node '" + n.name + "' (" + op_name(n.kind) +
                        ") is not an fp32 operator");
    }
    if (observe) observe(n.outputs[0], out);
    env[n.outputs[0]] = std::move(out);
  }
  std::vector<Vec> res;
  for (ValueId o : g.outputs()) res.push_back(get(o));
  return res;
}

}  // namespace weft::compiler::graph
