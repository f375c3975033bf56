// Fuzz target: the instruction decoder and the disassembler. The first byte picks the
// configuration; the rest is cut into 16-byte instructions and 4-byte micro-ops. Every
// instruction that decodes must print (text and JSON) and parse back to itself, and encode
// to bytes that decode to itself; a UserError from the decoder is the expected rejection.
#include <cstdint>
#include <cstring>

#include "fuzz/fuzz_common.h"
#include "hardware/isa/assembly.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"

using namespace weft;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const isa::Layout& l = fuzz::layout_of(data[0]);
  ++data;
  --size;
  for (size_t at = 0; at + isa::kInsnBytes <= size; at += isa::kInsnBytes) {
    isa::Insn insn;
    try {
      insn = isa::decode_insn(l, data + at, "fuzz");
    } catch (const UserError&) {
      continue;
    }
    const std::string text = isa::format_insn(l, insn);
    fuzz::check(isa::parse_insn(l, text, "text") == insn, "text round trip: " + text);
    const auto j = isa::insn_to_json(l, insn);
    fuzz::check(isa::insn_from_json(l, nlohmann::json::parse(j.dump()), "json") == insn,
                "JSON round trip: " + j.dump());
    uint8_t out[isa::kInsnBytes];
    isa::encode_insn(l, insn, out, "re-encode");
    fuzz::check(isa::decode_insn(l, out, "re-decode") == insn, "binary round trip: " + text);
  }
  for (size_t at = 0; at + isa::kUopBytes <= size; at += isa::kUopBytes) {
    const isa::Uop u = isa::decode_uop(l, data + at);
    const std::string text = isa::format_uop(u);
    const auto back = isa::parse_uops(l, text, "uop");
    fuzz::check(back.size() == 1 && back[0] == u, "micro-op round trip: " + text);
    uint8_t out[isa::kUopBytes];
    isa::encode_uop(l, u, out, "uop");
    fuzz::check(isa::decode_uop(l, out) == u, "micro-op binary round trip: " + text);
  }
  return 0;
}
