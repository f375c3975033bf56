// The cost-model interface: ranks candidates from their features. Trained on measured
// candidates (lower measured cost is better), grouped by task so that a ranking objective only
// compares candidates of the same workload; predicts a score where higher means faster.
// make_xgboost_model is the XGBoost ranker (rank:pairwise, fixed nthread and seed, so the
// same data gives the same model); without XGBoost in the build it is a UserError.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace weft::compiler::tune {

class CostModel {
 public:
  virtual ~CostModel() = default;
  /// Retrains from scratch on all the data (rows x features), `cost` per row (lower better),
  /// `group` per row (the task it belongs to).
  virtual void train(const std::vector<std::vector<float>>& x, const std::vector<double>& cost,
                     const std::vector<int>& group) = 0;
  /// Scores, higher = predicted faster; all zero before the first train.
  virtual std::vector<double> predict(const std::vector<std::vector<float>>& x) const = 0;
  virtual bool trained() const = 0;
};

/// True when this build has XGBoost (libxgboost-dev).
bool xgboost_available();
/// The XGBoost pairwise ranker; UserError when the build has no XGBoost.
std::unique_ptr<CostModel> make_xgboost_model(int nthread = 1, uint64_t seed = 0,
                                              int rounds = 60);

}  // namespace weft::compiler::tune
