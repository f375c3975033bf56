// The low level: hardware configurations as data (hardware/isa/config_file.h, describe.h) and
// the instruction assembler and disassembler (hardware/isa/assembly.h, encoding.h), as
// `weft config show`, `weft asm` and `weft disasm` use them. python/weft/isa.py wraps these as
// weft.config, weft.assemble and weft.disassemble.
#include <pybind11/stl.h>

#include "hardware/isa/assembly.h"
#include "hardware/isa/config_file.h"
#include "hardware/isa/describe.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"

namespace weft::py_bind {

namespace {

py::bytes assemble(const std::string& text, const std::string& config, bool uops) {
  const isa::Layout& l = isa::layout_for(config);
  if (const size_t nul = text.find('\0'); nul != std::string::npos)
    throw UserError("assemble: the text holds a NUL byte at offset " + std::to_string(nul) +
                    "; it takes assembly text (weft.disassemble lists a binary program)");
  std::vector<uint8_t> bytes;
  if (uops) {
    const std::vector<isa::Uop> program = isa::parse_uops(l, text, "assemble");
    bytes.resize(program.size() * isa::kUopBytes);
    for (size_t i = 0; i < program.size(); ++i)
      isa::encode_uop(l, program[i], bytes.data() + i * isa::kUopBytes,
                      "micro-op " + std::to_string(i));
  } else {
    bytes = isa::encode_program(l, isa::parse_program(l, text, "assemble"));
  }
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string disassemble(const py::bytes& data, const std::string& config, bool uops, bool json) {
  const isa::Layout& l = isa::layout_for(config);
  const std::string bytes = data;
  const size_t unit = uops ? isa::kUopBytes : isa::kInsnBytes;
  if (bytes.size() % unit != 0)
    throw UserError("disassemble: " + std::to_string(bytes.size()) + " bytes are not a whole "
                    "number of " + std::to_string(unit) + "-byte " +
                    (uops ? "micro-ops" : "instructions"));
  std::string out;
  for (size_t i = 0; i * unit < bytes.size(); ++i) {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data()) + i * unit;
    if (uops) {
      const isa::Uop u = isa::decode_uop(l, p);
      out += json ? nlohmann::ordered_json{{"dst", u.dst}, {"src", u.src}, {"wgt", u.wgt}}.dump()
                  : std::to_string(i) + ": " + isa::format_uop(u);
    } else {
      const isa::Insn insn = isa::decode_insn(l, p, "disassemble: instruction " + std::to_string(i));
      out += json ? isa::insn_to_json(l, insn).dump()
                  : std::to_string(i) + ": " + isa::format_insn(l, insn);
    }
    out += "\n";
  }
  return out;
}

}  // namespace

void bind_isa(py::module_& m) {
  m.def("assemble", &assemble, py::arg("text"), py::arg("config"), py::arg("uops"),
        "Assembly text (or JSON lines) -> instruction bytes, as `weft asm`.");
  m.def("disassemble", &disassemble, py::arg("data"), py::arg("config"), py::arg("uops"),
        py::arg("json"), "Instruction bytes -> the listing `weft disasm` prints.");
  m.def("config_fields",
        [](const std::string& config) {
          return to_python(isa::config_to_json(isa::layout_for(config).config));
        },
        py::arg("config"), "A configuration's fields in the file format (a dict).");
  m.def("config_layout",
        [](const std::string& config) { return to_python(isa::layout_to_json(isa::layout_for(config))); },
        py::arg("config"), "The derived layout, as `weft config show --json` prints it.");
  m.def("config_text",
        [](const std::string& config) { return isa::layout_to_text(isa::layout_for(config)); },
        py::arg("config"), "The derived layout, as `weft config show` prints it.");
  m.def("shipped_configs", [] {
    std::vector<std::string> names;
    for (const auto& c : isa::shipped_configs()) names.push_back(c.name);
    return names;
  }, "The names of the shipped configurations.");
}

}  // namespace weft::py_bind
