// GEMM/ALU issue scheduling; see compute_pipe.h. The exactness argument of the GEMM shortcut
// is in docs/microarchitecture.md, "Shortcuts".
#include "simulator/cycle/compute_pipe.h"

#include <algorithm>

#include "hardware/isa/errors.h"
#include "simulator/common/program.h"
#include "simulator/common/program_error.h"

namespace weft::sim::cycle {

ComputePipe::ComputePipe(const isa::Layout& l, bool shortcuts)
    : l_(l), shortcuts_(shortcuts), ready_(static_cast<size_t>(l.acc_depth), 0) {}

namespace {
[[noreturn]] void out_of_range(size_t index, const isa::Insn& insn, int64_t k, int64_t i, int64_t j,
                               const char* field, int64_t value, const char* buffer,
                               int64_t depth) {
  throw uop_index_out_of_range(index, insn, k, i, j, field, value, buffer, depth);
}

// The iteration at position n of an instruction's (i, j, k) loop nest.
struct Iter {
  int64_t i, j, k;
};
Iter iter_at(const isa::Insn& insn, int64_t n) {
  const int64_t uops = insn.uop_end - insn.uop_bgn;
  const int64_t block = n / uops;
  return {block / insn.iter_in, block % insn.iter_in, insn.uop_bgn + n % uops};
}
}  // namespace

IssueTiming ComputePipe::run(const isa::Insn& insn, size_t index, uint64_t start, Datapath& dp,
                             const std::atomic<bool>* cancel) {
  if (shortcuts_ && insn.op() == isa::Opcode::kGemm && insn.iter_out > 0 && insn.iter_in > 0 &&
      insn.uop_end > insn.uop_bgn && indices_in_range(insn, dp)) {
    return run_gemm_fast(insn, start, dp, cancel);
  }
  return run_stepped(insn, index, start, dp, cancel);
}

// Completion is in order: an instruction completes (and pushes) no earlier than every write
// issued before it has landed, even when it has no iterations of its own.
IssueTiming ComputePipe::finish(IssueTiming t) {
  if (drained_ > 0) t.done = std::max(t.done, drained_ - 1);
  drained_ = std::max(drained_, t.done + 1);
  return t;
}

IssueTiming ComputePipe::run_stepped(const isa::Insn& insn, size_t index, uint64_t start,
                                     Datapath& dp, const std::atomic<bool>* cancel) {
  const bool is_gemm = insn.op() == isa::Opcode::kGemm;
  const bool reset = is_gemm && insn.reset_reg != 0;
  const bool reg_operand = !is_gemm && insn.use_imm == 0;
  const uint64_t ii = reg_operand ? 2 : 1;
  const uint64_t depth =
      static_cast<uint64_t>(is_gemm ? l_.config.gemm_pipeline_depth : l_.config.alu_pipeline_depth);

  IssueTiming t;
  uint64_t next = start;  // earliest issue cycle of the next iteration
  uint64_t last_issue = start;
  for (int64_t i = 0; i < insn.iter_out; ++i) {
    for (int64_t j = 0; j < insn.iter_in; ++j) {
      for (int64_t k = insn.uop_bgn; k < insn.uop_end; ++k) {
        if (cancel && (t.iterations & 0xFFFF) == 0xFFFF &&
            cancel->load(std::memory_order_relaxed)) {
          throw RunCancelled();
        }
        const int64_t dst = dp.uop_dst(k) + i * insn.dst_factor_out + j * insn.dst_factor_in;
        const int64_t src = dp.uop_src(k) + i * insn.src_factor_out + j * insn.src_factor_in;
        if (dst >= l_.acc_depth)
          out_of_range(index, insn, k, i, j, "dst", dst, "ACC", l_.acc_depth);
        uint64_t e = next;
        if (is_gemm) {
          if (!reset) {
            const int64_t wgt = dp.uop_wgt(k) + i * insn.wgt_factor_out + j * insn.wgt_factor_in;
            if (src >= l_.inp_depth)
              out_of_range(index, insn, k, i, j, "src", src, "INP", l_.inp_depth);
            if (wgt >= l_.wgt_depth)
              out_of_range(index, insn, k, i, j, "wgt", wgt, "WGT", l_.wgt_depth);
            e = std::max(e, ready_[dst]);
            dp.gemm(dst, src, wgt, false);
          } else {
            dp.gemm(dst, 0, 0, true);
          }
        } else {
          e = std::max(e, ready_[dst]);
          if (reg_operand) {
            if (src >= l_.acc_depth)
              out_of_range(index, insn, k, i, j, "src", src, "ACC", l_.acc_depth);
            e = std::max(e, ready_[src]);
          }
        }
        t.hazard += e - next;
        // Operands are read the cycle after issue; the write lands at e + depth - 1.
        ready_[dst] = e + depth - 1;
        last_issue = e;
        next = e + ii;
        ++t.iterations;
      }
    }
  }
  if (!is_gemm) dp.alu_insn(insn);  // every index was in range
  if (t.iterations == 0) {
    t.issue_end = start;
    t.done = start;
    t.busy = 1;
  } else {
    t.issue_end = next - 1;
    t.done = last_issue + depth - 1;
    t.busy = t.iterations * ii;
  }
  return finish(t);
}

// Every index of the instruction inside its buffer. The loop factors are unsigned fields, so
// an index is largest at i = iter_out - 1, j = iter_in - 1.
bool ComputePipe::indices_in_range(const isa::Insn& insn, const Datapath& dp) const {
  int64_t dst = 0, src = 0, wgt = 0;
  for (int64_t k = insn.uop_bgn; k < insn.uop_end; ++k) {
    dst = std::max<int64_t>(dst, dp.uop_dst(k));
    src = std::max<int64_t>(src, dp.uop_src(k));
    wgt = std::max<int64_t>(wgt, dp.uop_wgt(k));
  }
  const int64_t io = insn.iter_out - 1, ji = insn.iter_in - 1;
  if (dst + io * insn.dst_factor_out + ji * insn.dst_factor_in >= l_.acc_depth) return false;
  if (insn.reset_reg) return true;  // a reset GEMM reads neither INP nor WGT
  return src + io * insn.src_factor_out + ji * insn.src_factor_in < l_.inp_depth &&
         wgt + io * insn.wgt_factor_out + ji * insn.wgt_factor_in < l_.wgt_depth;
}

// Whether no iteration of the instruction writes the accumulator element that one of the
// `window` iterations after it reads (its dst): then, issuing back to back, no iteration can
// wait for a write of the same instruction. Checked on micro-op indices: inside one (i, j)
// block the loop offsets cancel; across consecutive blocks they differ by a constant.
bool ComputePipe::no_hazard_inside(const isa::Insn& insn, const Datapath& dp,
                                   int64_t window) const {
  if (window <= 0) return true;
  const int64_t bgn = insn.uop_bgn, uops = insn.uop_end - insn.uop_bgn;
  for (int64_t q = 1; q < uops; ++q) {
    for (int64_t m = 1; m <= std::min(window, q); ++m) {
      if (dp.uop_dst(bgn + q) == dp.uop_dst(bgn + q - m)) return false;
    }
  }
  if (insn.iter_out * insn.iter_in == 1) return true;
  if (uops < window) return false;  // a pair could span three blocks: let the scoreboard decide
  // Offset of a block's dst indices over the previous block's: next j, or next i from the
  // last j.
  int64_t deltas[2];
  int nd = 0;
  if (insn.iter_in > 1) deltas[nd++] = insn.dst_factor_in;
  if (insn.iter_out > 1)
    deltas[nd++] = insn.dst_factor_out - (insn.iter_in - 1) * insn.dst_factor_in;
  for (int d = 0; d < nd; ++d) {
    for (int64_t q = 0; q < std::min(uops, window); ++q) {
      for (int64_t m = q + 1; m <= window; ++m) {
        const int64_t earlier = bgn + uops - (m - q);  // in the previous block
        if (dp.uop_dst(bgn + q) + deltas[d] == dp.uop_dst(earlier)) return false;
      }
    }
  }
  return true;
}

IssueTiming ComputePipe::run_gemm_fast(const isa::Insn& insn, uint64_t start, Datapath& dp,
                                       const std::atomic<bool>* cancel) {
  const uint64_t depth = static_cast<uint64_t>(l_.config.gemm_pipeline_depth);
  const bool reset = insn.reset_reg != 0;
  const int64_t n_iter = insn.iter_out * insn.iter_in * (insn.uop_end - insn.uop_bgn);
  auto dst_at = [&](int64_t n) {
    const Iter it = iter_at(insn, n);
    return dp.uop_dst(it.k) + it.i * insn.dst_factor_out + it.j * insn.dst_factor_in;
  };
  // An iteration issued at e can only be held by a write issued after e - (P - 1), that is by
  // one of the `window` = P - 2 iterations issued just before it.
  const int64_t window = static_cast<int64_t>(depth) - 2;

  IssueTiming t;
  t.iterations = static_cast<uint64_t>(n_iter);
  t.busy = t.iterations;
  uint64_t next = start;
  if (reset || no_hazard_inside(insn, dp, window)) {
    // Only the first `window` iterations can wait, and only for an earlier instruction's
    // writes; step them through the scoreboard. A reset GEMM reads nothing and never waits.
    const int64_t stepped = reset ? 0 : std::min(n_iter, std::max<int64_t>(window, 0));
    for (int64_t n = 0; n < stepped; ++n) {
      const int64_t dst = dst_at(n);
      const uint64_t e = std::max(next, ready_[dst]);
      t.hazard += e - next;
      ready_[dst] = e + depth - 1;
      next = e + 1;
    }
    // The rest issue one per cycle. Only the last P - 1 iterations' writes can still hold a
    // later issue: record them exactly, in order.
    const uint64_t first_free = next;  // issue cycle of iteration `stepped`
    const int64_t tail = std::max(stepped, n_iter - static_cast<int64_t>(depth - 1));
    for (int64_t n = tail; n < n_iter; ++n) {
      ready_[dst_at(n)] = first_free + static_cast<uint64_t>(n - stepped) + depth - 1;
    }
    next = first_free + static_cast<uint64_t>(n_iter - stepped);
  } else {
    // Micro-ops of this instruction may hold each other up: one pass of the scoreboard,
    // without the data.
    uint64_t count = 0;
    for (int64_t i = 0; i < insn.iter_out; ++i) {
      for (int64_t j = 0; j < insn.iter_in; ++j) {
        const int64_t off = i * insn.dst_factor_out + j * insn.dst_factor_in;
        for (int64_t k = insn.uop_bgn; k < insn.uop_end; ++k) {
          if (cancel && (++count & 0xFFFF) == 0 && cancel->load(std::memory_order_relaxed)) {
            throw RunCancelled();
          }
          const int64_t dst = dp.uop_dst(k) + off;
          const uint64_t e = std::max(next, ready_[dst]);
          t.hazard += e - next;
          ready_[dst] = e + depth - 1;
          next = e + 1;
        }
      }
    }
  }
  t.issue_end = next - 1;
  t.done = next - 1 + depth - 1;
  dp.gemm_insn(insn, cancel);
  return finish(t);
}

}  // namespace weft::sim::cycle
