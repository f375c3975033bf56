// `weft disasm`: binary instructions -> a listing (or JSON lines with VTA's field names).
#include <iostream>
#include <memory>

#include "hardware/isa/assembly.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/commands.h"
#include "runtime/io/files.h"

namespace weft::cli {

void add_disasm_command(CLI::App& app) {
  struct Opts {
    std::string config = isa::kDefaultConfig, input, offset = "0", count;
    bool json = false, uops = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand(
      "disasm",
      "Disassemble 16-byte instructions (a program binary, or part of a DRAM image with\n"
      "--offset/--count). The listing is valid `weft asm` input; --json prints one JSON object\n"
      "per line with VTA's field names.");
  cmd->add_option("--config", o->config, "hardware configuration: gemm8x8, vta, tiny or a configuration file (*.json)")
      ->capture_default_str();
  cmd->add_option("input", o->input, "binary file, or - for standard input")->required();
  cmd->add_flag("--json", o->json, "one JSON object per instruction");
  cmd->add_flag("--uops", o->uops, "the bytes are 4-byte micro-ops, not instructions");
  cmd->add_option("--offset", o->offset, "byte offset of the first instruction")
      ->capture_default_str();
  cmd->add_option("--count", o->count, "number of instructions (default: to the end)");
  cmd->callback([o] {
    const isa::Layout& l = isa::layout_for(o->config);
    const std::vector<uint8_t> bytes = rt::read_file(o->input);
    const uint64_t offset = rt::parse_size(o->offset, "--offset");
    const int unit = o->uops ? isa::kUopBytes : isa::kInsnBytes;
    if (offset > bytes.size()) {
      throw UserError("--offset " + std::to_string(offset) + " is beyond the end of '" + o->input +
                      "' (" + std::to_string(bytes.size()) + " bytes)");
    }
    uint64_t count = (bytes.size() - offset) / unit;
    if (!o->count.empty()) {
      count = rt::parse_size(o->count, "--count");
      if (count > (bytes.size() - offset) / unit) {  // not offset + count * unit: it wraps
        throw UserError("--count " + o->count + " from --offset " + std::to_string(offset) +
                        " runs past the end of '" + o->input + "' (" +
                        std::to_string(bytes.size()) + " bytes)");
      }
    } else if ((bytes.size() - offset) % unit != 0) {
      throw UserError("'" + o->input + "': " + std::to_string(bytes.size() - offset) +
                      " bytes from offset " + std::to_string(offset) +
                      " are not a whole number of " + std::to_string(unit) + "-byte " +
                      (o->uops ? "micro-ops" : "instructions"));
    }
    for (uint64_t i = 0; i < count; ++i) {
      const uint8_t* p = bytes.data() + offset + i * unit;
      if (o->uops) {
        const isa::Uop u = isa::decode_uop(l, p);
        if (o->json) {
          std::cout << nlohmann::ordered_json{{"dst", u.dst}, {"src", u.src}, {"wgt", u.wgt}}.dump()
                    << "\n";
        } else {
          std::cout << i << ": " << isa::format_uop(u) << "\n";
        }
        continue;
      }
      const isa::Insn insn =
          isa::decode_insn(l, p, "'" + o->input + "': instruction " + std::to_string(i));
      if (o->json) {
        std::cout << isa::insn_to_json(l, insn).dump() << "\n";
      } else {
        std::cout << i << ": " << isa::format_insn(l, insn) << "\n";
      }
    }
  });
}

}  // namespace weft::cli
