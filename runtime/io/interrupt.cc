// Ctrl-C handling; see interrupt.h. The handler only reads and writes lock-free atomics and
// calls write(2) and _exit(2), which are async-signal-safe.
#include "runtime/io/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace weft::rt {

namespace {

std::atomic<int> guards{0};
std::atomic<bool> pending{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

[[noreturn]] void stop_now() {
  static const char msg[] =
      "\nweft: interrupted; stopped before writing any output (exit code 130)\n";
  ssize_t ignored = ::write(2, msg, sizeof msg - 1);
  (void)ignored;
  ::_exit(130);
}

void on_signal(int) {
  pending.store(true);
  if (guards.load() == 0) stop_now();
}

}  // namespace

void install_interrupt_handler() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

OutputGuard::OutputGuard() { guards.fetch_add(1); }

OutputGuard::~OutputGuard() {
  if (guards.fetch_sub(1) == 1 && pending.load()) stop_now();
}

}  // namespace weft::rt
