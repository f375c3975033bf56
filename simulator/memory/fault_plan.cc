// Parsing of fault plans; see fault_plan.h.
#include "simulator/memory/fault_plan.h"

#include <cstdlib>

#include "hardware/isa/errors.h"

namespace weft::sim {

namespace {

uint64_t parse_number(const std::string& s, const std::string& part) {
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const std::string digits = hex ? s.substr(2) : s;
  if (digits.empty() ||
      digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos ||
      digits.size() > (hex ? 16u : 19u)) {
    throw UserError("fault '" + part + "': '" + s + "' is not a number (decimal or 0x hex)");
  }
  return std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10);
}

AxiFault parse_one(const std::string& part) {
  AxiFault f;
  const size_t colon = part.find(':');
  if (colon == std::string::npos) {
    throw UserError("fault '" + part + "': expected CHANNEL:KIND (e.g. read:slverr@0x1000)");
  }
  const std::string channel = part.substr(0, colon);
  if (channel == "read") {
    f.channel = AxiChannel::kRead;
  } else if (channel == "write") {
    f.channel = AxiChannel::kWrite;
  } else {
    throw UserError("fault '" + part + "': channel '" + channel + "' is not read or write");
  }
  std::string rest = part.substr(colon + 1);
  const size_t hash = rest.find('#');
  if (hash != std::string::npos) {
    f.burst = static_cast<int64_t>(parse_number(rest.substr(hash + 1), part) & INT64_MAX);
    rest = rest.substr(0, hash);
  }
  const size_t at = rest.find('@');
  if (at != std::string::npos) {
    const std::string range = rest.substr(at + 1);
    rest = rest.substr(0, at);
    const size_t dash = range.find('-');
    f.addr_lo = parse_number(range.substr(0, dash), part);
    f.addr_hi = dash == std::string::npos ? f.addr_lo + 1 : parse_number(range.substr(dash + 1), part);
    if (f.addr_hi <= f.addr_lo) throw UserError("fault '" + part + "': empty address range");
  }
  if (rest == "slverr") {
    f.kind = AxiFaultKind::kSlvErr;
  } else if (rest == "decerr") {
    f.kind = AxiFaultKind::kDecErr;
  } else if (rest == "noresp") {
    f.kind = AxiFaultKind::kNoResponse;
  } else {
    throw UserError("fault '" + part + "': kind '" + rest + "' is not slverr, decerr or noresp");
  }
  return f;
}

}  // namespace

FaultPlan parse_fault_plan(const std::string& spec) {
  FaultPlan plan;
  size_t pos = 0;
  while (pos <= spec.size()) {
    const size_t comma = spec.find(',', pos);
    const std::string part = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!part.empty()) plan.faults.push_back(parse_one(part));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (plan.empty()) throw UserError("fault plan '" + spec + "' names no fault");
  return plan;
}

}  // namespace weft::sim
