// The Pareto front of a set of points, every objective minimized: the points no other point
// beats in one objective without losing in another. `weft dse` takes it of latency against
// resources and against energy.
#pragma once

#include <cstddef>
#include <vector>

namespace weft::rt::dse {

/// The indices of the non-dominated rows of `objectives` (each row one point's objectives,
/// all rows the same length, lower is better), ordered by the first objective, then the next.
/// A point dominates another when it is no worse in every objective and better in one; of
/// points with equal objectives, the first is kept.
std::vector<size_t> pareto_front(const std::vector<std::vector<double>>& objectives);

}  // namespace weft::rt::dse
