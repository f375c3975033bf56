// Machine-readable descriptions of configurations and platforms (`weft config show --json`).
#pragma once

#include <nlohmann/json.hpp>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"

namespace weft::isa {

/// The configuration, its derived depths and element sizes, and every field's position.
nlohmann::ordered_json layout_to_json(const Layout& l);
/// A platform's memory-system parameters.
nlohmann::ordered_json platform_to_json(const Platform& p);
/// A human-readable summary of a layout (what `weft config show` prints without --json).
std::string layout_to_text(const Layout& l);

}  // namespace weft::isa
