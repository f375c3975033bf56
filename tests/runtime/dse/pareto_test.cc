// The Pareto front of `weft dse`, on hand-made points, and the fronts of a summary.
#include "runtime/dse/pareto.h"

#include <gtest/gtest.h>

#include "runtime/dse/dse_report.h"

namespace weft::rt::dse {
namespace {

TEST(Pareto, TwoObjectives) {
  // (latency, resources): 0, 2 and 4 trade off; 1 is beaten by 0; 3 by 2.
  const std::vector<std::vector<double>> p = {{10, 1}, {12, 1}, {5, 4}, {6, 5}, {2, 9}};
  EXPECT_EQ(pareto_front(p), (std::vector<size_t>{4, 2, 0}));
}

TEST(Pareto, EqualPointsKeepTheFirstAndTiesInOneObjective) {
  const std::vector<std::vector<double>> p = {{3, 3}, {3, 3}, {3, 4}, {1, 5}};
  EXPECT_EQ(pareto_front(p), (std::vector<size_t>{3, 0}));
}

TEST(Pareto, ThreeObjectivesAndEdgeCases) {
  const std::vector<std::vector<double>> p = {{1, 5, 5}, {5, 1, 5}, {5, 5, 1}, {5, 5, 5}};
  EXPECT_EQ(pareto_front(p), (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(pareto_front({}).empty());
  EXPECT_EQ(pareto_front({{7}}), (std::vector<size_t>{0}));
}

nlohmann::json point(const std::string& name, double latency, int macs, int bram, double uj) {
  return {{"name", name}, {"status", "ok"}, {"latency_us", latency},
          {"resources", {{"macs", macs}, {"bram36", bram}}}, {"energy", {{"total_uj", uj}}}};
}

TEST(Pareto, SummaryFronts) {
  std::vector<nlohmann::json> r = {point("a", 100, 16, 10, 50), point("b", 50, 64, 10, 60),
                                   point("c", 40, 256, 40, 40), point("d", 120, 16, 12, 70),
                                   {{"name", "bad"}, {"status", "invalid"}, {"reason", "x"}}};
  const auto s = dse_summary(r, "layers:C1", "tiny", "sim", 5);
  EXPECT_EQ(s["schema"], "weft-dse/1");
  EXPECT_EQ(s["points_ok"], 4);
  EXPECT_EQ(s["pareto"]["latency_vs_macs"], nlohmann::ordered_json({"c", "b", "a"}));
  EXPECT_EQ(s["pareto"]["latency_vs_bram36"], nlohmann::ordered_json({"c", "b"}));
  EXPECT_EQ(s["pareto"]["latency_vs_energy_uj"], nlohmann::ordered_json({"c"}));
  EXPECT_EQ(s["pareto"]["latency_vs_resources"], nlohmann::ordered_json({"c", "b", "a"}));
  EXPECT_FALSE(s["pareto"].contains("latency_vs_lut"));  // no point was synthesized
}

}  // namespace
}  // namespace weft::rt::dse
