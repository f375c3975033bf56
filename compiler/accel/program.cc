// Accelerator program helpers; see program.h.
#include "compiler/accel/program.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>

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

namespace {

// The distinct blocks base(u) + i * fo + j * fi over a micro-op kernel's iterations, appended
// to `list` sorted. A GEMM's iterations revisit the same blocks many times (a reduction loop
// has a factor of 0 for its accumulator rows), so the distinct bases and the distinct offsets
// are found first and only their sums marked, in a bitmap over their range (listing every
// iteration cost the program passes that ask more than building the program did).
template <class Base>
void distinct_blocks(const Op& op, Space sp, Base base, int64_t fo, int64_t fi,
                     std::vector<std::pair<Space, int64_t>>* list) {
  if (op.uops.empty() || op.iter_out <= 0 || op.iter_in <= 0) return;
  auto distinct = [](std::vector<int64_t> v) {
    // Micro-op bases and loop offsets mostly come in order already.
    if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  std::vector<int64_t> bases, offsets;
  bases.reserve(op.uops.size());
  for (const isa::Uop& u : op.uops) bases.push_back(base(u));
  offsets.reserve(static_cast<size_t>(op.iter_out * op.iter_in));
  for (int64_t i = 0; i < op.iter_out; ++i)
    for (int64_t j = 0; j < op.iter_in; ++j) offsets.push_back(i * fo + j * fi);
  bases = distinct(std::move(bases));
  offsets = distinct(std::move(offsets));
  const int64_t lo = bases.front() + offsets.front(), hi = bases.back() + offsets.back();
  const int64_t sums = static_cast<int64_t>(bases.size() * offsets.size());
  if (hi - lo + 1 > 4 * sums) {  // a sparse range (never the compiler's): sort the sums
    std::vector<int64_t> v;
    v.reserve(static_cast<size_t>(sums));
    for (int64_t o : offsets)
      for (int64_t b : bases) v.push_back(b + o);
    for (int64_t b : distinct(std::move(v))) list->push_back({sp, b});
    return;
  }
  std::vector<uint8_t> seen(static_cast<size_t>(hi - lo + 1), 0);
  for (int64_t o : offsets)
    for (int64_t b : bases) seen[static_cast<size_t>(b + o - lo)] = 1;
  size_t count = 0;
  for (uint8_t x : seen) count += x;
  list->reserve(list->size() + count);  // growing it was most of the time here
  for (size_t k = 0; k < seen.size(); ++k)
    if (seen[k]) list->emplace_back(sp, lo + static_cast<int64_t>(k));
}

}  // namespace

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
      auto dst = [](const isa::Uop& u) { return int64_t{u.dst}; };
      auto src = [](const isa::Uop& u) { return int64_t{u.src}; };
      auto wgt = [](const isa::Uop& u) { return int64_t{u.wgt}; };
      distinct_blocks(op, Space::kAcc, dst, op.dst_factor_out, op.dst_factor_in, &a.writes);
      if (op.kind == Op::Kind::kGemm && op.reset) break;
      // Every written row is also read (accumulated into, or the ALU's destination operand).
      a.reads = a.writes;
      if (op.kind == Op::Kind::kAlu) {
        if (!op.use_imm) {
          // The source rows join the destination rows, sorted and each once.
          std::vector<std::pair<Space, int64_t>> rows;
          distinct_blocks(op, Space::kAcc, src, op.src_factor_out, op.src_factor_in, &rows);
          std::vector<std::pair<Space, int64_t>> both;
          std::set_union(a.reads.begin(), a.reads.end(), rows.begin(), rows.end(),
                         std::back_inserter(both));
          a.reads = std::move(both);
        }
        break;
      }
      distinct_blocks(op, Space::kInp, src, op.src_factor_out, op.src_factor_in, &a.reads);
      distinct_blocks(op, Space::kWgt, wgt, op.wgt_factor_out, op.wgt_factor_in, &a.reads);
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
  // accesses() lists each block once, in order: sorting is for other lists.
  if (!std::is_sorted(s.begin(), s.end(), std::less_equal<int64_t>())) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  return s;
}

}  // namespace weft::compiler::accel
