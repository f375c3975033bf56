// Text messages between MPI ranks (see mpi_messages.h).
#include "runtime/tune/mpi_messages.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace weft::rt::tune {

void Outbox::send(std::string text, int to, int tag) {
  auto owned = std::make_unique<std::string>(std::move(text));  // fixed address
  MPI_Request r;
  MPI_Isend(owned->data(), static_cast<int>(owned->size()), MPI_CHAR, to, tag, MPI_COMM_WORLD,
            &r);
  pending_.emplace_back(r, std::move(owned));
}

void Outbox::reap() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    int done = 0;
    MPI_Test(&it->first, &done, MPI_STATUS_IGNORE);
    it = done ? pending_.erase(it) : std::next(it);
  }
}

void Outbox::flush() {
  for (auto& p : pending_) MPI_Wait(&p.first, MPI_STATUS_IGNORE);
  pending_.clear();
}

std::string recv_text(const MPI_Status& st) {
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string s(static_cast<size_t>(n), '\0');
  MPI_Recv(s.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return s;
}

MPI_Status wait_for_coordinator(Outbox& outbox) {
  MPI_Status st;
  for (int flag = 0, us = 20;; us = std::min(us * 2, 1000)) {
    outbox.reap();
    MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (flag) return st;
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  }
}

}  // namespace weft::rt::tune
