// Stopping single-operator runs from another thread (runtime/cli/run_cancel.h, the Python
// package's Ctrl-C): cancel() aborts the device a run registered, only while it is registered,
// and no run starts after it; check() stops runs that register no device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hardware/isa/errors.h"
#include "runtime/cli/run_cancel.h"

namespace weft::cli {
namespace {

// A device that only counts aborts.
class CountingDevice : public driver::Device {
 public:
  std::string name() const override { return "counting"; }
  uint64_t alloc(uint64_t) override { return 0; }
  void free(uint64_t) override {}
  void copy_to_device(uint64_t, const void*, uint64_t) override {}
  void copy_from_device(uint64_t, void*, uint64_t) override {}
  void write_reg(uint32_t, uint32_t) override {}
  uint32_t read_reg(uint32_t) override { return 0; }
  void abort() override { ++aborts; }
  int aborts = 0;
};

TEST(RunCanceller, AbortsTheRegisteredDeviceOnly) {
  CountingDevice dev;
  RunCanceller c;
  {
    RunCanceller::Running running(&c, dev);
    EXPECT_FALSE(c.cancelled());
    c.cancel();
    c.cancel();  // repeated until the run ends, as the Python side does
    EXPECT_EQ(dev.aborts, 2);
  }
  c.cancel();  // nothing registered any more
  EXPECT_EQ(dev.aborts, 2);
  EXPECT_TRUE(c.cancelled());
}

TEST(RunCanceller, NoRunStartsAfterACancel) {
  CountingDevice dev;
  RunCanceller c;
  c.cancel();
  try {
    RunCanceller::Running running(&c, dev);
    FAIL() << "a run started after cancel()";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("cancelled before it started"));
  }
  EXPECT_EQ(dev.aborts, 0);
  RunCanceller::Running without(nullptr, dev);  // no canceller: nothing to register with
}

TEST(RunCanceller, CheckThrowsOnlyAfterACancel) {
  // Runs without a device (the CPU and GPU targets) call check() between their timed runs.
  RunCanceller c;
  EXPECT_NO_THROW(c.check());
  c.cancel();
  EXPECT_THROW(c.check(), UserError);
}

}  // namespace
}  // namespace weft::cli
