// `weft asm`: text or JSON-lines assembly -> binary instructions (or micro-ops with --uops).
#include <iostream>
#include <memory>

#include "hardware/isa/assembly.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/commands.h"
#include "runtime/io/files.h"

namespace weft::cli {

void add_asm_command(CLI::App& app) {
  struct Opts {
    std::string config = isa::kDefaultConfig, input, output;
    bool uops = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand(
      "asm",
      "Assemble a program into 16-byte instructions. The input holds text lines such as\n"
      "'LOAD INP sram_base=0 dram_base=64 y_size=1 x_size=8 x_stride=8 push_next_dep' or the\n"
      "JSON lines printed by `weft disasm --json` (docs/isa.md). With --uops, it holds\n"
      "'UOP dst=N src=N wgt=N' lines and the output is 4-byte micro-ops.");
  cmd->add_option("--config", o->config, "hardware configuration: gemm8x8, vta, tiny or a configuration file (*.json)")
      ->capture_default_str();
  cmd->add_option("input", o->input, "assembly file, or - for standard input")->required();
  cmd->add_option("-o,--output", o->output, "output binary file")->required();
  cmd->add_flag("--uops", o->uops, "assemble micro-ops instead of instructions");
  cmd->callback([o] {
    const isa::Layout& l = isa::layout_for(o->config);
    const std::string text = rt::read_text_file(o->input);
    // A binary file fed to the assembler: said so, rather than a mnemonic cut at its first NUL.
    if (const size_t nul = text.find('\0'); nul != std::string::npos) {
      throw UserError("'" + o->input + "' is a binary file (a NUL byte at offset " +
                      std::to_string(nul) + "), not assembly text; `weft disasm` lists a binary "
                      "program");
    }
    std::vector<uint8_t> bytes;
    size_t count = 0;
    if (o->uops) {
      const std::vector<isa::Uop> uops = isa::parse_uops(l, text, o->input);
      bytes.resize(uops.size() * isa::kUopBytes);
      for (size_t i = 0; i < uops.size(); ++i) {
        isa::encode_uop(l, uops[i], bytes.data() + i * isa::kUopBytes,
                        "micro-op " + std::to_string(i));
      }
      count = uops.size();
    } else {
      const std::vector<isa::Insn> program = isa::parse_program(l, text, o->input);
      bytes = isa::encode_program(l, program);
      count = program.size();
    }
    rt::write_file(o->output, bytes);
    std::cerr << "weft asm: " << count << (o->uops ? " micro-ops" : " instructions") << " ("
              << bytes.size() << " bytes) -> " << o->output << "\n";
  });
}

}  // namespace weft::cli
