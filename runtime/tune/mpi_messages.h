// Text messages between MPI ranks, shared by the tuner's MPI runner (mpi_runner.cc) and the
// design-space explorer's (runtime/dse/dse_mpi.cc): sends that never block, receiving a
// probed message as text, a worker rank's wait for rank 0 that never spins, and the one tag
// that tells a worker rank to leave (MpiSession::stop_workers sends it). Only built with MPI.
#pragma once

#include <mpi.h>

#include <list>
#include <memory>
#include <string>
#include <utility>

namespace weft::rt::tune {

/// The tag of "leave your loop", sent by rank 0 to every worker rank; other tags are the
/// protocol's own (each protocol numbers its tags below it).
constexpr int kStopTag = 6;

/// Messages sent without blocking. A blocking MPI_Send does not return until the receiver
/// takes the message (OpenMPI's shared-memory transport hands the buffer back only then), so a
/// coordinator queueing the next piece of work for a busy worker would wait for that worker's
/// current one. Each text stays here until its send completes; reap() is called while polling.
class Outbox {
 public:
  Outbox() = default;
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;
  ~Outbox() { flush(); }
  void send(std::string text, int to, int tag);
  /// Drops the messages whose sends completed.
  void reap();
  /// Waits until every message was taken (the receivers must still be listening).
  void flush();

 private:
  std::list<std::pair<MPI_Request, std::unique_ptr<std::string>>> pending_;
};

/// Receives the message `st` describes (from MPI_Iprobe) as text.
std::string recv_text(const MPI_Status& st);

/// A worker rank: waits for rank 0's next message, sleeping longer the longer it stays quiet
/// (OpenMPI's blocking receive busy-waits, taking the CPU from the ranks that measure), and
/// reaping `outbox` meanwhile. Returns its status, to be received with recv_text.
MPI_Status wait_for_coordinator(Outbox& outbox);

}  // namespace weft::rt::tune
