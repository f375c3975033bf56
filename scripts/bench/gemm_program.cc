// Benchmark program generators; see gemm_program.h.
#include "scripts/bench/gemm_program.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"

namespace weft::bench {

namespace {

isa::Insn mem(isa::Opcode op, isa::MemType t, int64_t sram, int64_t dram, int64_t y, int64_t x,
              int64_t stride) {
  isa::Insn i;
  i.opcode = static_cast<int64_t>(op);
  i.memory_type = static_cast<int64_t>(t);
  i.sram_base = sram;
  i.dram_base = dram;
  i.y_size = y;
  i.x_size = x;
  i.x_stride = stride;
  return i;
}

isa::Insn gemm(int64_t bgn, int64_t end, int64_t iter_out, int64_t iter_in) {
  isa::Insn i;
  i.opcode = static_cast<int64_t>(isa::Opcode::kGemm);
  i.uop_bgn = bgn;
  i.uop_end = end;
  i.iter_out = iter_out;
  i.iter_in = iter_in;
  return i;
}

// Byte regions of an image: program, micro-ops, then tensors, each 4 KiB aligned.
struct Region {
  uint64_t byte = 0;
  uint64_t bytes = 0;
};

uint64_t align4k(uint64_t v) { return (v + 4095) / 4096 * 4096; }

void fill_random(std::vector<uint8_t>& img, Region r, uint32_t seed) {
  std::mt19937 rng(seed);
  for (uint64_t b = 0; b < r.bytes; ++b) img[r.byte + b] = static_cast<uint8_t>(rng() >> 24);
}

BenchProgram finish_image(const isa::Layout& l, std::string name, std::vector<isa::Insn> prog,
                          const std::vector<isa::Uop>& uops, std::vector<Region> data,
                          uint32_t seed) {
  BenchProgram b;
  b.name = std::move(name);
  const std::vector<uint8_t> bin = isa::encode_program(l, prog);
  uint64_t end = 0;
  for (const Region& r : data) end = std::max(end, r.byte + r.bytes);
  b.image.assign(end, 0);
  std::copy(bin.begin(), bin.end(), b.image.begin());
  for (size_t i = 0; i < uops.size(); ++i) {
    isa::encode_uop(l, uops[i], &b.image[data[0].byte + 4 * i], "micro-op");
  }
  for (size_t r = 1; r + 1 < data.size(); ++r) fill_random(b.image, data[r], seed + r);
  b.insn_count = prog.size();
  b.out_begin = data.back().byte;
  b.out_end = data.back().byte + data.back().bytes;
  return b;
}

}  // namespace

BenchProgram blocked_gemm(const isa::Layout& l, int64_t m, int64_t n, int64_t k, int64_t tm,
                          int64_t tn, int64_t tk, int vthreads, uint32_t seed) {
  if (m % tm || n % tn || k % tk || vthreads < 1 || vthreads > 2) {
    throw UserError("blocked_gemm: M, N, K must be multiples of the tiles; 1 or 2 threads");
  }
  if (tm * tk * vthreads > l.inp_depth || tn * tk * vthreads > l.wgt_depth ||
      tm * tn * vthreads > l.acc_depth) {
    throw UserError("blocked_gemm: tiles do not fit the on-chip buffers");
  }
  const int64_t ksteps = k / tk;
  const int64_t tiles = (m / tm) * (n / tn);
  const int64_t steps = tiles * ksteps;
  // Micro-op set (a, s) addresses accumulator slot a and input/weight slot s: micro-op j is
  // output column block j of the tile; the loops walk rows (outer) and reduction (inner).
  std::vector<isa::Uop> uops;
  for (int a = 0; a < vthreads; ++a) {
    for (int s = 0; s < vthreads; ++s) {
      for (int64_t j = 0; j < tn; ++j) {
        uops.push_back({a * tm * tn + j, s * tm * tk, s * tn * tk + j * tk});
      }
    }
  }
  auto uop_set = [&](int a, int s) { return (a * vthreads + s) * tn; };
  const int64_t prog_bytes = (steps * 4 + tiles * 2 + 8) * 16;
  std::vector<Region> data(4);  // micro-ops, INP, WGT, OUT
  data[0] = {align4k(static_cast<uint64_t>(prog_bytes)), uops.size() * 4};
  data[1] = {align4k(data[0].byte + data[0].bytes),
             static_cast<uint64_t>(m * k * l.inp_elem_bytes)};
  data[2] = {align4k(data[1].byte + data[1].bytes),
             static_cast<uint64_t>(n * k * l.wgt_elem_bytes)};
  data[3] = {align4k(data[2].byte + data[2].bytes),
             static_cast<uint64_t>(m * n * l.out_elem_bytes)};
  const int64_t uop_elem = static_cast<int64_t>(data[0].byte / 4);
  const int64_t inp_elem = static_cast<int64_t>(data[1].byte) / l.inp_elem_bytes;
  const int64_t wgt_elem = static_cast<int64_t>(data[2].byte) / l.wgt_elem_bytes;
  const int64_t out_elem = static_cast<int64_t>(data[3].byte) / l.out_elem_bytes;

  using isa::MemType;
  using isa::Opcode;
  std::vector<isa::Insn> p;
  p.push_back(mem(Opcode::kLoad, MemType::kUop, 0, uop_elem, 1, static_cast<int64_t>(uops.size()),
                  static_cast<int64_t>(uops.size())));
  int64_t step = 0;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t mi = t / (n / tn), ni = t % (n / tn);
    const int acc_slot = static_cast<int>(t % vthreads);
    for (int64_t ks = 0; ks < ksteps; ++ks, ++step) {
      const int slot = static_cast<int>(step % vthreads);
      isa::Insn li = mem(Opcode::kLoad, MemType::kInp, slot * tm * tk,
                         inp_elem + mi * tm * k + ks * tk, tm, tk, k);
      li.pop_next_dep = step >= vthreads;
      p.push_back(li);
      isa::Insn lw = mem(Opcode::kLoad, MemType::kWgt, slot * tn * tk,
                         wgt_elem + ni * tn * k + ks * tk, tn, tk, k);
      lw.push_next_dep = 1;
      p.push_back(lw);
      if (ks == 0) {
        isa::Insn r = gemm(uop_set(acc_slot, 0), uop_set(acc_slot, 0) + tn, tm, 1);
        r.reset_reg = 1;
        r.dst_factor_out = tn;
        r.pop_next_dep = t >= vthreads;
        p.push_back(r);
      }
      isa::Insn g = gemm(uop_set(acc_slot, slot), uop_set(acc_slot, slot) + tn, tm, tk);
      g.dst_factor_out = tn;
      g.src_factor_out = tk;
      g.src_factor_in = 1;
      g.wgt_factor_in = 1;
      g.pop_prev_dep = 1;
      g.push_prev_dep = step + vthreads < steps;
      g.push_next_dep = ks == ksteps - 1;
      p.push_back(g);
    }
    isa::Insn st = mem(Opcode::kStore, MemType::kOut, acc_slot * tm * tn,
                       out_elem + mi * tm * n + ni * tn, tm, tn, n);
    st.pop_prev_dep = 1;
    st.push_prev_dep = t + vthreads < tiles || t == tiles - 1;
    p.push_back(st);
  }
  isa::Insn fin;
  fin.opcode = static_cast<int64_t>(Opcode::kFinish);
  fin.pop_next_dep = 1;
  p.push_back(fin);
  BenchProgram b = finish_image(l, "gemm", std::move(p), uops, data, seed);
  b.macs = static_cast<uint64_t>(m * n * k) * static_cast<uint64_t>(l.macs_per_uop());
  return b;
}

BenchProgram square_gemm(const isa::Layout& l, int64_t size, int vthreads, uint32_t seed) {
  const auto& c = l.config;
  const int64_t block = std::lcm(std::lcm(c.batch(), c.block_in()), c.block_out());
  if (size < block || size % block != 0) {
    throw UserError("--size " + std::to_string(size) + " must be a positive multiple of " +
                    std::to_string(block) + " (the GEMM block of " + c.name + ")");
  }
  const int64_t rows = size / c.batch(), cols = size / c.block_out(), red = size / c.block_in();
  int64_t tn = std::min<int64_t>(16, cols), tk = std::min<int64_t>(16, red);
  while (cols % tn != 0) --tn;
  while (red % tk != 0) --tk;
  int64_t tm = std::min({rows, l.acc_depth / (2 * tn), l.inp_depth / (2 * tk)});
  if (tm < 1) throw UserError("the GEMM tiles do not fit the buffers of " + c.name);
  while (rows % tm != 0) --tm;
  return blocked_gemm(l, rows, cols, red, tm, tn, tk, vthreads, seed);
}

BenchProgram gemm_heavy(const isa::Layout& l, int64_t gemms, int64_t uops, uint32_t seed) {
  // Micro-op set s (two sets, alternating GEMMs): micro-op k adds INP[k + 16 i + j] .
  // WGT[256 s + 16 i + j] into ACC[k] for the 16 x 16 (i, j) iterations.
  const int64_t taps = 16, sets = 2;
  const int64_t inp_rows = uops + taps * taps - 1, wgt_rows = sets * taps * taps;
  if (uops < 1 || gemms < 1 || inp_rows > l.inp_depth || wgt_rows > l.wgt_depth ||
      uops > l.acc_depth || sets * uops > l.uop_depth) {
    throw UserError("gemm_heavy: " + std::to_string(uops) + " micro-ops do not fit the " +
                    l.config.name + " buffers");
  }
  std::vector<isa::Uop> uop_list;
  for (int64_t s = 0; s < sets; ++s) {
    for (int64_t k = 0; k < uops; ++k) uop_list.push_back({k, k, s * taps * taps});
  }
  std::vector<Region> data(4);  // micro-ops, INP, WGT, OUT
  data[0] = {align4k(static_cast<uint64_t>((gemms + 8) * 16)), uop_list.size() * 4};
  data[1] = {align4k(data[0].byte + data[0].bytes),
             static_cast<uint64_t>(inp_rows * l.inp_elem_bytes)};
  data[2] = {align4k(data[1].byte + data[1].bytes),
             static_cast<uint64_t>(wgt_rows * l.wgt_elem_bytes)};
  data[3] = {align4k(data[2].byte + data[2].bytes), static_cast<uint64_t>(uops * l.out_elem_bytes)};
  using isa::MemType;
  using isa::Opcode;
  std::vector<isa::Insn> p;
  const int64_t nuops = static_cast<int64_t>(uop_list.size());
  p.push_back(mem(Opcode::kLoad, MemType::kUop, 0, static_cast<int64_t>(data[0].byte / 4), 1, nuops,
                  nuops));
  p.push_back(mem(Opcode::kLoad, MemType::kInp, 0,
                  static_cast<int64_t>(data[1].byte) / l.inp_elem_bytes, 1, inp_rows, inp_rows));
  isa::Insn lw = mem(Opcode::kLoad, MemType::kWgt, 0,
                     static_cast<int64_t>(data[2].byte) / l.wgt_elem_bytes, 1, wgt_rows, wgt_rows);
  lw.push_next_dep = 1;
  p.push_back(lw);
  isa::Insn r = gemm(0, uops, 1, 1);
  r.reset_reg = 1;
  r.pop_prev_dep = 1;
  p.push_back(r);
  for (int64_t g = 0; g < gemms; ++g) {
    const int64_t set = g % sets;
    isa::Insn gi = gemm(set * uops, (set + 1) * uops, taps, taps);
    gi.src_factor_out = taps;
    gi.src_factor_in = 1;
    gi.wgt_factor_out = taps;
    gi.wgt_factor_in = 1;
    gi.push_next_dep = g == gemms - 1;
    p.push_back(gi);
  }
  isa::Insn st = mem(Opcode::kStore, MemType::kOut, 0,
                     static_cast<int64_t>(data[3].byte) / l.out_elem_bytes, 1, uops, uops);
  st.pop_prev_dep = 1;
  st.push_prev_dep = 1;
  p.push_back(st);
  isa::Insn fin;
  fin.opcode = static_cast<int64_t>(Opcode::kFinish);
  fin.pop_next_dep = 1;
  p.push_back(fin);
  BenchProgram b = finish_image(l, "gemm_heavy", std::move(p), uop_list, data, seed);
  b.macs =
      static_cast<uint64_t>(gemms * uops * taps * taps) * static_cast<uint64_t>(l.macs_per_uop());
  return b;
}

BenchProgram token_heavy(const isa::Layout& l, int64_t count, uint32_t seed) {
  // Step s (slot s % 2): LOAD INP one element -> GEMM one micro-op -> STORE one element, with
  // the RAW tokens forward and the WAR tokens back on all four queues.
  std::vector<isa::Uop> uops = {{0, 0, 0}, {1, 1, 1}};
  std::vector<Region> data(4);
  data[0] = {align4k(static_cast<uint64_t>((count * 3 + 8) * 16)), uops.size() * 4};
  data[1] = {align4k(data[0].byte + 8), static_cast<uint64_t>(64 * l.inp_elem_bytes)};
  data[2] = {align4k(data[1].byte + data[1].bytes), static_cast<uint64_t>(2 * l.wgt_elem_bytes)};
  data[3] = {align4k(data[2].byte + data[2].bytes), static_cast<uint64_t>(64 * l.out_elem_bytes)};
  const int64_t inp_elem = static_cast<int64_t>(data[1].byte) / l.inp_elem_bytes;
  const int64_t wgt_elem = static_cast<int64_t>(data[2].byte) / l.wgt_elem_bytes;
  const int64_t out_elem = static_cast<int64_t>(data[3].byte) / l.out_elem_bytes;
  using isa::MemType;
  using isa::Opcode;
  std::vector<isa::Insn> p;
  p.push_back(
      mem(Opcode::kLoad, MemType::kUop, 0, static_cast<int64_t>(data[0].byte / 4), 1, 2, 2));
  p.push_back(mem(Opcode::kLoad, MemType::kWgt, 0, wgt_elem, 1, 2, 2));
  isa::Insn reset = gemm(0, 2, 1, 1);  // the accumulator rows start at zero
  reset.reset_reg = 1;
  p.push_back(reset);
  for (int64_t s = 0; s < count; ++s) {
    const int slot = static_cast<int>(s % 2);
    isa::Insn li = mem(Opcode::kLoad, MemType::kInp, slot, inp_elem + (s % 64), 1, 1, 1);
    li.pop_next_dep = s >= 2;
    li.push_next_dep = 1;
    p.push_back(li);
    isa::Insn g = gemm(slot, slot + 1, 1, 1);
    g.pop_prev_dep = 1;
    g.pop_next_dep = s >= 2;
    g.push_prev_dep = s + 2 < count;
    g.push_next_dep = 1;
    p.push_back(g);
    isa::Insn st = mem(Opcode::kStore, MemType::kOut, slot, out_elem + (s % 64), 1, 1, 1);
    st.pop_prev_dep = 1;
    st.push_prev_dep = s + 2 < count || s == count - 1;
    p.push_back(st);
  }
  isa::Insn fin;
  fin.opcode = static_cast<int64_t>(Opcode::kFinish);
  fin.pop_next_dep = 1;
  p.push_back(fin);
  BenchProgram b = finish_image(l, "token_heavy", std::move(p), uops, data, seed);
  b.macs = static_cast<uint64_t>(count) * static_cast<uint64_t>(l.macs_per_uop());
  return b;
}

BenchProgram load_heavy(const isa::Layout& l, int64_t count, uint32_t seed) {
  // Each step loads a 4x4 INP tile and a 2x4 WGT tile from strided rows, then one GEMM.
  const int64_t stride = 64;
  std::vector<isa::Uop> uops = {{0, 0, 0}, {1, 16, 8}};
  std::vector<Region> data(4);
  data[0] = {align4k(static_cast<uint64_t>((count * 3 + 4) * 16)), uops.size() * 4};
  data[1] = {align4k(data[0].byte + 8), static_cast<uint64_t>(4 * stride * l.inp_elem_bytes)};
  data[2] = {align4k(data[1].byte + data[1].bytes),
             static_cast<uint64_t>(2 * stride * l.wgt_elem_bytes)};
  data[3] = {align4k(data[2].byte + data[2].bytes), static_cast<uint64_t>(l.out_elem_bytes * 2)};
  const int64_t inp_elem = static_cast<int64_t>(data[1].byte) / l.inp_elem_bytes;
  const int64_t wgt_elem = static_cast<int64_t>(data[2].byte) / l.wgt_elem_bytes;
  using isa::MemType;
  using isa::Opcode;
  std::vector<isa::Insn> p;
  p.push_back(
      mem(Opcode::kLoad, MemType::kUop, 0, static_cast<int64_t>(data[0].byte / 4), 1, 2, 2));
  for (int64_t s = 0; s < count; ++s) {
    const int slot = static_cast<int>(s % 2);
    isa::Insn li = mem(Opcode::kLoad, MemType::kInp, slot * 16, inp_elem + (s % 60), 4, 4, stride);
    li.pop_next_dep = s >= 2;
    p.push_back(li);
    isa::Insn lw = mem(Opcode::kLoad, MemType::kWgt, slot * 8, wgt_elem + (s % 60), 2, 4, stride);
    lw.push_next_dep = 1;
    p.push_back(lw);
    isa::Insn g = gemm(slot, slot + 1, 1, 1);
    g.pop_prev_dep = 1;
    g.push_prev_dep = s + 2 < count;
    p.push_back(g);
  }
  isa::Insn fin;
  fin.opcode = static_cast<int64_t>(Opcode::kFinish);
  p.push_back(fin);
  return finish_image(l, "load_heavy", std::move(p), uops, data, seed);
}

}  // namespace weft::bench
