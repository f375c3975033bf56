// Makes the CPU dispatch table of one host kind (issue #29, runtime/tune/cpu_dispatch.h): for
// each operator family (dense, conv2d), dtype (float32, int8) and bucket, the host kind's
// micro-kernels are fitted to the bucket's home shape, compiled, checked against each other
// and timed interleaved (CPU time of the calling thread, one thread); the fastest is the
// bucket's kernel. Writes the table as JSON (runtime/tune/records/cpu_dispatch_<kind>.json is
// such a file) and prints each bucket's times and the run's total time.
//   bench_cpu_dispatch_tune [--cpu-isa avx2] [--ops dense,conv2d] [--reps 3] --out FILE
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "runtime/tune/cpu_dispatch.h"
#include "runtime/tune/cpu_schedules.h"
#include "scripts/bench/cpu_bench_buffers.h"

namespace {

using namespace weft;
using namespace weft::rt::tune;
namespace cpu = compiler::ops::cpu;
using compiler::ir::DType;

compiler::ops::LoweredOp build(const std::string& op, DType dt, const ShapeDims& h,
                               const nlohmann::json& knobs, const std::string& host_kind) {
  if (op == "dense") {
    const cpu::DenseSchedule s =
        fit_dense(dense_schedule_of(knobs), h.at("m"), h.at("n"), h.at("k"),
                  compiler::ir::dtype_name(dt), host_kind, 1);
    return cpu::dense(h.at("m"), h.at("n"), h.at("k"), dt, s);
  }
  // The home names the output's size (as conv2d_dims does); the input is what gives it.
  const int64_t k = h.at("kh"), pad = (k - 1) / 2, stride = h.at("stride");
  const int64_t ih = (h.at("oh") - 1) * stride + k - 2 * pad;
  const int64_t iw = (h.at("ow") - 1) * stride + k - 2 * pad;
  const compiler::ops::Conv2dNchw c{h.at("n"), h.at("ic"), ih, iw, h.at("oc"), k, k, stride, pad};
  return cpu::conv2d(c, dt,
                     fit_conv2d(conv_schedule_of(knobs), c, compiler::ir::dtype_name(dt), host_kind));
}

std::string home_name(const ShapeDims& h) {
  std::string s;
  for (const auto& [n, v] : h) s += (s.empty() ? "" : " ") + n + "=" + std::to_string(v);
  return s;
}

// The bucket's entry: every kernel measured at the home shape, the fastest kept.
CpuDispatchEntry tune_bucket(const std::string& op, const std::string& dtype, const CpuBucket& b,
                          const std::string& host_kind, int reps) {
  const DType dt = dtype == "int8" ? DType::kInt8 : DType::kFloat32;
  std::vector<CpuMicroKernel> ks = micro_kernels(host_kind, op, dtype);
  std::vector<std::unique_ptr<rt::cpu::CpuKernel>> compiled;
  std::vector<bench::OpBuffers> bufs;
  std::vector<CpuMicroKernel> ok;
  for (const CpuMicroKernel& k : ks) {
    try {
      compiled.push_back(std::make_unique<rt::cpu::CpuKernel>(build(op, dt, b.home, k.knobs, host_kind)));
      bufs.push_back(bench::op_buffers(compiled.back()->op(), 7));
      ok.push_back(k);
    } catch (const UserError& e) {
      std::printf("  %s: invalid here (%s)\n", k.name.c_str(), e.what());
    }
  }
  if (ok.empty()) throw UserError("no micro-kernel builds for " + op + " at " + home_name(b.home));
  std::vector<std::function<void()>> fs;
  for (size_t i = 0; i < ok.size(); ++i)
    fs.push_back([&, i] { compiled[i]->run(bufs[i].ptrs, nullptr); });
  const bench::RaceTimes t = bench::race(fs, reps, false);
  // Every kernel computes the same outputs from the same inputs (same seed, same layouts).
  const auto& op0 = compiled[0]->op();
  const size_t out = op0.num_inputs;
  const size_t n = static_cast<size_t>(op0.func.args[out]->elements());
  const double reduce = static_cast<double>(op == "dense" ? b.home.at("k") : b.home.at("ic") * 9);
  for (size_t i = 1; i < ok.size(); ++i) {
    const double e = bench::max_difference(bufs[0].ptrs[out], bufs[i].ptrs[out], n, dt == DType::kFloat32);
    if (e > (dt == DType::kFloat32 ? 1e-4 * reduce : 0))
      throw InternalError(ok[i].name + " differs from " + ok[0].name + " by " + std::to_string(e));
  }
  size_t best = 0;
  for (size_t i = 0; i < ok.size(); ++i) {
    std::printf("  %-16s %9.3f ms\n", ok[i].name.c_str(), t.cpu[i] * 1e3);
    if (t.cpu[i] < t.cpu[best]) best = i;
  }
  CpuDispatchEntry e;
  e.op = op;
  e.dtype = dtype;
  e.when = b.when;
  e.home = b.home;
  e.kernel = ok[best].name;
  e.knobs = ok[best].knobs;
  e.seconds = t.cpu[best];
  std::printf("  -> %s\n", e.kernel.c_str());
  std::fflush(stdout);
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Makes the CPU dispatch table of this host kind (issue #29)"};
  std::string out, isa, ops_csv = "dense,conv2d";
  int reps = 3;
  app.add_option("--out", out, "the table to write (JSON)")->required();
  app.add_option("--cpu-isa", isa, "native or avx2 (the host kind the table is for)");
  app.add_option("--ops", ops_csv, "families: dense, conv2d (comma-separated)");
  app.add_option("--reps", reps, "timed rounds per bucket (median)");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!isa.empty()) compiler::codegen::set_cpu_isa(isa);
    const std::string host_kind = cpu_host_target().config;
    std::printf("# dispatch table for %s on %s\n", host_kind.c_str(),
                compiler::codegen::host_cpu_description().c_str());
    const auto t0 = std::chrono::steady_clock::now();
    CpuDispatchTable table(host_kind);
    std::stringstream ss(ops_csv);
    for (std::string op; std::getline(ss, op, ',');) {
      for (const std::string dtype : {"float32", "int8"}) {
        for (const CpuBucket& b : family_buckets(op)) {
          CpuDispatchEntry probe;
          probe.when = b.when;
          std::printf("%s %s, %s (home %s)\n", op.c_str(), dtype.c_str(), probe.describe().c_str(),
                      home_name(b.home).c_str());
          table.add(tune_bucket(op, dtype, b, host_kind, reps));
        }
      }
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    nlohmann::json j = table.to_json();
    j["cpu"] = compiler::codegen::host_cpu_description();
    j["tuning_seconds"] = secs;
    std::ofstream f(out);
    if (!f) throw UserError("--out: cannot write '" + out + "'");
    f << j.dump(1) << "\n";
    std::printf("# %zu buckets in %.1f s (wall clock)\n", table.entries().size(), secs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cpu_dispatch_tune: %s\n", e.what());
    return 1;
  }
  return 0;
}
