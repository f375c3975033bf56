// SplitMix64 (Steele, Lea and Flood 2014): one 64-bit state, a Weyl increment and a mixing
// function; good enough for sampling schedules and identical everywhere.
#include "compiler/tune/rng.h"

#include "hardware/isa/errors.h"

namespace weft::compiler::tune {

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t Rng::uniform(int64_t lo, int64_t hi) {
  if (hi < lo) throw InternalError("Rng::uniform: empty range");
  uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  if (span == 0) return static_cast<int64_t>(next());
  // Rejection keeps the draw unbiased.
  uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  uint64_t x;
  do x = next();
  while (x >= limit);
  return lo + static_cast<int64_t>(x % span);
}

double Rng::real() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

size_t Rng::weighted(const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += w > 0 ? w : 0;
  if (weights.empty() || total <= 0) throw InternalError("Rng::weighted: no positive weight");
  double r = real() * total;
  for (size_t i = 0; i < weights.size(); ++i) {
    double w = weights[i] > 0 ? weights[i] : 0;
    if (r < w) return i;
    r -= w;
  }
  return weights.size() - 1;
}

Rng Rng::fork(uint64_t salt) {
  Rng child(next() ^ (salt * 0xd1b54a32d192ed03ULL));
  child.next();
  return child;
}

}  // namespace weft::compiler::tune
