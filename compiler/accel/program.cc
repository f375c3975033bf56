// Accelerator program helpers; see program.h.
#include "compiler/accel/program.h"

#include <algorithm>

#include "hardware/isa/errors.h"

namespace weft::compiler::accel {

isa::Module module_of(const Op& op) {
  switch (op.kind) {
    case Op::Kind::kLoad:
      return op.mem == isa::MemType::kInp || op.mem == isa::MemType::kWgt ? isa::Module::kLoad
                                                                          : isa::Module::kCompute;
    case Op::Kind::kStore:
      return isa::Module::kStore;
    case Op::Kind::kGemm:
    case Op::Kind::kAlu:
      return isa::Module::kCompute;
    default:
      break;
  }
  throw InternalError("module_of: a dependency op runs on no module");
}

Access accesses(const Op& op) {
  Access a;
  switch (op.kind) {
    case Op::Kind::kLoad:
    case Op::Kind::kStore: {
      const Space sp = op.mem == isa::MemType::kInp   ? Space::kInp
                       : op.mem == isa::MemType::kWgt ? Space::kWgt
                                                      : Space::kAcc;
      auto& list = op.kind == Op::Kind::kLoad ? a.writes : a.reads;
      const int64_t blocks =
          (op.y_pad0 + op.y_size + op.y_pad1) * (op.x_pad0 + op.x_size + op.x_pad1);
      list.reserve(static_cast<size_t>(std::max<int64_t>(blocks, 0)));
      for (int64_t b = 0; b < blocks; ++b) list.push_back({sp, op.sram_base + b});
      break;
    }
    case Op::Kind::kGemm:
    case Op::Kind::kAlu: {
      // Sized up front: a convolution's GEMM runs to hundreds of thousands of micro-op
      // iterations, and three passes ask for its accesses (growing the lists cost more than
      // filling them).
      const size_t iters = static_cast<size_t>(std::max<int64_t>(op.iter_out * op.iter_in, 0)) *
                           op.uops.size();
      a.writes.reserve(iters);
      const bool reads = !(op.kind == Op::Kind::kGemm && op.reset);
      if (reads) a.reads.reserve(iters * (op.kind == Op::Kind::kGemm ? 3 : op.use_imm ? 1 : 2));
      for (int64_t i = 0; i < op.iter_out; ++i) {
        for (int64_t j = 0; j < op.iter_in; ++j) {
          for (const isa::Uop& u : op.uops) {
            const int64_t d = u.dst + i * op.dst_factor_out + j * op.dst_factor_in;
            const int64_t src = u.src + i * op.src_factor_out + j * op.src_factor_in;
            a.writes.push_back({Space::kAcc, d});
            if (op.kind == Op::Kind::kGemm && op.reset) continue;
            a.reads.push_back({Space::kAcc, d});
            if (op.kind == Op::Kind::kAlu) {
              if (!op.use_imm) a.reads.push_back({Space::kAcc, src});
              continue;
            }
            a.reads.push_back({Space::kInp, src});
            a.reads.push_back(
                {Space::kWgt, u.wgt + i * op.wgt_factor_out + j * op.wgt_factor_in});
          }
        }
      }
      break;
    }
    default:
      break;
  }
  return a;
}

std::vector<int64_t> acc_rows(const std::vector<std::pair<Space, int64_t>>& list) {
  std::vector<int64_t> s;
  s.reserve(list.size());
  for (const auto& [sp, b] : list)
    if (sp == Space::kAcc) s.push_back(b);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

}  // namespace weft::compiler::accel
