// The energy table as data (hardware/cost/energy_table.h): the shipped table's figures and
// provenance, SRAM interpolation and extrapolation, the process scaling rule, and every kind
// of bad file named by field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "hardware/cost/energy_table.h"
#include "hardware/isa/errors.h"

namespace weft::cost {
namespace {

using ::testing::HasSubstr;

// The shipped table's text, to edit one field at a time.
nlohmann::json shipped_json() {
  std::ifstream in(std::string(WEFT_SOURCE_DIR) + "/hardware/cost/tables/horowitz45.json");
  return nlohmann::json::parse(in);
}

std::string error_of(const nlohmann::json& j) {
  try {
    energy_table_from_json(j, "energy table 't.json'");
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(EnergyTable, TheShippedTableIsTheDefaultAndCarriesItsFigures) {
  const EnergyTable& t = shipped_energy_tables().front();
  EXPECT_EQ(t.name, "horowitz45");
  EXPECT_EQ(energy_table_for("").name, "horowitz45");
  EXPECT_EQ(energy_table_for("horowitz45").name, "horowitz45");
  EXPECT_DOUBLE_EQ(t.node_nm, 45);
  EXPECT_DOUBLE_EQ(t.vdd, 0.9);
  EXPECT_DOUBLE_EQ(t.scale, 1);
  EXPECT_DOUBLE_EQ(t.mac_int8_pj, 0.25);
  EXPECT_DOUBLE_EQ(t.acc_add_int32_pj, 0.1);
  EXPECT_DOUBLE_EQ(t.alu_op_int32_pj, 0.1);
  EXPECT_DOUBLE_EQ(t.alu_mul_int32_pj, 3.1);
  EXPECT_DOUBLE_EQ(t.register_byte_pj, 0.25);
  EXPECT_DOUBLE_EQ(t.dram_byte_pj, 160);
  ASSERT_EQ(t.sram.size(), 3u);
  // Every figure in the file has its source next to it.
  const nlohmann::json j = shipped_json();
  for (const char* k : {"mac_int8", "acc_add_int32", "alu_op_int32", "alu_mul_int32",
                        "register_byte", "sram_byte", "dram_byte"}) {
    EXPECT_THAT(j[k]["source"].get<std::string>(), HasSubstr("Horowitz")) << k;
  }
}

TEST(EnergyTable, SramFiguresFollowAPowerLawBetweenPointsAndPastTheEnds) {
  const EnergyTable& t = shipped_energy_tables().front();
  EXPECT_DOUBLE_EQ(t.sram_byte_pj(8192, false), 1.25);
  EXPECT_DOUBLE_EQ(t.sram_byte_pj(32768, true), 2.5);
  EXPECT_DOUBLE_EQ(t.sram_byte_pj(1 << 20, false), 12.5);
  // 16 KiB: halfway in log size between 8 and 32 KiB, so the geometric mean.
  EXPECT_NEAR(t.sram_byte_pj(16384, false), std::sqrt(1.25 * 2.5), 1e-12);
  // 256 KiB: 3 of the 5 doublings from 32 KiB to 1 MiB, where the figure grows 5x.
  EXPECT_NEAR(t.sram_byte_pj(256 << 10, false), 2.5 * std::pow(5.0, 0.6), 1e-12);
  // 2 KiB: the 8-32 KiB segment extended (its figure doubles every two doublings of size).
  EXPECT_NEAR(t.sram_byte_pj(2048, false), 1.25 / 2, 1e-12);
  EXPECT_NEAR(t.sram_byte_pj(2 << 20, false), 12.5 * std::pow(5.0, 0.2), 1e-12);
}

TEST(EnergyTable, ScaleToAppliesTheRuleToOnChipFiguresOnly) {
  nlohmann::json j = shipped_json();
  j["scale_to"] = {{"node_nm", 22.5}, {"vdd", 0.45}};
  const EnergyTable t = energy_table_from_json(j, "t");
  const double f = 0.5 * 0.25;  // half the feature size, half the voltage
  EXPECT_DOUBLE_EQ(process_scale(45, 0.9, 22.5, 0.45), f);
  EXPECT_DOUBLE_EQ(t.scale, f);
  EXPECT_DOUBLE_EQ(t.node_nm, 22.5);
  EXPECT_DOUBLE_EQ(t.source_node_nm, 45);
  EXPECT_DOUBLE_EQ(t.mac_int8_pj, 0.25 * f);
  EXPECT_DOUBLE_EQ(t.register_byte_pj, 0.25 * f);
  EXPECT_DOUBLE_EQ(t.sram_byte_pj(32768, false), 2.5 * f);
  EXPECT_DOUBLE_EQ(t.dram_byte_pj, 160);  // off-chip: not scaled
}

TEST(EnergyTable, BadTablesAreNamedErrors) {
  auto with = [](auto edit) {
    nlohmann::json j = shipped_json();
    edit(j);
    return error_of(j);
  };
  EXPECT_THAT(with([](nlohmann::json& j) { j.erase("mac_int8"); }),
              HasSubstr("energy table 't.json' ('horowitz45'): missing field 'mac_int8'"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["sram_bytes"] = 1; }),
              HasSubstr("unknown field 'sram_bytes' (known: "));
  EXPECT_THAT(with([](nlohmann::json& j) { j["dram_byte"]["pj"] = -1; }),
              HasSubstr("dram_byte: pj = -1 is negative"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["mac_int8"]["pj"] = "0.2"; }),
              HasSubstr("mac_int8: pj = \"0.2\" must be a number"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["alu_op_int32"].erase("source"); }),
              HasSubstr("alu_op_int32: missing field 'source'"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["alu_op_int32"]["source"] = ""; }),
              HasSubstr("alu_op_int32: source is empty"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["acc_add_int32"]["unit"] = "pJ"; }),
              HasSubstr("acc_add_int32: unknown field 'unit'"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["sram_byte"]["points"] = nlohmann::json::array(); }),
              HasSubstr("sram_byte: points is empty"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["sram_byte"]["points"][1]["bytes"] = 4096; }),
              HasSubstr("sram_byte, points[1]: bytes = 4096 must be larger than the point before "
                        "(8192)"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["sram_byte"]["points"][0]["read_pj"] = 0; }),
              HasSubstr("points[0]: read_pj and write_pj must be positive"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["sram_byte"]["points"][2]["write_pj"] = -3; }),
              HasSubstr("points[2]: write_pj = -3 is negative"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["sram_byte"]["points"][0].erase("bytes"); }),
              HasSubstr("points[0]: missing field 'bytes'"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["scale_to"] = {{"node_nm", 7}}; }),
              HasSubstr("scale_to: missing field 'vdd'"));
  EXPECT_THAT(with([](nlohmann::json& j) { j["vdd"] = 0; }), HasSubstr("vdd = 0 must be"));
  EXPECT_THAT(error_of(nlohmann::json::array()), HasSubstr("expected a JSON object"));
}

TEST(EnergyTable, FilesAndNamesAreCheckedByEnergyTableFor) {
  EXPECT_THROW(
      {
        try {
          energy_table_for("nosuch");
        } catch (const UserError& e) {
          EXPECT_THAT(e.what(), HasSubstr("unknown energy table 'nosuch' (shipped: horowitz45"));
          throw;
        }
      },
      UserError);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("weft_energy_table_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string bad = (dir / "bad.json").string(), good = (dir / "mine.json").string();
  std::ofstream(bad) << "{ \"name\": ";
  nlohmann::json j = shipped_json();
  j["name"] = "mine";
  j["mac_int8"]["pj"] = 0.5;
  std::ofstream(good) << j.dump();
  try {
    energy_table_for(bad);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("energy table '" + bad + "': not valid JSON"));
  }
  EXPECT_THROW(energy_table_for((dir / "missing.json").string()), UserError);
  const EnergyTable t = energy_table_for(good);
  EXPECT_EQ(t.name, "mine");
  EXPECT_DOUBLE_EQ(t.mac_int8_pj, 0.5);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace weft::cost
