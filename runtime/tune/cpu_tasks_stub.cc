// The CPU tuning entry points in a build without the CPU schedule spaces: a clear error.
#include "hardware/isa/errors.h"
#include "runtime/tune/cpu_tasks.h"

namespace weft::rt::tune {

bool cpu_tuning_available() { return false; }

Task make_cpu_task(const compiler::tune::Workload& w, const std::string&) {
  throw UserError("tune --target llvm: this build has no CPU (LLVM) schedule space for " +
                  w.op + "; build with the CPU backend and its tuning spaces");
}

}  // namespace weft::rt::tune
