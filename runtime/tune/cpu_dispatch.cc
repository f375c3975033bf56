// Micro-kernels per host kind, family buckets, fitting and the dispatch lookup; see
// cpu_dispatch.h.
#include "runtime/tune/cpu_dispatch.h"

#include <algorithm>
#include <filesystem>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/ops/tiling.h"
#include "hardware/isa/errors.h"
#include "runtime/tune/cpu_schedules.h"

namespace weft::rt::tune {

using nlohmann::json;
namespace cpu = compiler::ops::cpu;
namespace codegen = compiler::codegen;

namespace {

// 32-bit lanes of a vector register on a host kind.
int64_t lanes_of(const std::string& host_kind) {
  if (host_kind == "avx512-vnni" || host_kind == "avx512") return 16;
  if (host_kind == "avx2") return 8;
  throw UserError("CPU dispatch: no micro-kernels for host kind '" + host_kind +
                  "' (avx512-vnni, avx512 or avx2)");
}

// A dense kernel: rows x vecs vectors of `vl` lanes, W panels packed in the kernel (pack_w 3).
CpuMicroKernel dense_kernel(const std::string& prefix, int64_t rows, int64_t vecs, int64_t vl,
                         int64_t k_unroll, int64_t k_pack, int64_t row_block_tiles = 0) {
  cpu::DenseSchedule s;
  s.rows = rows;
  s.cols = vecs * vl;
  s.lanes = vl;
  s.k_unroll = k_unroll;
  s.k_pack = k_pack;
  s.pack_w = 3;
  s.row_block = row_block_tiles * rows;
  std::string name = prefix + std::to_string(rows) + "x" + std::to_string(vecs) + "v";
  if (row_block_tiles) name += ".rb" + std::to_string(row_block_tiles);
  return {name, knobs_of(s)};
}

// ci_unroll: input channels per step of the reduction loop (fitted down to a divisor of the
// channel block); more is fewer loop branches and address updates per multiply.
CpuMicroKernel conv_kernel(int64_t ow, int64_t oc_blocks, int64_t ci_unroll, bool rows_outer,
                           int64_t k_pack = 2) {
  cpu::ConvSchedule s;
  s.ow = ow;
  s.oc_blocks = oc_blocks;
  s.ci_unroll = ci_unroll;
  s.rows_outer = rows_outer;
  s.k_pack = k_pack;
  return {std::to_string(ow) + "x" + std::to_string(oc_blocks) + "b" + (rows_outer ? ".ro" : "") +
              (ci_unroll != 2 ? ".u" + std::to_string(ci_unroll) : "") + (k_pack == 4 ? ".q" : ""),
          knobs_of(s)};
}

// int8 convolutions multiply byte quads (vpdpbusd) where the host has AVX-512 VNNI: four
// channels a lane per instruction, against two for int16 pairs.
int64_t conv_k_pack(const std::string& host_kind, const std::string& dtype) {
  return dtype == "int8" && host_kind == "avx512-vnni" ? 4 : 2;
}

using Range = std::pair<std::pair<int64_t, int64_t>, int64_t>;  // [lo, hi], home size

}  // namespace

std::vector<CpuMicroKernel> micro_kernels(const std::string& host_kind, const std::string& op,
                                       const std::string& dtype) {
  const int64_t vl = lanes_of(host_kind);
  const bool wide = vl == 16;  // 32 registers (AVX-512), else 16 (AVX2)
  if (op == "conv2d") {
    // ow x oc_blocks accumulators of 16 channels (one zmm, or two ymm): up to 28 of 32 zmm or
    // 12 of 16 ymm, leaving registers for the weights and the broadcast.
    const int64_t kp = conv_k_pack(host_kind, dtype);
    if (wide)
      return {conv_kernel(7, 2, 2, false, kp),  conv_kernel(7, 2, 2, true, kp),
              conv_kernel(14, 1, 2, false, kp), conv_kernel(4, 4, 2, false, kp),
              conv_kernel(12, 2, 2, false, kp), conv_kernel(7, 2, 16, false, kp),
              conv_kernel(7, 2, 16, true, kp)};
    return {conv_kernel(6, 1, 2, false), conv_kernel(6, 1, 2, true), conv_kernel(5, 1, 2, false),
            conv_kernel(2, 2, 2, false), conv_kernel(6, 1, 16, false)};
  }
  if (op != "dense") throw UserError("CPU dispatch: no micro-kernels for op '" + op + "'");
  if (dtype == "float32") {
    const std::string p = "f32.";
    if (wide)
      return {dense_kernel(p, 4, 4, vl, 2, 2),  dense_kernel(p, 8, 2, vl, 2, 2),
              dense_kernel(p, 12, 2, vl, 2, 2), dense_kernel(p, 6, 4, vl, 1, 2),
              dense_kernel(p, 14, 1, vl, 2, 2), dense_kernel(p, 4, 4, vl, 2, 2, 32)};
    return {dense_kernel(p, 6, 2, vl, 2, 2), dense_kernel(p, 4, 3, vl, 2, 2),
            dense_kernel(p, 2, 4, vl, 2, 2), dense_kernel(p, 12, 1, vl, 2, 2),
            dense_kernel(p, 6, 2, vl, 2, 2, 32)};
  }
  // int8: byte quads (vpdpbusd) where the host has VNNI; elsewhere int16 pairs (vpmaddwd) and
  // the quads' portable form, measured against each other.
  std::vector<CpuMicroKernel> out;
  const bool vnni = host_kind == "avx512-vnni";
  for (int64_t kp : vnni ? std::vector<int64_t>{4} : std::vector<int64_t>{2, 4}) {
    const std::string p = kp == 4 ? "i8q." : "i8p.";
    const int64_t ku = kp == 4 ? 4 : 2;
    const std::vector<std::pair<int64_t, int64_t>> tiles =
        wide ? std::vector<std::pair<int64_t, int64_t>>{{8, 2}, {4, 4}, {12, 2}, {14, 1}}
             : std::vector<std::pair<int64_t, int64_t>>{{6, 2}, {4, 3}, {12, 1}};
    for (auto [r, v] : tiles) out.push_back(dense_kernel(p, r, v, vl, ku, kp));
  }
  return out;
}

std::vector<CpuBucket> family_buckets(const std::string& op) {
  std::vector<CpuBucket> out;
  if (op == "dense") {
    // Rows decide how much of a register tile a shape fills, columns how many panels there
    // are to share. K decides whether a W panel (K x the tile's columns, packed in the
    // kernel) still fits in L2 next to the rows streaming past it: where tiles are full,
    // long reductions are a bucket of their own.
    const std::vector<Range> ms{
        {{1, 1}, 1}, {{2, 3}, 3}, {{4, 15}, 10}, {{16, 255}, 128}, {{256, kNoUpperBound}, 1024}};
    const std::vector<Range> ns{{{1, 31}, 24}, {{32, 255}, 128}, {{256, kNoUpperBound}, 1024}};
    const std::vector<Range> ks{{{1, 1535}, 1024}, {{1536, kNoUpperBound}, 3072}};
    for (const auto& [mr, mh] : ms)
      for (const auto& [nr, nh] : ns) {
        if (mr.first < 16 || nr.first < 32) {
          out.push_back({{{"m", mr}, {"n", nr}}, {{"m", mh}, {"n", nh}, {"k", 1024}}});
          continue;
        }
        for (const auto& [kr, kh] : ks)
          out.push_back({{{"m", mr}, {"n", nr}, {"k", kr}}, {{"m", mh}, {"n", nh}, {"k", kh}}});
      }
    return out;
  }
  if (op != "conv2d") throw UserError("CPU dispatch: no buckets for op '" + op + "'");
  // The output width decides the tile's columns; the input channels the channel block (few: a
  // network's first layer) and how long each output's reduction is; a 1x1 kernel reads one
  // input row per output row and a 3x3 three, and a stride of 2 reads each input row at every
  // other column: each changes which tile keeps the loads in step with the multiplies.
  const std::vector<Range> ows{{{1, 7}, 7}, {{8, 27}, 14}, {{28, kNoUpperBound}, 56}};
  const std::vector<Range> ics{{{1, 15}, 3}, {{16, 191}, 128}, {{192, kNoUpperBound}, 512}};
  const std::vector<Range> khs{{{1, 1}, 1}, {{2, kNoUpperBound}, 3}};
  const std::vector<Range> strides{{{1, 1}, 1}, {{2, kNoUpperBound}, 2}};
  for (const auto& [orng, oh] : ows)
    for (const auto& [irng, ih] : ics)
      for (const auto& [krng, kh] : khs)
        for (const auto& [srng, st] : strides) {
          // A home shape of a network's proportions (wide layers have fewer channels), inside
          // its own bucket.
          const int64_t ic = oh >= 56 && ih > 16 ? ih / 2 : ih;
          out.push_back({{{"ow", orng}, {"ic", irng}, {"kh", krng}, {"stride", srng}},
                         {{"n", 1}, {"ic", ic}, {"oc", ih < 16 ? 64 : ic}, {"oh", oh},
                          {"ow", oh}, {"kh", kh}, {"stride", st}}});
        }
  return out;
}

ShapeDims dense_dims(int64_t m, int64_t n, int64_t k) { return {{"m", m}, {"n", n}, {"k", k}}; }

ShapeDims conv2d_dims(const compiler::ops::Conv2dNchw& s) {
  return {{"n", s.n},     {"ic", s.c},  {"oc", s.o},         {"oh", s.oh()},
          {"ow", s.ow()}, {"kh", s.kh}, {"stride", s.stride}};
}

cpu::DenseSchedule fit_dense(cpu::DenseSchedule s, int64_t m, int64_t n, int64_t k,
                             const std::string& dtype, const std::string& host_kind,
                             int threads) {
  const int64_t vl = lanes_of(host_kind);
  if ((n == 1 && m > 1) || (m == 1 && n > 1)) {
    // dense's matrix-vector forms (compiler/ops/cpu/gemv.h): the matrix's rows (A's, or W's
    // when M = 1) in twos of vectors of partial sums along K, whatever the bucket's tile.
    s.rows = std::min<int64_t>(4, std::max(m, n));
    s.cols = 2 * vl;
    s.lanes = vl;
    s.row_block = 0;
    s.parallel_axis = 0;
    return s;
  }
  // A tile no taller than the shape, no wider than its columns rounded up to whole vectors.
  s.rows = std::min(s.rows, m);
  const int64_t cols = std::min(s.cols, compiler::ops::round_up(n, vl));
  if (cols != s.cols) {
    s.cols = cols;
    if (s.lanes > 0 && s.cols % s.lanes != 0) s.lanes = vl;
  }
  // A W panel packed in the kernel is a local buffer of K steps x the tile's columns (32-bit
  // each); the code generator keeps local buffers under kMaxLocalBufferBytes. Longer reductions
  // take narrower panels, down to one vector, then the pack in a pass of its own.
  const int64_t steps = dtype == "int8" ? (k + s.k_pack - 1) / s.k_pack : k;
  while (s.pack_w >= 2 && steps * s.cols * 4 > codegen::kMaxLocalBufferBytes) {
    if (s.cols > vl && s.cols % (2 * vl) == 0) {
      s.cols /= 2;
      if (s.lanes > 0 && s.cols % s.lanes != 0) s.lanes = vl;
    } else {
      s.pack_w -= 2;
    }
  }
  const int64_t tiles = (m + s.rows - 1) / s.rows, panels = (n + s.cols - 1) / s.cols;
  if (s.row_block > 0) s.row_block = std::min(s.row_block / s.rows, tiles) * s.rows;
  if (threads > 1 && panels < 2 * threads && tiles >= 2 * threads) {
    // Too few column panels to share: the parallel loop over row blocks, two per thread (a W
    // panel packed in the kernel needs the column panels inside the row blocks).
    s.parallel_axis = 1;
    s.row_block = (tiles + 2 * threads - 1) / (2 * threads) * s.rows;
  }
  return s;
}

cpu::ConvSchedule fit_conv2d(cpu::ConvSchedule s, const compiler::ops::Conv2dNchw& shape,
                             const std::string& dtype, const std::string& host_kind) {
  s.ow = std::min(s.ow, shape.ow());
  const int64_t nob = (shape.o + cpu::kConvOutBlock - 1) / cpu::kConvOutBlock;
  while (s.oc_blocks > 1 && nob % s.oc_blocks != 0) s.oc_blocks /= 2;
  // Tables measured before quads existed name pairs; the host's ISA decides (conv_k_pack).
  s.k_pack = conv_k_pack(host_kind, dtype);
  const int64_t cb = cpu::conv_in_block(shape.c);
  const int64_t cbk = dtype == "int8" ? (cb + s.k_pack - 1) / s.k_pack : cb;
  while (s.ci_unroll > 1 && cbk % s.ci_unroll != 0) s.ci_unroll /= 2;
  return s;
}

namespace {

// The table of `host_kind` (this host's when empty; set to it) at `path` (the shipped one when
// empty) and how the result names it; nothing when no table is shipped for the host kind.
std::optional<std::pair<CpuDispatchTable, std::string>> table_for(std::string& host_kind,
                                                               const std::string& path) {
  if (host_kind.empty()) host_kind = cpu_host_target().config;
  const std::string p = path.empty() ? dispatch_table_path(host_kind) : path;
  std::error_code ec;
  if (path.empty() && !std::filesystem::exists(p, ec)) return std::nullopt;
  CpuDispatchTable t = CpuDispatchTable::load(p);
  if (t.host_kind() != host_kind)
    throw UserError("dispatch table '" + p + "' is for host kind '" + t.host_kind() +
                    "', not '" + host_kind + "'");
  return std::make_pair(std::move(t),
                        path.empty() ? "dispatch table cpu_dispatch_" + host_kind + ".json" : p);
}

}  // namespace

std::optional<CpuDispatched<cpu::DenseSchedule>> dispatch_dense(int64_t m, int64_t n, int64_t k,
                                                             const std::string& dtype,
                                                             int threads, const std::string& hk,
                                                             const std::string& table_path) {
  std::string host_kind = hk;
  auto t = table_for(host_kind, table_path);
  if (!t) return std::nullopt;
  const CpuDispatchEntry* e = t->first.find("dense", dtype, dense_dims(m, n, k));
  if (!e) return std::nullopt;
  return CpuDispatched<cpu::DenseSchedule>{
      fit_dense(dense_schedule_of(e->knobs), m, n, k, dtype, host_kind, threads), e->kernel,
      e->describe(), t->second};
}

std::optional<CpuDispatched<cpu::ConvSchedule>> dispatch_conv2d(const compiler::ops::Conv2dNchw& s,
                                                             const std::string& dtype, int,
                                                             const std::string& hk,
                                                             const std::string& table_path) {
  std::string host_kind = hk;
  auto t = table_for(host_kind, table_path);
  if (!t) return std::nullopt;
  const CpuDispatchEntry* e = t->first.find("conv2d", dtype, conv2d_dims(s));
  if (!e) return std::nullopt;
  return CpuDispatched<cpu::ConvSchedule>{fit_conv2d(conv_schedule_of(e->knobs), s, dtype, host_kind),
                                       e->kernel, e->describe(), t->second};
}

cpu::DenseSchedule dense_schedule_for(int64_t m, int64_t n, int64_t k, const std::string& dtype,
                                      int threads) {
  if (auto t = tuned_dense(m, n, k, dtype)) return t->schedule;
  if (auto d = dispatch_dense(m, n, k, dtype, threads)) return d->schedule;
  return {};
}

cpu::ConvSchedule conv2d_schedule_for(const compiler::ops::Conv2dNchw& s, const std::string& dtype,
                                      int threads) {
  if (auto t = tuned_conv2d(s, dtype)) return t->schedule;
  if (auto d = dispatch_conv2d(s, dtype, threads)) return d->schedule;
  return {};
}

}  // namespace weft::rt::tune
