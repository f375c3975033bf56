// The CPU host measurer: the workload as a request of the host CPU target on one thread
// (runtime/cpu/cpu_target.h), its inputs packed into the operator's layouts and its reference
// (runtime/target/run_op.h) made once, then per candidate a JIT compile, one checked run, a
// warm-up and the median of timed runs.
#include "runtime/tune/cpu_measurer.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "compiler/ops/op_args.h"
#include "hardware/isa/errors.h"
#include "runtime/cpu/cpu_target.h"
#include "runtime/target/host_values.h"
#include "runtime/target/run_op.h"

namespace weft::rt::tune {

using Clock = std::chrono::steady_clock;

struct CpuMeasurer::Data {
  cpu::CpuTarget target{cpu::CpuTarget::Options{}};  // one thread
  OpRequest request;
  TargetOp layouts;           // pack and unpack, for the operator of any schedule
  std::vector<uint8_t> x, w;  // the inputs, packed
  std::vector<double> ref;
  compiler::ir::DType in = compiler::ir::DType::kFloat32;
  double terms = 1;
};

namespace {

int64_t get(const compiler::tune::Workload& w, const char* n) {
  if (!w.shape.contains(n) || !w.shape[n].is_number_integer())
    throw UserError("CPU measurer: workload " + w.key() + " has no integer '" + n + "'");
  return w.shape[n].get<int64_t>();
}

}  // namespace

CpuMeasurer::CpuMeasurer(compiler::tune::Workload w, int repeats)
    : workload_(std::move(w)), repeats_(std::max(1, repeats)) {}
CpuMeasurer::~CpuMeasurer() = default;

const CpuMeasurer::Data& CpuMeasurer::data() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (data_) return *data_;
  auto d = std::make_unique<Data>();
  OpRequest& r = d->request;
  r.op = workload_.op == "conv2d" ? "conv2d" : "dense";
  r.dtype = workload_.shape.value("dtype", std::string("float32"));
  if (r.op == "conv2d") {
    r.conv = {get(workload_, "n"), get(workload_, "ic"),     get(workload_, "h"),
              get(workload_, "w"), get(workload_, "oc"),     get(workload_, "k"),
              get(workload_, "k"), get(workload_, "stride"), get(workload_, "pad")};
  } else {
    r.m = get(workload_, "m");
    r.n = get(workload_, "n");
    r.k = get(workload_, "k");
  }
  d->in = compiler::ops::parse_dtype(r.dtype, "workload dtype",
                                     {compiler::ir::DType::kFloat32, compiler::ir::DType::kInt8});
  d->layouts = cpu::CpuTarget::layouts(r);
  const OpShapes sh = shapes_of(r);
  std::mt19937 rng(7);
  const std::vector<double> x = random_values(elements_of(sh.x), d->in, rng);
  const std::vector<double> w = random_values(elements_of(sh.w), d->in, rng);
  d->ref = reference_output(r, x, w, d->in);
  d->x = d->layouts.pack(0, x);
  d->w = d->layouts.pack(1, w);
  d->terms = sh.terms;
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
    TargetOp op = d.layouts;
    op.op = body->op;
    const std::unique_ptr<TargetKernel> kernel = d.target.compile(op);
    kernel->write(0, d.x);
    kernel->write(1, d.w);
    kernel->run();  // the checked run (and warm-up)
    const Mismatches bad =
        compare_output(op.unpack(kernel->read(op.op.num_inputs)), d.ref, d.terms, d.in);
    if (bad.count > 0) {
      r.error = "wrong result: " + std::to_string(bad.count) + " outputs differ from the reference";
      return r;
    }
    std::vector<double> times;
    for (int i = 0; i < repeats_; ++i) {
      times.push_back(kernel->timed_run());
      if (i == 0 && times[0] > stop_above) {
        r.value = times[0];
        r.stopped_early = true;
        break;
      }
    }
    std::sort(times.begin(), times.end());
    if (!r.stopped_early) r.value = times[times.size() / 2];
    r.details = {{"min_seconds", times.front()},
                 {"runs", times.size()},
                 {"gops", body->ops / r.value * 1e-9}};
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  r.wall_s = std::chrono::duration<double>(Clock::now() - t_start).count();
  return r;
}

}  // namespace weft::rt::tune
