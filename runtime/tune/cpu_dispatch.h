// Shape-generic CPU schedules (issue #29): the micro-kernels of each host kind, chosen from the
// vector ISA and register file (not from a shape), the buckets of each operator family that a
// tuning run measures them on, how a bucket's kernel is fitted to a shape (the tile shrunk to a
// small shape, the channel blocks to divisors, the parallel loop to the thread count, a
// matrix-vector product to dense's GEMV form; edges are the operators' own padding: reads
// clamped, tiles padded, edge tiles storing only their part), and the lookup `weft run
// dense|conv2d --target llvm` and the graph executor use when no tuning record has the shape.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d_nchw.h"
#include "compiler/ops/cpu/conv2d.h"
#include "compiler/ops/cpu/dense.h"
#include "runtime/tune/cpu_dispatch_table.h"

namespace weft::rt::tune {

/// A micro-kernel: a name ("f32.4x4v": 4 rows x 4 vectors) and the schedule's knobs.
struct CpuMicroKernel {
  std::string name;
  nlohmann::json knobs;
};

/// The micro-kernels of `op` ("dense", "conv2d") and `dtype` on a host kind ("avx512-vnni",
/// "avx512", "avx2"): register tiles that fit its vector registers, in its vector width.
/// UserError for another host kind.
std::vector<CpuMicroKernel> micro_kernels(const std::string& host_kind, const std::string& op,
                                       const std::string& dtype);

/// A bucket of a family: its ranges (inclusive) and its home shape.
struct CpuBucket {
  std::map<std::string, std::pair<int64_t, int64_t>> when;
  ShapeDims home;
};
/// The buckets of "dense" (m, n, k) or "conv2d" (ow, ic, ...), covering every shape.
std::vector<CpuBucket> family_buckets(const std::string& op);

/// The bucket dimensions of a shape.
ShapeDims dense_dims(int64_t m, int64_t n, int64_t k);
ShapeDims conv2d_dims(const compiler::ops::Conv2dNchw& s);

/// A bucket's kernel fitted to a shape: the tile no larger than the shape, a W panel packed in
/// the kernel narrowed (or packed in a pass) when K makes it too large for a local buffer, and
/// with more than one thread the parallel loop over row blocks when there are too few column
/// panels to share. N = 1 (M > 1) gets dense's GEMV form: 4 rows x 2 vectors along K.
compiler::ops::cpu::DenseSchedule fit_dense(compiler::ops::cpu::DenseSchedule s, int64_t m,
                                            int64_t n, int64_t k, const std::string& dtype,
                                            const std::string& host_kind, int threads);
/// The output columns no more than the shape's, oc_blocks and ci_unroll halved until they
/// divide; int8 channels in byte quads on an AVX-512 VNNI host kind, else in int16 pairs.
compiler::ops::cpu::ConvSchedule fit_conv2d(compiler::ops::cpu::ConvSchedule s,
                                            const compiler::ops::Conv2dNchw& shape,
                                            const std::string& dtype, const std::string& host_kind);

/// What the dispatch chose: the fitted schedule, the kernel, the bucket and the table's file.
template <typename Schedule>
struct CpuDispatched {
  Schedule schedule;
  std::string kernel, bucket, source;
};
/// The dispatch of a shape through the table of `host_kind` (empty: this host's, after the
/// --cpu-isa cap) at `table_path` (empty: the shipped one); nothing when the host kind has no
/// table or no bucket holds the shape. UserError for a malformed table.
std::optional<CpuDispatched<compiler::ops::cpu::DenseSchedule>> dispatch_dense(
    int64_t m, int64_t n, int64_t k, const std::string& dtype, int threads,
    const std::string& host_kind = "", const std::string& table_path = "");
std::optional<CpuDispatched<compiler::ops::cpu::ConvSchedule>> dispatch_conv2d(
    const compiler::ops::Conv2dNchw& s, const std::string& dtype, int threads,
    const std::string& host_kind = "", const std::string& table_path = "");

/// The schedule an operator of a graph takes on this host (no --tune-db): the shipped tuning
/// record for the exact shape, else the dispatch table's kernel fitted to it, else the default.
compiler::ops::cpu::DenseSchedule dense_schedule_for(int64_t m, int64_t n, int64_t k,
                                                     const std::string& dtype, int threads);
compiler::ops::cpu::ConvSchedule conv2d_schedule_for(const compiler::ops::Conv2dNchw& s,
                                                     const std::string& dtype, int threads);

}  // namespace weft::rt::tune
