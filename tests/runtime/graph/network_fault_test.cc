// Faults in the middle of a network (docs/reliability.md): an AXI error response, a DMA that is
// never answered, a kernel that never finishes (the host's timeout) and a run cancelled from
// the host, each injected at the middle accelerator launch of a small ResNet, on the cycle
// model, the Verilated RTL and the emulated XRT board over each. Every one ends the run with a
// UserError that names the network, the node and the cause; the device is usable again
// afterwards (the next run is bit-exact with a clean one); and, run under the sanitizers
// (scripts/sanitize.sh), nothing leaks (LeakSanitizer at exit) and no thread is left behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "compiler/graph/reference_int8.h"
#include "driver/device.h"
#include "driver/faults.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"
#include "runtime/graph/executor.h"

namespace weft::rt::graph {
namespace {

namespace cg = compiler::graph;
namespace reg = isa::reg;
using ::testing::HasSubstr;

bool has_engine(const std::string& e) {
  for (const auto& n : driver::device_names())
    if (n == e) return true;
  return false;
}

// An engine as the tests name it: a driver engine, or the emulated XRT board over one.
struct Engine {
  std::string name, emulate;  // emulate: the xrt engine's --xrt-emulate
  std::string label() const { return emulate.empty() ? name : name + "-" + emulate; }
};

std::vector<Engine> engines() {
  std::vector<Engine> e = {{"cycle", ""}, {"xrt", "cycle"}};
  if (has_engine("rtl")) {
    e.push_back({"rtl", ""});
    e.push_back({"xrt", "rtl"});
  }
  return e;
}

// A device that passes everything to the one it wraps and, at its `at`-th launch (counting
// ap_start writes from 1), runs `on_start` right after the start (the host cancelling) or
// hides ap_done until the host aborts the run (a kernel that never finishes).
class LaunchHook : public driver::Device {
 public:
  LaunchHook(std::unique_ptr<driver::Device> in, int at) : in_(std::move(in)), at_(at) {}
  std::function<void()> on_start;
  bool hang = false;

  std::string name() const override { return in_->name(); }
  uint64_t alloc(uint64_t b) override { return in_->alloc(b); }
  void free(uint64_t a) override { in_->free(a); }
  void copy_to_device(uint64_t a, const void* s, uint64_t b) override { in_->copy_to_device(a, s, b); }
  void copy_from_device(uint64_t a, void* d, uint64_t b) override { in_->copy_from_device(a, d, b); }
  void write_reg(uint32_t off, uint32_t v) override {
    in_->write_reg(off, v);
    if (off == reg::kControl && (v & reg::kApStart) && ++starts_ == at_) {
      hiding_ = hang;
      if (on_start) on_start();
    }
  }
  uint32_t read_reg(uint32_t off) override {
    const uint32_t v = in_->read_reg(off);
    return off == reg::kControl && hiding_ ? v & ~(reg::kApDone | reg::kApIdle) : v;
  }
  void abort() override {
    in_->abort();
    hiding_ = false;
  }
  std::string error_detail() const override { return in_->error_detail(); }
  nlohmann::ordered_json run_details() const override { return in_->run_details(); }

 private:
  std::unique_ptr<driver::Device> in_;
  int at_, starts_ = 0;
  bool hiding_ = false;
};

class NetworkFaultTest : public ::testing::TestWithParam<Engine> {
 protected:
  NetworkFaultTest() : l_(isa::layout_for("tiny")), pf_(isa::find_platform("sim")) {
    cg::models::ResNetOptions o;
    o.image = 32;
    o.width = 4;
    o.classes = 10;
    o.stages = 1;
    g_ = cg::models::resnet18(o);
    cg::GraphCompileOptions co;
    co.cpu_gmacs = 0.01;  // every conv and the fc on the accelerator
    compiled_ = std::make_unique<cg::CompiledGraph>(cg::compile_graph(g_, l_, pf_, co));
    exe_ = std::make_unique<GraphExecutor>(*compiled_, l_, pf_);
    x_ = cg::models::synthetic_input(g_.value(g_.inputs()[0]).type, 5);
    // The launches in order, from the listing: "  launch  NODE: N instructions @0xADDR (...".
    const std::string listing = exe_->listing();
    const std::regex launch(R"(  launch  ([^:]+): \d+ instructions @0x([0-9a-f]+))");
    for (auto it = std::sregex_iterator(listing.begin(), listing.end(), launch);
         it != std::sregex_iterator(); ++it)
      launches_.push_back({(*it)[1], std::stoull((*it)[2], nullptr, 16)});
  }

  std::unique_ptr<driver::Device> open(const driver::FaultPlan* plan = nullptr) {
    driver::DeviceOptions o;
    o.faults = plan;
    o.xrt_emulate = GetParam().emulate;
    return open_graph_device(GetParam().name, *exe_, l_, pf_, o);
  }
  // The middle launch: its node and the address of its first instruction.
  const std::pair<std::string, uint64_t>& middle() const { return launches_[launches_.size() / 2]; }
  std::string run_error(driver::Device& dev, std::chrono::milliseconds timeout = std::chrono::minutes(2)) {
    try {
      exe_->run(dev, {x_}, timeout);
    } catch (const UserError& e) {
      return e.what();
    }
    return "no error";
  }
  // The same device runs the network again, bit-exact with the int8 reference interpreter.
  void expect_recovers(driver::Device& dev) {
    EXPECT_EQ(exe_->run(dev, {x_}).outputs, cg::reference_int8(compiled_->graph, {x_}));
  }

  const isa::Layout& l_;
  const isa::Platform& pf_;
  cg::Graph g_;
  std::unique_ptr<cg::CompiledGraph> compiled_;
  std::unique_ptr<GraphExecutor> exe_;
  std::vector<float> x_;
  std::vector<std::pair<std::string, uint64_t>> launches_;
};

TEST_P(NetworkFaultTest, TheNetworkHasLaunchesToFaultInTheMiddle) {
  ASSERT_GE(launches_.size(), 5u) << exe_->listing();
}

// The emulated XRT board over the RTL serves the kernel's AXI master with the fault's response
// and lets the hardware react, as a board would: weft_top does not stop on an error response
// (the kernel wrapper only records it, bit kErrBusResp), so a faulted instruction fetch runs
// garbage that never finishes, and the host's timeout ends the run. The other engines stop at
// the faulted burst with its full description.
// An AXI error response on the fetch of the middle kernel's first instructions.
TEST_P(NetworkFaultTest, AnAxiErrorNamesTheNodeAndTheResponse) {
  ASSERT_FALSE(launches_.empty());
  char spec[64];
  std::snprintf(spec, sizeof spec, "read:slverr@0x%llx", (unsigned long long)middle().second);
  const driver::FaultPlan plan = driver::parse_fault_plan(spec);
  auto dev = open(&plan);
  const std::string err = run_error(*dev, std::chrono::seconds(3));
  EXPECT_THAT(err, HasSubstr("network 'resnet18_small', node '" + middle().first + "'"));
  EXPECT_THAT(err, HasSubstr("the network's run was stopped there"));
  if (GetParam().label() == "xrt-rtl") {
    EXPECT_THAT(err, HasSubstr("did not finish within 3000 ms"));
  } else {
    EXPECT_THAT(err, HasSubstr("fetch unit"));
    EXPECT_THAT(err, HasSubstr("SLVERR (slave error)"));
  }
}

// A burst that is never answered: the memory system gives up after its response timeout (on
// the emulated board over the RTL, as on a board, the host's timeout ends it).
TEST_P(NetworkFaultTest, AnUnansweredBurstNamesTheNodeAndTheTimeout) {
  ASSERT_FALSE(launches_.empty());
  char spec[64];
  std::snprintf(spec, sizeof spec, "read:noresp@0x%llx", (unsigned long long)middle().second);
  driver::FaultPlan plan = driver::parse_fault_plan(spec);
  plan.response_timeout = 5000;
  auto dev = open(&plan);
  const std::string err = run_error(*dev, std::chrono::seconds(3));
  EXPECT_THAT(err, HasSubstr("node '" + middle().first + "'"));
  EXPECT_THAT(err, HasSubstr(GetParam().label() == "xrt-rtl" ? "did not finish within 3000 ms"
                                                             : "got no response within 5000 cycles"));
}

// A kernel that never finishes: the host's timeout stops it and names the node.
TEST_P(NetworkFaultTest, AKernelPastTheTimeoutNamesTheNodeAndIsStopped) {
  ASSERT_FALSE(launches_.empty());
  const int at = static_cast<int>(launches_.size() / 2) + 1;
  // The host's timeout must outlast every kernel that does finish, or an earlier one times out
  // (and the hang stays armed for the next run): none takes longer than a whole clean run, whose
  // time depends on the engine and the build (the Verilated RTL under ASan is far slower).
  std::chrono::milliseconds timeout(200);
  {
    auto clean = open();
    const auto t0 = std::chrono::steady_clock::now();
    exe_->run(*clean, {x_});
    timeout = std::max(timeout, std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::steady_clock::now() - t0));
  }
  auto hook = std::make_unique<LaunchHook>(open(), at);
  hook->hang = true;
  const std::string err = run_error(*hook, timeout);
  EXPECT_THAT(err, HasSubstr("node '" + middle().first + "'"));
  EXPECT_THAT(err, HasSubstr("did not finish within " + std::to_string(timeout.count()) + " ms"));
  hook->hang = false;  // whichever launch it stopped at, the next run is not hung
  expect_recovers(*hook);
}

// The host cancels the run as the middle kernel starts: the kernel is aborted (or, when it
// finished first, the next step is not started) and the error names where it stopped.
TEST_P(NetworkFaultTest, ARunCancelledMidwayNamesTheNodeItStoppedAt) {
  ASSERT_FALSE(launches_.empty());
  const int at = static_cast<int>(launches_.size() / 2) + 1;
  auto hook = std::make_unique<LaunchHook>(open(), at);
  hook->on_start = [this] { exe_->cancel(); };
  const std::string err = run_error(*hook);
  EXPECT_THAT(err, HasSubstr("network 'resnet18_small', node '"));
  EXPECT_THAT(err, HasSubstr("cancelled by the host"));
  // Not before the middle launch.
  const std::smatch m = [&] {
    std::smatch s;
    std::regex_search(err, s, std::regex(R"(step (\d+) of)"));
    return s;
  }();
  ASSERT_EQ(m.size(), 2u) << err;
  EXPECT_GE(std::stoi(m[1]), at) << err;
  expect_recovers(*hook);
  exe_->cancel();  // no run in progress: no effect
  EXPECT_EQ(exe_->run(*hook, {x_}).outputs.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Engines, NetworkFaultTest, ::testing::ValuesIn(engines()),
                         [](const ::testing::TestParamInfo<Engine>& i) {
                           std::string s = i.param.label();
                           for (char& c : s)
                             if (c == '-') c = '_';
                           return s;
                         });

}  // namespace
}  // namespace weft::rt::graph
