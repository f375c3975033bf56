// A network run's timeline (RunReport::timeline, times in microseconds) through the one
// timeline renderer (driver::render_timeline_svg): its window, lanes, one box per node where
// it ran, colours per op, and malformed microsecond timelines as UserErrors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "driver/timeline.h"
#include "hardware/isa/errors.h"
#include "runtime/graph/run_report.h"

namespace weft::rt::graph {
namespace {

using ::testing::HasSubstr;

StepReport step(const std::string& node, const std::string& op, const std::string& engine,
                double start_us, double us) {
  StepReport s;
  s.node = node;
  s.op = op;
  s.engine = engine;
  s.start_us = start_us;
  s.seconds = us * 1e-6;
  return s;
}

RunReport tiny_run() {
  RunReport r;
  r.network = "tiny";
  r.config = "gemm8x8";
  r.engine = "cycle";
  r.steps = {step("conv1", "conv", "accel", 0, 2.5), step("relu1", "relu", "cpu", 2.5, 0.5),
             step("fc", "dense", "accel", 3, 2), step("flatten", "reshape", "cpu", 5, 0)};
  return r;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(NetworkTimelineSvg, OneBoxPerNodeOnItsLaneInMicroseconds) {
  const nlohmann::json doc = tiny_run().timeline();
  EXPECT_EQ(doc["otherData"]["time_unit"], "us");
  driver::TimelineSvgOptions o;
  o.title = "tiny";
  const std::string svg = driver::render_timeline_svg(doc, o);
  EXPECT_THAT(svg, HasSubstr(">tiny (µs 0-5)</text>"));
  EXPECT_THAT(svg, HasSubstr("<text x=\"6\" y=\"60\">accelerator (cycle)</text>"));
  EXPECT_THAT(svg, HasSubstr("<text x=\"6\" y=\"94\">cpu</text>"));
  // 1100 pixels for 5 us: 220 per microsecond. Accelerator boxes at y 44, CPU ones at y 78;
  // colours by op in the order the ops first appear; a zero-length step is still a box.
  const std::string box = " height=\"24\" fill=\"";
  const std::string edge = "\" stroke=\"white\" stroke-width=\"0.3\"><title>";
  EXPECT_THAT(svg, HasSubstr("<rect x=\"80.0\" y=\"44\" width=\"550.0\"" + box + "#4caf50" + edge +
                             "conv1 (conv) [0, 2.5] µs</title></rect>"));
  EXPECT_THAT(svg, HasSubstr("<rect x=\"630.0\" y=\"78\" width=\"110.0\"" + box + "#2196f3" + edge +
                             "relu1 (relu) [2.5, 3] µs</title></rect>"));
  EXPECT_THAT(svg, HasSubstr("<rect x=\"740.0\" y=\"44\" width=\"440.0\"" + box + "#ff9800" + edge +
                             "fc (dense) [3, 5] µs</title></rect>"));
  EXPECT_THAT(svg, HasSubstr("<rect x=\"1180.0\" y=\"78\" width=\"0.5\"" + box + "#9c27b0" + edge +
                             "flatten (reshape) [5, 5] µs</title></rect>"));
  EXPECT_EQ(count(svg, "<title>"), 4);
  // Labels inside boxes wide enough for them; the legend names the ops, not instruction kinds.
  EXPECT_THAT(svg, HasSubstr("fill=\"white\">conv1</text>"));
  for (const char* op : {">conv</text>", ">relu</text>", ">dense</text>", ">reshape</text>"})
    EXPECT_THAT(svg, HasSubstr(op));
  EXPECT_THAT(svg, ::testing::Not(HasSubstr(">GEMM</text>")));
  EXPECT_THAT(svg, HasSubstr("time in microseconds; one box per node"));
}

TEST(NetworkTimelineSvg, TheLegendWrapsToThePictureWidth) {
  driver::TimelineSvgOptions o;
  o.width = 300;  // conv, relu and dense fit on the first row (to x 280), reshape does not
  const std::string svg = driver::render_timeline_svg(tiny_run().timeline(), o);
  EXPECT_THAT(svg, HasSubstr("width=\"300\" height=\"196\""));
  EXPECT_THAT(svg,
              HasSubstr("<rect x=\"188\" y=\"128\" width=\"12\" height=\"12\" fill=\"#ff9800\"/>"));
  EXPECT_THAT(svg,
              HasSubstr("<rect x=\"80\" y=\"146\" width=\"12\" height=\"12\" fill=\"#9c27b0\"/>"));
}

TEST(NetworkTimelineSvg, TheWindowIsInMicroseconds) {
  driver::TimelineSvgOptions o;
  o.from = 3;
  const std::string svg = driver::render_timeline_svg(tiny_run().timeline(), o);
  EXPECT_THAT(svg, HasSubstr("(µs 3-5)"));
  EXPECT_EQ(count(svg, "<title>"), 2);  // fc and flatten
  o.from = 6;
  try {
    driver::render_timeline_svg(tiny_run().timeline(), o);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("--from 6 is beyond the end of the timeline (it ends at 5 us)"));
  }
}

TEST(NetworkTimelineSvg, MalformedTimelinesAreUserErrors) {
  const auto error_of = [](const nlohmann::json& doc) {
    try {
      driver::render_timeline_svg(doc, {});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json doc = tiny_run().timeline();
  doc["traceEvents"][3]["dur"] = "long";
  EXPECT_THAT(error_of(doc), HasSubstr("traceEvents[3] field 'dur' = \"long\" is not a time in "
                                       "microseconds"));
  doc = tiny_run().timeline();
  doc["traceEvents"][4]["ts"] = -1.5;
  EXPECT_THAT(error_of(doc), HasSubstr("traceEvents[4] field 'ts' = -1.5 is not a time in "
                                       "microseconds"));
  doc = tiny_run().timeline();
  doc["otherData"]["time_unit"] = "fortnights";
  EXPECT_THAT(error_of(doc),
              HasSubstr("otherData.time_unit = \"fortnights\" is not \"cycle\" or \"us\""));
  // Without its mark the same document is read in cycles, whose times are whole numbers.
  doc = tiny_run().timeline();
  doc.erase("otherData");
  EXPECT_THAT(error_of(doc), HasSubstr("traceEvents[3] field 'ts' = 0.0 is not a cycle count"));
  // The caller may name the unit instead.
  driver::TimelineSvgOptions o;
  o.unit = driver::TimelineUnit::kMicrosecond;
  EXPECT_THAT(driver::render_timeline_svg(doc, o), HasSubstr("(µs 0-5)"));
}

}  // namespace
}  // namespace weft::rt::graph
