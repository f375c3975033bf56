// The sweep of `weft dse`: reading a sweep file, --param flags, expansion into points (the
// product, explicit points, names, duplicates) and the errors, all before any point runs.
#include "runtime/dse/sweep.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "hardware/isa/errors.h"

namespace weft::rt::dse {
namespace {

using ::testing::HasSubstr;

std::string write_temp(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("weft_sweep_test_" + name);
  std::ofstream(p) << text;
  return p.string();
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Sweep, FileAndFlagsExpandToTheProductThenThePoints) {
  const std::string f = write_temp("ok.json", R"({"base": "tiny", "platform": "sim",
      "params": {"block_out": [4, 8], "clock_mhz": [100, 250]},
      "points": [{"block_in": 8, "inp_buf_bytes": 2048}]})");
  Sweep s = read_sweep_file(f);
  EXPECT_EQ(s.base, "tiny");
  ASSERT_EQ(s.params.size(), 2u);
  add_param(s, "axi_data_bits=64,128");
  const auto points = expand_sweep(s);
  ASSERT_EQ(points.size(), 2u * 2u * 2u + 1u);
  // The first parameter varies slowest; the config and platform objects carry the values.
  EXPECT_EQ(points[0].config["block_out"], 4);
  EXPECT_EQ(points[0].platform["clock_mhz"], 100);
  EXPECT_EQ(points[0].platform["axi_data_bits"], 64);
  EXPECT_EQ(points[1].platform["axi_data_bits"], 128);
  EXPECT_EQ(points[4].config["block_out"], 8);
  EXPECT_EQ(points.back().config["block_in"], 8);
  EXPECT_EQ(points.back().config["inp_buf_bytes"], 2048);
  EXPECT_EQ(points.back().config["block_out"], 4);  // the base's
  EXPECT_EQ(points[0].name, "tiny-o4-mhz100-bus64");
  EXPECT_EQ(points[0].config["name"], points[0].name);
  EXPECT_EQ(points.back().name, "tiny-i8-inp2k");
  EXPECT_EQ(points[0].params.size(), 3u);
  std::filesystem::remove(f);
}

TEST(Sweep, ParamFlagReplacesAndParsesValues) {
  Sweep s;
  s.base = "tiny";
  add_param(s, "block_out=4,8");
  add_param(s, "block_out=16");
  add_param(s, "clock_mhz=187.5");
  ASSERT_EQ(s.params.size(), 2u);
  EXPECT_EQ(s.params[0].second.size(), 1u);
  EXPECT_EQ(s.params[0].second[0], 16);
  EXPECT_DOUBLE_EQ(s.params[1].second[0].get<double>(), 187.5);
  const auto points = expand_sweep(s);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].name, "tiny-o16-mhz187p5");
}

TEST(Sweep, DuplicatePointsAreMeasuredOnce) {
  Sweep s;
  s.base = "tiny";
  add_param(s, "block_out=4,4,8");
  s.points.push_back({{"block_out", 8}});
  EXPECT_EQ(expand_sweep(s).size(), 2u);
}

TEST(Sweep, InvalidHardwareIsAPointNotAnError) {
  // Whether a point is valid is for the configuration reader to say when it runs.
  Sweep s;
  s.base = "tiny";
  add_param(s, "block_in=3,4");
  EXPECT_EQ(expand_sweep(s).size(), 2u);
}

TEST(Sweep, BadInputsAreNamedErrors) {
  Sweep s;
  s.base = "tiny";
  EXPECT_THAT(error_of([&] { expand_sweep(s); }), HasSubstr("the sweep has no point"));
  add_param(s, "block_width=4");
  EXPECT_THAT(error_of([&] { expand_sweep(s); }),
              HasSubstr("unknown parameter 'block_width' (known: batch, block_in"));
  EXPECT_THAT(error_of([&] { add_param(s, "block_in"); }), HasSubstr("must be NAME=V1,V2"));
  EXPECT_THAT(error_of([&] { add_param(s, "block_in=4,,8"); }), HasSubstr("empty value"));
  Sweep n;
  n.base = "tiny";
  n.params.push_back({"block_in", {}});
  EXPECT_THAT(error_of([&] { expand_sweep(n); }), HasSubstr("'block_in' has no values"));
  EXPECT_THAT(error_of([] { read_sweep_file("/nonexistent/sweep.json"); }),
              HasSubstr("/nonexistent/sweep.json"));
  const std::string bad = write_temp("bad.json", "{\"params\": ");
  EXPECT_THAT(error_of([&] { read_sweep_file(bad); }), HasSubstr("not valid JSON"));
  const std::string unknown = write_temp("unknown.json", R"({"parms": {}})");
  EXPECT_THAT(error_of([&] { read_sweep_file(unknown); }), HasSubstr("unknown key 'parms'"));
  const std::string list = write_temp("list.json", R"({"params": {"block_in": 4}})");
  EXPECT_THAT(error_of([&] { read_sweep_file(list); }), HasSubstr("must be a list of values"));
  for (const auto& f : {bad, unknown, list}) std::filesystem::remove(f);
}

}  // namespace
}  // namespace weft::rt::dse
