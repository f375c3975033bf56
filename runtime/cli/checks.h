// Checks every verb makes on its command line before it starts any work (a compile, a run, a
// search): options that do not go together or that the chosen target would ignore, engines and
// numbers out of range, and input and output paths (runtime/io/files.h), so that a mistake costs
// a message, not minutes of work followed by an error.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace weft::cli {

/// The names of `names` that were given on `cmd`'s command line (each option once, by the name
/// listed here).
std::vector<std::string> given(const CLI::App& cmd, const std::vector<std::string>& names);

/// UserError "OPT ... REASON" when any of `names` was given on `cmd`'s command line: for options
/// that the chosen mode would ignore (`reason` says why, e.g. "goes with --target accel").
void forbid(const CLI::App& cmd, const std::vector<std::string>& names, const std::string& reason);

/// UserError when `engine` is not one of `allowed` (or of the driver's engines when `allowed` is
/// empty), naming the value and the choices.
void check_engine(const std::string& engine, const std::vector<std::string>& allowed = {});

/// UserError when an option that was given (count > 0) holds a value below `min`: for options
/// whose 0 means "chosen" when left out, so that `--tile-m 0` is not silently "chosen".
void check_at_least(const CLI::App& cmd, const std::string& name, int64_t value, int64_t min);

/// For `weft run|compile dense|conv2d`: UserError for an option the chosen --target ignores
/// (`run dense --target llvm --engine rtl`, `--threads` on the accelerator, ...).
void check_target_options(const CLI::App& cmd, const std::string& target);

/// "a, b or c".
std::string one_of(const std::vector<std::string>& choices);

}  // namespace weft::cli
