// Text and JSON-lines assembly; see assembly.h and docs/isa.md for the grammar.
#include "hardware/isa/assembly.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <set>
#include <sstream>

#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/json_text.h"
#include "hardware/isa/store_requant.h"

namespace weft::isa {

namespace {

bool is_flag(const Field& f) { return f.width == 1 && !f.is_signed; }

// Fields that the mnemonic already says: not printed as key=value.
bool in_mnemonic(const Field& f) {
  return f.name == "opcode" || f.name == "memory_type" || f.name == "alu_opcode";
}

// Fields a listing always shows; the others (pads, loop factors, imm) only when non-zero.
bool always_shown(const Field& f) {
  static const char* const kShown[] = {"sram_base", "dram_base", "y_size",   "x_size", "x_stride",
                                       "uop_bgn",   "uop_end",   "iter_out", "iter_in"};
  for (const char* n : kShown) {
    if (f.name == n) return true;
  }
  return false;
}

const Format& format_or_throw(const Layout& l, int64_t opcode, const std::string& where) {
  const Format* fmt = l.format_of(opcode);
  if (fmt == nullptr) {
    throw UserError(where + ": unknown opcode " + std::to_string(opcode) +
                    " (known: LOAD, STORE, GEMM, FINISH, ALU)");
  }
  return *fmt;
}

std::string field_list(const Format& fmt) {
  std::string s;
  for (const Field& f : fmt.fields) {
    if (in_mnemonic(f)) continue;
    s += (s.empty() ? "" : ", ") + f.name;
  }
  return s;
}

// Checks every field of the instruction's format against its width by encoding it.
void check_encodable(const Layout& l, const Insn& insn, const std::string& where) {
  uint8_t scratch[kInsnBytes];
  encode_insn(l, insn, scratch, where);
}

// The encoder's message for a value outside a field's range, for values that do not even fit
// an int64 (`value` is the text as given).
[[noreturn]] void throw_out_of_range(const std::string& where, const std::string& kind,
                                     const Field& f, const std::string& value) {
  throw UserError(where + ": " + kind + " field '" + f.name + "' = " + value +
                  " does not fit its " + std::to_string(f.width) + " bits (range " +
                  std::to_string(f.min_value()) + ".." + std::to_string(f.max_value()) + ")");
}

// A field value: decimal, or hex after 0x/0X (a leading 0 is not octal), with a leading '-'
// only for signed fields. The range of the field itself is checked by the encoder.
int64_t parse_int(const std::string& text, const std::string& where, const std::string& kind,
                  const Field& f) {
  const bool negative = !text.empty() && text[0] == '-';
  const char* begin = text.data() + (negative ? 1 : 0);
  const char* end = text.data() + text.size();
  const bool hex = end - begin > 2 && begin[0] == '0' && (begin[1] == 'x' || begin[1] == 'X');
  if (hex) begin += 2;
  uint64_t magnitude = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, magnitude, hex ? 16 : 10);
  if (begin == end || ptr != end || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    throw UserError(where + ": field '" + f.name + "' has value '" + text +
                    "', which is not an integer (decimal or 0x hex)");
  }
  const uint64_t limit = negative ? uint64_t{1} << 63 : static_cast<uint64_t>(INT64_MAX);
  if (ec == std::errc::result_out_of_range || magnitude > limit || (negative && !f.is_signed)) {
    throw_out_of_range(where, kind, f, text);
  }
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

// A JSON integer as an int64; unsigned values above INT64_MAX get the field's range message.
int64_t json_int(const nlohmann::json& v, const std::string& where, const std::string& kind,
                 const Field& f) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    throw_out_of_range(where, kind, f, v.dump());
  }
  return v.get<int64_t>();
}

// A JSON line without a trailing "# comment" after the brace that closes its object. A '#'
// inside a string is kept; a line whose object never closes, or with anything but a comment
// after it, is returned whole for the JSON parser to report.
std::string strip_json_comment(const std::string& line) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      const size_t rest = line.find_first_not_of(" \t\r", i + 1);
      return rest != std::string::npos && line[rest] == '#' ? line.substr(0, i + 1) : line;
    }
  }
  return line;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string format_insn(const Layout& l, const Insn& insn) {
  const Format& fmt = format_or_throw(l, insn.opcode, "format_insn");
  std::ostringstream os;
  os << opcode_name(insn.opcode);
  if (&fmt == &l.mem) os << ' ' << mem_type_name(insn.memory_type);
  if (&fmt == &l.alu) os << ' ' << alu_op_name(insn.alu_opcode);
  for (const Field& f : fmt.fields) {
    if (in_mnemonic(f)) continue;
    const int64_t v = get(insn, f);
    if (is_flag(f)) {
      if (v != 0) os << ' ' << f.name;
    } else if (v != 0 || always_shown(f) || (f.name == "imm" && insn.use_imm != 0)) {
      os << ' ' << f.name << '=' << v;
    }
  }
  // With the store_requant option a STORE's pad fields are its requantization: say what they
  // mean (a comment, so the listing still assembles).
  if (insn.opcode == static_cast<int64_t>(Opcode::kStore)) {
    const StoreRequant rq = store_requant_of(l, insn);
    if (rq.on)
      os << "  # requant: clamp(acc >> " << rq.shift << ", " << rq.lo << ", " << rq.hi << ")";
  }
  return os.str();
}

nlohmann::ordered_json insn_to_json(const Layout& l, const Insn& insn) {
  const Format& fmt = format_or_throw(l, insn.opcode, "insn_to_json");
  nlohmann::ordered_json j;
  for (const Field& f : fmt.fields) {
    const int64_t v = get(insn, f);
    if (f.name == "opcode") {
      j[f.name] = opcode_name(v);
    } else if (f.name == "memory_type") {
      j[f.name] = mem_type_name(v);
    } else if (f.name == "alu_opcode") {
      j[f.name] = alu_op_name(v);
    } else {
      j[f.name] = v;
    }
  }
  return j;
}

Insn insn_from_json(const Layout& l, const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw UserError(where + ": expected a JSON object");
  auto enum_value = [&](const char* key, std::optional<int64_t> (*from_name)(const std::string&),
                        const char* what) -> int64_t {
    const auto& v = j.at(key);
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      throw UserError(where + ": unknown " + what + " " + v.dump());
    }
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_string()) {
      if (auto x = from_name(v.get<std::string>())) return *x;
      throw UserError(where + ": unknown " + what + " \"" + v.get<std::string>() + "\"");
    }
    throw UserError(where + ": field '" + key + "' must be a name or an integer");
  };
  if (!j.contains("opcode")) throw UserError(where + ": missing field 'opcode'");
  Insn insn;
  insn.opcode = enum_value("opcode", opcode_from_name, "opcode");
  const Format& fmt = format_or_throw(l, insn.opcode, where);
  for (auto it = j.begin(); it != j.end(); ++it) {
    const Field* f = fmt.find(it.key());
    if (f == nullptr) {
      throw UserError(where + ": unknown field '" + it.key() + "' for " + fmt.name +
                      " (fields: " + field_list(fmt) + ")");
    }
    if (f->name == "opcode") continue;
    if (f->name == "memory_type") {
      insn.memory_type = enum_value("memory_type", mem_type_from_name, "memory type");
    } else if (f->name == "alu_opcode") {
      insn.alu_opcode = enum_value("alu_opcode", alu_op_from_name, "ALU opcode");
    } else if (it.value().is_number_integer()) {
      insn.*(f->insn_member) = json_int(it.value(), where, fmt.name, *f);
    } else if (it.value().is_boolean() && is_flag(*f)) {
      insn.*(f->insn_member) = it.value().get<bool>() ? 1 : 0;
    } else {
      throw UserError(where + ": field '" + f->name + "' must be an integer");
    }
  }
  if (&fmt == &l.mem && !j.contains("memory_type")) {
    throw UserError(where + ": " + opcode_name(insn.opcode) + " needs field 'memory_type'");
  }
  if (&fmt == &l.alu && !j.contains("alu_opcode")) {
    throw UserError(where + ": ALU needs field 'alu_opcode'");
  }
  if (&fmt == &l.mem && mem_type_name(insn.memory_type) == nullptr) {
    throw UserError(where + ": unknown memory type " + std::to_string(insn.memory_type));
  }
  if (&fmt == &l.alu && alu_op_name(insn.alu_opcode) == nullptr) {
    throw UserError(where + ": unknown ALU opcode " + std::to_string(insn.alu_opcode));
  }
  check_encodable(l, insn, where);
  return insn;
}

Insn parse_insn(const Layout& l, const std::string& line, const std::string& where) {
  std::istringstream is(line);
  std::vector<std::string> words;
  for (std::string w; is >> w;) words.push_back(w);
  // A disassembly listing starts lines with "N:"; accept and ignore it.
  if (!words.empty() && words[0].size() > 1 && words[0].back() == ':' &&
      words[0].find_first_not_of("0123456789") == words[0].size() - 1) {
    words.erase(words.begin());
  }
  if (words.empty()) throw UserError(where + ": empty instruction");

  Insn insn;
  const auto opcode = opcode_from_name(words[0]);
  if (!opcode) {
    throw UserError(where + ": unknown mnemonic '" + words[0] +
                    "' (known: LOAD, STORE, GEMM, ALU, FINISH)");
  }
  insn.opcode = *opcode;
  const Format& fmt = format_or_throw(l, insn.opcode, where);
  size_t next = 1;
  if (&fmt == &l.mem) {
    if (words.size() < 2 || !mem_type_from_name(words[1])) {
      throw UserError(where + ": " + upper(words[0]) +
                      " needs a memory type after the mnemonic (UOP, WGT, INP, ACC, OUT, "
                      "ACC_8BIT)" +
                      (words.size() < 2 ? "" : ", got '" + words[1] + "'"));
    }
    insn.memory_type = *mem_type_from_name(words[1]);
    next = 2;
  } else if (&fmt == &l.alu) {
    if (words.size() < 2 || !alu_op_from_name(words[1])) {
      throw UserError(where +
                      ": ALU needs an operation after the mnemonic (MIN, MAX, ADD, SHR, "
                      "MUL)" +
                      (words.size() < 2 ? "" : ", got '" + words[1] + "'"));
    }
    insn.alu_opcode = *alu_op_from_name(words[1]);
    next = 2;
  }
  std::set<std::string> seen;
  for (size_t i = next; i < words.size(); ++i) {
    const std::string& w = words[i];
    const size_t eq = w.find('=');
    const std::string key = w.substr(0, eq);
    const Field* f = fmt.find(key);
    if (f == nullptr || in_mnemonic(*f)) {
      throw UserError(where + ": unknown field '" + key + "' for " + fmt.name +
                      " (fields: " + field_list(fmt) + ")");
    }
    if (!seen.insert(f->name).second) throw UserError(where + ": field '" + key + "' given twice");
    if (eq == std::string::npos) {
      if (!is_flag(*f)) {
        throw UserError(where + ": field '" + key + "' needs a value (" + key + "=N)");
      }
      insn.*(f->insn_member) = 1;
    } else {
      insn.*(f->insn_member) = parse_int(w.substr(eq + 1), where, fmt.name, *f);
    }
  }
  check_encodable(l, insn, where);
  return insn;
}

std::vector<Insn> parse_program(const Layout& l, const std::string& text,
                                const std::string& source_name) {
  std::vector<Insn> program;
  std::istringstream is(text);
  int line_no = 0;
  for (std::string line; std::getline(is, line);) {
    ++line_no;
    const std::string where = source_name + ":" + std::to_string(line_no);
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    if (line[first] == '{') {
      program.push_back(
          insn_from_json(l, parse_json_text(strip_json_comment(line.substr(first)), where), where));
      continue;
    }
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    program.push_back(parse_insn(l, line, where));
  }
  return program;
}

std::string format_uop(const Uop& uop) {
  return "UOP dst=" + std::to_string(uop.dst) + " src=" + std::to_string(uop.src) +
         " wgt=" + std::to_string(uop.wgt);
}

std::vector<Uop> parse_uops(const Layout& l, const std::string& text,
                            const std::string& source_name) {
  std::vector<Uop> uops;
  std::istringstream is(text);
  int line_no = 0;
  for (std::string line; std::getline(is, line);) {
    ++line_no;
    const std::string where = source_name + ":" + std::to_string(line_no);
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream ws(line);
    std::vector<std::string> words;
    for (std::string w; ws >> w;) words.push_back(w);
    if (words.empty()) continue;
    if (upper(words[0]) != "UOP") {
      throw UserError(where + ": expected a micro-op line 'UOP dst=N src=N wgt=N', got '" +
                      words[0] + "'");
    }
    Uop uop;
    std::set<std::string> seen;
    for (size_t i = 1; i < words.size(); ++i) {
      const size_t eq = words[i].find('=');
      const std::string key = words[i].substr(0, eq);
      const Field* f = l.uop.find(key);
      if (f == nullptr || eq == std::string::npos) {
        throw UserError(where + ": expected dst=N, src=N or wgt=N, got '" + words[i] + "'");
      }
      if (!seen.insert(key).second) throw UserError(where + ": field '" + key + "' given twice");
      uop.*(f->uop_member) = parse_int(words[i].substr(eq + 1), where, l.uop.name, *f);
    }
    uint8_t scratch[kUopBytes];
    encode_uop(l, uop, scratch, where);
    uops.push_back(uop);
  }
  return uops;
}

}  // namespace weft::isa
