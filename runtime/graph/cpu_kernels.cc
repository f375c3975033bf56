// CPU kernels of the graph executor; see cpu_kernels.h.
#include "runtime/graph/cpu_kernels.h"

#include <algorithm>
#include <cstring>

#include "compiler/graph/interpret.h"
#include "compiler/graph/interpret_kernels.h"
#include "compiler/ops/int8_rounding.h"
#include "hardware/isa/errors.h"

namespace weft::rt::graph {

using compiler::graph::DType;
using compiler::graph::Graph;
using compiler::graph::Node;
using compiler::graph::OpKind;
using compiler::graph::TensorType;

namespace {

namespace ops = compiler::ops;

int exponent(const TensorType& t) { return t.quant.exponent(); }

void pool(const Graph& g, const Node& n, const int8_t* x, int8_t* y) {
  const TensorType& xt = g.value(n.inputs[0]).type;
  const TensorType& yt = g.value(n.outputs[0]).type;
  const int64_t planes = xt.shape[0] * xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t OH = yt.shape[2], OW = yt.shape[3];
  const bool global = n.kind == OpKind::GlobalAveragePool, mx = n.kind == OpKind::MaxPool;
  std::vector<int64_t> k = {H, W}, st = {1, 1}, pd = {0, 0, 0, 0};
  if (!global) {
    k = n.get_ints("kernel_shape");
    st = n.get_ints("strides", {1, 1});
    pd = n.get_ints("pads", {0, 0, 0, 0});
  }
  const bool incl = n.get_int("count_include_pad", 0) != 0;
  const int d = mx ? 0 : exponent(xt) - exponent(yt);
  for (int64_t p = 0; p < planes; ++p) {
    const int8_t* xp = x + p * H * W;
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        const int64_t y0 = oy * st[0] - pd[0], x0 = ox * st[1] - pd[1];
        const int64_t ya = std::max<int64_t>(y0, 0), yb = std::min(y0 + k[0], H);
        const int64_t xa = std::max<int64_t>(x0, 0), xb = std::min(x0 + k[1], W);
        int64_t acc = mx ? -128 : 0;
        for (int64_t iy = ya; iy < yb; ++iy)
          for (int64_t ix = xa; ix < xb; ++ix) acc = mx ? std::max<int64_t>(acc, xp[iy * W + ix]) : acc + xp[iy * W + ix];
        int8_t& out = y[(p * OH + oy) * OW + ox];
        if (mx) {
          out = ops::saturate_int8(acc);
          continue;
        }
        int64_t cnt = (yb - ya) * (xb - xa);
        if (incl)
          cnt = (std::min(y0 + k[0], H + pd[2]) - y0) * (std::min(x0 + k[1], W + pd[3]) - x0);
        out = ops::requantize_average(acc, cnt, d);
      }
  }
}

void qconv(const Graph& g, const Node& n, const int8_t* x, const int8_t* w, const int8_t* res,
           int8_t* y) {
  const TensorType& xt = g.value(n.inputs[0]).type;
  const auto& wv = g.value(n.inputs[1]);
  const TensorType& yt = g.value(n.outputs[0]).type;
  if (wv.type.layout.kind != compiler::graph::Layout::Plain)
    throw UserError("cpu kernel: node '" + n.name + "' has a packed weight");
  const bool conv = n.kind == OpKind::QConv;
  const int32_t* b = n.inputs.size() > 2 && n.inputs[2] != compiler::graph::kNone
                         ? g.value(n.inputs[2]).data->i32()
                         : nullptr;
  const int64_t slices = n.facts.slices.value_or(1);  // a batched dense (facts.def)
  const int64_t O = wv.type.shape[0] / slices;
  std::vector<int64_t> sh = n.facts.shifts.value_or(std::vector<int64_t>{});
  if (sh.empty()) sh.assign(O, n.facts.shift.value_or(0));
  const bool relu = n.facts.relu.value_or(false);
  auto finish = [&](int64_t acc, int64_t oc, int64_t at) {
    y[at] = ops::accel_epilogue(acc, b ? b[oc] : 0, static_cast<int>(sh[oc]), res ? res[at] : 0,
                                relu);
  };
  if (!conv) {
    const int64_t M = xt.shape[0] / slices, K = xt.shape[1];
    // Below 2^31 / 128^2 terms an int32 sum is exact, and its loop vectorizes (-O3, see
    // runtime/CMakeLists.txt): ViT's attention-by-V products took 0.04-0.06 s, not 0.23 s.
    const bool int32_sums = K < (int64_t{1} << 17);
    for (int64_t s = 0; s < slices; ++s)
      for (int64_t i = s * M; i < (s + 1) * M; ++i)
        for (int64_t j = 0; j < O; ++j) {
          const int8_t* xr = x + i * K;
          const int8_t* wr = w + (s * O + j) * K;
          auto dot = [&](auto sum) {  // sum: the accumulator type's zero
            for (int64_t k = 0; k < K; ++k) sum += int32_t{xr[k]} * int32_t{wr[k]};
            return int64_t{sum};
          };
          finish(int32_sums ? dot(int32_t{0}) : dot(int64_t{0}), j, i * O + j);
        }
    return;
  }
  const auto st = n.get_ints("strides", {1, 1}), pd = n.get_ints("pads", {0, 0, 0, 0}),
             dl = n.get_ints("dilations", {1, 1});
  const int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t G = n.get_int("group", 1), CG = C / G;  // grouped: input channels per group
  const int64_t KH = wv.type.shape[2], KW = wv.type.shape[3], OH = yt.shape[2], OW = yt.shape[3];
  std::vector<int32_t> acc(static_cast<size_t>(OH * OW));
  for (int64_t bt = 0; bt < xt.shape[0]; ++bt)
    for (int64_t oc = 0; oc < O; ++oc) {
      std::fill(acc.begin(), acc.end(), 0);
      for (int64_t c = 0; c < CG; ++c)
        for (int64_t ky = 0; ky < KH; ++ky)
          for (int64_t kx = 0; kx < KW; ++kx) {
            const int32_t wk = w[((oc * CG + c) * KH + ky) * KW + kx];
            const int8_t* xp = x + (bt * C + oc / (O / G) * CG + c) * H * W;
            for (int64_t oy = 0; oy < OH; ++oy) {
              const int64_t iy = oy * st[0] + ky * dl[0] - pd[0];
              if (iy < 0 || iy >= H) continue;
              for (int64_t ox = 0; ox < OW; ++ox) {
                const int64_t ix = ox * st[1] + kx * dl[1] - pd[1];
                if (ix >= 0 && ix < W) acc[oy * OW + ox] += wk * xp[iy * W + ix];
              }
            }
          }
      for (int64_t i = 0; i < OH * OW; ++i) finish(acc[i], oc, (bt * O + oc) * OH * OW + i);
    }
}

}  // namespace

void pack_activation(const TensorType& t, int64_t bn, int64_t bc, const int8_t* plain,
                     int8_t* blocked) {
  const int64_t N = t.shape[0], C = t.shape[1], HW = t.elements() / (N * C);
  const int64_t cb = (C + bc - 1) / bc;
  std::memset(blocked, 0, static_cast<size_t>(t.stored_bytes()));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i)
        blocked[(((n / bn) * cb + c / bc) * HW + i) * bn * bc + (n % bn) * bc + c % bc] =
            plain[(n * C + c) * HW + i];
}

void unpack_activation(const TensorType& t, int64_t bn, int64_t bc, const int8_t* blocked,
                       int8_t* plain) {
  const int64_t N = t.shape[0], C = t.shape[1], HW = t.elements() / (N * C);
  const int64_t cb = (C + bc - 1) / bc;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i)
        plain[(n * C + c) * HW + i] =
            blocked[(((n / bn) * cb + c / bc) * HW + i) * bn * bc + (n % bn) * bc + c % bc];
}

void run_cpu_node(const Graph& g, const Node& n, const std::vector<const uint8_t*>& in,
                  uint8_t* out) {
  const TensorType& xt = g.value(n.inputs[0]).type;
  const TensorType& yt = g.value(n.outputs[0]).type;
  const int64_t count = yt.elements();
  const auto* x8 = reinterpret_cast<const int8_t*>(in[0]);
  auto* y8 = reinterpret_cast<int8_t*>(out);
  if (n.kind == OpKind::Flatten || n.kind == OpKind::Reshape) {  // either dtype: the same bytes
    std::memcpy(out, in[0], static_cast<size_t>(yt.stored_bytes()));
    return;
  }
  if (yt.dtype == DType::F32 && n.kind != OpKind::Dequantize) {  // kept in fp32 (quantize.h)
    std::vector<const float*> fin;
    for (const uint8_t* p : in) fin.push_back(reinterpret_cast<const float*>(p));
    compiler::graph::run_float_node(g, n, fin, reinterpret_cast<float*>(out));
    return;
  }
  switch (n.kind) {
    case OpKind::Quantize: {
      const auto* xf = reinterpret_cast<const float*>(in[0]);
      const int e = exponent(yt);
      for (int64_t i = 0; i < count; ++i) y8[i] = ops::quantize(xf[i], e);
      return;
    }
    case OpKind::Dequantize: {
      auto* yf = reinterpret_cast<float*>(out);
      const int e = exponent(xt);
      for (int64_t i = 0; i < count; ++i) yf[i] = ops::dequantize(x8[i], e);
      return;
    }
    case OpKind::Relu:
      for (int64_t i = 0; i < count; ++i) y8[i] = std::max<int8_t>(x8[i], 0);
      return;
    case OpKind::Clip: {  // int8 bounds (compiler/graph/quantize.cc)
      const int lo = static_cast<int>(n.get_float("min", -128)),
                hi = static_cast<int>(n.get_float("max", 127));
      for (int64_t i = 0; i < count; ++i)
        y8[i] = static_cast<int8_t>(std::min(std::max<int>(x8[i], lo), hi));
      return;
    }
    case OpKind::Add:
    case OpKind::Requantize: {
      const int eo = exponent(yt), sa = eo - exponent(xt);
      if (n.kind == OpKind::Requantize) {
        for (int64_t i = 0; i < count; ++i) y8[i] = ops::requantize(x8[i], sa);
        return;
      }
      const auto* z8 = reinterpret_cast<const int8_t*>(in[1]);
      const int sb = eo - exponent(g.value(n.inputs[1]).type);
      for (int64_t i = 0; i < count; ++i) y8[i] = ops::requantize_add(x8[i], sa, z8[i], sb);
      return;
    }
    case OpKind::MaxPool:
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool:
      if (xt.dtype != DType::I8) break;
      pool(g, n, x8, y8);
      return;
    case OpKind::SpaceToDepth: {
      const int64_t b = n.facts.block.value_or(2);
      const auto pd = n.facts.gather_pads.value_or(std::vector<int64_t>{0, 0, 0, 0});
      const int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
      const int64_t OC = yt.shape[1], OH = yt.shape[2], OW = yt.shape[3];
      std::memset(out, 0, static_cast<size_t>(yt.stored_bytes()));
      for (int64_t bt = 0; bt < xt.shape[0]; ++bt)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t by = 0; by < b; ++by)
            for (int64_t bx = 0; bx < b; ++bx) {
              int8_t* op = y8 + ((bt * OC) + (c * b + by) * b + bx) * OH * OW;
              const int8_t* ip = x8 + (bt * C + c) * H * W;
              for (int64_t yy = 0; yy < OH; ++yy) {
                const int64_t iy = b * yy + by - pd[0];
                if (iy < 0 || iy >= H) continue;
                for (int64_t xx = 0; xx < OW; ++xx) {
                  const int64_t ix = b * xx + bx - pd[1];
                  if (ix >= 0 && ix < W) op[yy * OW + xx] = ip[iy * W + ix];
                }
              }
            }
      return;
    }
    case OpKind::Im2Col: {
      const int64_t k = n.facts.kernel.value_or(1), s = n.facts.stride.value_or(1),
                    y0 = n.facts.y0.value_or(0);
      const auto pd = n.facts.gather_pads.value_or(std::vector<int64_t>{0, 0, 0, 0});
      const int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
      const int64_t OC = yt.shape[1], OH = yt.shape[2], OW = yt.shape[3];
      std::memset(out, 0, static_cast<size_t>(yt.stored_bytes()));
      for (int64_t bt = 0; bt < xt.shape[0]; ++bt)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t ky = 0; ky < k; ++ky)
            for (int64_t kx = 0; kx < k; ++kx) {
              int8_t* op = y8 + ((bt * OC) + (c * k + ky) * k + kx) * OH * OW;
              const int8_t* ip = x8 + (bt * C + c) * H * W;
              for (int64_t yy = 0; yy < OH; ++yy) {
                const int64_t iy = s * (y0 + yy) + ky - pd[0];
                if (iy < 0 || iy >= H) continue;
                for (int64_t xx = 0; xx < OW; ++xx) {
                  const int64_t ix = s * xx + kx - pd[1];
                  if (ix >= 0 && ix < W) op[yy * OW + xx] = ip[iy * W + ix];
                }
              }
            }
      // Constant channels after the gathered ones (a bias folded into the GEMM).
      const auto consts = n.facts.consts.value_or(std::vector<int64_t>{});
      for (int64_t bt = 0; bt < xt.shape[0]; ++bt)
        for (size_t j = 0; j < consts.size(); ++j)
          std::memset(y8 + (bt * OC + C * k * k + static_cast<int64_t>(j)) * OH * OW,
                      static_cast<int8_t>(consts[j]), static_cast<size_t>(OH * OW));
      return;
    }
    case OpKind::Concat: {
      int64_t axis = n.get_int("axis", 0);
      if (axis < 0) axis += xt.rank();
      int64_t outer = 1;
      for (int64_t d = 0; d < axis; ++d) outer *= yt.shape[d];
      uint8_t* o = out;
      for (int64_t k = 0; k < outer; ++k)
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          const int64_t chunk = g.value(n.inputs[i]).type.stored_bytes() / outer;
          std::memcpy(o, in[i] + k * chunk, static_cast<size_t>(chunk));
          o += chunk;
        }
      return;
    }
    case OpKind::Slice:  // int8 channel slices (split_groups)
      compiler::graph::slice_kernel<int8_t>(x8, xt.shape, static_cast<size_t>(n.get_int("axis", 0)),
                                            n.get_int("start", 0), n.get_int("end", 0), y8,
                                            n.get_int("step", 1));
      return;
    case OpKind::QConv:
    case OpKind::QDense: {
      const int8_t* res = n.kind == OpKind::QConv && in.size() > 3 && in[3]
                              ? reinterpret_cast<const int8_t*>(in[3])
                              : nullptr;
      qconv(g, n, x8, reinterpret_cast<const int8_t*>(in[1]), res, y8);
      return;
    }
    default:
      break;
  }
  throw UserError("graph executor: no CPU kernel for node '" + n.name + "' (" +
                  compiler::graph::op_name(n.kind) + ", " + xt.str() + ")");
}

}  // namespace weft::rt::graph
