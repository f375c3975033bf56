// `weft run resnet18 --inject-fault` as a user runs it: an AXI fault on the middle kernel's
// instructions (its address from `weft compile resnet18 --emit steps`) on the cycle engine, the
// emulated XRT board and the RTL (when built) ends with exit code 1 and a message naming the
// node and the fault, and writes none of --save's and --trace's files; SIGINT in the middle of a
// run exits 130 with nothing written either.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include "tests/support/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A small ResNet whose convolutions the partition puts on the accelerator.
const char* kNet = "--config vta --image 32 --width 16 --stages 2 --classes 10 --knob-cache ''";

class CliNetworkFault : public weft::test::CliFixture {
 protected:
  // The middle launch of the network: its node and the address of its instructions.
  std::pair<std::string, std::string> middle() {
    const auto r = weft(std::string("compile resnet18 --emit steps ") + kNet);
    EXPECT_EQ(r.code, 0) << r.err;
    const std::regex launch(R"(  launch  ([^:]+): \d+ instructions @(0x[0-9a-f]+))");
    std::vector<std::pair<std::string, std::string>> all;
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), launch);
         it != std::sregex_iterator(); ++it)
      all.push_back({(*it)[1], (*it)[2]});
    EXPECT_GE(all.size(), 5u) << r.out;
    return all.empty() ? std::pair<std::string, std::string>{} : all[all.size() / 2];
  }
};

TEST_F(CliNetworkFault, AnAxiFaultMidNetworkNamesTheNodeAndWritesNothing) {
  const auto [node, addr] = middle();
  ASSERT_FALSE(node.empty());
  std::vector<std::string> engines = {"--engine cycle", "--engine xrt --xrt-emulate cycle"};
  if (weft("run dense --M 1 --N 1 --K 1 --config vta --engine rtl").code == 0)  // rtl is built
    engines.push_back("--engine rtl");
  for (const std::string& e : engines) {
    for (const char* kind : {"slverr", "noresp"}) {
      const auto r = weft(std::string("run resnet18 ") + kNet + " " + e + " --inject-fault read:" +
                          kind + "@" + addr + " --save " + path("out") + " --trace " +
                          path("t.json"));
      EXPECT_EQ(r.code, 1) << e << "\n" << r.err;
      EXPECT_THAT(r.err, HasSubstr("node '" + node + "'")) << e;
      EXPECT_THAT(r.err, HasSubstr(std::string(kind) == "slverr" ? "SLVERR" : "got no response"))
          << e;
      EXPECT_FALSE(fs::exists(path("out"))) << e;
      EXPECT_FALSE(fs::exists(path("t.json"))) << e;
    }
  }
}

// SIGINT (Ctrl-C) in the middle of a run (its check against the reference interpreter, which
// takes seconds): exit code 130 and nothing written.
TEST_F(CliNetworkFault, AnInterruptedRunWritesNothing) {
  const std::string cmd = std::string(WEFT_BIN) + " run resnet18 --progress --config vta --check" +
                          " --save " + path("out") + " --trace " + path("t.json") + " 2>" +
                          path("err.txt");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait for the run to reach its check (the phases on stderr), then interrupt it.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (weft::test::slurp(path("err.txt")).find("checking: the int8 reference") ==
             std::string::npos &&
         std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << weft::test::slurp(path("err.txt"));
  EXPECT_EQ(WEXITSTATUS(status), 130) << weft::test::slurp(path("err.txt"));
  EXPECT_FALSE(fs::exists(path("out")));
  EXPECT_FALSE(fs::exists(path("t.json")));
}

}  // namespace
