// Phases (runtime/cli/progress.h): a command that ends within a second prints nothing; one that
// goes on shows the phase it is in once the second has passed, and every phase after that.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "runtime/cli/progress.h"

namespace weft::cli {
namespace {

using ::testing::HasSubstr;

TEST(Phases, AShortCommandStaysQuiet) {
  ::testing::internal::CaptureStderr();
  {
    Phases p("weft test", false);
    p("compiling");
    p("running");
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(Phases, ALongCommandShowsThePhaseItIsInAndEveryLaterOne) {
  ::testing::internal::CaptureStderr();
  {
    Phases p("weft test", false);
    p("compiling");
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));
    p("running");
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("weft test: compiling (1 s so far)"));
  EXPECT_THAT(err, HasSubstr("weft test: running ("));
}

TEST(Phases, ForcedShowsEveryPhaseAtOnce) {
  ::testing::internal::CaptureStderr();
  {
    Phases p("weft test", true);
    p("compiling");
  }
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("weft test: compiling (0 s so far)"));
}

}  // namespace
}  // namespace weft::cli
