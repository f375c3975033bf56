// `weft xclbin-info FILE`: reads an .xclbin without a device (hardware/fpga/xclbin.h) and checks
// its kernel, arguments, offsets and memory connections against Weft's register map. A
// mismatch lists every difference and exits 1; --json prints what a tool would parse.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "hardware/fpga/xclbin.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/commands.h"
#include "runtime/io/files.h"

namespace weft::cli {

namespace {
std::string hex(uint64_t v) {
  char s[24];
  std::snprintf(s, sizeof s, "0x%llx", static_cast<unsigned long long>(v));
  return s;
}
const char* control_name(int c) {
  return c == 0 ? "ap_ctrl_hs" : c == 1 ? "ap_ctrl_chain" : c == 2 ? "ap_ctrl_none" : "other";
}
}  // namespace

void add_xclbin_info_command(CLI::App& app) {
  struct Opts {
    std::string file;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand(
      "xclbin-info",
      "Read an .xclbin (no device needed): its platform, sections, compute units, memory\n"
      "banks, and the kernel's arguments, checked against Weft's register map (the offsets\n"
      "hardware/fpga/build_xclbin.sh packages). Exit 1 with every difference when they do\n"
      "not match, or when the file is not an .xclbin.");
  cmd->add_option("FILE", o->file, "the .xclbin")->required();
  cmd->add_flag("--json", o->json, "print JSON");
  cmd->callback([o] {
    const std::vector<uint8_t> bytes = rt::read_file(o->file);
    const fpga::XclbinInfo info = fpga::parse_xclbin(bytes, o->file);
    const std::vector<std::string> problems = fpga::check_against_register_map(info);
    if (o->json) {
      nlohmann::ordered_json j;
      j["file"] = o->file;
      j["uuid"] = info.uuid;
      j["platform"] = info.platform;
      j["bytes"] = info.length;
      j["sections"] = nlohmann::ordered_json::array();
      for (const auto& [k, n] : info.sections)
        j["sections"].push_back({{"kind", fpga::section_name(k)}, {"bytes", n}});
      j["kernel"] = info.kernel;
      j["control"] = info.control_protocol;
      j["args"] = nlohmann::ordered_json::array();
      for (const auto& a : info.args)
        j["args"].push_back({{"index", a.index}, {"name", a.name}, {"offset", a.offset},
                             {"size", a.size}, {"pointer", a.address_qualifier == 1},
                             {"port", a.port}});
      j["compute_units"] = nlohmann::ordered_json::array();
      for (const auto& c : info.cus)
        j["compute_units"].push_back({{"name", c.name}, {"base", c.base},
                                      {"control", control_name(c.control)},
                                      {"interrupt", c.interrupt}});
      j["banks"] = nlohmann::ordered_json::array();
      for (const auto& b : info.banks)
        j["banks"].push_back({{"tag", b.tag}, {"used", b.used}, {"base", b.base},
                              {"size_kb", b.size_kb}});
      j["matches_register_map"] = problems.empty();
      j["problems"] = problems;
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << o->file << ": " << info.length << " bytes, uuid " << info.uuid
                << ", platform " << (info.platform.empty() ? "(none)" : info.platform) << "\n";
      std::cout << "sections:";
      for (const auto& [k, n] : info.sections) std::cout << " " << fpga::section_name(k) << "(" << n << ")";
      std::cout << "\nkernel " << info.kernel << " (" << info.control_protocol << ")\n";
      for (const auto& a : info.args) {
        std::cout << "  arg " << a.index << " " << a.name << " at " << hex(a.offset) << ", "
                  << a.size << " bytes, " << (a.address_qualifier == 1 ? "pointer" : "scalar");
        for (const auto& [arg, bank] : info.connections) {
          if (arg == a.index && bank >= 0 && static_cast<size_t>(bank) < info.banks.size())
            std::cout << " -> " << info.banks[bank].tag;
        }
        std::cout << "\n";
      }
      for (const auto& c : info.cus)
        std::cout << "compute unit " << c.name << " at " << hex(c.base) << ", "
                  << control_name(c.control) << (c.interrupt ? ", interrupt" : "") << "\n";
      for (const auto& b : info.banks)
        std::cout << "memory bank " << b.tag << (b.used ? "" : " (unused)") << ": "
                  << b.size_kb / 1024 << " MiB at " << hex(b.base) << "\n";
      if (problems.empty()) std::cout << "matches Weft's register map\n";
    }
    if (!problems.empty()) {
      std::string msg = "'" + o->file + "' does not match Weft's register map:";
      for (const std::string& p : problems) msg += "\n  " + p;
      throw UserError(msg);
    }
  });
}

}  // namespace weft::cli
