// GEMM/ALU issue scheduling; see compute_pipe.h.
#include "simulator/cycle/compute_pipe.h"

#include <algorithm>

#include "hardware/isa/errors.h"
#include "simulator/common/program.h"
#include "simulator/common/program_error.h"

namespace weft::sim::cycle {

ComputePipe::ComputePipe(const isa::Layout& l)
    : l_(l), ready_(static_cast<size_t>(l.acc_depth), 0) {}

namespace {
[[noreturn]] void out_of_range(size_t index, const isa::Insn& insn, int64_t k, int64_t i, int64_t j,
                               const char* field, int64_t value, const char* buffer,
                               int64_t depth) {
  throw uop_index_out_of_range(index, insn, k, i, j, field, value, buffer, depth);
}
}  // namespace

IssueTiming ComputePipe::run(const isa::Insn& insn, size_t index, uint64_t start, Datapath& dp,
                             const std::atomic<bool>* cancel) {
  const bool is_gemm = insn.op() == isa::Opcode::kGemm;
  const bool reset = is_gemm && insn.reset_reg != 0;
  const bool reg_operand = !is_gemm && insn.use_imm == 0;
  const uint64_t ii = reg_operand ? 2 : 1;
  const uint64_t depth =
      static_cast<uint64_t>(is_gemm ? l_.config.gemm_pipeline_depth : l_.config.alu_pipeline_depth);
  const isa::AluOp op = insn.alu();
  const int32_t imm = static_cast<int32_t>(insn.imm);

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
          dp.alu(op, dst, src, !reg_operand, imm);
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
  if (t.iterations == 0) {
    t.issue_end = start;
    t.done = start;
    t.busy = 1;
  } else {
    t.issue_end = next - 1;
    t.done = last_issue + depth - 1;
    t.busy = t.iterations * ii;
  }
  // Completion is in order: an instruction completes (and pushes) no earlier than every
  // write issued before it has landed, even when it has no iterations of its own.
  if (drained_ > 0) t.done = std::max(t.done, drained_ - 1);
  drained_ = std::max(drained_, t.done + 1);
  return t;
}

}  // namespace weft::sim::cycle
