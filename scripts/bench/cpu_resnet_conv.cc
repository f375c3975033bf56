// ResNet convolutions on the CPU backend against oneDNN (issue #29's "ResNet-18 and ResNet-50
// convolutions, fp32 and int8, batch 1 and 8"): every distinct conv layer of a layer table
// (scripts/bench/cpu_resnet18_conv.csv, cpu_resnet50_conv.csv), Weft's conv2d with the
// schedule `weft run conv2d --target llvm` takes (the shipped record, else the host kind's
// dispatch table: runtime/tune/cpu_dispatch.h) against oneDNN's direct convolution in its
// preferred (blocked) layouts, fp32 -> fp32 or s8 x s8 -> s32. Both read the same values,
// converted once outside the timing into each one's layouts; the outputs are compared
// everywhere (int8 exactly). Contenders run interleaved (bench::race), CPU time (the calling
// thread's with one thread, the process's with more) and wall time. Prints one line per layer
// and the geometric mean of Weft's speed (oneDNN time / Weft time) over the layers, and the
// network's total (each layer times its count); --out writes it all as JSON.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/ops/cpu/conv2d.h"
#include "compiler/ops/cpu/layout.h"
#include "runtime/tune/cpu_dispatch.h"
#include "runtime/tune/cpu_schedules.h"
#include "scripts/bench/cpu_bench_buffers.h"

#ifdef WEFT_HAVE_DNNL
#include <dnnl.hpp>
#endif

namespace {

using namespace weft;
namespace cpu = compiler::ops::cpu;
using compiler::ir::DType;
using compiler::ops::Conv2dNchw;
using nlohmann::json;

struct Layer {
  std::string name;
  Conv2dNchw s;
  int count = 1;  // how many times the network has it
};

// name,H,W,IC,OC,K,stride,pad[,count]
std::vector<Layer> read_layers(const std::string& path, int64_t batch) {
  std::ifstream in(path);
  if (!in) throw UserError("cannot read the layer table '" + path + "'");
  std::string line;
  std::getline(in, line);
  std::vector<Layer> out;
  int row = 1;
  while (std::getline(in, line)) {
    ++row;
    if (line.empty()) continue;
    std::stringstream ss(line);
    std::vector<std::string> f;
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f.size() != 8 && f.size() != 9)
      throw UserError(path + ": row " + std::to_string(row) + " has " +
                      std::to_string(f.size()) + " fields, not 8 or 9");
    Layer l;
    l.name = f[0];
    try {
      l.s.n = batch, l.s.h = std::stoll(f[1]), l.s.w = std::stoll(f[2]), l.s.c = std::stoll(f[3]);
      l.s.o = std::stoll(f[4]), l.s.kh = l.s.kw = std::stoll(f[5]);
      l.s.stride = std::stoll(f[6]), l.s.pad = std::stoll(f[7]);
      if (f.size() == 9) l.count = std::stoi(f[8]);
    } catch (const std::exception&) {
      throw UserError(path + ": row " + std::to_string(row) + " holds a field that is not a number");
    }
    out.push_back(l);
  }
  return out;
}

template <typename T>
std::vector<T> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, float>) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto& x : v) x = d(rng);
  } else {
    std::uniform_int_distribution<int> d(-100, 100);
    for (auto& x : v) x = static_cast<T>(d(rng));
  }
  return v;
}

// Timed rounds: about 0.3 s of work at oneDNN-like speed, 1..max_reps.
int reps_for(const Conv2dNchw& s, bool int8, int max_reps) {
  const double flops = 2.0 * static_cast<double>(s.n * s.o * s.oh() * s.ow()) *
                       static_cast<double>(s.c * s.kh * s.kw);
  const double est = flops / (int8 ? 4e11 : 1e11);
  return std::max(1, std::min(max_reps, static_cast<int>(0.3 / std::max(est, 1e-6))));
}

template <typename T, typename Acc>
json run_layer(const Layer& l, int threads, int max_reps, bool process_clock, bool cpu_clock,
               rt::cpu::ThreadPool& pool) {
  constexpr bool int8 = std::is_same_v<T, int8_t>;
  const std::string dtype = int8 ? "int8" : "float32";
  const Conv2dNchw& s = l.s;
  const auto x = random_values<T>(static_cast<size_t>(s.n * s.c * s.h * s.w), 5);
  const auto w = random_values<T>(static_cast<size_t>(s.o * s.c * s.kh * s.kw), 7);
  // Weft: the schedule of `weft run conv2d --target llvm`, its layouts.
  const auto d = rt::tune::dispatch_conv2d(s, dtype, threads);
  const bool record = rt::tune::tuned_conv2d(s, dtype).has_value();
  const cpu::ConvSchedule sch = rt::tune::conv2d_schedule_for(s, dtype, threads);
  rt::cpu::CpuKernel kernel(cpu::conv2d(s, int8 ? DType::kInt8 : DType::kFloat32, sch));
  const int64_t cb = cpu::conv_in_block(s.c), ob = cpu::kConvOutBlock;
  const int64_t nob = (s.o + ob - 1) / ob;
  std::vector<T> xb = cpu::to_blocked(x, s.n, s.c, s.h, s.w, cb);
  const std::vector<T> wb = cpu::pack_conv_weights(w, s.o, s.c, s.kh, s.kw, cb, ob);
  std::vector<int32_t> wpairs;
  void* wptr = const_cast<T*>(wb.data());
  if constexpr (int8) {
    wpairs = cpu::pack_int8_conv_weights(wb, sch.k_pack, nob, s.c / cb, s.kh, s.kw, cb, ob);
    wptr = wpairs.data();
  }
  std::vector<Acc> yb(static_cast<size_t>(s.n * nob * s.oh() * s.ow() * ob));
  std::vector<std::function<void()>> fs{[&] { kernel.run({xb.data(), wptr, yb.data()}, &pool); }};
  std::vector<Acc> lib(static_cast<size_t>(s.n * s.o * s.oh() * s.ow()));
#ifdef WEFT_HAVE_DNNL
  using namespace dnnl;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  const dt in_t = int8 ? dt::s8 : dt::f32, out_t = int8 ? dt::s32 : dt::f32;
  const memory::dims xd{s.n, s.c, s.h, s.w}, wd{s.o, s.c, s.kh, s.kw},
      yd{s.n, s.o, s.oh(), s.ow()};
  convolution_forward::desc desc(
      prop_kind::forward_inference, algorithm::convolution_direct, {xd, in_t, tag::any},
      {wd, in_t, tag::any}, {yd, out_t, tag::any}, {s.stride, s.stride}, {s.pad, s.pad},
      {s.pad, s.pad});
  convolution_forward::primitive_desc pd(desc, eng);
  memory x_plain({xd, in_t, tag::nchw}, eng, const_cast<T*>(x.data()));
  memory w_plain({wd, in_t, tag::oihw}, eng, const_cast<T*>(w.data()));
  memory y_plain({yd, out_t, tag::nchw}, eng, lib.data());
  memory xm(pd.src_desc(), eng), wm(pd.weights_desc(), eng), ym(pd.dst_desc(), eng);
  reorder(x_plain, xm).execute(strm, x_plain, xm);
  reorder(w_plain, wm).execute(strm, w_plain, wm);
  strm.wait();
  convolution_forward prim(pd);
  fs.push_back([&] {
    prim.execute(strm, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, ym}});
    strm.wait();
  });
#else
  throw UserError("bench_cpu_resnet_conv was built without oneDNN (libdnnl-dev): nothing to compare");
#endif
  const bench::RaceTimes t = bench::race(fs, reps_for(s, int8, max_reps), process_clock);
#ifdef WEFT_HAVE_DNNL
  reorder(ym, y_plain).execute(strm, ym, y_plain);
  strm.wait();
#endif
  // Weft against the plain sum on 64 sampled outputs (int8 exactly), and against oneDNN
  // everywhere: oneDNN's int8 convolution without VNNI (ONEDNN_MAX_CPU_ISA=AVX2) multiplies with
  // vpmaddubsw, whose int16 sums can saturate, so there only the plain sum counts.
  const std::vector<Acc> y = cpu::from_blocked(yb, s.n, s.o, s.oh(), s.ow(), ob);
  const double tol = int8 ? 0 : 1e-4 * static_cast<double>(s.c * s.kh * s.kw);
  std::mt19937 rng(11);
  for (int q = 0; q < 64; ++q) {
    const int64_t n = rng() % s.n, o = rng() % s.o, r = rng() % s.oh(), c = rng() % s.ow();
    double ref = 0;
    for (int64_t ic = 0; ic < s.c; ++ic)
      for (int64_t dy = 0; dy < s.kh; ++dy)
        for (int64_t dx = 0; dx < s.kw; ++dx) {
          const int64_t iy = r * s.stride + dy - s.pad, ix = c * s.stride + dx - s.pad;
          if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
          ref += static_cast<double>(x[static_cast<size_t>(((n * s.c + ic) * s.h + iy) * s.w + ix)]) *
                 static_cast<double>(w[static_cast<size_t>(((o * s.c + ic) * s.kh + dy) * s.kw + dx)]);
        }
    const double got = y[static_cast<size_t>(((n * s.o + o) * s.oh() + r) * s.ow() + c)];
    if (std::abs(got - ref) > tol)
      throw InternalError(l.name + ": Weft's " + dtype + " conv2d is " + std::to_string(got) +
                          " where the plain sum is " + std::to_string(ref));
  }
  const double err = bench::max_difference(y.data(), lib.data(), y.size(), !int8);
  const std::vector<double>& tt = cpu_clock ? t.cpu : t.wall;
  return {{"layer", l.name},
          {"n", s.n}, {"c", s.c}, {"h", s.h}, {"w", s.w}, {"o", s.o}, {"k", s.kh},
          {"stride", s.stride}, {"pad", s.pad}, {"count", l.count},
          {"dtype", dtype},
          {"kernel", record ? "shipped record" : d ? d->kernel : "default schedule"},
          {"schedule", rt::tune::knobs_of(sch)},  // k_pack: 2 int16 pairs, 4 byte quads
          {"weft_ms", tt[0] * 1e3},
          {"onednn_ms", tt[1] * 1e3},
          {"weft_wall_ms", t.wall[0] * 1e3},
          {"onednn_wall_ms", t.wall[1] * 1e3},
          {"speed_vs_onednn", tt[1] / tt[0]},
          {"onednn_result_equal", err <= tol}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ResNet conv layers on the CPU backend (the dispatch table) against oneDNN"};
  std::string layers, dtype = "float32", out, isa, clock = "cpu";
  int64_t batch = 1;
  int threads = 1, reps = 5;
  app.add_option("--layers", layers, "layer table (name,H,W,IC,OC,K,stride,pad[,count])")
      ->required();
  app.add_option("--dtype", dtype, "float32 or int8")
      ->check(CLI::IsMember({"float32", "int8"}))
      ->capture_default_str();
  app.add_option("--batch", batch, "batch size")->check(CLI::Range(1, 64))->capture_default_str();
  app.add_option("--threads", threads, "Weft's threads (OMP_NUM_THREADS sets oneDNN's)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--reps", reps, "at most this many timed rounds per layer (median)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--cpu-isa", isa, "native or avx2 (Weft; set ONEDNN_MAX_CPU_ISA for oneDNN)");
  app.add_option("--clock", clock, "cpu (thread CPU time; process CPU time with threads) or wall")
      ->check(CLI::IsMember({"wall", "cpu"}))
      ->capture_default_str();
  app.add_option("--out", out, "JSON results");
  CLI11_PARSE(app, argc, argv);
  try {
    // oneDNN's OpenMP reads its thread count when the library loads: it must be set alike.
    const char* omp = std::getenv("OMP_NUM_THREADS");
    if (!omp || std::string(omp) != std::to_string(threads))
      throw UserError("set OMP_NUM_THREADS=" + std::to_string(threads) +
                      " (oneDNN's threads, as --threads sets Weft's; scripts/bench/"
                      "cpu_resnet_conv_bench.sh does)");
    const std::vector<Layer> ls = read_layers(layers, batch);
    std::ofstream f;
    if (!out.empty()) {
      f.open(out);
      if (!f) throw UserError("--out: cannot write '" + out + "'");
    }
    if (!isa.empty()) compiler::codegen::set_cpu_isa(isa);
    rt::cpu::ThreadPool pool(threads);
    const std::string host = compiler::codegen::host_cpu_description();
    const bool cpu_clock = clock == "cpu";
    std::printf("# %s, %s batch %lld, %d thread(s), %s clock, host kind %s\n", host.c_str(),
                dtype.c_str(), static_cast<long long>(batch), threads,
                cpu_clock ? (threads > 1 ? "process CPU" : "thread CPU") : "wall",
                rt::tune::cpu_host_target().config.c_str());
    json rows = json::array();
    double log_sum = 0, weft_total = 0, lib_total = 0, worst = 1e9;
    for (const Layer& l : ls) {
      json r = dtype == "int8"
                   ? run_layer<int8_t, int32_t>(l, threads, reps, threads > 1, cpu_clock, pool)
                   : run_layer<float, float>(l, threads, reps, threads > 1, cpu_clock, pool);
      const double sp = r["speed_vs_onednn"].get<double>();
      log_sum += std::log(sp);
      worst = std::min(worst, sp);
      weft_total += l.count * r["weft_ms"].get<double>();
      lib_total += l.count * r["onednn_ms"].get<double>();
      std::printf("%-6s %4lld->%-4lld %3lldx%-3lld k%lld s%lld x%d  %-16s weft %9.3f ms  oneDNN "
                  "%9.3f ms  %.2fx\n",
                  l.name.c_str(), static_cast<long long>(l.s.c), static_cast<long long>(l.s.o),
                  static_cast<long long>(l.s.h), static_cast<long long>(l.s.w),
                  static_cast<long long>(l.s.kh), static_cast<long long>(l.s.stride), l.count,
                  r["kernel"].get<std::string>().c_str(), r["weft_ms"].get<double>(),
                  r["onednn_ms"].get<double>(), sp);
      std::fflush(stdout);
      rows.push_back(r);
    }
    const double geo = std::exp(log_sum / std::max<size_t>(ls.size(), 1));
    std::printf("# geometric mean %.3fx oneDNN's speed (minimum %.3fx); the network's convolutions"
                " (each layer x its count): %.3fx\n",
                geo, worst, lib_total / weft_total);
    if (f.is_open())
      f << json{{"cpu", host},
                {"host_kind", rt::tune::cpu_host_target().config},
                {"layers", layers},
                {"dtype", dtype},
                {"batch", batch},
                {"threads", threads},
                {"clock", cpu_clock ? (threads > 1 ? "process cpu" : "thread cpu") : "wall"},
                {"geomean_speed_vs_onednn", geo},
                {"min_speed_vs_onednn", worst},
                {"network_speed_vs_onednn", lib_total / weft_total},
                {"rows", rows}}
               .dump(1)
        << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cpu_resnet_conv: %s\n", e.what());
    return 1;
  }
  return 0;
}
