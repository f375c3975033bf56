// Distribution over MPI: `mpirun -np N weft tune ...` runs the same command on N ranks; each
// builds the same tasks. Rank 0 searches (samples, ranks, records) on its main thread and
// measures on a second thread; ranks 1..N-1 measure. So every rank measures, `-np 1` is a
// valid run and `-np 2` has two measuring ranks. The coordinator sends a candidate as (task
// index, trace JSON, early-stop threshold); a worker replays the trace in its own copy of the
// space, compiles, measures and sends the result back (runtime/tune/candidate_worker.h).
// Results are kept in candidate order, so the search (and its best) is the same at any rank
// count. In a build without MPI, MpiSession is inactive, and a run started by mpirun with more
// than one rank is refused (each rank would otherwise tune alone and race on the database).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/tune/search.h"

namespace weft::rt::tune {

/// MPI_Init/MPI_Finalize when the process was started by mpirun; inactive otherwise.
class MpiSession {
 public:
  /// `command` and `threads_option` name the verb and its thread-pool option in the error of a
  /// multi-rank launch of a build without MPI.
  MpiSession(const std::string& command, const std::string& threads_option);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  /// Started by mpirun in a build with MPI (one rank or more).
  bool active() const { return initialized_; }
  bool coordinator() const { return rank_ == 0; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Rank 0: tells every worker rank to leave its loop (once; also done on destruction).
  void stop_workers();

 private:
  int rank_ = 0, size_ = 1;
  bool initialized_ = false, stopped_ = false;
};

/// True when this build has MPI.
bool mpi_available();
/// A worker rank's loop (ranks 1..N-1): measure what the coordinator sends until it says stop.
void mpi_worker_loop(MpiSession& s, const std::vector<Task>& tasks);
/// The coordinator's Runner: its own measuring thread and the worker ranks (workers() = N).
std::unique_ptr<Runner> make_mpi_runner(MpiSession& s, const std::vector<Task>& tasks);
/// Tells every worker rank to leave its loop.
void mpi_stop_workers(MpiSession& s);

}  // namespace weft::rt::tune
