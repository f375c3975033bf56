// The tuner's random source: a small, portable generator (SplitMix64) with its own uniform
// helpers, so that a seed gives the same decisions on every standard library and machine
// (std::uniform_int_distribution is not portable across implementations).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weft::compiler::tune {

/// A seeded random source; copyable, so a search can fork one stream per task or worker.
class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : state_(seed) {}
  /// The next 64 random bits.
  uint64_t next();
  /// Uniform in [lo, hi] (inclusive; lo <= hi).
  int64_t uniform(int64_t lo, int64_t hi);
  /// Uniform in [0, 1).
  double real();
  /// An index drawn with the given non-negative weights (not all zero).
  size_t weighted(const std::vector<double>& weights);
  /// A new generator whose stream is independent of this one's (for workers and tasks).
  Rng fork(uint64_t salt);
  uint64_t state() const { return state_; }

 private:
  uint64_t state_;
};

}  // namespace weft::compiler::tune
