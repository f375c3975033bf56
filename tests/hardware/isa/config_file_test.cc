// Configurations and platforms as files (hardware/isa/config_file.h, docs/codesign.md): the
// shipped files read back unchanged and give the layouts the tools use, a user's file is
// loaded wherever a configuration name is (layout_for, find_platform), and every bad file is a
// UserError naming the file and the field.
#include "hardware/isa/config_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "hardware/isa/codegen.h"
#include "hardware/isa/describe.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/options.h"

namespace weft::isa {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

nlohmann::json read(const std::string& path) { return read_json_file(path, "test file"); }

// A valid configuration file's contents, to be edited by each test.
nlohmann::json base_config() {
  return nlohmann::json::parse(R"({
    "name": "b2x8x8", "description": "test", "batch": 2, "block_in": 8, "block_out": 8,
    "uop_buf_bytes": 8192, "inp_buf_bytes": 4096, "wgt_buf_bytes": 16384,
    "acc_buf_bytes": 16384, "token_queue_depth": 32, "cmd_queue_depth": 4,
    "fetch_fifo_depth": 16, "options": {}})");
}

// Writes `j` to a file of the test's temporary folder and returns its path.
std::string write(const std::string& name, const nlohmann::json& j) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << j.dump(2);
  return path;
}

TEST(ConfigFile, ShippedFilesReadBackUnchanged) {
  for (const char* name : {"gemm8x8", "vta", "tiny"}) {
    const std::string path = std::string(WEFT_SOURCE_DIR) + "/hardware/isa/configs/" + name + ".json";
    const nlohmann::json file = read(path);
    EXPECT_EQ(nlohmann::json(config_to_json(config_from_json(file, path))), file) << path;
    // The file, loaded as a user's file, is the shipped configuration.
    const Layout& l = layout_for(path);
    EXPECT_TRUE(same_hardware(l.config, find_config(name)));
    EXPECT_EQ(sv_package(l), sv_package(layout_for(name)));
  }
  for (const char* name : {"sim", "pynq", "zcu104"}) {
    const std::string path =
        std::string(WEFT_SOURCE_DIR) + "/hardware/isa/platforms/" + name + ".json";
    EXPECT_EQ(nlohmann::json(platform_to_json(platform_from_json(read(path), path))), read(path));
    EXPECT_TRUE(same_platform(find_platform(path), find_platform(name)));
  }
}

TEST(ConfigFile, ShippedConfigurationsKeepTheirNumbers) {
  const HwConfig& v = find_config("vta");
  EXPECT_EQ(v.batch(), 1);
  EXPECT_EQ(v.block_in(), 16);
  EXPECT_EQ(v.wgt_buf_bytes, 256u << 10);
  EXPECT_EQ(v.token_queue_depth, 256);
  EXPECT_TRUE(v.options.empty());
  const HwConfig& t = find_config("tiny");
  EXPECT_EQ(t.cmd_queue_depth, 4);
  EXPECT_EQ(t.fetch_fifo_depth, 8);
  EXPECT_EQ(shipped_configs().front().name, kDefaultConfig);
  EXPECT_EQ(find_platform("zcu104").clock_mhz, 300.0);
}

TEST(ConfigFile, AUsersFileIsAConfigurationEverywhereANameIs) {
  const std::string path = write("b2x8x8.json", base_config());
  const Layout& l = layout_for(path);
  EXPECT_EQ(l.config.name, "b2x8x8");
  EXPECT_EQ(l.config.batch(), 2);
  EXPECT_EQ(l.inp_depth, 4096 / 16);
  EXPECT_EQ(l.acc_depth, 16384 / (2 * 8 * 4));
  EXPECT_EQ(&layout_for(path), &l) << "cached per file";
  EXPECT_THAT(sv_package(l), HasSubstr("localparam int unsigned BATCH = 2;"));
  EXPECT_THAT(layout_to_text(l), HasSubstr("GEMM 2x8x8"));
}

TEST(ConfigFile, NamesAndFilesAreToldApartByTheirSpelling) {
  EXPECT_TRUE(names_a_file("my.json"));
  EXPECT_TRUE(names_a_file("configs/mine"));
  EXPECT_FALSE(names_a_file("vta"));
  EXPECT_FALSE(names_a_file(".json"));
  EXPECT_THAT([] { layout_for("missing.json"); },
              ThrowsMessage<UserError>(HasSubstr("cannot read configuration file 'missing.json'")));
}

// The message of loading `j` as a configuration file.
std::string error_of(const nlohmann::json& j, const std::string& file = "bad.json") {
  const std::string path = write(file, j);
  try {
    layout_for(path);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ConfigFile, BadFieldsAreNamedWithTheFile) {
  nlohmann::json j = base_config();
  j.erase("block_in");
  EXPECT_THAT(error_of(j, "e1.json"),
              AllOf(HasSubstr("e1.json"), HasSubstr("missing field 'block_in'")));
  j = base_config();
  j["buffers"] = 1;
  EXPECT_THAT(error_of(j, "e2.json"), HasSubstr("unknown field 'buffers'"));
  j = base_config();
  j["batch"] = "two";
  EXPECT_THAT(error_of(j, "e3.json"), HasSubstr("batch = \"two\" must be an integer"));
  j = base_config();
  j["batch"] = 3;
  EXPECT_THAT(error_of(j, "e4.json"), HasSubstr("batch = 3 is not a power of two"));
  j = base_config();
  j["block_out"] = 256;
  EXPECT_THAT(error_of(j, "e5.json"), HasSubstr("block_out = 256 must be 1..128"));
  j = base_config();
  j["inp_buf_bytes"] = 3000;
  EXPECT_THAT(error_of(j, "e6.json"), HasSubstr("inp_buf_bytes = 3000 is not a power of two"));
  j = base_config();
  j["name"] = "has space";
  EXPECT_THAT(error_of(j, "e7.json"), HasSubstr("name 'has space' must be letters"));
  j = base_config();
  j["token_queue_depth"] = 0;
  EXPECT_THAT(error_of(j, "e8.json"), HasSubstr("token_queue_depth = 0 must be 1..65536"));
  EXPECT_THAT(
      [] {
        const std::string p = ::testing::TempDir() + "/notjson.json";
        std::ofstream(p) << "{ \"name\": ";
        layout_for(p);
      },
      ThrowsMessage<UserError>(HasSubstr("not valid JSON")));
  EXPECT_THAT(
      [] {
        const std::string p = ::testing::TempDir() + "/huge.json";
        std::ofstream(p) << "{ \"name\": 1e400 }";
        layout_for(p);
      },
      ThrowsMessage<UserError>(HasSubstr("huge.json': not valid JSON")));
}

TEST(ConfigFile, FieldsThatDoNotFitTheEncodingNameTheFieldAndBits) {
  nlohmann::json j = base_config();
  j["wgt_buf_bytes"] = 1 << 23;  // 17-bit weight indices push the GEMM format past 128 bits
  EXPECT_THAT(error_of(j, "wide.json"),
              AllOf(HasSubstr("wide.json"), HasSubstr("GEMM field 'wgt_factor_in' (17 bits)"),
                    HasSubstr("does not fit in 128 bits: it would end at bit 144")));
}

TEST(ConfigFile, BuffersTooSmallForAnyScheduleAreRejected) {
  nlohmann::json j = base_config();
  j["uop_buf_bytes"] = 16;  // 4 micro-ops
  EXPECT_THAT(error_of(j, "u.json"),
              HasSubstr("uop_buf_bytes = 16 holds 4 micro-ops; the smallest schedule"));
  j = base_config();
  j["acc_buf_bytes"] = 128;  // 2 blocks of 64 bytes
  EXPECT_THAT(error_of(j, "a.json"), HasSubstr("acc_buf_bytes = 128 holds 2 accumulator blocks"));
  j = base_config();
  j["wgt_buf_bytes"] = 64;  // one 8x8 block
  EXPECT_THAT(error_of(j, "w.json"), HasSubstr("wgt_buf_bytes = 64 must hold at least two"));
}

TEST(ConfigFile, OptionsAreCheckedByName) {
  nlohmann::json j = base_config();
  j["name"] = "rq_on";
  j["options"] = {{"store_requant", true}};
  EXPECT_TRUE(layout_for(write("o0.json", j)).config.options.has(HwOption::kStoreRequant));
  j["name"] = "rq_off";
  j["options"] = {{"store_requant", false}};
  EXPECT_TRUE(layout_for(write("o3.json", j)).config.options.empty());
  j["options"] = {{"requant", true}};
  EXPECT_THAT(error_of(j, "o1.json"),
              AllOf(HasSubstr("o1.json"), HasSubstr("unknown hardware option 'requant'"),
                    HasSubstr("known: store_requant")));
  j["options"] = {{"x", 1}};
  EXPECT_THAT(error_of(j, "o2.json"), HasSubstr("option 'x' = 1 must be true or false"));
}

TEST(ConfigFile, UnsupportedOptionCombinationsAreNamed) {
  // A table of two options that exclude each other (the real table has none such yet).
  const auto a = static_cast<HwOption>(0), b = static_cast<HwOption>(1);
  const std::vector<OptionSpec> table = {{a, "alpha", "first", {b}}, {b, "beta", "second", {}}};
  const HwOptions one = parse_options({{"alpha", true}, {"beta", false}}, table, "here");
  EXPECT_TRUE(one.has(a));
  EXPECT_FALSE(one.has(b));
  EXPECT_EQ(option_names(one, table), std::vector<std::string>{"alpha"});
  EXPECT_THAT([&] { parse_options({{"alpha", true}, {"beta", true}}, table, "here"); },
              ThrowsMessage<UserError>(
                  HasSubstr("here: hardware options 'alpha' and 'beta' cannot be combined")));
}

TEST(ConfigFile, AFileMayNotRedefineAName) {
  nlohmann::json j = base_config();
  j["name"] = "vta";
  EXPECT_THAT(error_of(j, "fake_vta.json"),
              HasSubstr("names its configuration 'vta', a shipped configuration, but differs"));
  j = base_config();
  j["name"] = "twice";
  layout_for(write("twice_a.json", j));
  j["acc_buf_bytes"] = 8192;
  EXPECT_THAT(error_of(j, "twice_b.json"), HasSubstr("both name their configuration 'twice'"));
}

TEST(ConfigFile, PlatformsComeFromPlatformAndConfigurationFiles) {
  nlohmann::json p = {{"name", "slow"},       {"axi_data_bits", 64},
                      {"read_latency", 100},  {"write_latency", 50},
                      {"max_outstanding_reads", 2}, {"max_outstanding_writes", 2},
                      {"max_burst_beats", 8}, {"clock_mhz", 150}};
  const Platform& slow = find_platform(write("slow.json", p));
  EXPECT_EQ(slow.axi_data_bits, 64);
  EXPECT_EQ(slow.read_latency, 100);
  nlohmann::json c = base_config();
  c["name"] = "with_platform";
  c["platform"] = p;
  const std::string path = write("with_platform.json", c);
  EXPECT_EQ(find_platform(path).max_burst_beats, 8);
  EXPECT_EQ(layout_for(path).config.name, "with_platform");
  c["platform"] = "zcu104";
  EXPECT_TRUE(same_platform(find_platform(write("named_platform.json", c)), find_platform("zcu104")));
  p["axi_data_bits"] = 96;
  EXPECT_THAT([&] { find_platform(write("p96.json", p)); },
              ThrowsMessage<UserError>(HasSubstr("axi_data_bits = 96 is not a power of two")));
  EXPECT_THAT([&] { find_platform(write("noplatform.json", base_config())); },
              ThrowsMessage<UserError>(AllOf(HasSubstr("noplatform.json"),
                                             HasSubstr("without a \"platform\" field"))));
}

}  // namespace
}  // namespace weft::isa
