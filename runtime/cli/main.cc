// weft: the command-line front end of the Weft stack. Exit codes: 0 success, 1 bad input of any
// kind (a command line that does not parse, a bad program, file or value; the message says what
// and where), 3 an internal error (a bug: please report it), 130 stopped by Ctrl-C (or SIGTERM).
#include <CLI/CLI.hpp>
#include <iostream>

#include "hardware/isa/errors.h"
#include "runtime/cli/allocation_policy.h"
#include "runtime/cli/commands.h"
#include "runtime/io/interrupt.h"

int main(int argc, char** argv) {
  weft::cli::tune_allocator();
  CLI::App app{
      "weft: tools for the Weft VTA-class accelerator.\n"
      "Assemble and disassemble programs, inspect hardware configurations, build DRAM images,\n"
      "run programs on a simulator, and compile and run operators (weft run dense).\n"
      "See README.md, docs/isa.md and docs/compiler.md."};
  app.name("weft");
  app.require_subcommand(1);
  app.set_version_flag("--version", "weft 0.1.0");
  weft::cli::add_asm_command(app);
  weft::cli::add_disasm_command(app);
  weft::cli::add_config_command(app);
  weft::cli::add_image_command(app);
  weft::cli::add_sim_command(app);
  weft::cli::add_trace_command(app);
  weft::cli::add_run_command(app);
  weft::cli::add_compile_command(app);
  weft::cli::add_bench_command(app);
  weft::cli::add_xclbin_info_command(app);
  weft::cli::add_tune_command(app);
  weft::cli::add_rtl_command(app);
  weft::cli::add_dse_command(app);
  // Ctrl-C stops any verb at once with exit code 130, never in the middle of writing output.
  weft::rt::install_interrupt_handler();
  // A command line that does not parse is bad input like any other (README: exit code 1).
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "weft: error: " + std::string(e.what()) + "\nRun with --help for more information.\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // --help and --version end here too, with 0
    return rc == 0 ? 0 : 1;
  } catch (const weft::UserError& e) {
    std::cerr << "weft: error: " << e.what() << "\n";
    return 1;
  } catch (const weft::InternalError& e) {
    std::cerr << "weft: internal error (please report): " << e.what() << "\n";
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << "weft: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "weft: internal error (please report): " << e.what() << "\n";
    return 3;
  }
  return 0;
}
