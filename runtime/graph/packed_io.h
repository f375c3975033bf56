// Copies between the host's plain tensors and the device arena's packed ones, a slice at a time.
//
// The executor moves every value that crosses an accelerator region's edge through these: a
// packed tensor [N/bn][C/bc][H*W][bn][bc] is read or written in runs of whole (batch block,
// channel block) planes or of whole rows, through a small staging buffer (at most ~64 KiB, or
// one plane or row when that is larger), so no step holds a whole-tensor copy on the host
// besides what the memory plan counts. Three of them also compute:
//   unpack_stream   writes its plain result into a slice of a larger tensor (a Concat planned
//                   in place: each row band of the stem lands straight in its rows);
//   im2col_packed   weft.Im2Col with a packed output (fold_packs), row by row, quantizing an f32
//                   input as it gathers;
//   pool_packed     MaxPool/AveragePool with a packed output, plane by plane through the
//                   executor's CPU kernel on a one-plane copy of the node.
// Each returns the staging bytes it used (the report's host_staging_bytes).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "compiler/graph/graph.h"

namespace weft::rt::graph {

/// The staging target of one copy (bytes): a chunk is this much, or one plane or row when that
/// is larger. llvm_kernels.h's packed kernels chunk alike.
inline constexpr int64_t kPackedChunkBytes = int64_t{64} << 10;

/// Writes `bytes` bytes at byte `offset` of a packed tensor (in the device arena).
using PackedWriter = std::function<void(int64_t offset, const int8_t* data, int64_t bytes)>;
/// Reads `bytes` bytes at byte `offset` of a packed tensor.
using PackedReader = std::function<void(int64_t offset, int8_t* data, int64_t bytes)>;

/// Where a plain tensor goes: `dst` holds a plain tensor of shape `shape`, and the value is its
/// slice [at, at + extent) along `axis` (a whole tensor: its own shape, axis 0, at 0).
struct PlainSlice {
  int8_t* dst = nullptr;
  std::vector<int64_t> shape;
  int64_t axis = 0, at = 0;
};

/// The same calls on rows [y0, y0 + rows) of every plane of a packed rank-4 tensor whose planes
/// have `whole_rows` rows of `row_bytes` bytes (W x bn x bc): offsets of the smaller tensor map
/// into the bigger one (a halo's rows of a band; a band's rows of the joined output).
PackedReader rows_of(PackedReader whole, int64_t row_bytes, int64_t rows, int64_t whole_rows,
                     int64_t y0);
PackedWriter rows_of(PackedWriter whole, int64_t row_bytes, int64_t rows, int64_t whole_rows,
                     int64_t y0);

/// Copies a plain tensor of shape `shape` into `out` (a Concat's input that is not a view).
void copy_into(const int8_t* src, const std::vector<int64_t>& shape, const PlainSlice& out);

/// Plain -> packed: `t` is the packed type (rank 2 or 4, int8); zero padding included.
int64_t pack_stream(const compiler::graph::TensorType& t, const int8_t* plain,
                    const PackedWriter& write);

/// Packed -> plain, into `out` (padding dropped).
int64_t unpack_stream(const compiler::graph::TensorType& t, const PackedReader& read,
                      const PlainSlice& out);

/// Runs weft.Im2Col node `n` (packed output; input int8, or f32 quantized to out_scale as
/// weft.Quantize does) and writes its packed output.
int64_t im2col_packed(const compiler::graph::Graph& g, const compiler::graph::Node& n,
                      const void* in, const PackedWriter& write);

/// Runs MaxPool/AveragePool node `n` (int8, packed output) one plane at a time.
int64_t pool_packed(const compiler::graph::Graph& g, const compiler::graph::Node& n,
                    const int8_t* in, const PackedWriter& write);

}  // namespace weft::rt::graph
