// The single-operator runner; see run_op.h.
#include "runtime/target/run_op.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>

#include "compiler/ops/reference.h"
#include "hardware/isa/errors.h"
#include "runtime/io/report_json.h"
#include "runtime/target/host_values.h"

namespace weft::rt {

namespace {

using compiler::ir::DType;

nlohmann::ordered_json shape_json(const OpRequest& r) {
  if (r.op == "dense") return {{"M", r.m}, {"N", r.n}, {"K", r.k}};
  const compiler::ops::Conv2dNchw& s = r.conv;
  return conv2d_shape_json(s.n, s.h, s.w, s.c, s.o, s.kh, s.kw, s.stride, s.pad);
}

double max_magnitude(const std::vector<double>& v) {
  double m = 0;
  for (double e : v) m = std::max(m, std::fabs(e));
  return m;
}

}  // namespace

OpShapes shapes_of(const OpRequest& r) {
  if (r.op == "dense") return {{r.m, r.k}, {r.n, r.k}, {r.m, r.n}, double(r.k)};
  const compiler::ops::Conv2dNchw& s = r.conv;
  return {{s.n, s.c, s.h, s.w},
          {s.o, s.c, s.kh, s.kw},
          {s.n, s.o, s.oh(), s.ow()},
          double(s.c * s.kh * s.kw)};
}

std::vector<double> reference_output(const OpRequest& r, const std::vector<double>& x,
                                     const std::vector<double>& w, DType in) {
  using compiler::ops::conv2d_reference;
  using compiler::ops::dense_reference;
  if (in == DType::kInt8) {
    const auto xi = values_as<int8_t>(x), wi = values_as<int8_t>(w);
    const auto y = r.op == "dense" ? dense_reference<int8_t, int32_t>(xi, wi, r.m, r.n, r.k)
                                   : conv2d_reference<int8_t, int32_t>(xi, wi, r.conv);
    return {y.begin(), y.end()};
  }
  return r.op == "dense" ? dense_reference<double, double>(x, w, r.m, r.n, r.k)
                         : conv2d_reference<double, double>(x, w, r.conv);
}

Mismatches compare_output(const std::vector<double>& got, const std::vector<double>& want,
                          double terms, DType in) {
  const double tol = in == DType::kFloat32 ? 1e-5 * terms + 1e-6 : 1e-6;
  Mismatches m;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(got[i] - want[i]);
    m.max_abs_error = std::max(m.max_abs_error, e);
    if (e > tol) ++m.count;
  }
  return m;
}

nlohmann::ordered_json run_op(const Target& target, const OpRequest& r, OutputSet& outputs,
                              const OpIo& io) {
  if (r.repeats < 1 || r.repeats > 100000)
    throw UserError("--repeats " + std::to_string(r.repeats) + " is outside [1, 100000]");
  const TargetOp built = target.build(r);  // op, shape and dtype errors first
  const compiler::ops::LoweredOp& op = built.op;
  const DType in = op.func.args[0]->dtype, out = op.func.args[op.num_inputs]->dtype;
  nlohmann::ordered_json j;
  j["op"] = r.op;
  j["shape"] = shape_json(r);
  j["target"] = target.name();
  j["dtype"] = r.dtype;
  j["output_dtype"] = compiler::ir::dtype_name(out);
  target.describe(built, j);

  using Clock = std::chrono::steady_clock;
  const auto t_compile = Clock::now();
  const std::unique_ptr<TargetKernel> kernel = target.compile(built);
  j["compile_seconds"] = std::chrono::duration<double>(Clock::now() - t_compile).count();
  kernel->describe(j);

  OpShapes sh = shapes_of(r);
  std::mt19937 rng(r.seed);
  const std::vector<double> x = io.x ? *io.x : random_values(elements_of(sh.x), in, rng);
  const std::vector<double> w = io.w ? *io.w : random_values(elements_of(sh.w), in, rng);
  if (int64_t(x.size()) != elements_of(sh.x) || int64_t(w.size()) != elements_of(sh.w))
    throw UserError(r.op + ": the given input or weight has the wrong number of elements");
  DType check_as = in;
  if (io.x && in != DType::kInt8) {
    // The tolerance per product was set for inputs in [-1, 1].
    sh.terms *= std::max(1.0, max_magnitude(x)) * std::max(1.0, max_magnitude(w));
    check_as = DType::kFloat32;
  }
  auto before_run = [&] {
    if (io.before_run) io.before_run();
  };
  kernel->write(0, built.pack(0, x));
  kernel->write(1, built.pack(1, w));
  before_run();
  kernel->run();  // warm-up
  std::vector<double> times;
  for (int i = 0; i < r.repeats; ++i) {
    before_run();
    times.push_back(kernel->timed_run());
  }
  std::sort(times.begin(), times.end());
  const double wall = times[times.size() / 2];
  const std::vector<double> y = built.unpack(kernel->read(op.num_inputs));
  const Mismatches bad = compare_output(y, reference_output(r, x, w, in), sh.terms, check_as);
  if (io.y) *io.y = y;
  j["correct"] = bad.count == 0;
  j["mismatches"] = bad.count;
  j["max_abs_error"] = bad.max_abs_error;
  j["wall_seconds"] = wall;
  j["wall_seconds_min"] = times.front();
  j["timed_runs"] = r.repeats;
  const auto [key, unit] = target.throughput(in == DType::kInt8);
  j[key] = op.ops / wall / unit;

  if (!r.save_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(r.save_dir, ec);
    if (ec)
      throw UserError("--save: cannot create directory '" + r.save_dir + "': " + ec.message());
    const std::filesystem::path dir(r.save_dir);
    outputs.add((dir / "input.npy").string(), encode_npy(npy_of(sh.x, x, in)));
    outputs.add((dir / "weight.npy").string(), encode_npy(npy_of(sh.w, w, in)));
    outputs.add((dir / "output.npy").string(), encode_npy(npy_of(sh.y, y, out)));
    j["saved"] = r.save_dir;
  }
  return j;
}

}  // namespace weft::rt
