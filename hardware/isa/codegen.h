// Renders the generated artefacts of the hardware spec: one C++ header with every shipped
// configuration and platform as constexpr constants, and one SystemVerilog package per
// configuration (package `weft_pkg`, so the RTL picks a configuration by file). The files are
// committed under hardware/isa/generated/ and a test fails when they are stale.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace weft::isa {

/// (file name, contents) of every generated file, in a fixed order.
std::vector<std::pair<std::string, std::string>> generated_files();

}  // namespace weft::isa
