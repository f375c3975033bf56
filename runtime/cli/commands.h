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
/// `weft run MODEL.onnx` (runtime/cli/cmd_run_model.cc), registered by add_run_command.
void add_run_model(CLI::App& run);
void add_compile_command(CLI::App& app);
/// `weft compile MODEL.onnx --emit graph` (runtime/cli/cmd_compile_model.cc), registered by
/// add_compile_command.
void add_compile_model(CLI::App& compile);
/// `weft run resnet18` and `weft compile resnet18` (runtime/cli/cmd_run_graph.cc), registered
/// by add_run_command and add_compile_command.
void add_run_resnet18(CLI::App& run);
void add_compile_resnet18(CLI::App& compile);
void add_bench_command(CLI::App& app);
/// `weft xclbin-info FILE` (runtime/cli/cmd_xclbin_info.cc).
void add_xclbin_info_command(CLI::App& app);
/// `weft tune` (runtime/cli/cmd_tune.cc).
void add_tune_command(CLI::App& app);
/// `weft rtl build` (runtime/cli/cmd_rtl.cc).
void add_rtl_command(CLI::App& app);
/// `weft dse` (runtime/cli/cmd_dse.cc).
void add_dse_command(CLI::App& app);

}  // namespace weft::cli
