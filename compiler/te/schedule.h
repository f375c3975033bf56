// Schedules: how a computed tensor's loops are split, reordered, fused and annotated, where a
// stage is computed (compute_at) and which tensors are staged through on-chip or local
// buffers (cache_read, cache_write). A Stage keeps its root axes, body and output buffer, the
// current leaf loop order and the relations (split, fuse) that derive root indices from
// leaves; lower.h turns stages into loop IR. Every misuse is a UserError that names the stage
// and the loop.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/te/intrinsics.h"
#include "compiler/te/tensor.h"

namespace weft::compiler::te {

/// parent = outer * factor + inner.
struct SplitRelation {
  IterVar parent, outer, inner;
  int64_t factor;
};
/// fused = outer * extent(inner) + inner.
struct FuseRelation {
  IterVar outer, inner, fused;
};

/// The GPU thread index a loop can be bound to; lowering puts it on the loop (ir::For::thread).
using ThreadAxis = ir::ThreadAxis;
/// The key of the AttrStmt around a double-buffered Allocate.
inline constexpr const char* kDoubleBufferAttr = "double_buffer";

/// The schedule of one computed tensor.
class Stage {
 public:
  explicit Stage(Tensor t);

  /// Splits `axis` into (outer, inner) with inner extent `factor`; a factor that does not
  /// divide the extent leaves a guarded remainder.
  std::pair<IterVar, IterVar> split(const IterVar& axis, int64_t factor);
  /// Splits two axes and orders the result (x.outer, y.outer, x.inner, y.inner).
  std::vector<IterVar> tile(const IterVar& x, const IterVar& y, int64_t fx, int64_t fy);
  /// Puts the given leaves in this relative order, keeping the others where they are.
  void reorder(const std::vector<IterVar>& order);
  /// Fuses two adjacent leaves (outer directly before inner) into one loop.
  IterVar fuse(const IterVar& outer, const IterVar& inner);
  /// Marks a leaf loop's kind (unrolled, vectorized, parallel, virtual thread).
  void set_kind(const IterVar& leaf, ir::ForKind kind);
  /// Attaches a pragma to a leaf loop (e.g. "dma_copy", "alu").
  void pragma(const IterVar& leaf, const std::string& key);
  /// Binds a leaf loop to a GPU block or thread index: the loop is not a loop on the GPU, each
  /// block (thread) runs its own iteration. Reduction loops cannot be bound.
  void bind(const IterVar& leaf, ThreadAxis axis);
  /// The axis `leaf` is bound to, or null.
  const ThreadAxis* binding(const IterVar& leaf) const;
  /// The stage's region buffer (it must be computed at a loop of its consumer, in shared scope)
  /// is double-buffered: the GPU backend fills the next tile while the current one is used.
  void double_buffer() { double_buffer_ = true; }
  bool is_double_buffered() const { return double_buffer_; }
  /// Computes this stage inside `consumer`'s loop `leaf`, over just the region the consumer's
  /// iterations under that loop read (bound inference), into a buffer of that region's size
  /// when the stage's buffer is not global. For a shared-scope stage the region is the one the
  /// whole thread block reads (loops bound to threadIdx count as inner loops). Unless it is in
  /// an accelerator scope, its spatial axes may be split and fused (e.g. to spread a copy over
  /// the threads): the
  /// region's extents, known at lowering, replace the axes' extents, with guards where a
  /// split does not divide them.
  void compute_at(const Stage& consumer, const IterVar& leaf);
  /// Replaces the loops from `leaf` inwards by the GEMM intrinsic: they must be the block's
  /// batch, output and reduction loops (in that order, with the block's extents) over a body
  /// that multiplies an input-scope and a weight-scope tile into an accumulator-scope one.
  void tensorize(const IterVar& leaf, const GemmIntrinsic& intrinsic);
  /// The tensorized leaf (null when not tensorized) and its intrinsic.
  const IterVar& tensorize_leaf() const { return tensorize_leaf_; }
  const GemmIntrinsic& intrinsic() const { return intrinsic_; }

  const Tensor& tensor() const { return tensor_; }
  const std::string& name() const { return tensor_->name; }
  /// Spatial root axes (one per dimension of the output buffer).
  const std::vector<IterVar>& axes() const { return axes_; }
  /// Reduction axes (empty for an element-wise stage).
  const std::vector<IterVar>& reduce_axes() const { return reduce_axes_; }
  /// The value (or summand) in terms of the root axes.
  const ir::Expr& body() const { return body_; }
  /// The buffer the stage writes.
  const ir::Buffer& buffer() const { return buffer_; }
  /// The consumer this stage is computed at and the loop (null when at the root).
  const Stage* attach_stage() const { return attach_stage_; }
  const IterVar& attach_leaf() const { return attach_leaf_; }
  const std::vector<IterVar>& leaves() const { return leaves_; }
  const std::vector<SplitRelation>& splits() const { return splits_; }
  const std::vector<FuseRelation>& fuses() const { return fuses_; }
  ir::ForKind kind(const IterVar& leaf) const;
  const std::vector<std::string>& pragmas(const IterVar& leaf) const;
  /// The root axes: spatial axes, then reduction axes.
  std::vector<IterVar> root_axes() const;

 private:
  size_t leaf_index(const IterVar& axis, const char* what) const;

  friend class Schedule;
  Tensor tensor_;
  std::vector<IterVar> axes_, reduce_axes_;
  ir::Expr body_;
  ir::Buffer buffer_;
  const Stage* attach_stage_ = nullptr;
  IterVar attach_leaf_;
  IterVar tensorize_leaf_;
  GemmIntrinsic intrinsic_;
  std::vector<IterVar> leaves_;
  std::vector<SplitRelation> splits_;
  std::vector<FuseRelation> fuses_;
  std::map<const IterVarObj*, ir::ForKind> kinds_;
  std::map<const IterVarObj*, std::vector<std::string>> pragmas_;
  std::map<const IterVarObj*, ThreadAxis> bindings_;
  bool double_buffer_ = false;
};

/// A schedule over a set of output tensors: one Stage per computed tensor reachable from them.
class Schedule {
 public:
  explicit Schedule(std::vector<Tensor> outputs);
  /// The stage of a computed tensor; UserError for a placeholder or a foreign tensor.
  Stage& operator[](const Tensor& t);
  /// Reads of `t` by `readers` go through a copy of `t` in `scope` (a new stage, returned);
  /// compute_at the copy to stage tiles into an on-chip buffer.
  Tensor cache_read(const Tensor& t, ir::Scope scope, const std::vector<Tensor>& readers);
  /// `t` is computed into a buffer in `scope` (a new stage, returned) and then copied to `t`;
  /// call it before scheduling `t`.
  Tensor cache_write(const Tensor& t, ir::Scope scope);
  /// `t` (an intermediate, not an output) lives in `scope` instead of DRAM: its readers read
  /// the scoped buffer. With compute_at it is realized as a region-sized on-chip tile (e.g. a
  /// GEMM result kept in the accumulator for an ALU epilogue).
  void set_scope(const Tensor& t, ir::Scope scope);
  /// Replaces every read of the element-wise tensor `t` by its defining expression, so that
  /// `t` is never stored (e.g. a zero-padded view of an input, inlined into the copy that
  /// stages its tiles on chip, becomes a DMA load with padding). `t` then has no stage.
  void compute_inline(const Tensor& t);
  /// Computed tensors in dependency order (producers first).
  const std::vector<Tensor>& order() const { return order_; }
  const std::vector<Tensor>& outputs() const { return outputs_; }

 private:
  std::vector<Tensor> outputs_;
  std::vector<Tensor> order_;
  std::map<const TensorObj*, Stage> stages_;
};

}  // namespace weft::compiler::te
