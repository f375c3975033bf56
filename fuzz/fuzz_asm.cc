// Fuzz target: the assembler (text lines and JSON lines, mixed) and the micro-op assembler.
// The first byte picks the configuration and whether the input is a program or micro-ops.
// A source that assembles must encode, decode back to the same instructions, and print as
// text that assembles to them again; anything else must be a UserError.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_common.h"
#include "hardware/isa/assembly.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"

using namespace weft;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  const isa::Layout& l = fuzz::layout_of(data[0]);
  const bool uops = (data[0] & 0x80) != 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (uops) {
    std::vector<isa::Uop> u;
    try {
      u = isa::parse_uops(l, text, "fuzz.s");
    } catch (const UserError&) {
      return 0;
    }
    std::string again;
    for (const isa::Uop& x : u) again += isa::format_uop(x) + "\n";
    fuzz::check(isa::parse_uops(l, again, "again") == u, "micro-op reassembly");
    return 0;
  }
  std::vector<isa::Insn> program;
  try {
    program = isa::parse_program(l, text, "fuzz.s");
  } catch (const UserError&) {
    return 0;
  }
  const std::vector<uint8_t> bin = isa::encode_program(l, program);
  fuzz::check(isa::decode_program(l, bin, "bin") == program, "binary round trip");
  std::string again;
  for (const isa::Insn& x : program) again += isa::format_insn(l, x) + "\n";
  fuzz::check(isa::parse_program(l, again, "again") == program, "text reassembly");
  return 0;
}
