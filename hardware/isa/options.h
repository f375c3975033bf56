// The opt-in hardware options of a configuration (the "options" object of a configuration
// file, docs/codesign.md): each is off unless a configuration turns it on, and `vta` turns
// none on (it stays bit-compatible with VTA's ISA). An option reaches every layer through the
// one spec: the simulators and the compiler test `config.options.has(HwOption::kX)`, and the
// generated SystemVerilog package carries it as `OPT_X`.
//
// Adding one: a member of HwOption before kCount, a row in hardware_options() (options.cc)
// with its name, what it does and the options it cannot be combined with, and its behaviour in
// the RTL, both simulators and the compiler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::isa {

/// The hardware options, by identity (never by string outside options.cc).
enum class HwOption : int {
  // STORE narrows as clamp(acc >> shift, lo, hi) from fields in its pad bits
  // (store_requant.h): the epilogue's shift and clip leave the compute module.
  kStoreRequant,
  kCount  // the number of options
};

/// The options a configuration turns on.
class HwOptions {
 public:
  bool has(HwOption o) const { return (bits_ >> static_cast<int>(o)) & 1; }
  void set(HwOption o) { bits_ |= uint64_t{1} << static_cast<int>(o); }
  bool empty() const { return bits_ == 0; }
  bool operator==(const HwOptions& o) const { return bits_ == o.bits_; }
  bool operator!=(const HwOptions& o) const { return bits_ != o.bits_; }

 private:
  uint64_t bits_ = 0;
};

/// One option as a configuration file names it.
struct OptionSpec {
  HwOption id;
  std::string name;                // the key in "options"
  std::string doc;                 // what it changes, in one line
  std::vector<HwOption> excludes;  // options it cannot be combined with
};

/// Every option this build knows.
const std::vector<OptionSpec>& hardware_options();

/// One entry of a configuration file's "options" object.
struct OptionValue {
  std::string name;
  bool on;
};

/// Turns the entries that are on into HwOptions, checked against `known`: an unknown name or
/// a combination `known` excludes is a UserError naming the options and `where`.
HwOptions parse_options(const std::vector<OptionValue>& values, const std::vector<OptionSpec>& known,
                        const std::string& where);

/// The names of the options turned on, in the order of `known`.
std::vector<std::string> option_names(const HwOptions& options,
                                      const std::vector<OptionSpec>& known = hardware_options());

}  // namespace weft::isa
