// The `weft` command-line verbs. Each add_*_command registers one subcommand with CLI11;
// its callback throws weft::UserError for bad input, which main() turns into exit code 1.
#pragma once

#include <CLI/CLI.hpp>

namespace weft::cli {

void add_asm_command(CLI::App& app);
void add_disasm_command(CLI::App& app);
void add_config_command(CLI::App& app);
void add_image_command(CLI::App& app);
void add_sim_command(CLI::App& app);
void add_trace_command(CLI::App& app);
void add_run_command(CLI::App& app);
/// `weft run conv2d` (runtime/cli/cmd_run_conv2d.cc), registered by add_run_command.
void add_run_conv2d(CLI::App& run);
void add_compile_command(CLI::App& app);
void add_bench_command(CLI::App& app);
/// `weft tune` (runtime/cli/cmd_tune.cc).
void add_tune_command(CLI::App& app);

}  // namespace weft::cli
