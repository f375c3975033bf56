// Configurations and platforms as data (docs/codesign.md): the JSON format of a configuration
// file (in the spirit of VTA's vta_config.json) and of a platform, read into HwConfig and
// Platform with every field checked, and written back. The shipped configurations and
// platforms are such files (hardware/isa/configs, platforms), compiled into the binary and read
// by the same code as a user's file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "hardware/isa/spec.h"

namespace weft::isa {

/// Reads a configuration object. `where` names its origin in messages ("configuration file
/// my.json"). Throws UserError naming the field for a missing or unknown field, a value of the
/// wrong type, a GEMM dimension that is not a power of two, or an unknown or unsupported
/// combination of options. (Buffer sizes and encoding limits are checked by derive_layout.)
HwConfig config_from_json(const nlohmann::json& j, const std::string& where);
/// Reads a platform object; the same errors for its fields.
Platform platform_from_json(const nlohmann::json& j, const std::string& where);

/// A configuration in the file format (config_from_json reads it back unchanged). A platform
/// in the file format is describe.h's platform_to_json.
nlohmann::ordered_json config_to_json(const HwConfig& c);

/// Whether a --config or --platform value names a file rather than a shipped name: it ends in
/// ".json" or contains a '/'.
bool names_a_file(const std::string& arg);

/// Reads and parses a JSON file; UserError naming the file when it cannot be read or parsed.
nlohmann::json read_json_file(const std::string& path, const std::string& what);

/// The configuration a configuration file describes (`path` names the file in messages).
HwConfig load_config_file(const std::string& path);
/// The platform a file gives: a platform object, or a configuration file's "platform" (a
/// shipped platform's name or a platform object). UserError when the file has neither.
Platform load_platform_file(const std::string& path);

}  // namespace weft::isa
