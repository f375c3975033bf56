// A GoogleTest fixture that runs the `weft` binary as a user does: each test gets its own empty
// temporary folder, and weft(ARGS) runs `WEFT_BIN ARGS` with stdout and stderr captured apart.
// Header-only, because WEFT_BIN (the binary's path) is a compile definition of each test target.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace weft::test {

/// What one `weft` run gave: its exit code and what it wrote on stdout and stderr.
struct CliResult {
  int code;
  std::string out, err;
};

/// The whole content of a file ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The JSON object a verb printed on stdout (from its first '{' to its last '}').
inline nlohmann::json json_of(const CliResult& r) {
  const size_t a = r.out.find('{'), b = r.out.rfind('}');
  EXPECT_NE(a, std::string::npos) << r.out << r.err;
  if (a == std::string::npos || b < a) return nlohmann::json();
  return nlohmann::json::parse(r.out.substr(a, b - a + 1));
}

/// A fresh folder per test (removed afterwards) and `weft` runs inside the test.
class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("weft_" + std::string(info->test_suite_name()) + "_" + std::to_string(::getpid()) +
            "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  /// A file in this test's folder.
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  /// Runs `weft ARGS` (a shell word list) and captures its exit code and both streams.
  CliResult weft(const std::string& args) const {
    const std::string out = path("stdout.txt"), err = path("stderr.txt");
    const std::string cmd = std::string(WEFT_BIN) + " " + args + " >" + out + " 2>" + err;
    const int status = std::system(cmd.c_str());
    return {WEXITSTATUS(status), slurp(out), slurp(err)};
  }
  std::filesystem::path dir_;
};

}  // namespace weft::test
