// Hands out a list of candidates to parallel workers in order, never more than can still be
// needed: candidate j is handed out only while the valid ones already known plus those in
// flight are fewer than `want`. So exactly the shortest prefix holding `want` valid candidates
// is compiled (the whole list when it holds fewer), whatever the number of workers and
// whichever finishes first: the same work and the same records as compiling one at a time.
// Used by the thread pool (Runner::prepare) and by the MPI runner; not thread-safe itself.
#pragma once

#include <cstddef>

namespace weft::rt::tune {

class PrefixDispatch {
 public:
  PrefixDispatch(size_t n, size_t want) : n_(n), want_(want) {}
  /// The next candidate to hand out, if one may be now.
  bool next(size_t* j) {
    if (next_ >= n_ || valid_ + in_flight_ >= want_) return false;
    *j = next_++;
    ++in_flight_;
    return true;
  }
  /// One handed out came back, valid or not.
  void done(bool valid) {
    --in_flight_;
    if (valid) ++valid_;
  }
  /// Nothing in flight and nothing more will be handed out.
  bool finished() const { return in_flight_ == 0 && (next_ >= n_ || valid_ >= want_); }
  /// How many are in flight.
  size_t in_flight() const { return in_flight_; }
  /// How many may still be handed out now (0 when waiting for those in flight).
  size_t ready() const {
    if (next_ >= n_ || valid_ + in_flight_ >= want_) return 0;
    const size_t by_want = want_ - valid_ - in_flight_, by_list = n_ - next_;
    return by_want < by_list ? by_want : by_list;
  }
  /// The prefix handed out so far.
  size_t handed() const { return next_; }

 private:
  size_t n_, want_, next_ = 0, valid_ = 0, in_flight_ = 0;
};

}  // namespace weft::rt::tune
