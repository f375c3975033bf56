// The table of hardware options and the checks of a configuration's "options"; see options.h.
#include "hardware/isa/options.h"

#include "hardware/isa/errors.h"

namespace weft::isa {

const std::vector<OptionSpec>& hardware_options() {
  static const std::vector<OptionSpec> options = {
      {HwOption::kStoreRequant, "store_requant",
       "STORE requantizes (arithmetic shift right, clamp to int8) from fields in its pad bits, "
       "so the epilogue's shift and clip take no compute-module cycles",
       {}},
  };
  return options;
}

namespace {

const OptionSpec* find_option(const std::vector<OptionSpec>& known, const std::string& name) {
  for (const OptionSpec& s : known) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const OptionSpec& spec_of(const std::vector<OptionSpec>& known, HwOption id) {
  for (const OptionSpec& s : known) {
    if (s.id == id) return s;
  }
  throw InternalError("hardware option " + std::to_string(static_cast<int>(id)) +
                      " has no row in its table");
}

}  // namespace

HwOptions parse_options(const std::vector<OptionValue>& values,
                        const std::vector<OptionSpec>& known, const std::string& where) {
  HwOptions out;
  for (const OptionValue& v : values) {
    const OptionSpec* s = find_option(known, v.name);
    if (s == nullptr) {
      std::string names;
      for (const OptionSpec& k : known) names += (names.empty() ? "" : ", ") + k.name;
      throw UserError(where + ": unknown hardware option '" + v.name + "' (" +
                      (names.empty() ? std::string("this build defines no options")
                                     : "known: " + names) +
                      ")");
    }
    if (v.on) out.set(s->id);
  }
  for (const OptionSpec& s : known) {
    if (!out.has(s.id)) continue;
    for (HwOption other : s.excludes) {
      if (out.has(other)) {
        throw UserError(where + ": hardware options '" + s.name + "' and '" +
                        spec_of(known, other).name + "' cannot be combined");
      }
    }
  }
  return out;
}

std::vector<std::string> option_names(const HwOptions& options,
                                      const std::vector<OptionSpec>& known) {
  std::vector<std::string> names;
  for (const OptionSpec& s : known) {
    if (options.has(s.id)) names.push_back(s.name);
  }
  return names;
}

}  // namespace weft::isa
