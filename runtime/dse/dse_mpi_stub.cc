// A sweep over MPI ranks in a build without MPI: never reached (MpiSession is never active, and
// a multi-rank launch is refused when it is made).
#include "hardware/isa/errors.h"
#include "runtime/dse/dse_mpi.h"

namespace weft::rt::dse {

GroupRunner mpi_group_runner(tune::MpiSession&, const std::vector<PointSpec>&,
                             const DseOptions&) {
  throw InternalError("mpi_group_runner in a build without MPI");
}

void dse_mpi_worker(tune::MpiSession&, const std::vector<PointSpec>&, const DseOptions&) {
  throw InternalError("dse_mpi_worker in a build without MPI");
}

}  // namespace weft::rt::dse
