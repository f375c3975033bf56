// Ctrl-C (SIGINT) and SIGTERM for the `weft` command: the first one stops the process at once
// with exit code 130 and a one-line message on stderr. Nothing the command writes can be left
// half-done: output files are staged and renamed by OutputSet, which holds a stop off (an
// OutputGuard) from the first staged file until the set is committed or discarded, and then
// stops. Threads (a simulator's worker, the CPU thread pool) end with the process.
#pragma once

namespace weft::rt {

/// Installs the handlers (once per process).
void install_interrupt_handler();

/// While one of these lives, a Ctrl-C is remembered instead of acted on; when the last one
/// ends, a remembered Ctrl-C stops the process. Nestable and usable from any thread.
class OutputGuard {
 public:
  OutputGuard();
  ~OutputGuard();
  OutputGuard(const OutputGuard&) = delete;
  OutputGuard& operator=(const OutputGuard&) = delete;
};

}  // namespace weft::rt
