// The Pareto front (see pareto.h). Quadratic in the points: a sweep has tens to hundreds.
#include "runtime/dse/pareto.h"

#include <algorithm>

#include "hardware/isa/errors.h"

namespace weft::rt::dse {

std::vector<size_t> pareto_front(const std::vector<std::vector<double>>& objectives) {
  const size_t n = objectives.size();
  for (const auto& row : objectives)
    if (row.size() != objectives.front().size())
      throw InternalError("pareto_front: rows of different lengths");
  auto dominates = [](const std::vector<double>& a, const std::vector<double>& b) {
    bool better = false;
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k] > b[k]) return false;
      better |= a[k] < b[k];
    }
    return better;
  };
  std::vector<size_t> front;
  for (size_t i = 0; i < n; ++i) {
    bool kept = true;
    for (size_t j = 0; j < n && kept; ++j) {
      if (j == i) continue;
      // An equal point earlier in the list stands for both.
      kept = !dominates(objectives[j], objectives[i]) && !(j < i && objectives[j] == objectives[i]);
    }
    if (kept) front.push_back(i);
  }
  std::stable_sort(front.begin(), front.end(),
                   [&](size_t a, size_t b) { return objectives[a] < objectives[b]; });
  return front;
}

}  // namespace weft::rt::dse
