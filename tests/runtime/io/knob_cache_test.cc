// The conv2d knob cache (runtime/bench/conv2d_study.h) reads a JSON file a user (or an older
// Weft) may have written: an entry that is not a valid choice is ignored, never trusted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/bench/conv2d_study.h"

namespace weft::rt {
namespace {

class KnobCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("weft_knobs_" + std::to_string(::getpid()) + ".json"))
                .string();
  }
  void TearDown() override { std::filesystem::remove(path_); }
  void write(const std::string& text) { std::ofstream(path_, std::ios::binary) << text; }
  std::string path_;
};

TEST_F(KnobCacheTest, ReadsAValidEntry) {
  write(R"({"k": {"tile_h": 7, "tile_w": 14, "tile_ic": 2, "tile_oc": 4, "vthreads": 2,
                  "vthread_axis": "o"}})");
  const auto k = KnobCache(path_).find("k");
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->tile_h, 7);
  EXPECT_EQ(k->tile_w, 14);
  EXPECT_EQ(k->vthreads, 2);
  EXPECT_EQ(k->vthread_axis, 'o');
}

// Found by fuzz_json (docs/reliability.md): a knob written as a huge number (2e127, or an
// integer with 120 digits, which nlohmann reads as a float) was converted to int64_t by a cast
// whose result is undefined behaviour; such an entry is now ignored like any malformed one.
TEST_F(KnobCacheTest, IgnoresNonIntegerKnobs) {
  write(R"({"huge": {"tile_h": 7, "tile_w": 2e127, "tile_ic": 2, "tile_oc": 4, "vthreads": 2,
                     "vthread_axis": "o"},
            "digits": {"tile_h": 7, "tile_w": 19999999999999999999999999999999999999999999,
                       "tile_ic": 2, "tile_oc": 4, "vthreads": 2, "vthread_axis": "o"},
            "fraction": {"tile_h": 1.5, "tile_w": 1, "tile_ic": 1, "tile_oc": 1, "vthreads": 1,
                         "vthread_axis": "h"},
            "missing": {"tile_h": 1},
            "axis": {"tile_h": 1, "tile_w": 1, "tile_ic": 1, "tile_oc": 1, "vthreads": 1,
                     "vthread_axis": "oh"}})");
  KnobCache cache(path_);
  for (const char* key : {"huge", "digits", "fraction", "missing", "axis", "absent"}) {
    EXPECT_FALSE(cache.find(key).has_value()) << key;
  }
}

}  // namespace
}  // namespace weft::rt
