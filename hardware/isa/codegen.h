// Renders the generated artefacts of the hardware spec: one C++ header with every shipped
// configuration and platform as constexpr constants, and one SystemVerilog package per
// configuration (package `weft_pkg`, so the RTL picks a configuration by file). The files are
// committed under hardware/isa/generated/ and a test fails when they are stale.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hardware/isa/layout.h"

namespace weft::isa {

/// (file name, contents) of every generated file, in a fixed order.
std::vector<std::pair<std::string, std::string>> generated_files();

/// The SystemVerilog package `weft_pkg` of any configuration (what `weft rtl build` and
/// scripts/synth/synth.sh build the RTL of a configuration file with).
std::string sv_package(const Layout& l);

}  // namespace weft::isa
