// The CPU backend against OpenBLAS and oneDNN, measured side by side in one process: SGEMM
// (C = A W^T, the dense operator's layout; Weft's time includes packing W each call, as the
// libraries pack internally), int8 GEMM against oneDNN's s8s8s32 GEMM, and the ResNet-18
// convolutions C1-C12 in fp32 against oneDNN's convolution with its preferred (blocked)
// layouts. Each case runs the contenders interleaved, `--reps` times after a warm-up, and
// reports medians and the ratio Weft time / baseline time. Thread counts: --threads for Weft;
// the libraries read OPENBLAS_NUM_THREADS / OMP_NUM_THREADS (scripts/bench/cpu_bench.sh sets
// them to the same value). Output: a Markdown table on stdout.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hardware/isa/errors.h"
#include "compiler/ops/cpu/conv2d.h"
#include "compiler/ops/cpu/dense.h"
#include "compiler/ops/cpu/layout.h"
#include "compiler/ops/reference.h"
#include "runtime/cpu/executor.h"
#include "runtime/tune/cpu_schedules.h"
#include "scripts/bench/bench_clock.h"

#ifdef WEFT_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef WEFT_HAVE_DNNL
#include <dnnl.h>

#include <dnnl.hpp>
#endif

namespace {

using namespace weft::rt::cpu;
using namespace weft::compiler::ops::cpu;
using weft::compiler::ops::Conv2dNchw;
using weft::compiler::ops::conv2d_reference;
using weft::compiler::ops::dense_reference;
using weft::compiler::ir::DType;

bool g_cpu_clock = false;  // --clock cpu: the calling thread's CPU time instead of wall time

double seconds(const std::function<void()>& f) {
  const weft::bench::Stopwatch sw;
  f();
  return g_cpu_clock ? sw.cpu() : sw.wall();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Times the contenders interleaved; returns the median seconds of each.
std::vector<double> race(const std::vector<std::function<void()>>& fs, int reps) {
  for (const auto& f : fs) f();  // warm-up (and first-touch of buffers)
  std::vector<std::vector<double>> t(fs.size());
  for (int r = 0; r < reps; ++r)
    for (size_t i = 0; i < fs.size(); ++i) t[i].push_back(seconds(fs[i]));
  std::vector<double> out;
  for (auto& v : t) out.push_back(median(v));
  return out;
}

template <typename T>
std::vector<T> random_vector(size_t n, std::mt19937& rng) {
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (T& x : v) x = d(rng);
  } else {
    std::uniform_int_distribution<int> d(-100, 100);
    for (T& x : v) x = static_cast<T>(d(rng));
  }
  return v;
}

struct Row {
  Row(std::string n, double o, double w) : name(std::move(n)), ops(o), weft_s(w) {}
  std::string name;
  double ops, weft_s;
  double tuned_s = 0;  // with --records: the tuned schedule's median (weft_s: the default's)
  std::string tuned;   // the tuned schedule's knobs
  std::vector<std::pair<std::string, double>> baselines;  // name, seconds (0: not run)
};

bool g_tuned_mode = false;
std::string g_records;  // --records: a database, or "default" for the shipped records
std::string g_knobs;    // --knobs: the dense schedule to race as "tuned" (JSON knobs)

// The tuned dense schedule: --knobs when given, else the best record, else the default.
std::optional<weft::rt::tune::TunedDense> tuned_dense_for(int64_t n, const char* dtype) {
  if (!g_knobs.empty()) {
    return weft::rt::tune::TunedDense{
        weft::rt::tune::dense_schedule_of(nlohmann::json::parse(g_knobs)), "--knobs", 0};
  }
  return weft::rt::tune::tuned_dense(n, n, n, dtype, g_records == "default" ? "" : g_records);
}

void print_tuned_rows(const std::vector<Row>& rows, int threads) {
  std::printf(
      "\n| case (%d thread%s) | default ms | tuned ms | oneDNN ms | default/oneDNN | "
      "tuned/oneDNN | tuned GFLOP/s | tuned schedule |\n",
      threads, threads == 1 ? "" : "s");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (const Row& r : rows) {
    double dnnl = 0;
    for (auto& [n, s] : r.baselines)
      if (n == "onednn") dnnl = s;
    const double t = r.tuned_s > 0 ? r.tuned_s : r.weft_s;
    std::printf("| %s | %.3f | %.3f | %.3f | %.2f | %.2f | %.1f | %s |\n", r.name.c_str(),
                r.weft_s * 1e3, t * 1e3, dnnl * 1e3, dnnl > 0 ? r.weft_s / dnnl : 0,
                dnnl > 0 ? t / dnnl : 0, r.ops / t * 1e-9, r.tuned.c_str());
  }
  std::fflush(stdout);
}

void print_rows(const std::vector<Row>& rows, int threads) {
  if (g_tuned_mode) return print_tuned_rows(rows, threads);
  std::printf(
      "\n| case (%d thread%s) | Weft ms | Weft GFLOP/s | OpenBLAS ms | oneDNN ms | Weft/OpenBLAS | "
      "Weft/oneDNN |\n",
      threads, threads == 1 ? "" : "s");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    double blas = 0, dnnl = 0;
    for (auto& [n, s] : r.baselines) (n == "openblas" ? blas : dnnl) = s;
    auto ms = [](double s) {
      char b[32];
      if (s <= 0) return std::string("-");
      std::snprintf(b, sizeof b, "%.3f", s * 1e3);
      return std::string(b);
    };
    auto ratio = [&](double s) {
      char b[32];
      if (s <= 0) return std::string("-");
      std::snprintf(b, sizeof b, "%.2f", r.weft_s / s);
      return std::string(b);
    };
    std::printf("| %s | %s | %.1f | %s | %s | %s | %s |\n", r.name.c_str(), ms(r.weft_s).c_str(),
                r.ops / r.weft_s * 1e-9, ms(blas).c_str(), ms(dnnl).c_str(), ratio(blas).c_str(),
                ratio(dnnl).c_str());
  }
  std::fflush(stdout);
}

DenseSchedule g_dense;
ConvSchedule g_conv;

Row sgemm(int64_t n, int threads, int reps, ThreadPool& pool) {
  std::mt19937 rng(1);
  auto a = random_vector<float>(static_cast<size_t>(n * n), rng);
  auto w = random_vector<float>(static_cast<size_t>(n * n), rng);
  std::vector<float> c1(static_cast<size_t>(n * n)), c2(c1.size()), c3(c1.size());
  CpuKernel k(dense(n, n, n, DType::kFloat32, g_dense));
  std::vector<std::function<void()>> fs{[&] { k.run({a.data(), w.data(), c1.data()}, &pool); }};
  std::unique_ptr<CpuKernel> kt;
  std::string tuned;
  std::vector<float> c4(c1.size());
  if (g_tuned_mode) {
    auto ts = tuned_dense_for(n, "float32");
    DenseSchedule sch = ts ? ts->schedule : DenseSchedule{};
    tuned = ts ? weft::rt::tune::knobs_of(sch).dump() : "(no record: default)";
    kt = std::make_unique<CpuKernel>(dense(n, n, n, DType::kFloat32, sch));
  }
  std::vector<std::string> names;
#ifdef WEFT_HAVE_OPENBLAS
  names.push_back("openblas");
  fs.push_back([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(n), static_cast<int>(n),
                static_cast<int>(n), 1.0f, a.data(), static_cast<int>(n), w.data(),
                static_cast<int>(n), 0.0f, c2.data(), static_cast<int>(n));
  });
#endif
#ifdef WEFT_HAVE_DNNL
  names.push_back("onednn");
  fs.push_back(
      [&] { dnnl_sgemm('N', 'T', n, n, n, 1.0f, a.data(), n, w.data(), n, 0.0f, c3.data(), n); });
#endif
  if (kt) fs.push_back([&] { kt->run({a.data(), w.data(), c4.data()}, &pool); });
  const auto t = race(fs, reps);
  if (kt && c4 != c1 && c4.size() > 0) {
    double e = 0;
    for (size_t i = 0; i < c1.size(); ++i) e = std::max(e, static_cast<double>(std::abs(c1[i] - c4[i])));
    if (e > 1e-3 * static_cast<double>(n)) throw weft::InternalError("tuned SGEMM differs");
  }
  // The results must agree (a spot check against the double-precision reference).
  for (int s = 0; s < 16; ++s) {
    const size_t i = static_cast<size_t>(s) * 7919 % static_cast<size_t>(n),
                 j = static_cast<size_t>(s) * 104729 % static_cast<size_t>(n);
    double ref = 0;
    for (int64_t q = 0; q < n; ++q)
      ref += static_cast<double>(a[i * static_cast<size_t>(n) + static_cast<size_t>(q)]) *
             w[j * static_cast<size_t>(n) + static_cast<size_t>(q)];
    if (std::abs(ref - c1[i * static_cast<size_t>(n) + j]) > 1e-3 * static_cast<double>(n))
      throw weft::InternalError("Weft SGEMM result is wrong");
  }
  Row r{"SGEMM " + std::to_string(n) + "^3",
        2.0 * static_cast<double>(n * n) * static_cast<double>(n),
        t[0]};
  for (size_t i = 0; i < names.size(); ++i) r.baselines.push_back({names[i], t[i + 1]});
  if (kt) {
    r.tuned_s = t.back();
    r.tuned = tuned;
  }
  return r;
}

Row igemm(int64_t n, int threads, int reps, ThreadPool& pool) {
  std::mt19937 rng(2);
  auto a = random_vector<int8_t>(static_cast<size_t>(n * n), rng);
  auto w = random_vector<int8_t>(static_cast<size_t>(n * n), rng);
  std::vector<int32_t> c1(static_cast<size_t>(n * n)), c3(c1.size());
  CpuKernel k(dense(n, n, n, DType::kInt8, g_dense));
  std::vector<std::function<void()>> fs{[&] { k.run({a.data(), w.data(), c1.data()}, &pool); }};
  std::unique_ptr<CpuKernel> kt;
  std::string tuned;
  std::vector<int32_t> c4(c1.size());
  if (g_tuned_mode) {
    auto ts = tuned_dense_for(n, "int8");
    DenseSchedule sch = ts ? ts->schedule : DenseSchedule{};
    tuned = ts ? weft::rt::tune::knobs_of(sch).dump() : "(no record: default)";
    kt = std::make_unique<CpuKernel>(dense(n, n, n, DType::kInt8, sch));
  }
  std::vector<std::string> names;
#ifdef WEFT_HAVE_DNNL
  names.push_back("onednn");
  fs.push_back([&] {
    const int32_t co = 0;
    dnnl_gemm_s8s8s32('N', 'T', 'F', n, n, n, 1.0f, a.data(), n, 0, w.data(), n, 0, 0.0f, c3.data(),
                      n, &co);
  });
#endif
  if (kt) fs.push_back([&] { kt->run({a.data(), w.data(), c4.data()}, &pool); });
  const auto t = race(fs, reps);
#ifdef WEFT_HAVE_DNNL
  if (c1 != c3) throw weft::InternalError("Weft int8 GEMM differs from oneDNN's");
#endif
  if (kt && c4 != c1) throw weft::InternalError("tuned int8 GEMM differs from the default's");
  Row r{"int8 GEMM " + std::to_string(n) + "^3 (GOP/s)",
        2.0 * static_cast<double>(n * n) * static_cast<double>(n),
        t[0]};
  for (size_t i = 0; i < names.size(); ++i) r.baselines.push_back({names[i], t[i + 1]});
  if (kt) {
    r.tuned_s = t.back();
    r.tuned = tuned;
  }
  return r;
}

// --race FILE: the dense schedules of FILE (one JSON knob set per line, as in a record) and
// oneDNN's GEMM, all interleaved in one process; one line per schedule: median ms and the
// ratio to oneDNN's median. On a shared machine this is the fair way to compare schedules:
// every contender sees the same load.
void race_dense(int64_t n, DType dt, const std::string& file, int reps, ThreadPool& pool) {
  std::ifstream in(file);
  if (!in) throw weft::UserError("--race: cannot read '" + file + "'");
  std::vector<DenseSchedule> schs;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    schs.push_back(weft::rt::tune::dense_schedule_of(nlohmann::json::parse(line)));
    lines.push_back(line);
  }
  std::mt19937 rng(5);
  const size_t nn = static_cast<size_t>(n * n);
  std::vector<std::unique_ptr<CpuKernel>> ks;
  std::vector<std::function<void()>> fs;
  std::vector<std::vector<float>> cf(schs.size() + 1);
  std::vector<std::vector<int32_t>> ci(schs.size() + 1);
  auto af = random_vector<float>(nn, rng), wf = random_vector<float>(nn, rng);
  auto ai = random_vector<int8_t>(nn, rng), wi = random_vector<int8_t>(nn, rng);
  for (size_t i = 0; i < schs.size(); ++i) {
    ks.push_back(std::make_unique<CpuKernel>(dense(n, n, n, dt, schs[i])));
    CpuKernel* k = ks.back().get();
    if (dt == DType::kFloat32) {
      cf[i].resize(nn);
      fs.push_back([&, k, i] { k->run({af.data(), wf.data(), cf[i].data()}, &pool); });
    } else {
      ci[i].resize(nn);
      fs.push_back([&, k, i] { k->run({ai.data(), wi.data(), ci[i].data()}, &pool); });
    }
  }
  cf.back().resize(nn);
  ci.back().resize(nn);
#ifdef WEFT_HAVE_DNNL
  if (dt == DType::kFloat32) {
    fs.push_back([&] {
      dnnl_sgemm('N', 'T', n, n, n, 1.0f, af.data(), n, wf.data(), n, 0.0f, cf.back().data(), n);
    });
  } else {
    fs.push_back([&] {
      const int32_t co = 0;
      dnnl_gemm_s8s8s32('N', 'T', 'F', n, n, n, 1.0f, ai.data(), n, 0, wi.data(), n, 0, 0.0f,
                        ci.back().data(), n, &co);
    });
  }
#endif
  const auto t = race(fs, reps);
  const double dnnl = t.size() > schs.size() ? t.back() : 0;
  std::printf("# %s %lld^3, %d reps, oneDNN %.3f ms\n",
              dt == DType::kFloat32 ? "SGEMM" : "int8 GEMM", static_cast<long long>(n), reps,
              dnnl * 1e3);
  for (size_t i = 0; i < schs.size(); ++i) {
    if (dnnl > 0) {
      bool same = true;
      for (size_t e = 0; e < nn && same; e += 97) {
        same = dt == DType::kFloat32
                   ? std::abs(cf[i][e] - cf.back()[e]) <= 1e-3f * static_cast<float>(n)
                   : ci[i][e] == ci.back()[e];
      }
      if (!same) throw weft::InternalError("--race: schedule " + lines[i] + " differs from oneDNN");
    }
    std::printf("%.3f ms  %.3f x oneDNN time  %s\n", t[i] * 1e3, dnnl > 0 ? t[i] / dnnl : 0,
                lines[i].c_str());
  }
  std::fflush(stdout);
}

struct Layer {
  std::string name;
  Conv2dNchw s;
};

std::vector<Layer> read_layers(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw weft::UserError("cannot read the layer table '" + path + "'");
  std::string line;
  std::getline(in, line);  // header: name,H,W,IC,OC,K,stride,pad
  std::vector<Layer> out;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    std::string f[8];
    for (auto& x : f) std::getline(ss, x, ',');
    Conv2dNchw s;
    s.n = 1;
    s.h = std::stoll(f[1]);
    s.w = std::stoll(f[2]);
    s.c = std::stoll(f[3]);
    s.o = std::stoll(f[4]);
    s.kh = s.kw = std::stoll(f[5]);
    s.stride = std::stoll(f[6]);
    s.pad = std::stoll(f[7]);
    out.push_back({f[0], s});
  }
  return out;
}

Row conv(const Layer& l, int threads, int reps, ThreadPool& pool) {
  const Conv2dNchw& s = l.s;
  std::mt19937 rng(3);
  auto x = random_vector<float>(static_cast<size_t>(s.n * s.c * s.h * s.w), rng);
  auto w = random_vector<float>(static_cast<size_t>(s.o * s.c * s.kh * s.kw), rng);
  const int64_t cb = conv_in_block(s.c);
  auto xb = to_blocked(x, s.n, s.c, s.h, s.w, cb);
  auto wb = pack_conv_weights(w, s.o, s.c, s.kh, s.kw, cb, kConvOutBlock);
  const int64_t nob = (s.o + kConvOutBlock - 1) / kConvOutBlock;
  std::vector<float> yb(static_cast<size_t>(s.n * nob * s.oh() * s.ow() * kConvOutBlock));
  CpuKernel k(conv2d(s, DType::kFloat32, g_conv));
  std::vector<std::function<void()>> fs{[&] { k.run({xb.data(), wb.data(), yb.data()}, &pool); }};
  std::unique_ptr<CpuKernel> kt;
  std::string tuned;
  std::vector<float> yt(yb.size());
  if (g_tuned_mode) {
    auto ts = weft::rt::tune::tuned_conv2d(s, "float32", g_records == "default" ? "" : g_records);
    ConvSchedule sch = ts ? ts->schedule : ConvSchedule{};
    tuned = ts ? weft::rt::tune::knobs_of(sch).dump() : "(no record: default)";
    kt = std::make_unique<CpuKernel>(conv2d(s, DType::kFloat32, sch));
  }
  std::vector<std::string> names;
#ifdef WEFT_HAVE_DNNL
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  using tag = memory::format_tag;
  using dt = memory::data_type;
  memory::desc src_any({s.n, s.c, s.h, s.w}, dt::f32, tag::any);
  memory::desc wei_any({s.o, s.c, s.kh, s.kw}, dt::f32, tag::any);
  memory::desc dst_any({s.n, s.o, s.oh(), s.ow()}, dt::f32, tag::any);
  convolution_forward::desc d(prop_kind::forward_inference, algorithm::convolution_direct, src_any,
                              wei_any, dst_any, {s.stride, s.stride}, {s.pad, s.pad},
                              {s.pad, s.pad});
  convolution_forward::primitive_desc pd(d, eng);
  // Inputs reordered once into the primitive's layouts (outside the timing, like Weft's).
  memory src_plain({{s.n, s.c, s.h, s.w}, dt::f32, tag::nchw}, eng, x.data());
  memory wei_plain({{s.o, s.c, s.kh, s.kw}, dt::f32, tag::oihw}, eng, w.data());
  memory src(pd.src_desc(), eng), wei(pd.weights_desc(), eng), dst(pd.dst_desc(), eng);
  reorder(src_plain, src).execute(strm, src_plain, src);
  reorder(wei_plain, wei).execute(strm, wei_plain, wei);
  strm.wait();
  convolution_forward prim(pd);
  names.push_back("onednn");
  fs.push_back([&] {
    prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    strm.wait();
  });
#endif
  if (kt) fs.push_back([&] { kt->run({xb.data(), wb.data(), yt.data()}, &pool); });
  const auto t = race(fs, reps);
  if (kt) {
    double e = 0;
    for (size_t i = 0; i < yb.size(); ++i) e = std::max(e, static_cast<double>(std::abs(yb[i] - yt[i])));
    if (e > 1e-3 * static_cast<double>(s.c * s.kh * s.kw))
      throw weft::InternalError("tuned conv2d differs from the default's in " + l.name);
  }
  // Spot check of Weft against the reference on a few outputs.
  auto y = from_blocked(yb, s.n, s.o, s.oh(), s.ow(), kConvOutBlock);
  for (int q = 0; q < 8; ++q) {
    const int64_t o = q * 37 % s.o, r = q * 5 % s.oh(), c = q * 11 % s.ow();
    double ref = 0;
    for (int64_t ic = 0; ic < s.c; ++ic)
      for (int64_t dy = 0; dy < s.kh; ++dy)
        for (int64_t dx = 0; dx < s.kw; ++dx) {
          const int64_t iy = r * s.stride + dy - s.pad, ix = c * s.stride + dx - s.pad;
          if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
          ref += static_cast<double>(x[static_cast<size_t>((ic * s.h + iy) * s.w + ix)]) *
                 w[static_cast<size_t>(((o * s.c + ic) * s.kh + dy) * s.kw + dx)];
        }
    if (std::abs(ref - y[static_cast<size_t>((o * s.oh() + r) * s.ow() + c)]) >
        1e-3 * static_cast<double>(s.c * s.kh * s.kw))
      throw weft::InternalError("Weft conv2d result is wrong in " + l.name);
  }
  Row row{l.name + " " + std::to_string(s.c) + "->" + std::to_string(s.o) + " " +
              std::to_string(s.h) + "x" + std::to_string(s.w) + " k" + std::to_string(s.kh) + " s" +
              std::to_string(s.stride),
          2.0 * static_cast<double>(s.n * s.o * s.oh() * s.ow()) *
              static_cast<double>(s.c * s.kh * s.kw),
          t[0]};
  for (size_t i = 0; i < names.size(); ++i) row.baselines.push_back({names[i], t[i + 1]});
  if (kt) {
    row.tuned_s = t.back();
    row.tuned = tuned;
  }
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CPU backend benchmark against OpenBLAS and oneDNN"};
  int threads = 1, reps = 7;
  std::string what = "all", layers_csv;
  std::vector<int64_t> sizes{1024, 2048};
  app.add_option("--threads", threads, "Weft threads (set the libraries' with the env)");
  app.add_option("--reps", reps, "timed repetitions per case (median reported)");
  app.add_option("--what", what, "sgemm | igemm | conv | all");
  app.add_option("--sizes", sizes, "GEMM sizes");
  app.add_option("--layers", layers_csv, "ResNet-18 layer table (scripts/bench/resnet18_conv.csv)");
  app.add_option("--mr", g_dense.rows, "dense register tile rows");
  app.add_option("--nr", g_dense.cols, "dense register tile columns");
  app.add_option("--knobs", g_knobs,
                 "race this dense schedule (JSON knobs, as in a record) as the tuned one; the "
                 "default column takes the --mr/--nr/... flags");
  app.add_option("--records", g_records,
                 "tuning records (a database, or 'default' for the shipped ones): race the tuned "
                 "schedules against the default ones and oneDNN");
  app.add_option("--lanes", g_dense.lanes, "dense vector lanes per op");
  app.add_option("--kun", g_dense.k_unroll, "dense k unroll");
  app.add_option("--kpack", g_dense.k_pack, "int8 dense: 2 (pairs) or 4 (quads)");
  app.add_option("--pack-a", g_dense.pack_a, "dense pack A");
  app.add_option("--mb", g_dense.row_block, "dense row block");
  app.add_option("--pack-w", g_dense.pack_w, "dense W packing: 0 gathered columns, 1 rows");
  app.add_option("--kb", g_dense.k_block, "dense K block (reduction steps; 0: none)");
  app.add_option("--conv-ow", g_conv.ow, "conv register tile columns");
  app.add_option("--conv-ocb", g_conv.oc_blocks, "conv oc blocks per tile");
  app.add_option("--conv-order", g_conv.reduce_order, "conv reduce order");
  app.add_option("--conv-ciu", g_conv.ci_unroll, "conv ci unroll");
  app.add_option("--conv-rows-outer", g_conv.rows_outer, "conv rows outer");
  std::string clock = "wall", race_file;
  app.add_option("--race", race_file,
                 "race the dense schedules of this file (one JSON knob set per line) against "
                 "oneDNN in one process (--what sgemm|igemm, the first of --sizes)");
  app.add_option("--clock", clock,
                 "wall (default) or cpu: the calling thread's CPU time, which a shared machine's "
                 "other processes do not inflate (one thread only: Weft and oneDNN both run on "
                 "the calling thread)")
      ->check(CLI::IsMember({"wall", "cpu"}));
  CLI11_PARSE(app, argc, argv);
  g_cpu_clock = clock == "cpu";
  if (g_cpu_clock && threads != 1) {
    std::fprintf(stderr, "cpu_bench: --clock cpu needs --threads 1 (it times the calling thread)\n");
    return 1;
  }
  g_tuned_mode = !g_records.empty() || !g_knobs.empty();
  try {
    ThreadPool pool(threads);
    if (!race_file.empty()) {
      if (what != "sgemm" && what != "igemm")
        throw weft::UserError("--race needs --what sgemm or --what igemm");
      race_dense(sizes.at(0), what == "sgemm" ? DType::kFloat32 : DType::kInt8, race_file, reps,
                 pool);
      return 0;
    }
    std::fprintf(stderr, "host CPU: %s\n",
                 weft::compiler::codegen::host_cpu_description().c_str());
    std::vector<Row> rows;
    double log_sum = 0, log_tuned = 0;
    int log_n = 0;
    if (what == "all" || what == "sgemm") {
      for (int64_t n : sizes)
        rows.push_back(sgemm(n, threads, n >= 2048 ? std::max(3, reps / 2) : reps, pool));
    }
    if (what == "all" || what == "igemm") rows.push_back(igemm(1024, threads, reps, pool));
    if (what == "all" || what == "conv") {
      if (layers_csv.empty()) throw weft::UserError("--layers is needed for the conv cases");
      for (const Layer& l : read_layers(layers_csv)) {
        rows.push_back(conv(l, threads, reps, pool));
        for (auto& [n, s] : rows.back().baselines) {
          if (n == "onednn" && s > 0) {
            log_sum += std::log(rows.back().weft_s / s);
            if (rows.back().tuned_s > 0) log_tuned += std::log(rows.back().tuned_s / s);
            ++log_n;
          }
        }
      }
    }
    print_rows(rows, threads);
    if (log_n) {
      std::printf("\nResNet-18 C1-C12 fp32 conv2d, geometric mean of Weft/oneDNN time: %.2f\n",
                  std::exp(log_sum / log_n));
      if (g_tuned_mode)
        std::printf("ResNet-18 C1-C12 fp32 conv2d, geometric mean of tuned Weft/oneDNN time: %.2f\n",
                    std::exp(log_tuned / log_n));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpu_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
