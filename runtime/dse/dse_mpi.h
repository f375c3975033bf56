// A sweep over MPI ranks: `mpirun -np N weft dse ...`. Every rank reads the same sweep; rank 0
// checks the results database and groups the points (run_dse), then hands the groups out one
// at a time as each finishes, to its own measuring threads (--jobs of them) and to ranks
// 1..N-1, so that slow points (a large network, yosys) balance. A worker rank measures the
// points it is sent (measure_group) and sends their records back. Only rank 0 writes: the
// database, progress and the outputs. With -np 1 it is the thread pool alone.
#pragma once

#include <vector>

#include "runtime/dse/dse_run.h"
#include "runtime/tune/mpi_runner.h"

namespace weft::rt::dse {

/// Rank 0's GroupRunner: its threads and the worker ranks. `points` and `o` must outlive it.
GroupRunner mpi_group_runner(tune::MpiSession& s, const std::vector<PointSpec>& points,
                             const DseOptions& o);

/// A worker rank (1..N-1): measures the groups rank 0 sends until it says stop.
void dse_mpi_worker(tune::MpiSession& s, const std::vector<PointSpec>& points,
                    const DseOptions& o);

}  // namespace weft::rt::dse
