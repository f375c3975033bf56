// Running one operator on the GPU; see run_op.h.
#include "runtime/gpu/run_op.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "hardware/isa/errors.h"
#include "runtime/gpu/executor.h"
#include "runtime/gpu/half.h"
#include "runtime/gpu/nvrtc_compiler.h"
#include "runtime/gpu/nvrtc_emit.h"
#include "runtime/io/npy.h"
#include "runtime/io/report_json.h"

namespace weft::rt::gpu {

namespace {

// Inputs as doubles (exact in every input type): float32 uniform in [-1, 1]; float16 in
// eighths in [-1, 1] (exact in half, so products and their float32 sums are exact); int8
// any byte.
std::vector<double> random_values(int64_t n, DType t, std::mt19937& rng) {
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_real_distribution<float> f(-1.0f, 1.0f);
  for (double& x : v) {
    if (t == DType::kFloat32) x = f(rng);
    else if (t == DType::kFloat16) x = static_cast<int>(rng() % 17) / 8.0 - 1.0;
    else x = static_cast<int8_t>(rng());
  }
  return v;
}

// The device bytes of values in `t`.
std::vector<uint8_t> to_bytes(const std::vector<double>& v, DType t) {
  std::vector<uint8_t> b(v.size() * dtype_bytes(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DType::kFloat32) {
      const float f = static_cast<float>(v[i]);
      std::memcpy(&b[i * 4], &f, 4);
    } else if (t == DType::kFloat16) {
      const uint16_t h = float_to_half(static_cast<float>(v[i]));
      std::memcpy(&b[i * 2], &h, 2);
    } else {
      b[i] = static_cast<uint8_t>(static_cast<int8_t>(v[i]));
    }
  }
  return b;
}

NpyArray npy_input(std::vector<int64_t> shape, const std::vector<double>& v, DType t) {
  NpyArray a;
  a.shape = std::move(shape);
  if (t == DType::kInt8) {
    a.type = NpyType::kInt8;
    for (double x : v) a.data.push_back(static_cast<uint8_t>(static_cast<int8_t>(x)));
  } else {
    a.type = NpyType::kFloat32;
    a.data.resize(v.size() * 4);
    for (size_t i = 0; i < v.size(); ++i) {
      const float f = static_cast<float>(v[i]);
      std::memcpy(&a.data[i * 4], &f, 4);
    }
  }
  return a;
}

// out[i, j] = sum_r a[i, r] * b[j, r] in double.
std::vector<double> gemm_ref(const std::vector<double>& a, const std::vector<double>& b,
                             int64_t m, int64_t n, int64_t k) {
  std::vector<double> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t r = 0; r < k; ++r) s += a[size_t(i * k + r)] * b[size_t(j * k + r)];
      c[size_t(i * n + j)] = s;
    }
  return c;
}

std::vector<double> conv_ref(const std::vector<double>& x, const std::vector<double>& w,
                             const Conv2dShape& s) {
  const int64_t oh = s.oh(), ow = s.ow();
  std::vector<double> y(static_cast<size_t>(s.n * s.o * oh * ow));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t q = 0; q < ow; ++q) {
          double acc = 0;
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t dy = 0; dy < s.kh; ++dy)
              for (int64_t dx = 0; dx < s.kw; ++dx) {
                const int64_t iy = r * s.stride + dy - s.pad, ix = q * s.stride + dx - s.pad;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                acc += x[size_t(((n * s.c + c) * s.h + iy) * s.w + ix)] *
                       w[size_t(((o * s.c + c) * s.kh + dy) * s.kw + dx)];
              }
          y[size_t(((n * s.o + o) * oh + r) * ow + q)] = acc;
        }
  return y;
}

}  // namespace

std::string gpu_op_ptx(const GpuRunRequest& r, const std::string& arch) {
  return nvrtc_compile(gpu_op_cuda(r), arch, Emit::kPtx);
}

nlohmann::ordered_json run_gpu_op(const GpuRunRequest& r, OutputSet& outputs) {
  if (r.repeats < 1) throw UserError("--repeats must be at least 1");
  const GpuOp op = build_request_op(r);  // shape and dtype errors before looking for a GPU
  const DType dt = parse_dtype(r.dtype, "--dtype");
  Gpu& gpu = Gpu::get();
  nlohmann::ordered_json j;
  j["op"] = r.op;
  std::vector<int64_t> in_shape, w_shape, out_shape;
  int64_t terms = 0;
  if (r.op == "dense") {
    j["shape"] = {{"M", r.m}, {"N", r.n}, {"K", r.k}};
    in_shape = {r.m, r.k};
    w_shape = {r.n, r.k};
    out_shape = {r.m, r.n};
    terms = r.k;
  } else {
    const Conv2dShape& s = r.conv;
    j["shape"] = conv2d_shape_json(s.n, s.h, s.w, s.c, s.o, s.kh, s.kw, s.stride, s.pad);
    in_shape = {s.n, s.c, s.h, s.w};
    w_shape = {s.o, s.c, s.kh, s.kw};
    out_shape = {s.n, s.o, s.oh(), s.ow()};
    terms = s.c * s.kh * s.kw;
  }
  auto count = [](const std::vector<int64_t>& sh) {
    int64_t n = 1;
    for (int64_t d : sh) n *= d;
    return n;
  };
  j["dtype"] = r.dtype;
  j["target"] = "cuda";
  j["path"] = op.path;
  j["device"] = gpu.name();
  j["arch"] = gpu.arch();

  std::mt19937 rng(r.seed);
  const auto a = random_values(count(in_shape), dt, rng);
  const auto w = random_values(count(w_shape), dt, rng);
  GpuKernel kernel(op);
  const DType out_t = op.func.args[op.num_inputs]->dtype;
  DeviceBuffer da(a.size() * dtype_bytes(dt)), dw(w.size() * dtype_bytes(dt));
  DeviceBuffer dc(static_cast<size_t>(count(out_shape)) * dtype_bytes(out_t));
  const auto ab = to_bytes(a, dt), wb = to_bytes(w, dt);
  gpu.upload(da.ptr(), ab.data(), ab.size());
  gpu.upload(dw.ptr(), wb.data(), wb.size());
  GpuKernel& k = kernel;
  k.run({da.ptr(), dw.ptr(), dc.ptr()});  // warm-up
  gpu.synchronize();
  std::vector<double> times;
  for (int i = 0; i < r.repeats; ++i)
    times.push_back(gpu.time_ms([&] { k.run({da.ptr(), dw.ptr(), dc.ptr()}); }) / 1e3);
  std::sort(times.begin(), times.end());
  const double t = times[times.size() / 2];

  std::vector<double> got(static_cast<size_t>(count(out_shape)));
  if (out_t == DType::kFloat32) {
    std::vector<float> f(got.size());
    gpu.download(f.data(), dc.ptr(), f.size() * 4);
    std::copy(f.begin(), f.end(), got.begin());
  } else {
    std::vector<int32_t> v(got.size());
    gpu.download(v.data(), dc.ptr(), v.size() * 4);
    std::copy(v.begin(), v.end(), got.begin());
  }
  const auto want =
      r.op == "dense" ? gemm_ref(a, w, r.m, r.n, r.k) : conv_ref(a, w, r.conv);
  // Exact for int8 and float16 (exact products, exact float32 sums of eighths); float32
  // within 1e-5 per accumulated product (inputs in [-1, 1]).
  const double tol = dt == DType::kFloat32 ? 1e-5 * double(terms) : 1e-6;
  int64_t mismatches = 0;
  double max_err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(got[i] - want[i]);
    max_err = std::max(max_err, e);
    if (e > tol) ++mismatches;
  }
  j["correct"] = mismatches == 0;
  j["mismatches"] = mismatches;
  j["max_abs_error"] = max_err;
  j["kernels"] = kernel.module().kernels.size();
  j["compile_seconds"] = kernel.compile_seconds();
  j["wall_seconds"] = t;
  j[dt == DType::kInt8 ? "tops" : "tflops"] = op.ops / t / 1e12;
  j["repeats"] = r.repeats;

  if (!r.save_dir.empty()) {
    std::filesystem::path dir(r.save_dir);
    outputs.add((dir / "input.npy").string(), encode_npy(npy_input(in_shape, a, dt)));
    outputs.add((dir / "weight.npy").string(), encode_npy(npy_input(w_shape, w, dt)));
    NpyArray o;
    o.shape = out_shape;
    o.type = out_t == DType::kFloat32 ? NpyType::kFloat32 : NpyType::kInt32;
    o.data.resize(got.size() * 4);
    for (size_t i = 0; i < got.size(); ++i) {
      if (out_t == DType::kFloat32) {
        const float f = static_cast<float>(got[i]);
        std::memcpy(&o.data[i * 4], &f, 4);
      } else {
        const int32_t v = static_cast<int32_t>(got[i]);
        std::memcpy(&o.data[i * 4], &v, 4);
      }
    }
    outputs.add((dir / "output.npy").string(), encode_npy(o));
    j["saved"] = r.save_dir;
  }
  return j;
}

}  // namespace weft::rt::gpu
