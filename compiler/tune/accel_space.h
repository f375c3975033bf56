// The accelerator's search spaces for dense and conv2d. A trace decides:
//   conv2d: tile_h, tile_w   (choose: every divisor and power of two up to the output size;
//                             a non-divisor rounds the output up to whole tiles)
//           tile_ic, tile_oc (split: perfect two-level splits of the channel blocks, any
//                             divisor, not only the powers of two the analytic chooser tries)
//           vthreads (choose 1, 2, 4) and vthread_axis (choose o / h)
//   dense:  tile_m, tile_n (choose, as above), tile_k (split of the K blocks),
//           vthreads (1, 2, 4) and vthread_axis (m / n)
// apply() replays the trace into the operator's knobs, checks them (buffer capacities, micro-op
// buffer, DMA fields), compiles the schedule through the accelerator pipeline (on-chip
// allocation with its capacity check, token planning) and runs the post-processor the task
// gives it (the runtime's instruction-stream builder with the static token verifier). Any
// failure is the candidate's error. seeds() are the analytic chooser's picks.
#pragma once

#include <functional>
#include <string>

#include "compiler/accel/program.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/dense.h"
#include "compiler/tune/space.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::compiler::tune {

/// Validation after compiling: "" when the program is fine, else the reason.
using AccelPostProcess = std::function<std::string(const accel::Program&)>;

/// A compiled accelerator candidate (conv2d or dense).
struct AccelBody : CandidateBody {
  std::string op;  // "conv2d" or "dense"
  ops::Conv2dShape conv_shape;
  ops::Conv2dKnobs conv_knobs;
  ops::DenseShape dense_shape;
  ops::DenseKnobs dense_knobs;
  accel::Program program;
  int64_t vthreads = 1;
  int64_t macs = 0;  // useful multiply-accumulates
  /// The target's own build of this candidate (the runtime's placed instruction stream), made
  /// once by the task's builder during validation and reused by the measurer, so a trial
  /// compiles once; null when the space has no builder.
  std::shared_ptr<const void> prepared;
  nlohmann::json describe() const override;
};

/// Compiles and validates a candidate whose op, shape and knobs are set: fills `program` (and
/// `prepared`), throws UserError when the schedule is invalid. Replaces the space's own
/// compile + post-process when set (set_builder), so the runtime compiles once.
using AccelBuilder = std::function<void(AccelBody&)>;

/// The divisors and powers of two up to n (the tile sizes a rounded-up tiling may use).
std::vector<int64_t> tile_sizes(int64_t n);

class AccelConv2dSpace : public SearchSpace {
 public:
  AccelConv2dSpace(const isa::Layout& layout, const isa::Platform& platform,
                   const ops::Conv2dShape& shape, const ops::Conv2dEpilogue& epilogue,
                   AccelPostProcess post = {});
  std::string name() const override { return "accel.conv2d"; }
  Trace sample(Rng& rng) const override;
  Candidate apply(const Trace& t) const override;
  std::string check_trace(const Trace& t) const override;
  std::vector<Trace> seeds() const override;
  double weight() const override;
  /// The trace of given knobs (UserError when they are outside the space).
  Trace trace_of(const ops::Conv2dKnobs& k) const;
  /// The knobs a trace decides (UserError for a trace of another space).
  ops::Conv2dKnobs knobs_of(const Trace& t) const;
  const ops::Conv2dShape& shape() const { return shape_; }
  /// Call right after construction (the space is immutable once shared).
  void set_builder(AccelBuilder b) { builder_ = std::move(b); }

 private:
  const isa::Layout* layout_;
  const isa::Platform* platform_;
  ops::Conv2dShape shape_;
  ops::Conv2dEpilogue epilogue_;
  AccelPostProcess post_;
  AccelBuilder builder_;
  int64_t icb_, ocb_;
};

class AccelDenseSpace : public SearchSpace {
 public:
  AccelDenseSpace(const isa::Layout& layout, const isa::Platform& platform,
                  const ops::DenseShape& shape, const ops::DenseEpilogue& epilogue,
                  AccelPostProcess post = {});
  std::string name() const override { return "accel.dense"; }
  Trace sample(Rng& rng) const override;
  Candidate apply(const Trace& t) const override;
  std::string check_trace(const Trace& t) const override;
  std::vector<Trace> seeds() const override;
  double weight() const override;
  Trace trace_of(const ops::DenseKnobs& k) const;
  ops::DenseKnobs knobs_of(const Trace& t) const;
  void set_builder(AccelBuilder b) { builder_ = std::move(b); }

 private:
  const isa::Layout* layout_;
  const isa::Platform* platform_;
  ops::DenseShape shape_;
  ops::DenseEpilogue epilogue_;
  AccelPostProcess post_;
  AccelBuilder builder_;
  int64_t mb_, nb_, kb_;
};

}  // namespace weft::compiler::tune
