// Estimating a dense run from a measured sample; see dense_estimate.h.
#include "runtime/cli/dense_estimate.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "compiler/ops/tiling.h"
#include "driver/device.h"
#include "runtime/ops/dense.h"

namespace weft::cli {

namespace {

using compiler::ops::ceil_div;
using compiler::ops::round_up;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string gb(double bytes) {
  char b[32];
  if (bytes < 1e9) {
    std::snprintf(b, sizeof b, "%.0f MB", bytes / 1e6);
  } else {
    std::snprintf(b, sizeof b, "%.1f GB", bytes / 1e9);
  }
  return b;
}

// Padded block counts of a dense: M, N (rounded to tiles x threads on the thread axis) and K.
struct Blocks {
  int64_t m, n, k;
};
Blocks padded_blocks(const isa::Layout& l, const compiler::ops::DenseShape& s,
                     const compiler::ops::DenseKnobs& k) {
  const auto& c = l.config;
  return {round_up(ceil_div(s.m, c.batch()), k.tile_m * (k.vthread_axis == 'm' ? k.vthreads : 1)),
          round_up(ceil_div(s.n, c.block_out()), k.tile_n * (k.vthread_axis == 'n' ? k.vthreads : 1)),
          round_up(ceil_div(s.k, c.block_in()), k.tile_k)};
}

double block_macs(const isa::Layout& l, const Blocks& b) {
  const auto& c = l.config;
  return double(b.m) * double(b.n) * double(b.k) * double(c.batch() * c.block_in() * c.block_out());
}

// The instructions a dense compiles to (deterministic: no timing).
double count_instructions(const isa::Layout& l, const compiler::ops::DenseShape& s,
                          const compiler::ops::DenseKnobs& k,
                          const compiler::ops::DenseEpilogue& e) {
  return double(rt::build_dense(l, s, k, e).placed.stream.insn_count);
}

// Compiles, runs and checks one sample, each phase timed.
SampleSeconds time_sample(const isa::Layout& l, const isa::Platform& p, const std::string& engine,
                          const compiler::ops::DenseShape& s, const compiler::ops::DenseKnobs& k,
                          const compiler::ops::DenseEpilogue& e) {
  SampleSeconds r;
  auto t0 = Clock::now();
  const rt::DenseBuild b = rt::build_dense(l, s, k, e);
  r.compile = seconds_since(t0);
  std::mt19937 rng(1);
  std::vector<int8_t> a(size_t(s.m * s.k)), w(size_t(s.n * s.k));
  for (int8_t& x : a) x = int8_t(rng());
  for (int8_t& x : w) x = int8_t(rng());
  driver::DeviceOptions o;
  o.layout = &l;
  o.platform = &p;
  o.memory_bytes = b.placed.image_bytes;
  auto dev = driver::open_device(engine, o);
  t0 = Clock::now();
  rt::run_dense(*dev, b, a, w, std::chrono::minutes(5));
  r.run = seconds_since(t0);
  t0 = Clock::now();
  rt::dense_reference(s, a, w, e);
  r.check = seconds_since(t0);
  return r;
}

// One timed sample: its shape, its work in each phase's unit, and its fastest times.
struct Sample {
  compiler::ops::DenseShape shape;
  double instructions = 0, padded_macs = 0, macs = 0;
  SampleSeconds t;
};

// The fixed cost plus the cost per unit of work of a phase, from two samples (`a` smaller),
// applied to `work`. Timing noise can make the slope meaningless (not above zero): then the
// larger sample's average cost per unit is used, which errs high.
double extrapolate(double wa, double ta, double wb, double tb, double work) {
  const double slope = wb > wa ? (tb - ta) / (wb - wa) : 0;
  if (!(slope > 0)) return tb / std::max(wb, 1.0) * work;
  const double fixed = std::max(0.0, tb - slope * wb);
  return fixed + slope * work;
}

}  // namespace

std::string human_seconds(double s) {
  char b[32];
  if (s < 90) {
    std::snprintf(b, sizeof b, "%.0f s", std::max(s, 1.0));
  } else if (s < 90 * 60) {
    std::snprintf(b, sizeof b, "%.0f min", s / 60);
  } else if (s < 48 * 3600) {
    std::snprintf(b, sizeof b, "%.1f h", s / 3600);
  } else {
    std::snprintf(b, sizeof b, "%.1f d", s / 86400);
  }
  return b;
}

bool dense_is_big(const isa::Layout& l, const compiler::ops::DenseShape& s,
                  const compiler::ops::DenseKnobs& k) {
  return block_macs(l, padded_blocks(l, s, k)) >= double(int64_t{1} << 31);
}

DenseEstimate estimate_dense(const isa::Layout& l, const isa::Platform& p, const std::string& engine,
                             const compiler::ops::DenseShape& s,
                             const compiler::ops::DenseKnobs& k,
                             const compiler::ops::DenseEpilogue& e, const SampleTimer& timer) {
  const auto& c = l.config;
  const Blocks full = padded_blocks(l, s, k);
  // The smallest sample: one group of output tiles (one per thread) and one reduction step.
  const int64_t group_m = k.tile_m * (k.vthread_axis == 'm' ? k.vthreads : 1) * c.batch();
  const int64_t group_n = k.tile_n * (k.vthread_axis == 'n' ? k.vthreads : 1) * c.block_out();
  const int64_t step_k = k.tile_k * c.block_in();
  const compiler::ops::DenseShape one{std::min(s.m, group_m), std::min(s.n, group_n),
                                      std::min(s.k, step_k)};
  const compiler::ops::DenseShape two{one.m, one.n, std::min(s.k, 2 * step_k)};

  DenseEstimate est;
  est.engine = engine;
  est.macs = double(s.m) * double(s.n) * double(s.k);
  est.padded_macs = block_macs(l, full);
  // Instructions (deterministic): per tile group, a fixed part and a part per reduction step.
  const double i1 = count_instructions(l, one, k, e);
  const double i2 = two.k == one.k ? i1 : count_instructions(l, two, k, e);
  const Blocks pair = padded_blocks(l, two, k);
  const double groups = double(full.m / pair.m) * double(full.n / pair.n);
  const double steps = double(full.k / k.tile_k);
  const double per_step = two.k == one.k ? 0 : i2 - i1;
  est.instructions = groups * ((i1 - per_step) + steps * per_step);

  // Times: samples doubling in size (reduction first, then columns, then rows) until the engine
  // takes long enough to time well, or the sample is the whole dense, or the budget is spent.
  const SampleTimer measure = timer ? timer : [&](const compiler::ops::DenseShape& x) {
    return time_sample(l, p, engine, x, k, e);
  };
  constexpr double kLongEnough = 0.05, kBudget = 1.5;  // seconds
  constexpr int kReps = 3;
  const auto t_start = Clock::now();
  std::vector<Sample> samples;
  compiler::ops::DenseShape x = one;
  while (true) {
    Sample smp;
    smp.shape = x;
    smp.padded_macs = block_macs(l, padded_blocks(l, x, k));
    smp.macs = double(x.m) * double(x.n) * double(x.k);
    smp.instructions = count_instructions(l, x, k, e);
    for (int r = 0; r < kReps; ++r) {
      const SampleSeconds t = measure(x);
      smp.t.compile = r ? std::min(smp.t.compile, t.compile) : t.compile;
      smp.t.run = r ? std::min(smp.t.run, t.run) : t.run;
      smp.t.check = r ? std::min(smp.t.check, t.check) : t.check;
    }
    samples.push_back(smp);
    const bool whole = x.m == s.m && x.n == s.n && x.k == s.k;
    if (whole || smp.t.run >= kLongEnough || seconds_since(t_start) > kBudget) break;
    if (x.k < s.k) {
      x.k = std::min(s.k, 2 * x.k);
    } else if (x.n < s.n) {
      x.n = std::min(s.n, 2 * x.n);
    } else {
      x.m = std::min(s.m, 2 * x.m);
    }
  }
  const Sample& b = samples.back();
  const Sample& a = samples.size() > 1 ? samples[samples.size() - 2] : b;
  est.sample = std::to_string(b.shape.m) + "x" + std::to_string(b.shape.n) + "x" +
               std::to_string(b.shape.k);
  // Compiling scales with the instructions, the engine with the padded multiply-accumulates,
  // the check with the multiply-accumulates.
  est.compile_s = extrapolate(a.instructions, a.t.compile, b.instructions, b.t.compile,
                              est.instructions);
  est.run_s = extrapolate(a.padded_macs, a.t.run, b.padded_macs, b.t.run, est.padded_macs);
  est.check_s = extrapolate(a.macs, a.t.check, b.macs, b.t.check, est.macs);
  // Memory: the packed tensors and the instructions in the DRAM image, and the host's plain
  // input, weight, output and reference arrays beside it.
  est.dram_image_bytes =
      double(full.m) * double(full.k) * double(c.batch() * c.block_in()) +
      double(full.n) * double(full.k) * double(c.block_out() * c.block_in()) +
      double(full.m) * double(full.n) * double(c.batch() * c.block_out()) +
      est.instructions * 16.0;
  est.host_bytes = est.dram_image_bytes + double(s.m) * double(s.k) + double(s.n) * double(s.k) +
                   2.0 * double(s.m) * double(s.n);
  est.host_memory_bytes = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGESIZE));
  return est;
}

nlohmann::ordered_json DenseEstimate::to_json() const {
  return {{"macs", macs},
          {"padded_macs", padded_macs},
          {"instructions", std::round(instructions)},
          {"dram_image_bytes", std::round(dram_image_bytes)},
          {"host_bytes", std::round(host_bytes)},
          {"host_memory_bytes", host_memory_bytes},
          {"fits_in_memory", fits_in_memory()},
          {"engine", engine},
          {"sample", sample},
          {"compile_seconds", compile_s},
          {"run_seconds", run_s},
          {"check_seconds", check_s},
          {"total_seconds", total_s()}};
}

std::string DenseEstimate::summary() const {
  char head[160];
  std::snprintf(head, sizeof head, "%.2g MACs, about %.2g instructions, a %s DRAM image (%s of host memory)",
                macs, instructions, gb(dram_image_bytes).c_str(), gb(host_bytes).c_str());
  return std::string(head) + "; measured on a " + sample + " sample just now: compile ~" +
         human_seconds(compile_s) + ", the " + engine + " engine ~" + human_seconds(run_s) +
         ", the CPU check ~" + human_seconds(check_s) + " (total ~" + human_seconds(total_s()) +
         ")";
}

}  // namespace weft::cli
