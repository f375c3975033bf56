// MPI entry points in a build without MPI: never active; refuses a multi-rank mpirun launch.
#include <cstdlib>
#include <string>

#include "hardware/isa/errors.h"
#include "runtime/tune/mpi_runner.h"

namespace weft::rt::tune {

MpiSession::MpiSession(const std::string& command, const std::string& threads_option) {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char* e = std::getenv(v);
    if (e && std::atoi(e) > 1)
      throw UserError(command + ": started by mpirun with " + std::string(e) +
                      " ranks, but this weft was built without MPI (install libopenmpi-dev and "
                      "reconfigure), so every rank would do the whole work alone; run it "
                      "without mpirun (" + threads_option + " uses threads)");
  }
}
MpiSession::~MpiSession() = default;
bool mpi_available() { return false; }
void mpi_worker_loop(MpiSession&, const std::vector<Task>&) {}
std::unique_ptr<Runner> make_mpi_runner(MpiSession&, const std::vector<Task>&) {
  throw InternalError("make_mpi_runner without MPI");
}
void mpi_stop_workers(MpiSession&) {}
void MpiSession::stop_workers() {}

}  // namespace weft::rt::tune
