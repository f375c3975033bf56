// The committed generated files (C++ header, SystemVerilog packages) must equal what the
// generator writes from the current spec; otherwise someone changed the spec without
// regenerating, and the RTL and the simulators would silently disagree.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "hardware/isa/codegen.h"

namespace weft::isa {
namespace {

TEST(Generated, CommittedFilesAreUpToDate) {
  const auto files = generated_files();
  ASSERT_GE(files.size(), 4u);
  for (const auto& [name, text] : files) {
    const std::string path = std::string(WEFT_SOURCE_DIR) + "/hardware/isa/generated/" + name;
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path << " is missing; run `cmake --build build --target isa-regen`";
    std::stringstream committed;
    committed << in.rdbuf();
    EXPECT_EQ(committed.str(), text)
        << path << " is stale: the spec changed. Run `cmake --build build --target isa-regen` "
        << "and commit the result.";
  }
}

TEST(Generated, SvPackageCarriesTheVtaPositions) {
  for (const auto& [name, text] : generated_files()) {
    if (name != "weft_pkg_vta.sv") continue;
    EXPECT_NE(text.find("package weft_pkg;"), std::string::npos);
    EXPECT_NE(text.find("MEM_DRAM_BASE_LSB = 26, MEM_DRAM_BASE_W = 32;"), std::string::npos);
    EXPECT_NE(text.find("GEMM_WGT_FACTOR_IN_LSB = 118, GEMM_WGT_FACTOR_IN_W = 10;"),
              std::string::npos);
    EXPECT_NE(text.find("ALU_IMM_LSB = 112, ALU_IMM_W = 16;"), std::string::npos);
    return;
  }
  FAIL() << "no weft_pkg_vta.sv generated";
}

}  // namespace
}  // namespace weft::isa
