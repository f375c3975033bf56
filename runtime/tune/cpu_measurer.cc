// The CPU host measurer: inputs and the reference made once, then per candidate a JIT
// compile, one checked run, a warm-up and the median of timed runs on one thread.
#include "runtime/tune/cpu_measurer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"
#include "runtime/cpu/layout.h"
#include "runtime/cpu/reference.h"

namespace weft::rt::tune {

using Clock = std::chrono::steady_clock;

// Inputs in the kernel's layouts, the output buffer, and the reference in the plain layout.
struct CpuMeasurer::Data {
  bool int8 = false, conv = false;
  cpu::Conv2dShape shape;
  int64_t m = 0, n = 0, k = 0;
  std::vector<float> xf, wf;
  std::vector<int8_t> xi, wi;
  std::vector<int32_t> w_pairs;
  size_t out_elems = 0;
  std::vector<double> ref;
  double terms = 1;
};

namespace {

int64_t get(const compiler::tune::Workload& w, const char* n) {
  if (!w.shape.contains(n) || !w.shape[n].is_number_integer())
    throw UserError("CPU measurer: workload " + w.key() + " has no integer '" + n + "'");
  return w.shape[n].get<int64_t>();
}

template <typename T>
std::vector<T> random_values(int64_t n, std::mt19937& rng) {
  std::vector<T> v(static_cast<size_t>(n));
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (T& x : v) x = d(rng);
  } else {
    for (T& x : v) x = static_cast<T>(rng());
  }
  return v;
}

template <typename In, typename Acc>
void make(CpuMeasurer::Data& d, std::vector<In>& xs, std::vector<In>& ws) {
  std::mt19937 rng(7);
  if (!d.conv) {
    xs = random_values<In>(d.m * d.k, rng);
    ws = random_values<In>(d.n * d.k, rng);
    auto r = cpu::dense_reference<In, Acc>(xs, ws, d.m, d.n, d.k);
    d.ref.assign(r.begin(), r.end());
    d.out_elems = static_cast<size_t>(d.m * d.n);
    d.terms = static_cast<double>(d.k);
    return;
  }
  const cpu::Conv2dShape& s = d.shape;
  auto x = random_values<In>(s.n * s.c * s.h * s.w, rng);
  auto w = random_values<In>(s.o * s.c * s.kh * s.kw, rng);
  auto r = cpu::conv2d_reference<In, Acc>(x, w, s);
  d.ref.assign(r.begin(), r.end());
  const int64_t cb = cpu::conv_in_block(s.c), nob = (s.o + cpu::kConvOutBlock - 1) / cpu::kConvOutBlock;
  xs = cpu::to_blocked(x, s.n, s.c, s.h, s.w, cb);
  ws = cpu::pack_conv_weights(w, s.o, s.c, s.kh, s.kw, cb, cpu::kConvOutBlock);
  if constexpr (std::is_same_v<In, int8_t>)
    d.w_pairs = cpu::pair_conv_weights(ws, nob, s.c / cb, s.kh, s.kw, cb, cpu::kConvOutBlock);
  d.out_elems = static_cast<size_t>(s.n * nob * s.oh() * s.ow() * cpu::kConvOutBlock);
  d.terms = static_cast<double>(s.c * s.kh * s.kw);
}

// The number of outputs that differ from the reference.
template <typename Out>
int64_t mismatches(const CpuMeasurer::Data& d, const std::vector<Out>& out) {
  std::vector<Out> plain = out;
  if (d.conv) {
    const cpu::Conv2dShape& s = d.shape;
    plain = cpu::from_blocked(out, s.n, s.o, s.oh(), s.ow(), cpu::kConvOutBlock);
  }
  int64_t bad = 0;
  for (size_t i = 0; i < d.ref.size(); ++i) {
    const double e = std::fabs(static_cast<double>(plain[i]) - d.ref[i]);
    if (std::is_floating_point_v<Out> ? e > 1e-5 * d.terms + 1e-6 : e != 0) ++bad;
  }
  return bad;
}

}  // namespace

CpuMeasurer::CpuMeasurer(compiler::tune::Workload w, int repeats)
    : workload_(std::move(w)), repeats_(std::max(1, repeats)) {}
CpuMeasurer::~CpuMeasurer() = default;

const CpuMeasurer::Data& CpuMeasurer::data() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (data_) return *data_;
  auto d = std::make_unique<Data>();
  d->conv = workload_.op == "conv2d";
  const std::string dtype = workload_.shape.value("dtype", std::string("float32"));
  d->int8 = cpu::parse_dtype(dtype, "workload dtype") == cpu::DType::kInt8;
  if (d->conv) {
    d->shape = {get(workload_, "n"), get(workload_, "ic"), get(workload_, "h"),
                get(workload_, "w"), get(workload_, "oc"), get(workload_, "k"),
                get(workload_, "k"), get(workload_, "stride"), get(workload_, "pad")};
  } else {
    d->m = get(workload_, "m");
    d->n = get(workload_, "n");
    d->k = get(workload_, "k");
  }
  if (d->int8) {
    make<int8_t, int32_t>(*d, d->xi, d->wi);
  } else {
    make<float, double>(*d, d->xf, d->wf);
  }
  data_ = std::move(d);
  return *data_;
}

MeasureResult CpuMeasurer::measure(const compiler::tune::Candidate& c, double stop_above) const {
  MeasureResult r;
  const auto t_start = Clock::now();
  const CpuOpCandidate* body = c.as<CpuOpCandidate>();
  if (!c.ok() || !body) {
    r.error = c.error.empty() ? "not a CPU candidate" : c.error;
    return r;
  }
  try {
    const Data& d = data();
    std::lock_guard<std::mutex> lock(run_mu_);
    cpu::CpuKernel kernel(body->op);
    std::vector<float> yf;
    std::vector<int32_t> yi;
    std::vector<void*> bufs;
    if (d.int8) {
      yi.assign(d.out_elems, 0);
      void* w = d.w_pairs.empty() ? const_cast<int8_t*>(d.wi.data())
                                  : static_cast<void*>(const_cast<int32_t*>(d.w_pairs.data()));
      bufs = {const_cast<int8_t*>(d.xi.data()), w, yi.data()};
    } else {
      yf.assign(d.out_elems, 0.0f);
      bufs = {const_cast<float*>(d.xf.data()), const_cast<float*>(d.wf.data()), yf.data()};
    }
    cpu::ThreadPool pool(1);
    kernel.run(bufs, &pool);  // the checked run (and warm-up)
    const int64_t bad = d.int8 ? mismatches(d, yi) : mismatches(d, yf);
    if (bad > 0) {
      r.error = "wrong result: " + std::to_string(bad) + " outputs differ from the reference";
      return r;
    }
    std::vector<double> times;
    for (int i = 0; i < repeats_; ++i) {
      const auto t0 = Clock::now();
      kernel.run(bufs, &pool);
      times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      if (i == 0 && times[0] > stop_above) {
        r.value = times[0];
        r.stopped_early = true;
        break;
      }
    }
    std::sort(times.begin(), times.end());
    if (!r.stopped_early) r.value = times[times.size() / 2];
    r.details = {{"min_seconds", times.front()}, {"runs", times.size()},
                 {"gops", body->ops / r.value * 1e-9}};
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  r.wall_s = std::chrono::duration<double>(Clock::now() - t_start).count();
  return r;
}

}  // namespace weft::rt::tune
