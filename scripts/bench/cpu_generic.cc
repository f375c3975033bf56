// Shape-generic CPU schedules against oneDNN (issue #29): GEMMs of shapes drawn at random
// (seeded; M, N, K uniform in 1..--max, float32 and int8 alternating) that were never tuned
// one by one, Weft with the kernel of the host kind's dispatch table (runtime/tune/
// cpu_dispatch.h) against oneDNN's sgemm / gemm_s8s8s32 ('N', 'T': C = A W^T, the dense
// operator's layout), interleaved in one process. Times are CPU time (--clock cpu: the calling
// thread's with one thread; with more, the process's, all threads' work) or wall time, and the
// wall time is always reported too. Each result is checked against oneDNN's (int8 exactly).
// Prints one line per shape and writes JSON (--out): every shape, the geometric mean and the
// minimum of Weft's speed relative to oneDNN's (oneDNN time / Weft time; above 1: Weft faster).
// scripts/bench/cpu_generic_bench.sh runs it natively and under the AVX2 cap, 1 and 2 threads.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "runtime/tune/cpu_dispatch.h"
#include "runtime/tune/cpu_schedules.h"
#include "scripts/bench/cpu_bench_buffers.h"

#ifdef WEFT_HAVE_DNNL
#include <dnnl.h>
#endif

namespace {

using namespace weft;
namespace cpu = compiler::ops::cpu;
using compiler::ir::DType;
using nlohmann::json;

struct Shape {
  int64_t m, n, k;
  bool int8;
};

std::vector<Shape> random_shapes(int count, uint32_t seed, int64_t max) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> d(1, max);
  std::vector<Shape> out;
  for (int i = 0; i < count; ++i) {
    const int64_t m = d(rng), n = d(rng), k = d(rng);
    out.push_back({m, n, k, i % 2 == 1});
  }
  return out;
}

// Timed rounds for a shape: enough for ~0.2 s of oneDNN-speed work, 1..max_reps.
int reps_for(const Shape& s, int max_reps) {
  const double flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  const double est = flops / (s.int8 ? 4e11 : 1e11);
  return std::max(1, std::min(max_reps, static_cast<int>(0.2 / std::max(est, 1e-6))));
}

json run_shape(const Shape& s, int threads, int max_reps, bool process_clock, bool cpu_clock,
               rt::cpu::ThreadPool& pool) {
  const std::string dtype = s.int8 ? "int8" : "float32";
  auto d = rt::tune::dispatch_dense(s.m, s.n, s.k, dtype, threads);
  const cpu::DenseSchedule sch = d ? d->schedule : cpu::DenseSchedule{};
  rt::cpu::CpuKernel kernel(cpu::dense(s.m, s.n, s.k, s.int8 ? DType::kInt8 : DType::kFloat32, sch));
  bench::OpBuffers b = bench::op_buffers(kernel.op(), 11);
  const size_t outs = static_cast<size_t>(s.m * s.n);
  std::vector<float> cf(s.int8 ? 0 : outs);
  std::vector<int32_t> ci(s.int8 ? outs : 0);
  std::vector<std::function<void()>> fs{[&] { kernel.run(b.ptrs, &pool); }};
#ifdef WEFT_HAVE_DNNL
  if (s.int8) {
    fs.push_back([&] {
      const int32_t co = 0;
      dnnl_gemm_s8s8s32('N', 'T', 'F', s.m, s.n, s.k, 1.0f, static_cast<const int8_t*>(b.ptrs[0]),
                        s.k, 0, static_cast<const int8_t*>(b.ptrs[1]), s.k, 0, 0.0f, ci.data(),
                        s.n, &co);
    });
  } else {
    fs.push_back([&] {
      dnnl_sgemm('N', 'T', s.m, s.n, s.k, 1.0f, static_cast<const float*>(b.ptrs[0]), s.k,
                 static_cast<const float*>(b.ptrs[1]), s.k, 0.0f, cf.data(), s.n);
    });
  }
#else
  throw UserError("bench_cpu_generic was built without oneDNN (libdnnl-dev): nothing to compare");
#endif
  const int reps = reps_for(s, max_reps);
  const bench::RaceTimes t = bench::race(fs, reps, process_clock);
  // Weft against the scalar reference on 64 sampled outputs (int8 exactly), and against
  // oneDNN everywhere: oneDNN's int8 GEMM without VNNI (ONEDNN_MAX_CPU_ISA=AVX2) multiplies with
  // vpmaddubsw, whose int16 sums saturate on these inputs, so there only the reference counts.
  std::mt19937 rng(static_cast<uint32_t>(s.m + s.n + s.k));
  for (int q = 0; q < 64; ++q) {
    const int64_t i = static_cast<int64_t>(rng() % static_cast<uint32_t>(s.m));
    const int64_t j = static_cast<int64_t>(rng() % static_cast<uint32_t>(s.n));
    double ref = 0, got = 0;
    for (int64_t x = 0; x < s.k; ++x) {
      ref += s.int8 ? static_cast<double>(static_cast<const int8_t*>(b.ptrs[0])[i * s.k + x]) *
                          static_cast<const int8_t*>(b.ptrs[1])[j * s.k + x]
                    : static_cast<double>(static_cast<const float*>(b.ptrs[0])[i * s.k + x]) *
                          static_cast<const float*>(b.ptrs[1])[j * s.k + x];
    }
    got = s.int8 ? static_cast<const int32_t*>(b.ptrs[2])[i * s.n + j]
                 : static_cast<const float*>(b.ptrs[2])[i * s.n + j];
    if (std::abs(got - ref) > (s.int8 ? 0 : 1e-4 * static_cast<double>(s.k)))
      throw InternalError("Weft's " + dtype + " GEMM differs from the reference at (" +
                          std::to_string(i) + ", " + std::to_string(j) + ")");
  }
  const void* lib = s.int8 ? static_cast<const void*>(ci.data()) : cf.data();
  const double err = bench::max_difference(b.ptrs[2], lib, outs, !s.int8);
  const bool lib_agrees = err <= (s.int8 ? 0 : 1e-3 * static_cast<double>(s.k));
  const std::vector<double>& tt = cpu_clock ? t.cpu : t.wall;
  json j = {{"m", s.m},
            {"n", s.n},
            {"k", s.k},
            {"dtype", dtype},
            {"reps", reps},
            {"kernel", d ? d->kernel : "default schedule"},
            {"bucket", d ? d->bucket : ""},
            {"schedule", rt::tune::knobs_of(sch)},
            {"weft_ms", tt[0] * 1e3},
            {"onednn_ms", tt[1] * 1e3},
            {"weft_wall_ms", t.wall[0] * 1e3},
            {"onednn_wall_ms", t.wall[1] * 1e3},
            {"speed_vs_onednn", tt[1] / tt[0]},
            {"onednn_result_equal", lib_agrees}};
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Shape-generic CPU GEMMs (the dispatch table) against oneDNN on random shapes"};
  int count = 40, threads = 1, reps = 5;
  uint32_t seed = 29;
  int64_t max = 4096;
  std::string out, isa, clock = "cpu";
  app.add_option("--shapes", count, "random shapes")->capture_default_str();
  app.add_option("--seed", seed, "seed of the shapes")->capture_default_str();
  app.add_option("--max", max, "M, N, K drawn from 1..max")->capture_default_str();
  app.add_option("--threads", threads, "Weft's threads (OMP_NUM_THREADS sets oneDNN's)")
      ->capture_default_str();
  app.add_option("--reps", reps, "at most this many timed rounds per shape (median)")
      ->capture_default_str();
  app.add_option("--cpu-isa", isa, "native or avx2 (Weft; set ONEDNN_MAX_CPU_ISA for oneDNN)");
  app.add_option("--clock", clock, "cpu (thread CPU time; process CPU time with threads) or wall")
      ->check(CLI::IsMember({"wall", "cpu"}))
      ->capture_default_str();
  app.add_option("--out", out, "JSON results");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!isa.empty()) compiler::codegen::set_cpu_isa(isa);
    rt::cpu::ThreadPool pool(threads);
    const std::string host = compiler::codegen::host_cpu_description();
    const bool cpu_clock = clock == "cpu";
    std::printf("# %s, %d thread(s), %s clock, host kind %s\n", host.c_str(), threads,
                cpu_clock ? (threads > 1 ? "process CPU" : "thread CPU") : "wall",
                rt::tune::cpu_host_target().config.c_str());
    json rows = json::array();
    double log_sum = 0, worst = 1e9;
    for (const Shape& s : random_shapes(count, seed, max)) {
      json r = run_shape(s, threads, reps, threads > 1, cpu_clock, pool);
      const double sp = r["speed_vs_onednn"].get<double>();
      log_sum += std::log(sp);
      worst = std::min(worst, sp);
      std::printf("%-7s %4lld x %4lld x %4lld  %-12s weft %9.3f ms  oneDNN %9.3f ms  %.2fx\n",
                  r["dtype"].get<std::string>().c_str(), static_cast<long long>(s.m),
                  static_cast<long long>(s.n), static_cast<long long>(s.k),
                  r["kernel"].get<std::string>().c_str(), r["weft_ms"].get<double>(),
                  r["onednn_ms"].get<double>(), sp);
      std::fflush(stdout);
      rows.push_back(r);
    }
    const double geo = std::exp(log_sum / std::max(count, 1));
    std::printf("# geometric mean %.3fx oneDNN's speed, minimum %.3fx\n", geo, worst);
    if (!out.empty()) {
      std::ofstream f(out);
      if (!f) throw UserError("--out: cannot write '" + out + "'");
      f << json{{"cpu", host},
                {"host_kind", rt::tune::cpu_host_target().config},
                {"threads", threads},
                {"clock", cpu_clock ? (threads > 1 ? "process cpu" : "thread cpu") : "wall"},
                {"seed", seed},
                {"geomean_speed_vs_onednn", geo},
                {"min_speed_vs_onednn", worst},
                {"shapes", rows}}
               .dump(1)
        << "\n";
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cpu_generic: %s\n", e.what());
    return 1;
  }
  return 0;
}
