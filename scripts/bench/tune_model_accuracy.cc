// The cost model on layers it was not trained on: reads tuning databases of ResNet-18 layers
// on one configuration, trains the XGBoost ranker on the measured candidates of some layers and
// reports, for each other layer, the pairwise ranking accuracy (the fraction of pairs of
// measured candidates with different costs that the model orders correctly), plus the time of
// one retrain and of one prediction.
//   bench_tune_model_accuracy --config vta --train C1,C2,... --test C7,... DB.jsonl...
#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compiler/tune/cost_model.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/database.h"

using namespace weft;
using namespace weft::rt::tune;

int main(int argc, char** argv) {
  CLI::App app{"Pairwise ranking accuracy of the tuner's cost model on unseen layers"};
  std::string config = "vta", platform = "sim", train_s, test_s;
  std::vector<std::string> dbs;
  app.add_option("--config", config);
  app.add_option("--platform", platform);
  app.add_option("--train", train_s)->required();
  app.add_option("--test", test_s)->required();
  app.add_option("dbs", dbs)->required();
  CLI11_PARSE(app, argc, argv);
  auto split = [](const std::string& s) {
    std::vector<std::string> v;
    std::stringstream in(s);
    for (std::string x; std::getline(in, x, ',');) v.push_back(x);
    return v;
  };
  std::map<std::string, Task> tasks;
  for (auto& t : make_accel_resnet18_tasks(config, platform)) tasks.emplace(t.name, t);
  struct Rows {
    std::vector<std::vector<float>> x;
    std::vector<double> y;
  };
  std::map<std::string, Rows> data;  // by layer
  std::map<std::string, std::string> seen;
  for (const auto& path : dbs) {
    Database db(path);
    for (const auto& [name, t] : tasks) {
      for (const auto& r : db.records(t.workload.key(), t.target.key())) {
        if (!r.ok() || r.stopped_early) continue;
        const std::string k = name + " " + r.trace.key();
        if (seen.count(k)) continue;
        seen[k] = path;
        auto c = t.space->apply(r.trace);
        if (!c.ok()) continue;
        data[name].x.push_back(t.features->extract(c));
        data[name].y.push_back(r.value);
      }
    }
  }
  std::vector<std::vector<float>> x;
  std::vector<double> y;
  std::vector<int> g;
  int gi = 0;
  for (const auto& name : split(train_s)) {
    for (size_t i = 0; i < data[name].x.size(); ++i) {
      x.push_back(data[name].x[i]);
      y.push_back(data[name].y[i]);
      g.push_back(gi);
    }
    ++gi;
  }
  auto model = compiler::tune::make_xgboost_model(1, 0);
  const auto t0 = std::chrono::steady_clock::now();
  model->train(x, y, g);
  const double train_s_time =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json out = {{"config", config}, {"train_rows", x.size()},
                        {"retrain_seconds", train_s_time}, {"layers", nlohmann::json::object()}};
  double pred_us = 0;
  size_t pred_n = 0;
  for (const auto& name : split(test_s)) {
    const Rows& d = data[name];
    const auto t1 = std::chrono::steady_clock::now();
    const auto s = model->predict(d.x);
    pred_us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t1).count();
    pred_n += d.x.size();
    int64_t right = 0, all = 0;
    for (size_t i = 0; i < d.y.size(); ++i)
      for (size_t j = i + 1; j < d.y.size(); ++j) {
        if (d.y[i] == d.y[j]) continue;
        ++all;
        right += (d.y[i] < d.y[j]) == (s[i] > s[j]);
      }
    out["layers"][name] = {{"candidates", d.y.size()},
                           {"pairwise_accuracy", all ? double(right) / all : 0.0}};
  }
  out["predict_us_per_candidate"] = pred_n ? pred_us / pred_n : 0;
  std::cout << out.dump(1) << "\n";
  return 0;
}
