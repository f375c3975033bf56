// Pass bias_gemm; see bias_gemm.h.
#include "compiler/passes/bias_gemm.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace weft::compiler::passes {

namespace {

using accel::Op;

}  // namespace

bool bias_pieces(const isa::Layout& l, const int32_t* bias, int64_t oc,
                 std::vector<int8_t>* ones, std::vector<int8_t>* weights) {
  const int64_t B = l.config.batch(), BI = l.config.block_in(), BO = l.config.block_out();
  const int64_t ocb = (oc + BO - 1) / BO;
  ones->assign(static_cast<size_t>(B * BI), 127);
  for (int64_t b = 0; b < B; ++b) (*ones)[static_cast<size_t>(b * BI)] = 1;
  weights->assign(static_cast<size_t>(ocb * BO * BI), 0);
  for (int64_t o = 0; o < oc; ++o) {
    const int64_t v = bias[o];
    const int64_t q0 = ((v % 127) + 127) % 127;  // in [0, 126]
    int64_t rest = (v - q0) / 127;
    int8_t* w = weights->data() + o * BI;  // block o / BO, row o % BO: [ocb][BO][BI]
    w[0] = static_cast<int8_t>(q0);
    for (int64_t c = 1; c < BI && rest != 0; ++c) {
      const int64_t t = std::clamp<int64_t>(rest, -128, 127);
      w[c] = static_cast<int8_t>(t);
      rest -= t;
    }
    if (rest != 0) return false;
  }
  return true;
}

accel::Program bias_gemm(accel::Program p, const isa::Layout& l, const ir::Buffer& bias,
                         const ir::Buffer& ones, const ir::Buffer& weights, int64_t blocks,
                         int* rewritten) {
  if (rewritten) *rewritten = 0;
  const size_t n = p.ops.size();
  // Per operation only the accumulator rows it reads and writes are kept (the input and
  // weight blocks only raise the tops).
  std::vector<std::vector<int64_t>> acc_reads(n), acc_writes(n);
  int64_t inp_top = -1, wgt_top = -1;
  for (size_t i = 0; i < n; ++i) {
    const accel::Access a = accel::accesses(p.ops[i]);
    for (const auto* list : {&a.reads, &a.writes})
      for (const auto& [sp, b] : *list) {
        if (sp == accel::Space::kInp) inp_top = std::max(inp_top, b);
        if (sp == accel::Space::kWgt) wgt_top = std::max(wgt_top, b);
        if (sp == accel::Space::kAcc) (list == &a.reads ? acc_reads : acc_writes)[i].push_back(b);
      }
  }
  const int64_t ones_row = inp_top + 1, w_base = wgt_top + 1;
  if (ones_row >= l.inp_depth || w_base + blocks > l.wgt_depth) return p;
  // Per accumulator row its last writer and the bias load whose data it holds (tables indexed
  // by row); per bias load, whether every reader was rewritten.
  int64_t top = 0;
  for (size_t i = 0; i < n; ++i)
    for (const auto* rows : {&acc_reads[i], &acc_writes[i]})
      for (int64_t b : *rows) top = std::max(top, b + 1);
  constexpr size_t kNo = SIZE_MAX;
  std::vector<size_t> last_writer(static_cast<size_t>(top), kNo), live(last_writer);
  auto at = [&](const std::vector<size_t>& table, int64_t row) {
    return row >= 0 && row < top ? table[static_cast<size_t>(row)] : kNo;
  };
  std::map<size_t, Op> gemm_for;     // ADD index -> its GEMM
  std::map<size_t, bool> load_free;  // bias load -> all its readers rewritten so far
  for (size_t i = 0; i < n; ++i) {
    const Op& op = p.ops[i];
    bool done = false;
    if (op.kind == Op::Kind::kAlu && op.alu_op == isa::AluOp::kAdd && !op.use_imm &&
        !op.uops.empty()) {
      // Every source row from one bias load; the bias block of a row, affine in the row.
      const size_t w = at(last_writer, op.uops[0].src);
      const Op* load = w == kNo ? nullptr : &p.ops[w];
      if (load && load->kind == Op::Kind::kLoad && load->mem == isa::MemType::kAcc &&
          load->tensor == bias && load->y_pad0 + load->y_pad1 + load->x_pad0 + load->x_pad1 == 0) {
        const int64_t width = load->x_size;
        auto block = [&](int64_t row) {
          const int64_t k = row - load->sram_base;
          return load->dram_offset + (k / width) * load->x_stride + k % width;
        };
        Op g;
        g.kind = Op::Kind::kGemm;
        g.module = op.module;
        g.uops = op.uops;
        g.iter_out = op.iter_out;
        g.iter_in = op.iter_in;
        g.dst_factor_out = op.dst_factor_out;
        g.dst_factor_in = op.dst_factor_in;
        g.wgt_factor_out = op.src_factor_out;
        g.wgt_factor_in = op.src_factor_in;
        bool ok = true;
        for (isa::Uop& u : g.uops) u.wgt = w_base + block(u.src);
        for (int64_t a = 0; a < op.iter_out && ok; ++a)
          for (int64_t b = 0; b < op.iter_in && ok; ++b)
            for (size_t k = 0; k < op.uops.size() && ok; ++k) {
              const int64_t src = op.uops[k].src + a * op.src_factor_out + b * op.src_factor_in;
              const int64_t wgt = g.uops[k].wgt + a * g.wgt_factor_out + b * g.wgt_factor_in;
              ok = at(last_writer, src) == w &&
                   src - load->sram_base < load->y_size * width && wgt == w_base + block(src) &&
                   block(src) < blocks;
            }
        if (ok) {
          for (isa::Uop& u : g.uops) u.src = ones_row;
          gemm_for[i] = g;
          done = true;
        }
      }
    }
    // Readers of bias rows that were not rewritten keep their load.
    for (int64_t b : acc_reads[i]) {
      const size_t from = at(live, b);
      if (from != kNo && !done) load_free[from] = false;
    }
    const bool bias_load =
        op.kind == Op::Kind::kLoad && op.mem == isa::MemType::kAcc && op.tensor == bias;
    for (int64_t b : acc_writes[i]) {
      if (b < 0) continue;  // (no accumulator row is negative)
      last_writer[static_cast<size_t>(b)] = i;
      live[static_cast<size_t>(b)] = bias_load ? i : kNo;
    }
    if (bias_load && !acc_writes[i].empty()) load_free.emplace(i, true);
  }
  if (gemm_for.empty()) return p;
  accel::Program out;
  out.tensors = p.tensors;
  out.tensors.push_back(ones);
  out.tensors.push_back(weights);
  out.ops.reserve(n + 2);  // growing a vector of operations copies their micro-ops
  Op lo;
  lo.kind = Op::Kind::kLoad;
  lo.mem = isa::MemType::kInp;
  lo.tensor = ones;
  lo.sram_base = ones_row;
  lo.y_size = 1;
  lo.x_size = 1;
  lo.x_stride = 1;
  lo.module = accel::module_of(lo);
  Op lw = lo;
  lw.mem = isa::MemType::kWgt;
  lw.tensor = weights;
  lw.sram_base = w_base;
  lw.x_size = blocks;
  lw.x_stride = blocks;
  // The two loads just before the first bias GEMM: the load module runs them after the first
  // tiles' input and weight loads, behind those tiles' GEMMs.
  for (size_t i = 0; i < n; ++i) {
    if (auto it = load_free.find(i); it != load_free.end() && it->second) continue;
    auto g = gemm_for.find(i);
    if (g == gemm_for.begin()) {
      out.ops.push_back(lo);
      out.ops.push_back(lw);
    }
    if (g == gemm_for.end())
      out.ops.push_back(std::move(p.ops[i]));
    else
      out.ops.push_back(std::move(g->second));
  }
  if (rewritten) *rewritten = static_cast<int>(gemm_for.size());
  return out;
}

}  // namespace weft::compiler::passes
