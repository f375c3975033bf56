// Internal to compiler/codegen/cuda: tensor-core fragments. On the GPU the accelerator scopes
// are nvcuda::wmma fragments (inp: matrix_a, wgt: matrix_b, acc: accumulator; 16x16x16), which
// only whole-tile operations touch: a 16x16 copy nest into or out of one (load_matrix_sync,
// store_matrix_sync) and the tensorized GEMM (mma_sync, fill_fragment). This file says which
// buffers are fragments, their C++ types, and what a copy nest must be to be one tile copy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/ir/ir.h"

namespace weft::compiler::codegen {

/// The namespace prefix of the WMMA API.
inline constexpr const char* kWmmaNamespace = "nvcuda::wmma::";

/// Whether buffers in `s` are tensor-core fragments on the GPU.
bool is_fragment(ir::Scope s);

/// The C++ type of one fragment of `b` (a fragment-scope buffer).
std::string fragment_type(const ir::Buffer& b);

/// UserError unless `b` ends in 16x16 tiles of a type tensor cores take.
void check_fragment_buffer(const ir::Buffer& b);

/// A 16x16 copy nest between a fragment and memory, as one whole-tile copy.
struct FragmentCopy {
  bool into = false;  // memory -> fragment (load_matrix_sync); else fragment -> memory
  ir::Buffer fragment, memory;
  ir::Expr tile;    // the fragment's tile index (its leading dimensions, flattened)
  ir::Expr base;    // the tile's first element in `memory`
  int64_t ldm = 0;  // the row stride of `memory`, in elements
};

/// The loop `n` as a whole-tile fragment copy; nothing when it touches no fragment. UserError,
/// naming the loop and the fragment, when it touches one but is not one whole 16x16 tile per
/// iteration with rows of 16-byte multiples starting 32-byte aligned.
std::optional<FragmentCopy> fragment_copy(const ir::For& n);

}  // namespace weft::compiler::codegen
