// Schedule pieces and expression helpers the CPU operators share (internal to
// compiler/ops/cpu): the element-wise schedules of the channel-blocked operators and of the
// graph's flat kernels, the window-reduction order of pooling, the crop that drops a padded
// domain, and the int16 pairs and byte quads of the int8 dot products.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/te/schedule.h"

namespace weft::compiler::ops::cpu {

/// The function name of the graph executor's kernels (flat element-wise, window pooling,
/// the QConv/QDense fallback, packed outputs): one per JIT module.
inline constexpr const char* kGraphKernelName = "weft_graph_kernel";

/// An element-wise stage over a channel-blocked tensor: the last axis vectorized (in
/// `vec`-wide pieces when longer), the channel-block axis (the first of a 1D or 2D tensor)
/// parallel.
void schedule_blocked(te::Stage& st, int64_t vec);

/// The widest power-of-two vector width up to `max` that divides `extent` (1 when under 4).
int64_t vector_width(int64_t extent, int64_t max = 32);
/// Vectorizes the innermost axis of an element-wise stage by vector_width (whole, or split).
void vectorize_inner(te::Stage& st);
/// Puts the reduction loops of `st` between the outer output axes and a vectorized piece of
/// the innermost one, so a window's taps run over a vector of output columns.
void schedule_window(te::Stage& st);

/// A copy of `src` restricted to `shape` (dropping the padding of a padded domain).
te::Tensor crop(const te::Tensor& src, const std::vector<int64_t>& shape, const std::string& name);

/// Two int8/int16 values as the low and high int16 halves of an int32 (for dot2_i16).
ir::Expr pair16(const ir::Expr& lo, const ir::Expr& hi);
/// Four int8 values, byte(0) to byte(3) (of any integer type), as the bytes of an int32, low
/// byte first (for dot4_u8s8). `offset`: each shifted by +128 to an unsigned byte (the operand
/// dot4_u8s8 reads as unsigned; only each value modulo 256 counts); else each kept as a signed
/// byte.
ir::Expr byte_quad(const std::function<ir::Expr(int64_t)>& byte, bool offset);
/// An int32 holding four signed bytes as the same bytes offset by +128 to unsigned ones (each
/// byte's top bit flipped), from shifts and masks that vectorize.
ir::Expr offset_quad(const ir::Expr& word);
/// Byte `b` (0 lowest) of an int32 as the signed value it holds, from a shift and a mask.
ir::Expr signed_byte(const ir::Expr& word, int64_t b);

}  // namespace weft::compiler::ops::cpu
