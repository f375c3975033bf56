// Slice-at-a-time copies between plain and packed tensors; see packed_io.h.
#include "runtime/graph/packed_io.h"

#include <algorithm>
#include <cstring>

#include "compiler/ops/int8_rounding.h"
#include "hardware/isa/errors.h"
#include "runtime/graph/cpu_kernels.h"

namespace weft::rt::graph {

using compiler::graph::DType;
using compiler::graph::Graph;
using compiler::graph::Layout;
using compiler::graph::Node;
using compiler::graph::OpKind;
using compiler::graph::TensorType;
using compiler::graph::ValueId;

namespace {

constexpr int64_t kChunk = kPackedChunkBytes;  // staging target per copy

// The packed geometry of a blocked rank-2/4 type.
struct Blocks {
  int64_t N, C, HW, bn, bc, NB, CB, plane;  // plane: bytes of one (batch, channel) block
  explicit Blocks(const TensorType& t)
      : N(t.shape[0]), C(t.shape[1]), HW(t.elements() / (t.shape[0] * t.shape[1])),
        bn(t.layout.n), bc(t.layout.c), NB((N + bn - 1) / bn), CB((C + bc - 1) / bc),
        plane(HW * bn * bc) {
    if (t.layout.kind != Layout::Blocked || t.dtype != DType::I8)
      throw InternalError("packed_io: " + t.str() + " is not an int8 packed type");
  }
  int64_t planes_per_chunk() const { return std::max<int64_t>(1, kChunk / plane); }
};

// Calls f(whole_offset, done, length) for each piece of [off, off + bytes) of the smaller
// tensor, split where its planes end.
template <typename F>
void each_piece(int64_t off, int64_t bytes, int64_t part_plane, int64_t whole_plane, int64_t shift,
                F f) {
  for (int64_t done = 0; done < bytes;) {
    const int64_t at = off + done, p = at / part_plane, rem = at % part_plane;
    const int64_t len = std::min(bytes - done, part_plane - rem);
    f(p * whole_plane + shift + rem, done, len);
    done += len;
  }
}

// Index in the destination of plain index p of a value of shape S placed at out.at on out.axis.
struct SliceMap {
  int64_t inner = 1, Sa, Pa, at;
  SliceMap(const std::vector<int64_t>& S, const PlainSlice& out) {
    const auto& P = out.shape;
    if (P.size() != S.size() || out.axis < 0 || out.axis >= static_cast<int64_t>(S.size()) ||
        out.at < 0 || out.at + S[out.axis] > P[out.axis])
      throw InternalError("packed_io: a value does not fit its destination slice");
    for (size_t d = static_cast<size_t>(out.axis) + 1; d < S.size(); ++d) inner *= S[d];
    Sa = S[out.axis];
    Pa = P[out.axis];
    at = out.at;
  }
  int64_t operator()(int64_t p) const {
    const int64_t in = p % inner, ia = (p / inner) % Sa, o = p / (inner * Sa);
    return (o * Pa + at + ia) * inner + in;
  }
  // Copies n elements starting at plain index p in runs contiguous in the destination.
  void copy(const int8_t* src, int64_t p, int64_t n, int8_t* dst) const {
    for (int64_t k = 0; k < n;) {
      const int64_t run = std::min(inner - (p + k) % inner, n - k);
      std::memcpy(dst + (*this)(p + k), src + k, static_cast<size_t>(run));
      k += run;
    }
  }
};

}  // namespace

PackedReader rows_of(PackedReader whole, int64_t row_bytes, int64_t rows, int64_t whole_rows,
                     int64_t y0) {
  return [whole, row_bytes, rows, whole_rows, y0](int64_t off, int8_t* d, int64_t b) {
    each_piece(off, b, rows * row_bytes, whole_rows * row_bytes, y0 * row_bytes,
               [&](int64_t at, int64_t done, int64_t len) { whole(at, d + done, len); });
  };
}

PackedWriter rows_of(PackedWriter whole, int64_t row_bytes, int64_t rows, int64_t whole_rows,
                     int64_t y0) {
  return [whole, row_bytes, rows, whole_rows, y0](int64_t off, const int8_t* d, int64_t b) {
    each_piece(off, b, rows * row_bytes, whole_rows * row_bytes, y0 * row_bytes,
               [&](int64_t at, int64_t done, int64_t len) { whole(at, d + done, len); });
  };
}

void copy_into(const int8_t* src, const std::vector<int64_t>& shape, const PlainSlice& out) {
  const SliceMap m(shape, out);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  m.copy(src, 0, n, out.dst);
}

// Writes the packed tensor of b a chunk of whole planes at a time: zero fills the chunk and
// calls fill(nb, cb, out) for each (batch block, channel block) plane inside it. Returns the
// chunk buffer's bytes.
template <typename Fill>
int64_t write_chunks(const Blocks& b, const PackedWriter& write, Fill fill) {
  const int64_t total = b.NB * b.CB, per = std::min(total, b.planes_per_chunk());
  std::vector<int8_t> buf(static_cast<size_t>(per * b.plane));
  for (int64_t p0 = 0; p0 < total; p0 += per) {
    const int64_t np = std::min(per, total - p0);
    std::memset(buf.data(), 0, static_cast<size_t>(np * b.plane));
    for (int64_t p = p0; p < p0 + np; ++p) fill(p / b.CB, p % b.CB, buf.data() + (p - p0) * b.plane);
    write(p0 * b.plane, buf.data(), np * b.plane);
  }
  return static_cast<int64_t>(buf.size());
}

// write_chunks scattering each plain (image, channel) plane of hw int8 values, plane_of(n, c),
// into its lanes.
template <typename PlaneOf>
int64_t write_planes(const Blocks& b, int64_t hw, const PackedWriter& write, PlaneOf plane_of) {
  return write_chunks(b, write, [&](int64_t nb, int64_t cb, int8_t* o) {
    for (int64_t n = nb * b.bn; n < std::min(b.N, (nb + 1) * b.bn); ++n)
      for (int64_t c = cb * b.bc; c < std::min(b.C, (cb + 1) * b.bc); ++c) {
        const int8_t* src = plane_of(n, c);
        int8_t* d = o + (n % b.bn) * b.bc + c % b.bc;
        for (int64_t i = 0; i < hw; ++i) d[i * b.bn * b.bc] = src[i];
      }
  });
}

int64_t pack_stream(const TensorType& t, const int8_t* plain, const PackedWriter& write) {
  const Blocks b(t);
  if (b.HW == 1)  // a matrix (a dense layer's rows): a row of a block is a run of its channels
    return write_chunks(b, write, [&](int64_t nb, int64_t cb, int8_t* o) {
      const int64_t c0 = cb * b.bc, len = std::min(b.C, c0 + b.bc) - c0;
      for (int64_t n = nb * b.bn; n < std::min(b.N, (nb + 1) * b.bn); ++n)
        std::memcpy(o + (n % b.bn) * b.bc, plain + n * b.C + c0, static_cast<size_t>(len));
    });
  return write_planes(b, b.HW, write,
                      [&](int64_t n, int64_t c) { return plain + (n * b.C + c) * b.HW; });
}

int64_t unpack_stream(const TensorType& t, const PackedReader& read, const PlainSlice& out) {
  const Blocks b(t);
  const SliceMap m(t.shape, out);
  const bool whole = out.shape == t.shape;  // then the slice is the tensor itself (at 0)
  const int64_t total = b.NB * b.CB, per = std::min(total, b.planes_per_chunk());
  std::vector<int8_t> buf(static_cast<size_t>(per * b.plane)), pl(static_cast<size_t>(b.HW));
  for (int64_t p0 = 0; p0 < total; p0 += per) {
    const int64_t np = std::min(per, total - p0);
    read(p0 * b.plane, buf.data(), np * b.plane);
    for (int64_t p = p0; p < p0 + np; ++p) {
      const int64_t nb = p / b.CB, cb = p % b.CB;
      const int8_t* blk = buf.data() + (p - p0) * b.plane;
      if (b.HW == 1) {
        // A matrix (a dense layer's rows): each row of the block is a run of its channels, one
        // copy rather than one per element; straight to its place when `out` is the whole
        // tensor (no index arithmetic per run).
        const int64_t c0 = cb * b.bc, len = std::min(b.C, c0 + b.bc) - c0;
        for (int64_t n = nb * b.bn; n < std::min(b.N, (nb + 1) * b.bn); ++n) {
          const int8_t* row = blk + (n % b.bn) * b.bc;
          if (whole)
            std::memcpy(out.dst + n * b.C + c0, row, static_cast<size_t>(len));
          else
            m.copy(row, n * b.C + c0, len, out.dst);
        }
        continue;
      }
      for (int64_t n = nb * b.bn; n < std::min(b.N, (nb + 1) * b.bn); ++n)
        for (int64_t c = cb * b.bc; c < std::min(b.C, (cb + 1) * b.bc); ++c) {
          const int8_t* s = blk + (n % b.bn) * b.bc + c % b.bc;
          for (int64_t i = 0; i < b.HW; ++i) pl[i] = s[i * b.bn * b.bc];
          m.copy(pl.data(), (n * b.C + c) * b.HW, b.HW, out.dst);  // the plane, in runs
        }
    }
  }
  return static_cast<int64_t>(buf.size() + pl.size());
}

int64_t im2col_packed(const Graph& g, const Node& n, const void* in, const PackedWriter& write) {
  const TensorType& xt = g.value(n.inputs[0]).type;
  const TensorType& yt = g.value(n.outputs[0]).type;
  const Blocks b(yt);
  const int64_t K = n.facts.kernel.value_or(1), s = n.facts.stride.value_or(1),
                y0 = n.facts.y0.value_or(0);
  const auto pd = n.facts.gather_pads.value_or(std::vector<int64_t>{0, 0, 0, 0});
  const auto consts = n.facts.consts.value_or(std::vector<int64_t>{});
  const int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t OC = yt.shape[1], OH = yt.shape[2], OW = yt.shape[3], CKK = C * K * K;
  const bool f32 = xt.dtype == DType::F32;
  const int e = f32 ? yt.quant.exponent() : 0;  // weft.Quantize's exponent
  // Output rows per chunk; the input rows they read (the window), quantized once per chunk.
  const int64_t row = b.NB * b.CB * OW * b.bn * b.bc;
  const int64_t R = std::max<int64_t>(1, std::min(OH, kChunk / row));
  const int64_t WR = (R - 1) * s + K;
  std::vector<int8_t> buf(static_cast<size_t>(R * row)), win(static_cast<size_t>(C * WR * W));
  for (int64_t r0 = 0; r0 < OH; r0 += R) {
    const int64_t nr = std::min(R, OH - r0);
    const int64_t iy0 = s * (y0 + r0) - pd[0];  // input row of window row 0
    std::memset(buf.data(), 0, static_cast<size_t>(nr * row));
    for (int64_t bt = 0; bt < b.N; ++bt) {
      for (int64_t c = 0; c < C; ++c)
        for (int64_t r = 0; r < WR; ++r) {
          int8_t* w = win.data() + (c * WR + r) * W;
          const int64_t iy = iy0 + r;
          if (iy < 0 || iy >= H) {
            std::memset(w, 0, static_cast<size_t>(W));
            continue;
          }
          const int64_t at = ((bt * C + c) * H + iy) * W;
          if (f32) {
            const float* x = static_cast<const float*>(in) + at;
            for (int64_t i = 0; i < W; ++i)
              w[i] = compiler::ops::quantize(x[i], e);
          } else {
            std::memcpy(w, static_cast<const int8_t*>(in) + at, static_cast<size_t>(W));
          }
        }
      const int64_t nb = bt / b.bn, lane_n = (bt % b.bn) * b.bc;
      for (int64_t oc = 0; oc < OC; ++oc) {
        // buf: [nb][cb][row][OW][bn][bc] for the chunk's nr rows.
        int8_t* base = buf.data() + ((nb * b.CB + oc / b.bc) * nr * OW) * b.bn * b.bc + lane_n + oc % b.bc;
        const int64_t step = b.bn * b.bc;
        if (oc >= CKK) {
          const int8_t v = static_cast<int8_t>(consts[static_cast<size_t>(oc - CKK)]);
          for (int64_t i = 0; i < nr * OW; ++i) base[i * step] = v;
          continue;
        }
        const int64_t c = oc / (K * K), ky = (oc / K) % K, kx = oc % K;
        for (int64_t yy = 0; yy < nr; ++yy) {
          const int8_t* w = win.data() + (c * WR + yy * s + ky) * W;
          int8_t* o = base + yy * OW * step;
          for (int64_t xx = 0; xx < OW; ++xx) {
            const int64_t ix = s * xx + kx - pd[1];
            if (ix >= 0 && ix < W) o[xx * step] = w[ix];
          }
        }
      }
    }
    const int64_t run = nr * OW * b.bn * b.bc;
    for (int64_t p = 0; p < b.NB * b.CB; ++p)
      write((p * OH + r0) * OW * b.bn * b.bc, buf.data() + p * run, run);
  }
  return static_cast<int64_t>(buf.size() + win.size());
}

int64_t pool_packed(const Graph& g, const Node& n, const int8_t* in, const PackedWriter& write) {
  const TensorType& xt = g.value(n.inputs[0]).type;
  const TensorType& yt = g.value(n.outputs[0]).type;
  const Blocks b(yt);
  const int64_t H = xt.shape[2], W = xt.shape[3], OHW = yt.shape[2] * yt.shape[3];
  // The node on one plane: the same attributes, a [1, 1, H, W] input, a plain output (a pool's
  // facts say only where it runs and where its packed output goes).
  Graph one("plane");
  TensorType pt = xt;
  pt.shape = {1, 1, H, W};
  const ValueId x = one.add_input("x", pt);
  const ValueId y = one.add_op(n.kind, n.name, {x}, n.attrs);
  const Node& on = *one.producer(y);
  if (one.value(y).type.elements() != OHW)
    throw InternalError("packed_io: node '" + n.name + "' is not a per-plane operator");
  std::vector<int8_t> pl(static_cast<size_t>(OHW));
  const int64_t chunk = write_planes(b, OHW, write, [&](int64_t bt, int64_t c) {
    run_cpu_node(one, on, {reinterpret_cast<const uint8_t*>(in + (bt * b.C + c) * H * W)},
                 reinterpret_cast<uint8_t*>(pl.data()));
    return static_cast<const int8_t*>(pl.data());
  });
  return chunk + static_cast<int64_t>(pl.size());
}

}  // namespace weft::rt::graph
