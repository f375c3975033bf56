// Random GEMM-heavy programs; see gemm_program.h.
#include "tests/support/gemm_program.h"

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "hardware/isa/insn.h"

namespace weft::test {

namespace {

using isa::AluOp;
using isa::MemType;

class Generator {
 public:
  Generator(const isa::Layout& l, uint64_t seed, const GemmProgramOptions& o)
      : l_(l), o_(o), rng_(seed), b_(l) {
    size_ = std::min<int64_t>({96, l.inp_depth / 2, l.wgt_depth / 2, l.acc_depth / 2});
  }
  Program run();

 private:
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  std::vector<uint8_t> random_bytes(int64_t n) {
    std::vector<uint8_t> v(static_cast<size_t>(n));
    for (uint8_t& x : v) x = static_cast<uint8_t>(uniform(0, 255));
    return v;
  }
  int64_t iters() { return chance(0.04) ? 0 : (chance(0.3) ? 1 : uniform(1, o_.max_iter)); }
  // Loop factors for one index whose values must stay below size_.
  std::pair<int64_t, int64_t> factors(int64_t io, int64_t ji) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      const int64_t fo = chance(0.3) ? 0 : uniform(1, 4), fi = chance(0.3) ? 0 : uniform(1, 4);
      if (std::max<int64_t>(io - 1, 0) * fo + std::max<int64_t>(ji - 1, 0) * fi < size_ / 2) {
        return {fo, fi};
      }
    }
    return {0, 0};
  }
  // `n` micro-op values below `limit`, in one of the patterns that matter to the scoreboard.
  std::vector<int64_t> pattern(int n, int64_t limit);
  void compute_op(bool first, bool last);
  void tile_load(MemType t, int64_t base, int64_t span, int64_t src, int64_t src_elems, Deps deps);

  const isa::Layout& l_;
  GemmProgramOptions o_;
  std::mt19937_64 rng_;
  ProgramBuilder b_;
  int64_t size_ = 0;
  int64_t src_[6] = {};            // first DRAM element of each type's source data
  std::vector<isa::Uop> uops_;     // every micro-op, loaded by one LOAD UOP
  std::vector<size_t> uop_users_;  // instructions whose ranges are fixed after the load
};

std::vector<int64_t> Generator::pattern(int n, int64_t limit) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  const int64_t kind = uniform(0, 5);
  const int64_t base = uniform(0, limit - 1);
  for (int k = 0; k < n; ++k) {
    switch (kind) {
      case 0:  // consecutive rows: no hazard inside a block
      case 1:
        v[k] = (base + k) % limit;
        break;
      case 2:  // a few rows at random: repeats at any distance
        v[k] = (base + uniform(0, 3)) % limit;
        break;
      case 3:  // one row: a reduction, every iteration waits
        v[k] = base;
        break;
      case 4:  // period 2 or 3: repeats at exactly that distance
        v[k] = (base + k % (2 + (base & 1))) % limit;
        break;
      default:
        v[k] = uniform(0, limit - 1);
        break;
    }
  }
  return v;
}

void Generator::tile_load(MemType t, int64_t base, int64_t span, int64_t src, int64_t src_elems,
                          Deps deps) {
  const int64_t y = uniform(1, 3);
  const int64_t x = uniform(1, std::max<int64_t>(1, std::min<int64_t>(span / y, 24)));
  const int64_t stride = x + uniform(0, 2);
  const int64_t need = (y - 1) * stride + x;
  const int64_t dram = src + uniform(0, std::max<int64_t>(0, src_elems - need));
  b_.load(t, base + uniform(0, span - y * x), dram, y, x, stride, {}, deps);
}

void Generator::compute_op(bool first, bool last) {
  const Deps deps{first, false, false, last};
  const int64_t kind = first ? uniform(0, 8) : uniform(0, 9);
  if (kind == 9) {  // LOAD ACC / ACC_8BIT of some rows, between GEMMs (drains the pipeline)
    const MemType t = chance(0.5) ? MemType::kAcc : MemType::kAcc8Bit;
    tile_load(t, 0, size_, src_[int(t)], size_, deps);
    return;
  }
  const bool gemm = kind < 7;
  const bool reset = gemm && chance(0.2);
  Loops lp;
  lp.iter_out = iters();
  lp.iter_in = iters();
  const int n = chance(0.3) ? int(uniform(1, 3)) : int(uniform(1, o_.max_uops));
  std::tie(lp.dst_out, lp.dst_in) = factors(lp.iter_out, lp.iter_in);
  std::tie(lp.src_out, lp.src_in) = factors(lp.iter_out, lp.iter_in);
  if (gemm) std::tie(lp.wgt_out, lp.wgt_in) = factors(lp.iter_out, lp.iter_in);
  auto reach = [&](int64_t fo, int64_t fi) {
    return std::max<int64_t>(lp.iter_out - 1, 0) * fo + std::max<int64_t>(lp.iter_in - 1, 0) * fi;
  };
  const std::vector<int64_t> dst = pattern(n, size_ - reach(lp.dst_out, lp.dst_in));
  const std::vector<int64_t> src = pattern(n, size_ - reach(lp.src_out, lp.src_in));
  const std::vector<int64_t> wgt = pattern(n, size_ - reach(lp.wgt_out, lp.wgt_in));
  const int64_t bgn = static_cast<int64_t>(uops_.size());
  for (int k = 0; k < n; ++k) uops_.push_back({dst[k], src[k], wgt[k]});
  const int64_t end = chance(0.03) ? bgn : bgn + n;  // sometimes an empty range
  size_t index;
  if (gemm) {
    index = reset ? b_.gemm_reset(bgn, end, lp, deps) : b_.gemm(bgn, end, lp, deps);
  } else {
    const auto op = static_cast<AluOp>(uniform(0, 4));
    if (chance(0.5)) {
      const int64_t imm = op == AluOp::kShr ? uniform(-17, 17) : uniform(-300, 300);
      index = b_.alu_imm(op, imm, bgn, end, lp, deps);
    } else {
      index = b_.alu(op, bgn, end, lp, deps);
    }
  }
  uop_users_.push_back(index);
}

Program Generator::run() {
  const int64_t inp_e = l_.inp_elem_bytes, wgt_e = l_.wgt_elem_bytes;
  src_[int(MemType::kInp)] = b_.alloc(MemType::kInp, 2 * size_);
  b_.put_bytes(MemType::kInp, src_[int(MemType::kInp)], random_bytes(2 * size_ * inp_e));
  src_[int(MemType::kWgt)] = b_.alloc(MemType::kWgt, 2 * size_);
  b_.put_bytes(MemType::kWgt, src_[int(MemType::kWgt)], random_bytes(2 * size_ * wgt_e));
  src_[int(MemType::kAcc8Bit)] = b_.alloc(MemType::kAcc8Bit, size_);
  b_.put_bytes(MemType::kAcc8Bit, src_[int(MemType::kAcc8Bit)],
               random_bytes(size_ * l_.acc8_elem_bytes));
  std::vector<int32_t> acc(static_cast<size_t>(size_ * l_.acc_elem_bytes / 4));
  for (int32_t& x : acc) {
    x = static_cast<int32_t>(chance(0.1) ? uniform(INT32_MIN, INT32_MAX) : uniform(-500, 500));
  }
  src_[int(MemType::kAcc)] = b_.add_int32(acc);
  const int64_t out = b_.alloc(MemType::kOut, size_);

  // The load module fills the GEMMs' rows [0, size) and tells compute; then it keeps loading
  // rows [size, 2 size), which no GEMM reads, while compute runs.
  const bool inp_first = chance(0.5);
  for (int k = 0; k < 2; ++k) {
    const MemType t = (k == 0) == inp_first ? MemType::kInp : MemType::kWgt;
    b_.load(t, 0, src_[int(t)], 1, size_, size_, {}, k == 1 ? kPushNext : Deps{});
  }
  const int concurrent = static_cast<int>(uniform(0, 4));
  for (int k = 0; k < concurrent; ++k) {
    const MemType t = chance(0.5) ? MemType::kInp : MemType::kWgt;
    tile_load(t, size_, size_, src_[int(t)] + size_, size_,
              k == concurrent - 1 ? kPushNext : Deps{});
  }

  // Compute: the micro-ops, the accumulator rows, then the GEMM/ALU sequence.
  const size_t uop_load = b_.load(MemType::kUop, 0, 0, 1, 1, 1);  // fixed below
  const int64_t how = uniform(0, 2);
  if (how == 0) {
    b_.load(MemType::kAcc, 0, src_[int(MemType::kAcc)], 1, size_, size_);
  } else if (how == 1) {
    b_.load(MemType::kAcc8Bit, 0, src_[int(MemType::kAcc8Bit)], 1, size_, size_);
  } else {
    uops_.push_back({0, 0, 0});
    Loops lp;
    lp.iter_in = size_;
    lp.dst_in = 1;
    uop_users_.push_back(b_.gemm_reset(int64_t(uops_.size()) - 1, int64_t(uops_.size()), lp));
  }
  const int ops = static_cast<int>(uniform(o_.min_ops, o_.max_ops));
  for (int k = 0; k < ops; ++k) compute_op(k == 0, k == ops - 1);
  const int64_t uop_dram = b_.add_uops(uops_);
  isa::Insn& ul = b_.at(uop_load);
  ul.dram_base = uop_dram;
  ul.x_size = static_cast<int64_t>(uops_.size());
  ul.x_stride = ul.x_size;

  b_.store(0, out, 1, size_, size_, Deps{true, false, true, false});
  b_.finish(Deps{concurrent > 0, true, false, false});
  return b_.build();
}

}  // namespace

Program random_gemm_program(const isa::Layout& layout, uint64_t seed,
                            const GemmProgramOptions& options) {
  return Generator(layout, seed, options).run();
}

Program long_gemm_program(const isa::Layout& layout) {
  ProgramBuilder b(layout);
  const int64_t uop = b.add_uops({{0, 0, 0}});
  b.load(MemType::kUop, 0, uop, 1, 1, 1);
  isa::Insn& g = b.at(b.gemm(0, 1));
  g.iter_out = 16000;
  g.iter_in = 16000;
  b.finish();
  return b.build();
}

}  // namespace weft::test
