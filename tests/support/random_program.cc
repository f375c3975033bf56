// The random program generator and the two-model runner; see random_program.h.
//
// Protocol (N = threads x iterations stages, stage s belongs to virtual thread s % T, emitted
// in the order load stage s, compute stage s, store stage s):
//   load stage s:    pops compute->load if s >= T (the WAR token of compute stage s - T, the
//                    previous reader of the same slices); pushes load->compute.
//   compute stage s: pops load->compute (RAW of load stage s) and, if s >= T, store->compute
//                    (WAR of store stage s - T, the previous reader of its ACC slice); pushes
//                    compute->load when a later load stage (or the WAR drain) pops it, and
//                    compute->store.
//   store stage s:   pops compute->store (RAW of compute stage s); pushes store->compute when
//                    compute stage s + T, the drain or FINISH pops it.
// The k-th pop of a queue takes the k-th push, which always lies earlier in program order, so
// no pop can wait on an instruction stuck behind it in fetch; each queue holds at most T
// tokens (T + 1 counting the FINISH token).
#include "tests/support/random_program.h"

#include <algorithm>
#include <random>
#include <utility>

#include "hardware/isa/insn.h"
#include "hardware/isa/store_requant.h"

namespace weft::test {

namespace {

using isa::AluOp;
using isa::Insn;
using isa::MemType;
using isa::Opcode;
using isa::Uop;

constexpr int64_t kSrcElems = 96;  // random source elements in DRAM per loadable memory type
constexpr int64_t kOutElems = 48;  // DRAM output elements of each virtual thread
constexpr int64_t kUopSlice = 64;  // micro-op buffer slice of each virtual thread

// A slice of an on-chip buffer owned by one virtual thread.
struct Slice {
  int64_t base = 0, size = 0;
};

struct VThread {
  Slice uop, inp, wgt, acc;
  int64_t out = 0;  // first OUT element of its DRAM output region
};

// The shape of a LOAD: y_size x x_size data elements and the padding around them.
struct Tile {
  int64_t y = 0, x = 0;
  Pads pads;
  int64_t rows() const { return pads.y0 + y + pads.y1; }
  int64_t cols() const { return pads.x0 + x + pads.x1; }
  int64_t area() const { return rows() * cols(); }
};

// A GEMM/ALU instruction before its micro-ops have a place in the buffer.
struct ComputeOp {
  Opcode op = Opcode::kGemm;
  bool reset = false;
  AluOp alu = AluOp::kAdd;
  bool use_imm = false;
  int64_t imm = 0;
  Loops loops;
  std::vector<Uop> uops;
  bool empty = false;  // uop_end == uop_bgn: no iterations
};

const char* kMemKey[] = {"uop", "wgt", "inp", "acc", "out", "acc8"};

class Generator {
 public:
  Generator(const isa::Layout& l, uint64_t seed, const RandomProgramOptions& o)
      : l_(l), o_(o), rng_(seed), b_(l) {
    result_.seed = seed;
  }

  RandomProgram run();

 private:
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  void note(const std::string& feature) { ++result_.coverage[feature]; }

  Slice place(int64_t depth, int slot, int64_t size);
  void alloc_sources();
  Pads random_pads();
  Tile sub_tile(int64_t slice_size);
  Tile full_tile(int64_t slice_size);
  std::pair<int64_t, int64_t> pick_dram(const Tile& t, int64_t region);
  void load(MemType t, const Slice& s, const Tile& tile, int64_t offset);
  void noop(isa::Module m);
  void add_deps(size_t index, Deps d);
  template <typename Body>
  std::pair<size_t, size_t> stage(isa::Module m, Body&& body);

  void load_stage(const VThread& v, bool first);
  void compute_stage(const VThread& v, bool first);
  void store_stage(const VThread& v);

  std::pair<int64_t, int64_t> pick_factors(int64_t iter_out, int64_t iter_in, int64_t size);
  int64_t index_in(const Slice& s, int64_t iter_out, int64_t iter_in, int64_t* f_out, int64_t* f_in,
                   std::vector<int64_t>* values, int count);
  ComputeOp random_op(const VThread& v);
  void emit_ops(const VThread& v, std::vector<ComputeOp> ops);
  Uop filler_uop();

  const isa::Layout& l_;
  RandomProgramOptions o_;
  std::mt19937_64 rng_;
  ProgramBuilder b_;
  RandomProgram result_;
  int64_t src_[6] = {0, 0, 0, 0, 0, 0};  // first DRAM element of each type's source data
};

Slice Generator::place(int64_t depth, int slot, int64_t size) {
  const int64_t region = depth / result_.threads;
  return Slice{slot * region + uniform(0, region - size), size};
}

void Generator::alloc_sources() {
  for (MemType t : {MemType::kInp, MemType::kWgt, MemType::kAcc8Bit}) {
    const int64_t eb = l_.elem_bytes(t);
    std::vector<uint8_t> bytes(static_cast<size_t>(kSrcElems * eb));
    for (uint8_t& x : bytes) x = static_cast<uint8_t>(uniform(0, 255));
    src_[int(t)] = b_.alloc(t, kSrcElems);
    b_.put_bytes(t, src_[int(t)], bytes);
  }
  // Accumulator data: mostly small values (so that GEMM and ALU results stay readable),
  // some of the full range (wrap-around, shifts of large values).
  const int64_t lanes = l_.elem_bytes(MemType::kAcc) / 4;
  std::vector<int32_t> acc(static_cast<size_t>(kSrcElems * lanes));
  for (int32_t& x : acc) {
    x = static_cast<int32_t>(chance(0.2) ? uniform(INT32_MIN, INT32_MAX) : uniform(-300, 300));
  }
  src_[int(MemType::kAcc)] = b_.add_int32(acc);
}

Pads Generator::random_pads() {
  auto one = [&]() -> int64_t {
    if (chance(0.55)) return 0;
    return chance(0.9) ? uniform(1, 2) : uniform(3, 15);
  };
  Pads p;
  p.y0 = one();
  p.y1 = one();
  p.x0 = one();
  p.x1 = one();
  return p;
}

// A random tile that fits a slice of `slice_size` elements.
Tile Generator::sub_tile(int64_t slice_size) {
  Tile t;
  t.y = chance(0.04) ? 0 : uniform(1, 3);
  t.x = uniform(1, 4);
  t.pads = random_pads();
  // Shrink until it fits: large pads first, then all pads, then the data.
  if (t.area() > slice_size) {
    t.pads = Pads{std::min<int64_t>(t.pads.y0, 1), 0, 0, std::min<int64_t>(t.pads.x1, 1)};
  }
  if (t.area() > slice_size) t.pads = Pads{};
  while (t.area() > slice_size) --(t.y > 1 ? t.y : t.x);
  return t;
}

// A random tile whose padded extent is exactly the slice (divisors of the slice size).
Tile Generator::full_tile(int64_t slice_size) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= slice_size; ++d) {
    if (slice_size % d == 0) divisors.push_back(d);
  }
  Tile t;
  const int64_t cols = divisors[static_cast<size_t>(uniform(0, int64_t(divisors.size()) - 1))];
  const int64_t rows = slice_size / cols;
  const int64_t xpad = uniform(0, std::min<int64_t>(cols - 1, 3));
  const int64_t ypad = uniform(0, std::min<int64_t>(rows - 1, 3));
  t.pads.x0 = uniform(0, xpad);
  t.pads.x1 = xpad - t.pads.x0;
  t.pads.y0 = uniform(0, ypad);
  t.pads.y1 = ypad - t.pads.y0;
  t.x = cols - xpad;
  t.y = rows - ypad;
  return t;
}

// dram_base (relative to the region) and x_stride for a tile read from a region.
std::pair<int64_t, int64_t> Generator::pick_dram(const Tile& t, int64_t region) {
  int64_t stride = t.x + uniform(0, 3);
  if (chance(0.1)) {
    stride = uniform(0, t.x);  // rows overlap (a LOAD may read a DRAM element twice)
    if (t.y > 1 && stride < t.x) note("load.overlapping_rows");
  }
  int64_t need = t.y == 0 ? 0 : (t.y - 1) * stride + t.x;
  if (need > region) {
    stride = t.x;
    need = t.y * t.x;
  }
  return {uniform(0, region - need), stride};
}

void Generator::load(MemType t, const Slice& s, const Tile& tile, int64_t offset) {
  const auto [base, stride] = pick_dram(tile, kSrcElems);
  b_.load(t, s.base + offset, src_[int(t)] + base, tile.y, tile.x, stride, tile.pads);
  note(std::string("load.") + kMemKey[int(t)]);
  const Pads& p = tile.pads;
  if (p.y0 || p.y1 || p.x0 || p.x1) note(std::string("pad.") + kMemKey[int(t)]);
  if (tile.y == 0) note("load.padding_only");
}

// An x_size == 0 transfer of module m: moves tokens only. Its other fields are random (and
// must be ignored), except that STORE never pads.
void Generator::noop(isa::Module m) {
  MemType t = MemType::kOut;
  if (m == isa::Module::kLoad) {
    t = chance(0.5) ? MemType::kInp : MemType::kWgt;
  } else if (m == isa::Module::kCompute) {
    const MemType kinds[] = {MemType::kUop, MemType::kAcc, MemType::kAcc8Bit};
    t = kinds[uniform(0, 2)];
  }
  const int64_t sram = uniform(0, l_.sram_depth(t) - 1);
  const int64_t dram = uniform(0, 1000);
  if (m == isa::Module::kStore) {
    b_.store(sram, dram, uniform(0, 3), 0, uniform(0, 8));
    note("noop.store");
  } else {
    b_.load(t, sram, dram, uniform(0, 3), 0, uniform(0, 8), random_pads());
    note(m == isa::Module::kLoad ? "noop.load" : "noop.compute");
  }
}

void Generator::add_deps(size_t index, Deps d) {
  Insn& insn = b_.at(index);
  insn.pop_prev_dep |= d.pop_prev;
  insn.pop_next_dep |= d.pop_next;
  insn.push_prev_dep |= d.push_prev;
  insn.push_next_dep |= d.push_next;
}

// Emits one stage: the body, sometimes framed by token-only no-ops (always one when the body
// is empty). Returns the first and last instruction, which carry the stage's pops and pushes.
template <typename Body>
std::pair<size_t, size_t> Generator::stage(isa::Module m, Body&& body) {
  const size_t first = b_.num_insns();
  if (chance(0.12)) noop(m);
  body();
  if (b_.num_insns() == first || chance(0.12)) noop(m);
  return {first, b_.num_insns() - 1};
}

void Generator::load_stage(const VThread& v, bool first) {
  if (first) {
    // The first stage of a thread defines its whole INP and WGT slices.
    const bool inp_first = chance(0.5);
    for (int k = 0; k < 2; ++k) {
      const bool inp = (k == 0) == inp_first;
      const Slice& s = inp ? v.inp : v.wgt;
      load(inp ? MemType::kInp : MemType::kWgt, s, full_tile(s.size), 0);
    }
  }
  const int64_t n = uniform(0, first ? 1 : 3);
  for (int64_t k = 0; k < n; ++k) {
    const bool inp = chance(0.5);
    const Slice& s = inp ? v.inp : v.wgt;
    const Tile t = sub_tile(s.size);
    load(inp ? MemType::kInp : MemType::kWgt, s, t, uniform(0, s.size - t.area()));
  }
}

Uop Generator::filler_uop() {
  return Uop{uniform(0, l_.acc_depth - 1), uniform(0, std::max(l_.inp_depth, l_.acc_depth) - 1),
             uniform(0, l_.wgt_depth - 1)};
}

std::pair<int64_t, int64_t> Generator::pick_factors(int64_t iter_out, int64_t iter_in,
                                                    int64_t size) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int64_t fo = uniform(0, iter_out > 1 ? 4 : 9);
    const int64_t fi = uniform(0, iter_in > 1 ? 4 : 9);
    if ((iter_out - 1) * fo + (iter_in - 1) * fi <= size - 1) return {fo, fi};
  }
  return {0, 0};
}

// Chooses loop factors for one index (dst, src or wgt) inside slice `s` and `count` micro-op
// base values such that every index the loops compute stays in the slice.
int64_t Generator::index_in(const Slice& s, int64_t iter_out, int64_t iter_in, int64_t* f_out,
                            int64_t* f_in, std::vector<int64_t>* values, int count) {
  const auto [fo, fi] = pick_factors(iter_out, iter_in, s.size);
  *f_out = fo;
  *f_in = fi;
  const int64_t reach = (iter_out - 1) * fo + (iter_in - 1) * fi;
  values->clear();
  for (int k = 0; k < count; ++k) values->push_back(s.base + uniform(0, s.size - 1 - reach));
  return reach;
}

ComputeOp Generator::random_op(const VThread& v) {
  ComputeOp op;
  const int64_t kind = uniform(0, 9);
  op.op = kind < 5 ? Opcode::kGemm : Opcode::kAlu;
  op.reset = kind < 1 || (kind == 1 && chance(0.5));
  if (op.op == Opcode::kAlu) {
    op.alu = static_cast<AluOp>(uniform(0, 4));
    op.use_imm = chance(0.5);
    if (op.alu == AluOp::kShr && !chance(0.2)) {
      op.imm = uniform(-17, 17);
    } else {
      op.imm = chance(0.3) ? uniform(-32768, 32767) : uniform(-40, 40);
    }
  }
  // 0, 1 or 2 loop levels with more than one iteration.
  const int64_t levels = uniform(0, 2);
  Loops& lp = op.loops;
  if (levels == 1) {
    (chance(0.5) ? lp.iter_out : lp.iter_in) = uniform(2, 3);
  } else if (levels == 2) {
    lp.iter_out = uniform(2, 3);
    lp.iter_in = uniform(2, 3);
  }
  const int n = static_cast<int>(uniform(1, 4));
  std::vector<int64_t> dst, src, wgt;
  index_in(v.acc, lp.iter_out, lp.iter_in, &lp.dst_out, &lp.dst_in, &dst, n);
  const Slice& src_slice = op.op == Opcode::kGemm ? v.inp : v.acc;
  index_in(src_slice, lp.iter_out, lp.iter_in, &lp.src_out, &lp.src_in, &src, n);
  if (op.op == Opcode::kGemm) {
    index_in(v.wgt, lp.iter_out, lp.iter_in, &lp.wgt_out, &lp.wgt_in, &wgt, n);
  }
  for (int k = 0; k < n; ++k) {
    // ALU ignores the wgt field: any value the field holds.
    const int64_t w = op.op == Opcode::kGemm ? wgt[k] : uniform(0, l_.wgt_depth - 1);
    op.uops.push_back(Uop{dst[k], src[k], w});
  }
  op.empty = chance(0.03);
  return op;
}

// Places the micro-ops of `ops` (one op per tile row) with one padded LOAD UOP into the
// thread's micro-op slice, then emits the GEMM/ALU instructions that use them.
void Generator::emit_ops(const VThread& v, std::vector<ComputeOp> ops) {
  const int64_t rows = static_cast<int64_t>(ops.size());
  int64_t x = 1;
  for (const ComputeOp& op : ops) x = std::max<int64_t>(x, int64_t(op.uops.size()));
  Tile t;
  t.y = rows;
  t.x = x;
  t.pads = random_pads();
  if (t.area() > kUopSlice) t.pads = Pads{};
  const int64_t stride = rows == 1 ? uniform(x, x + 5) : x + uniform(0, 2);
  std::vector<Uop> dram(static_cast<size_t>((rows - 1) * stride + x));
  for (Uop& u : dram) u = filler_uop();
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t k = 0; k < ops[r].uops.size(); ++k) dram[r * stride + k] = ops[r].uops[k];
  }
  const int64_t dram_base = b_.add_uops(dram);
  const int64_t sram = v.uop.base + uniform(0, v.uop.size - t.area());
  b_.load(MemType::kUop, sram, dram_base, t.y, t.x, stride, t.pads);
  note("load.uop");
  if (t.pads.y0 || t.pads.y1 || t.pads.x0 || t.pads.x1) note("pad.uop");

  for (int64_t r = 0; r < rows; ++r) {
    const ComputeOp& op = ops[r];
    const int64_t bgn = sram + (t.pads.y0 + r) * t.cols() + t.pads.x0;
    const int64_t end = op.empty ? bgn : bgn + int64_t(op.uops.size());
    const int levels = (op.loops.iter_out > 1) + (op.loops.iter_in > 1);
    if (op.empty) note("compute.empty");
    if (op.op == Opcode::kGemm) {
      if (op.reset) {
        b_.gemm_reset(bgn, end, op.loops);
        note("gemm.reset");
      } else {
        b_.gemm(bgn, end, op.loops);
        note("gemm.loops" + std::to_string(levels));
      }
    } else {
      const std::string name = std::string("alu.") + isa::alu_op_name(int64_t(op.alu));
      if (op.use_imm) {
        b_.alu_imm(op.alu, op.imm, bgn, end, op.loops);
        note(name + ".imm");
      } else {
        b_.alu(op.alu, bgn, end, op.loops);
        note(name + ".reg");
      }
    }
  }
}

void Generator::compute_stage(const VThread& v, bool first) {
  if (first) {
    // The first stage of a thread defines its whole ACC slice: a LOAD ACC or ACC_8BIT that
    // covers it, or a reset GEMM whose two loops sweep it.
    const int64_t how = uniform(0, 2);
    if (how < 2) {
      const MemType t = how == 0 ? MemType::kAcc : MemType::kAcc8Bit;
      load(t, v.acc, full_tile(v.acc.size), 0);
    } else {
      const Tile shape = full_tile(v.acc.size);  // only its rows x cols
      ComputeOp op;
      op.reset = true;
      const bool rows_outer = chance(0.5);
      op.loops.iter_out = rows_outer ? shape.rows() : shape.cols();
      op.loops.iter_in = rows_outer ? shape.cols() : shape.rows();
      op.loops.dst_out = rows_outer ? shape.cols() : 1;
      op.loops.dst_in = rows_outer ? 1 : shape.cols();
      op.loops.src_out = uniform(0, 3);
      op.loops.wgt_in = uniform(0, 3);
      op.uops.push_back(Uop{v.acc.base, v.inp.base, v.wgt.base});
      emit_ops(v, {op});
    }
  }
  int64_t n = chance(0.08) ? 0 : uniform(1, o_.max_compute_ops);
  while (n > 0) {
    if (!first && chance(0.25)) {
      const MemType t = chance(0.5) ? MemType::kAcc : MemType::kAcc8Bit;
      const Tile tile = sub_tile(v.acc.size);
      load(t, v.acc, tile, uniform(0, v.acc.size - tile.area()));
    }
    const int64_t group = uniform(1, std::min<int64_t>(n, 3));
    std::vector<ComputeOp> ops;
    for (int64_t k = 0; k < group; ++k) ops.push_back(random_op(v));
    emit_ops(v, ops);
    n -= group;
  }
}

void Generator::store_stage(const VThread& v) {
  if (chance(0.1)) return;  // stage() adds a no-op STORE to carry the tokens
  const int64_t n = uniform(1, 2);
  for (int64_t k = 0; k < n; ++k) {
    int64_t y = uniform(1, 3);
    const int64_t x = uniform(1, 4);
    while (y * x > v.acc.size) --y;
    const int64_t stride = y == 1 ? uniform(x, x + 6) : x + uniform(0, 3);
    const int64_t need = (y - 1) * stride + x;
    const size_t at = b_.store(v.acc.base + uniform(0, v.acc.size - y * x),
                               v.out + uniform(0, kOutElems - need), y, x, stride);
    // With the store_requant option, most STOREs requantize (shifts and clamps at random; the
    // accumulators hold random int32 values, so both bounds clip).
    if (l_.config.options.has(isa::HwOption::kStoreRequant) && chance(0.75)) {
      const bool relu = chance(0.5);
      const int lo = relu ? 0 : -128;
      isa::set_store_requant(b_.at(at), isa::StoreRequant{true, static_cast<int>(uniform(0, 31)),
                                                          lo, static_cast<int>(uniform(lo, 127))});
    }
    note("store");
    if (y > 1 && stride > x) note("store.strided");
  }
}

RandomProgram Generator::run() {
  const int threads = static_cast<int>(uniform(o_.min_threads, o_.max_threads));
  const int iterations = static_cast<int>(uniform(1, o_.max_iterations));
  const int n = threads * iterations;
  result_.threads = threads;
  result_.stages = n;
  note("threads=" + std::to_string(threads));

  // Slices: buffer b is cut into `threads` regions; thread t gets region slot[b][t] and a
  // slice at a random place inside it.
  const int64_t sizes[] = {8, 12, 16, 24, 32};
  const int64_t inp_size = sizes[uniform(0, 4)];
  const int64_t wgt_size = sizes[uniform(0, 4)];
  const int64_t acc_size = sizes[uniform(0, 4)];
  std::vector<VThread> vt(static_cast<size_t>(threads));
  std::vector<int> slot(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) slot[t] = t;
  auto shuffled = [&]() {
    std::shuffle(slot.begin(), slot.end(), rng_);
    return slot;
  };
  const std::vector<int> s_uop = shuffled(), s_inp = shuffled(), s_wgt = shuffled(),
                         s_acc = shuffled();
  for (int t = 0; t < threads; ++t) {
    vt[t].uop = place(l_.uop_depth, s_uop[t], kUopSlice);
    vt[t].inp = place(l_.inp_depth, s_inp[t], inp_size);
    vt[t].wgt = place(l_.wgt_depth, s_wgt[t], wgt_size);
    vt[t].acc = place(l_.acc_depth, s_acc[t], acc_size);
  }
  alloc_sources();
  for (int t = 0; t < threads; ++t) {
    vt[t].out = b_.alloc(MemType::kOut, kOutElems);
    std::vector<uint8_t> junk(static_cast<size_t>(kOutElems * l_.out_elem_bytes));
    for (uint8_t& x : junk) x = static_cast<uint8_t>(uniform(0, 255));
    b_.put_bytes(MemType::kOut, vt[t].out, junk);
  }

  // How the last T WAR tokens of compute->load and store->compute are consumed: by no-ops
  // after the last stage (drain), or by not pushing them at all.
  const bool drain_war = chance(0.5);
  const bool drain_store = chance(0.5);
  if (drain_war) note("drain.compute_to_load");
  if (drain_store) note("drain.store_to_compute");

  using isa::Module;
  for (int s = 0; s < n; ++s) {
    const VThread& v = vt[static_cast<size_t>(s % threads)];
    const bool first = s < threads;
    const bool last_use = s >= n - threads;  // no later stage of this thread
    auto [lf, ll] = stage(Module::kLoad, [&] { load_stage(v, first); });
    add_deps(lf, Deps{false, !first, false, false});
    add_deps(ll, kPushNext);
    auto [cf, cl] = stage(Module::kCompute, [&] { compute_stage(v, first); });
    add_deps(cf, Deps{true, !first, false, false});
    add_deps(cl, Deps{false, false, drain_war || !last_use, true});
    auto [sf, sl] = stage(Module::kStore, [&] { store_stage(v); });
    add_deps(sf, kPopPrev);
    add_deps(sl, Deps{false, false, drain_store || !last_use || s == n - 1, false});
  }
  if (drain_war) {
    // The load module takes the last T compute->load tokens; compute waits for it.
    for (int t = 0; t < threads; ++t) {
      noop(Module::kLoad);
      add_deps(b_.num_insns() - 1, Deps{false, true, false, t == threads - 1});
    }
    noop(Module::kCompute);
    add_deps(b_.num_insns() - 1, kPopPrev);
  }
  if (drain_store) {
    for (int t = 0; t + 1 < threads; ++t) {
      noop(Module::kCompute);
      add_deps(b_.num_insns() - 1, kPopNext);
    }
  }
  b_.finish(kPopNext);
  note("finish");
  result_.program = b_.build();
  return std::move(result_);
}

}  // namespace

RandomProgram random_program(const isa::Layout& layout, uint64_t seed,
                             const RandomProgramOptions& options) {
  return Generator(layout, seed, options).run();
}

const std::vector<std::string>& random_program_features() {
  static const std::vector<std::string> features = [] {
    std::vector<std::string> f = {"threads=1", "threads=2", "threads=3", "threads=4"};
    for (const char* m : {"uop", "inp", "wgt", "acc", "acc8"}) {
      f.push_back(std::string("load.") + m);
      f.push_back(std::string("pad.") + m);
    }
    for (const char* x :
         {"load.overlapping_rows", "load.padding_only", "noop.load", "noop.compute", "noop.store",
          "store", "store.strided", "gemm.reset", "gemm.loops0", "gemm.loops1", "gemm.loops2",
          "compute.empty", "drain.compute_to_load", "drain.store_to_compute", "finish"}) {
      f.push_back(x);
    }
    for (const char* op : {"MIN", "MAX", "ADD", "SHR", "MUL"}) {
      f.push_back(std::string("alu.") + op + ".imm");
      f.push_back(std::string("alu.") + op + ".reg");
    }
    return f;
  }();
  return features;
}

BothModelsResult run_both(const Program& p, sim::FunctionalSim& functional,
                          sim::cycle::CycleSim& cycle) {
  BothModelsResult r;
  r.functional_dram = p.dram;
  r.functional_counters = functional.run(r.functional_dram, p.insn_offset, p.insn_count);
  r.cycle_dram = p.dram;
  r.cycle_stats = cycle.run(r.cycle_dram, p.insn_offset, p.insn_count);
  return r;
}

BothModelsResult run_both(const Program& p, const isa::Platform& platform) {
  sim::FunctionalSim functional(*p.layout);
  sim::cycle::CycleSim cycle(*p.layout, platform);
  return run_both(p, functional, cycle);
}

}  // namespace weft::test
