// The XGBoost cost model (AutoTVM's choice): gradient-boosted trees with the rank:pairwise
// objective through libxgboost's C API. Each retrain builds a fresh booster from all the data,
// rows grouped by task (ranking only compares candidates of one workload); the label of a row
// is its task's best cost over its own (1 for the best, smaller for slower), so the model
// learns an order, not absolute cycles. nthread and seed are fixed: the same data gives the
// same scores.
#include <xgboost/c_api.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

#include "compiler/tune/cost_model.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::tune {
namespace {

void check(int rc, const char* what) {
  if (rc != 0) throw InternalError(std::string("XGBoost ") + what + ": " + XGBGetLastError());
}

DMatrixHandle matrix(const std::vector<std::vector<float>>& x, const std::vector<size_t>& rows) {
  size_t cols = x.empty() ? 0 : x[0].size();
  std::vector<float> flat;
  flat.reserve(rows.size() * cols);
  for (size_t r : rows) {
    if (x[r].size() != cols) throw InternalError("cost model: feature rows differ in length");
    flat.insert(flat.end(), x[r].begin(), x[r].end());
  }
  DMatrixHandle h = nullptr;
  check(XGDMatrixCreateFromMat(flat.data(), rows.size(), cols, -1e30f, &h), "DMatrix");
  return h;
}

class XGBoostRanker : public CostModel {
 public:
  XGBoostRanker(int nthread, uint64_t seed, int rounds)
      : nthread_(nthread), seed_(seed), rounds_(rounds) {}
  ~XGBoostRanker() override {
    if (booster_) XGBoosterFree(booster_);
  }

  void train(const std::vector<std::vector<float>>& x, const std::vector<double>& cost,
             const std::vector<int>& group) override {
    if (x.size() != cost.size() || x.size() != group.size())
      throw InternalError("cost model: rows, costs and groups differ in number");
    if (x.size() < 2) return;
    // Rows of a group together, groups in increasing id: XGBoost's group layout.
    std::vector<size_t> rows(x.size());
    std::iota(rows.begin(), rows.end(), 0);
    std::stable_sort(rows.begin(), rows.end(),
                     [&](size_t a, size_t b) { return group[a] < group[b]; });
    std::map<int, double> best;
    for (size_t i = 0; i < x.size(); ++i)
      if (cost[i] > 0 && (!best.count(group[i]) || cost[i] < best[group[i]]))
        best[group[i]] = cost[i];
    std::vector<float> label;
    std::vector<unsigned> sizes;
    for (size_t k = 0; k < rows.size(); ++k) {
      size_t r = rows[k];
      label.push_back(cost[r] > 0 ? static_cast<float>(best[group[r]] / cost[r]) : 0.f);
      if (k == 0 || group[rows[k - 1]] != group[r]) sizes.push_back(0);
      ++sizes.back();
    }
    DMatrixHandle d = matrix(x, rows);
    check(XGDMatrixSetFloatInfo(d, "label", label.data(), label.size()), "labels");
    check(XGDMatrixSetUIntInfo(d, "group", sizes.data(), sizes.size()), "groups");
    if (booster_) XGBoosterFree(booster_);
    booster_ = nullptr;
    check(XGBoosterCreate(&d, 1, &booster_), "booster");
    const std::pair<const char*, std::string> params[] = {
        {"objective", "rank:pairwise"}, {"nthread", std::to_string(nthread_)},
        {"seed", std::to_string(seed_)}, {"max_depth", "6"}, {"eta", "0.3"},
        {"min_child_weight", "1"}, {"gamma", "0.0001"}, {"subsample", "1"},
        {"tree_method", "exact"}, {"verbosity", "0"}};
    for (const auto& [k, v] : params) check(XGBoosterSetParam(booster_, k, v.c_str()), k);
    for (int i = 0; i < rounds_; ++i) check(XGBoosterUpdateOneIter(booster_, i, d), "train");
    XGDMatrixFree(d);
    cols_ = x[0].size();
  }

  std::vector<double> predict(const std::vector<std::vector<float>>& x) const override {
    std::vector<double> out(x.size(), 0.0);
    if (!booster_ || x.empty()) return out;
    std::vector<size_t> rows(x.size());
    std::iota(rows.begin(), rows.end(), 0);
    DMatrixHandle d = matrix(x, rows);
    bst_ulong len = 0;
    const float* res = nullptr;
    check(XGBoosterPredict(booster_, d, 0, 0, 0, &len, &res), "predict");
    for (size_t i = 0; i < x.size() && i < len; ++i) out[i] = res[i];
    XGDMatrixFree(d);
    return out;
  }

  bool trained() const override { return booster_ != nullptr; }

 private:
  int nthread_;
  uint64_t seed_;
  int rounds_;
  size_t cols_ = 0;
  BoosterHandle booster_ = nullptr;
};

}  // namespace

bool xgboost_available() { return true; }

std::unique_ptr<CostModel> make_xgboost_model(int nthread, uint64_t seed, int rounds) {
  return std::make_unique<XGBoostRanker>(nthread, seed, rounds);
}

}  // namespace weft::compiler::tune
