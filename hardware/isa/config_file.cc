// Reading and writing configuration and platform files; see config_file.h and
// docs/codesign.md for the format.
#include "hardware/isa/config_file.h"

#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "hardware/isa/errors.h"
#include "hardware/isa/field_reader.h"
#include "hardware/isa/json_text.h"
#include "hardware/isa/options.h"

namespace weft::isa {

namespace {

// log2 of a GEMM dimension, which must be a power of two of at most 2^max_log.
int log2_dimension(FieldReader& r, const char* key, int max_log, const std::string& where) {
  const int64_t v = r.integer(key, 1, int64_t{1} << max_log);
  if ((v & (v - 1)) != 0) {
    throw UserError(where + ": " + key + " = " + std::to_string(v) + " is not a power of two");
  }
  int l = 0;
  while ((int64_t{1} << l) < v) ++l;
  return l;
}

}  // namespace

HwConfig config_from_json(const nlohmann::json& j, const std::string& where) {
  FieldReader r(j, where);
  HwConfig c;
  c.name = r.string("name");
  if (c.name.empty() || c.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
                            std::string::npos) {
    throw UserError(where + ": name '" + c.name +
                    "' must be letters, digits, '_' and '-' (it names RTL builds and tuning "
                    "records)");
  }
  const std::string at = where + " ('" + c.name + "')";
  c.description = r.string("description", "");
  c.log_batch = log2_dimension(r, "batch", 6, at);
  c.log_block_in = log2_dimension(r, "block_in", 7, at);
  c.log_block_out = log2_dimension(r, "block_out", 7, at);
  c.inp_bits = static_cast<int>(r.integer("inp_bits", 1, 64, 8));
  c.wgt_bits = static_cast<int>(r.integer("wgt_bits", 1, 64, 8));
  c.acc_bits = static_cast<int>(r.integer("acc_bits", 1, 64, 32));
  c.out_bits = static_cast<int>(r.integer("out_bits", 1, 64, 8));
  constexpr int64_t kMaxBuffer = int64_t{1} << 40;
  c.uop_buf_bytes = static_cast<uint64_t>(r.integer("uop_buf_bytes", 1, kMaxBuffer));
  c.inp_buf_bytes = static_cast<uint64_t>(r.integer("inp_buf_bytes", 1, kMaxBuffer));
  c.wgt_buf_bytes = static_cast<uint64_t>(r.integer("wgt_buf_bytes", 1, kMaxBuffer));
  c.acc_buf_bytes = static_cast<uint64_t>(r.integer("acc_buf_bytes", 1, kMaxBuffer));
  c.token_queue_depth = static_cast<int>(r.integer("token_queue_depth", 1, 65536));
  c.cmd_queue_depth = static_cast<int>(r.integer("cmd_queue_depth", 1, 1024, 8));
  c.fetch_fifo_depth = static_cast<int>(r.integer("fetch_fifo_depth", 1, 4096, 32));
  c.gemm_pipeline_depth = static_cast<int>(r.integer("gemm_pipeline_depth", 2, 16, 4));
  c.alu_pipeline_depth = static_cast<int>(r.integer("alu_pipeline_depth", 2, 16, 4));
  std::vector<OptionValue> options;
  if (r.has("options")) {
    for (const auto& item : r.object("options").items()) {
      if (!item.value().is_boolean()) {
        throw UserError(at + ": option '" + item.key() + "' = " + item.value().dump() +
                        " must be true or false");
      }
      options.push_back({item.key(), item.value().get<bool>()});
    }
  }
  c.options = parse_options(options, hardware_options(), at);
  r.skip("platform");  // read by load_platform_file
  r.finish();
  return c;
}

Platform platform_from_json(const nlohmann::json& j, const std::string& where) {
  FieldReader r(j, where);
  Platform p;
  p.name = r.string("name");
  const std::string at = where + " (platform '" + p.name + "')";
  p.description = r.string("description", "");
  p.axi_data_bits = static_cast<int>(r.integer("axi_data_bits", 8, 1024));
  if ((p.axi_data_bits & (p.axi_data_bits - 1)) != 0) {
    throw UserError(at + ": axi_data_bits = " + std::to_string(p.axi_data_bits) +
                    " is not a power of two");
  }
  p.read_latency = static_cast<int>(r.integer("read_latency", 0, 100000));
  p.write_latency = static_cast<int>(r.integer("write_latency", 0, 100000));
  p.max_outstanding_reads = static_cast<int>(r.integer("max_outstanding_reads", 1, 1024));
  p.max_outstanding_writes = static_cast<int>(r.integer("max_outstanding_writes", 1, 1024));
  p.max_burst_beats = static_cast<int>(r.integer("max_burst_beats", 1, 256));
  p.clock_mhz = r.number("clock_mhz", 1e-3, 1e6);
  r.finish();
  return p;
}

nlohmann::ordered_json config_to_json(const HwConfig& c) {
  nlohmann::ordered_json j;
  j["name"] = c.name;
  j["description"] = c.description;
  j["batch"] = c.batch();
  j["block_in"] = c.block_in();
  j["block_out"] = c.block_out();
  j["inp_bits"] = c.inp_bits;
  j["wgt_bits"] = c.wgt_bits;
  j["acc_bits"] = c.acc_bits;
  j["out_bits"] = c.out_bits;
  j["uop_buf_bytes"] = c.uop_buf_bytes;
  j["inp_buf_bytes"] = c.inp_buf_bytes;
  j["wgt_buf_bytes"] = c.wgt_buf_bytes;
  j["acc_buf_bytes"] = c.acc_buf_bytes;
  j["token_queue_depth"] = c.token_queue_depth;
  j["cmd_queue_depth"] = c.cmd_queue_depth;
  j["fetch_fifo_depth"] = c.fetch_fifo_depth;
  j["gemm_pipeline_depth"] = c.gemm_pipeline_depth;
  j["alu_pipeline_depth"] = c.alu_pipeline_depth;
  j["options"] = nlohmann::ordered_json::object();
  for (const std::string& name : option_names(c.options)) j["options"][name] = true;
  return j;
}

bool names_a_file(const std::string& arg) {
  const std::string ext = ".json";
  return arg.find('/') != std::string::npos ||
         (arg.size() > ext.size() && arg.compare(arg.size() - ext.size(), ext.size(), ext) == 0);
}

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read " + what + " '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return parse_json_text(text.str(), what + " '" + path + "'");
}

HwConfig load_config_file(const std::string& path) {
  return config_from_json(read_json_file(path, "configuration file"),
                          "configuration file '" + path + "'");
}

Platform load_platform_file(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "platform file");
  const std::string where = "platform file '" + path + "'";
  if (!j.is_object()) throw UserError(where + ": expected a JSON object");
  if (!j.contains("platform")) {
    // A configuration file without a platform is a common slip: say so rather than report the
    // platform fields it lacks.
    if (j.contains("batch") || j.contains("block_in")) {
      throw UserError(where + " is a configuration file without a \"platform\" field: give "
                      "--platform a shipped platform's name or a platform file, or add "
                      "\"platform\" to it");
    }
    return platform_from_json(j, where);
  }
  const nlohmann::json& p = j.at("platform");
  if (p.is_string()) return find_platform(p.get<std::string>());
  return platform_from_json(p, where + ", its \"platform\"");
}

}  // namespace weft::isa
