// The accelerator's search spaces for dense and conv2d. A trace decides:
//   conv2d: tile_h, tile_w   (choose: every divisor and power of two up to the output size;
//                             a non-divisor rounds the output up to whole tiles)
//           tile_ic, tile_oc (split: perfect two-level splits of the channel blocks, any
//                             divisor, not only the powers of two the analytic chooser tries)
//           vthreads (choose 1, 2, 4) and vthread_axis (choose o / h)
//   dense:  tile_m, tile_n (choose, as above), tile_k (split of the K blocks),
//           vthreads (1, 2, 4) and vthread_axis (m / n)
// The spaces propose only legal schedules: sample() and mutate() keep the traces whose knobs
// pass the operator's legality check (ops::conv2d_knobs_error / ops::dense_knobs_error, the
// function make_conv2d / make_dense call: buffer capacities, micro-op buffer, tiles of pure
// padding, DMA fields), and a space with no legal point is refused when it is built, naming
// the constraint. apply() replays the trace into the operator's knobs, compiles the schedule
// through the accelerator pipeline (on-chip allocation with its capacity check, token
// planning) and runs the post-processor the task gives it (the runtime's instruction-stream
// builder with the static token verifier). Any failure is the candidate's error. seeds() are
// the analytic chooser's picks.
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

/// What both accelerator spaces share: proposing only legal schedules, the target's builder.
class AccelSpace : public SearchSpace {
 public:
  /// A trace whose knobs are legal: every decision drawn uniformly, the first legal draw kept;
  /// after kMaxDraws illegal draws (a space where legal points are rare) a uniform pick among
  /// all legal points instead.
  Trace sample(Rng& rng) const final;
  /// The first legal neighbour of `t` (mutate_trace) in kMaxDraws tries, else sample().
  Trace mutate(const Trace& t, Rng& rng) const final;
  std::string check_trace(const Trace& t) const final;
  /// "" when the knobs that `t` (a trace of this space) decides pass the operator's legality
  /// check, else the check's reason.
  virtual std::string why_illegal(const Trace& t) const = 0;
  /// Call right after construction (the space is immutable once shared).
  void set_builder(AccelBuilder b) { builder_ = std::move(b); }

  static constexpr int kMaxDraws = 256;

 protected:
  AccelSpace(const isa::Layout& layout, const isa::Platform& platform, AccelPostProcess post)
      : layout_(&layout), platform_(&platform), post_(std::move(post)) {}
  /// A trace with every decision drawn uniformly, legal or not.
  virtual Trace draw(Rng& rng) const = 0;
  /// For the constructors: a UserError unless some point of the space is legal, giving the
  /// reason `smallest` (the least demanding schedule) is refused.
  void require_legal_point(const std::string& what, const Trace& smallest) const;
  /// UserError unless `t` has this space's steps and arguments.
  void check_belongs(const Trace& t) const;

  const isa::Layout* layout_;
  const isa::Platform* platform_;
  AccelPostProcess post_;
  AccelBuilder builder_;
};

class AccelConv2dSpace : public AccelSpace {
 public:
  /// UserError when no schedule in the space is legal for the shape (naming the constraint).
  AccelConv2dSpace(const isa::Layout& layout, const isa::Platform& platform,
                   const ops::Conv2dShape& shape, const ops::Conv2dEpilogue& epilogue,
                   AccelPostProcess post = {});
  std::string name() const override { return "accel.conv2d"; }
  Candidate apply(const Trace& t) const override;
  std::string why_illegal(const Trace& t) const override;
  std::vector<Trace> seeds() const override;
  double weight() const override;
  /// The trace of given knobs (UserError when they are outside the space).
  Trace trace_of(const ops::Conv2dKnobs& k) const;
  /// The knobs a trace decides (UserError for a trace of another space).
  ops::Conv2dKnobs knobs_of(const Trace& t) const;
  const ops::Conv2dShape& shape() const { return shape_; }

 private:
  Trace draw(Rng& rng) const override;
  ops::Conv2dKnobs decided(const Trace& t) const;  // knobs_of without the membership check

  ops::Conv2dShape shape_;
  ops::Conv2dEpilogue epilogue_;
  int64_t icb_, ocb_;
};

class AccelDenseSpace : public AccelSpace {
 public:
  /// UserError when no schedule in the space is legal for the shape (naming the constraint).
  AccelDenseSpace(const isa::Layout& layout, const isa::Platform& platform,
                  const ops::DenseShape& shape, const ops::DenseEpilogue& epilogue,
                  AccelPostProcess post = {});
  std::string name() const override { return "accel.dense"; }
  Candidate apply(const Trace& t) const override;
  std::string why_illegal(const Trace& t) const override;
  std::vector<Trace> seeds() const override;
  double weight() const override;
  Trace trace_of(const ops::DenseKnobs& k) const;
  ops::DenseKnobs knobs_of(const Trace& t) const;

 private:
  Trace draw(Rng& rng) const override;
  ops::DenseKnobs decided(const Trace& t) const;

  ops::DenseShape shape_;
  ops::DenseEpilogue epilogue_;
  int64_t mb_, nb_, kb_;
};

}  // namespace weft::compiler::tune
