// The GPU backend against cuBLAS (SGEMM, HGEMM with float32 accumulation, int8 GEMM through
// cuBLASLt) and cuDNN (ResNet-18 C1-C12 convolutions, float32 and float16; float32 with
// CUDNN_FMA_MATH, since cuDNN's default math lets it run float32 convolutions as TF32 on tensor
// cores, which Weft's float32 kernels do not): each case runs Weft's kernels and the
// library's side by side in one process on the same device buffers (the primary context,
// shared with the CUDA runtime), `reps` timed runs (CUDA events) after a warm-up, and prints
// medians and the ratio Weft time / library time per call; `library graph ms` is the library's
// call captured in a CUDA graph and replayed (its GPU time without its host-side cost per
// call, which a stream of calls pays), and `Weft/graph` the ratio to that. Inputs are random
// multiples of 1/8 in [-1, 1] (int8: random bytes), and every case compares Weft's output with
// the library's (the `max err` column, relative to the largest output; float32 sums of such
// products are exact, so float32 and float16-in cases differ only by the library's float16
// output rounding). Without a GPU it says so and exits 1. scripts/bench/gpu_bench.sh runs it.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "hardware/isa/errors.h"
#include "compiler/ops/gpu/conv2d.h"
#include "compiler/ops/gpu/dense.h"
#include "runtime/gpu/cuda_driver.h"
#include "runtime/gpu/executor.h"
#include "runtime/target/half.h"

namespace gpu = weft::rt::gpu;
namespace gpu_ops = weft::compiler::ops::gpu;
using weft::compiler::ir::DType;

namespace {

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void blas_ok(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}
void dnn_ok(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cudnnGetErrorString(s));
}

// Median milliseconds of `f` over `reps` runs after one warm-up.
double median_ms(int reps, const std::function<void()>& f) {
  gpu::Gpu& g = gpu::Gpu::get();
  f();
  g.synchronize();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(g.time_ms(f));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Median milliseconds of one replay of a CUDA graph holding one call of `f`, captured on a
// stream of its own (`on(stream)` points the library at it, `on(nullptr)` back at the default
// stream): the library's GPU time without its host-side cost per call. NaN when the call
// cannot be captured.
double graph_ms(int reps, const std::function<void(cudaStream_t)>& on,
                const std::function<void()>& f) {
  cudaStream_t st;
  cuda_ok(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
  on(st);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  double ms = NAN;
  if (cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed) == cudaSuccess) {
    bool ok = true;
    try {
      f();
    } catch (const std::exception&) {
      ok = false;
    }
    ok = cudaStreamEndCapture(st, &graph) == cudaSuccess && ok &&
         cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
    if (ok) {
      cudaEvent_t e0, e1;
      cuda_ok(cudaEventCreate(&e0), "cudaEventCreate");
      cuda_ok(cudaEventCreate(&e1), "cudaEventCreate");
      cuda_ok(cudaGraphLaunch(exec, st), "cudaGraphLaunch");  // warm-up
      std::vector<double> t;
      for (int i = 0; i < reps; ++i) {
        cuda_ok(cudaEventRecord(e0, st), "cudaEventRecord");
        cuda_ok(cudaGraphLaunch(exec, st), "cudaGraphLaunch");
        cuda_ok(cudaEventRecord(e1, st), "cudaEventRecord");
        cuda_ok(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float x = 0;
        cuda_ok(cudaEventElapsedTime(&x, e0, e1), "cudaEventElapsedTime");
        t.push_back(x);
      }
      std::sort(t.begin(), t.end());
      ms = t[t.size() / 2];
      cudaEventDestroy(e0);
      cudaEventDestroy(e1);
    }
  }
  cudaGetLastError();  // a refused capture leaves an error behind
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  on(nullptr);
  cuda_ok(cudaStreamSynchronize(st), "cudaStreamSynchronize");
  cudaStreamDestroy(st);
  return ms;
}

// Device memory, poisoned (0xff bytes: NaN for floats) until something writes it.
struct Mem {
  void* p = nullptr;
  size_t bytes = 0;
  explicit Mem(size_t b) : bytes(b) {
    cuda_ok(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
    cuda_ok(cudaMemset(p, 0xff, bytes), "cudaMemset");
  }
  ~Mem() { cudaFree(p); }
  uint64_t u() const { return reinterpret_cast<uint64_t>(p); }
};

std::mt19937 g_rng(2026);

// Fills `m` with `n` random elements of `t`: multiples of 1/8 in [-1, 1], or random int8.
void fill_random(Mem& m, size_t n, DType t) {
  std::vector<uint8_t> b(n * (t == DType::kFloat32 ? 4 : t == DType::kFloat16 ? 2 : 1));
  for (size_t i = 0; i < n; ++i) {
    const float v = float(int(g_rng() % 17) - 8) / 8.0f;
    if (t == DType::kFloat32) {
      std::memcpy(&b[i * 4], &v, 4);
    } else if (t == DType::kFloat16) {
      const uint16_t h = weft::rt::float_to_half(v);
      std::memcpy(&b[i * 2], &h, 2);
    } else {
      b[i] = uint8_t(g_rng());
    }
  }
  cuda_ok(cudaMemcpy(m.p, b.data(), b.size(), cudaMemcpyHostToDevice), "upload");
}

// `n` elements of `t` (float32, float16 or int32) as doubles.
std::vector<double> values(const Mem& m, size_t n, DType t) {
  const size_t eb = t == DType::kFloat16 ? 2 : 4;
  std::vector<uint8_t> b(n * eb);
  cuda_ok(cudaMemcpy(b.data(), m.p, b.size(), cudaMemcpyDeviceToHost), "download");
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    if (t == DType::kFloat32) {
      float f;
      std::memcpy(&f, &b[i * 4], 4);
      v[i] = f;
    } else if (t == DType::kFloat16) {
      uint16_t h;
      std::memcpy(&h, &b[i * 2], 2);
      v[i] = weft::rt::half_to_float(h);
    } else {
      int32_t x;
      std::memcpy(&x, &b[i * 4], 4);
      v[i] = x;
    }
  }
  return v;
}

// max |weft - library| / max |library| over the output (NaN, so it shows, if an element of
// either is not finite: an element nobody wrote keeps its poison).
double max_err(const std::vector<double>& w, const std::vector<double>& l) {
  double e = 0, big = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (!std::isfinite(w[i]) || !std::isfinite(l[i])) return NAN;
    e = std::max(e, std::fabs(w[i] - l[i]));
    big = std::max(big, std::fabs(l[i]));
  }
  return big > 0 ? e / big : e;
}

void row(const std::string& name, double ops, double weft_ms, double lib_ms, double graph,
         double err) {
  std::printf("| %s | %.3f | %.1f | %.3f | %.1f | %.2f | %.3f | %.2f | %.1e |\n", name.c_str(),
              weft_ms, ops / weft_ms / 1e9, lib_ms, ops / lib_ms / 1e9, weft_ms / lib_ms, graph,
              weft_ms / graph, err);
  std::fflush(stdout);
}

double weft_ms(const weft::compiler::ops::LoweredOp& op, const std::vector<uint64_t>& bufs, int reps) {
  gpu::GpuKernel k(op);
  return median_ms(reps, [&] { k.run(bufs); });
}

// C[M, N] = A[M, K] W[N, K]^T row-major is column-major C^T = op_T(W) op_N(A): "TN".
struct Gemm {
  int64_t m, n, k;
  std::string name() const {
    return m == n && n == k ? std::to_string(m) + "^3"
                            : std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
};

void gemms(const Gemm& g, int reps, cublasHandle_t blas, cublasLtHandle_t lt) {
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  const size_t mk = size_t(g.m * g.k), nk = size_t(g.n * g.k), mn = size_t(g.m * g.n);
  const double ops = 2.0 * double(g.m) * double(g.n) * double(g.k);
  const auto on_blas = [&](cudaStream_t x) { blas_ok(cublasSetStream(blas, x), "cublasSetStream"); };
  {
    Mem a(mk * 4), w(nk * 4), c(mn * 4), cl(mn * 4);
    fill_random(a, mk, DType::kFloat32);
    fill_random(w, nk, DType::kFloat32);
    const float one = 1, zero = 0;
    const double t = weft_ms(gpu_ops::dense(g.m, g.n, g.k, DType::kFloat32), {a.u(), w.u(), c.u()}, reps);
    const auto call = [&] {
      blas_ok(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one,
                          static_cast<float*>(w.p), k, static_cast<float*>(a.p), k, &zero,
                          static_cast<float*>(cl.p), n),
              "cublasSgemm");
    };
    const double l = median_ms(reps, call);
    const double lg = graph_ms(reps, on_blas, call);
    row("SGEMM " + g.name() + " (fp32, SIMT)", ops, t, l, lg,
        max_err(values(c, mn, DType::kFloat32), values(cl, mn, DType::kFloat32)));
  }
  {
    Mem a(mk * 2), w(nk * 2), c(mn * 4), cl(mn * 4);
    fill_random(a, mk, DType::kFloat16);
    fill_random(w, nk, DType::kFloat16);
    const float one = 1, zero = 0;
    const double t = weft_ms(gpu_ops::dense(g.m, g.n, g.k, DType::kFloat16), {a.u(), w.u(), c.u()}, reps);
    const auto call = [&] {
      blas_ok(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, w.p, CUDA_R_16F, k, a.p,
                           CUDA_R_16F, k, &zero, cl.p, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx");
    };
    const double l = median_ms(reps, call);
    const double lg = graph_ms(reps, on_blas, call);
    row("HGEMM " + g.name() + " (fp16 in, fp32 acc/out)", ops, t, l, lg,
        max_err(values(c, mn, DType::kFloat32), values(cl, mn, DType::kFloat32)));
  }
  {
    Mem a(mk), w(nk), c(mn * 4), cl(mn * 4);
    fill_random(a, mk, DType::kInt8);
    fill_random(w, nk, DType::kInt8);
    const double t = weft_ms(gpu_ops::dense(g.m, g.n, g.k, DType::kInt8), {a.u(), w.u(), c.u()}, reps);
    cublasLtMatmulDesc_t desc;
    blas_ok(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32I, CUDA_R_32I), "MatmulDescCreate");
    const cublasOperation_t tr = CUBLAS_OP_T;
    blas_ok(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &tr, sizeof tr),
            "TRANSA");
    cublasLtMatrixLayout_t la, lb, lc;
    blas_ok(cublasLtMatrixLayoutCreate(&la, CUDA_R_8I, g.k, g.n, g.k), "layout");
    blas_ok(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8I, g.k, g.m, g.k), "layout");
    blas_ok(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32I, g.n, g.m, g.n), "layout");
    const int32_t one = 1, zero = 0;
    const std::string name = "int8 GEMM " + g.name() + " (int32 acc/out, TOP/s)";
    try {
      cudaStream_t lt_stream = nullptr;
      const auto call = [&] {
        blas_ok(cublasLtMatmul(lt, desc, &one, w.p, la, a.p, lb, &zero, cl.p, lc, cl.p, lc,
                               nullptr, nullptr, 0, lt_stream),
                "cublasLtMatmul");
      };
      const double l = median_ms(reps, call);
      const double lg = graph_ms(reps, [&](cudaStream_t x) { lt_stream = x; }, call);
      row(name, ops, t, l, lg, max_err(values(c, mn, DType::kInt32), values(cl, mn, DType::kInt32)));
    } catch (const std::runtime_error& e) {
      std::printf("| %s | %.3f | %.1f | %s | | | | | |\n", name.c_str(), t, ops / t / 1e9,
                  e.what());
    }
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
  }
}

struct Layer {
  std::string name;
  weft::compiler::ops::Conv2dNchw s;
};

std::vector<Layer> read_layers(const std::string& csv, int64_t batch) {
  std::ifstream in(csv);
  if (!in) throw weft::UserError("cannot read " + csv);
  std::vector<Layer> out;
  std::string line;
  std::getline(in, line);  // name,H,W,IC,OC,K,stride,pad
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string f[8];
    for (auto& x : f) std::getline(ss, x, ',');
    const int64_t k = std::stoll(f[5]);
    out.push_back({f[0], weft::compiler::ops::Conv2dNchw{batch, std::stoll(f[3]), std::stoll(f[1]),
                                          std::stoll(f[2]), std::stoll(f[4]), k, k,
                                          std::stoll(f[6]), std::stoll(f[7])}});
  }
  return out;
}

void convs(const std::vector<Layer>& layers, DType t, int reps, cudnnHandle_t dnn) {
  const cudnnDataType_t dt = t == DType::kFloat16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  const size_t eb = t == DType::kFloat16 ? 2 : 4;
  for (const Layer& L : layers) {
    const weft::compiler::ops::Conv2dNchw& s = L.s;
    const int64_t oh = s.oh(), ow = s.ow();
    const size_t xn = size_t(s.n * s.c * s.h * s.w), wn = size_t(s.o * s.c * s.kh * s.kw);
    const size_t yn = size_t(s.n * s.o * oh * ow);
    Mem x(xn * eb), w(wn * eb), y(yn * 4), yl(yn * eb);
    fill_random(x, xn, t);
    fill_random(w, wn, t);
    const double t_weft = weft_ms(gpu_ops::conv2d(s, t), {x.u(), w.u(), y.u()}, reps);
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    dnn_ok(cudnnCreateTensorDescriptor(&xd), "tensor");
    dnn_ok(cudnnCreateTensorDescriptor(&yd), "tensor");
    dnn_ok(cudnnCreateFilterDescriptor(&wd), "filter");
    dnn_ok(cudnnCreateConvolutionDescriptor(&cd), "conv");
    dnn_ok(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, dt, int(s.n), int(s.c), int(s.h),
                                      int(s.w)),
           "x");
    dnn_ok(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, dt, int(s.n), int(s.o), int(oh),
                                      int(ow)),
           "y");
    dnn_ok(cudnnSetFilter4dDescriptor(wd, dt, CUDNN_TENSOR_NCHW, int(s.o), int(s.c), int(s.kh),
                                      int(s.kw)),
           "w");
    dnn_ok(cudnnSetConvolution2dDescriptor(cd, int(s.pad), int(s.pad), int(s.stride),
                                           int(s.stride), 1, 1, CUDNN_CROSS_CORRELATION,
                                           CUDNN_DATA_FLOAT),
           "conv");
    dnn_ok(cudnnSetConvolutionMathType(cd, t == DType::kFloat16 ? CUDNN_TENSOR_OP_MATH
                                                                : CUDNN_FMA_MATH),
           "math");
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int found = 0;
    dnn_ok(cudnnGetConvolutionForwardAlgorithm_v7(dnn, xd, wd, cd, yd, 8, &found, perf), "algo");
    size_t ws_bytes = 0;
    dnn_ok(cudnnGetConvolutionForwardWorkspaceSize(dnn, xd, wd, cd, yd, perf[0].algo, &ws_bytes),
           "workspace");
    Mem ws(ws_bytes);
    const float one = 1, zero = 0;
    const auto call = [&] {
      dnn_ok(cudnnConvolutionForward(dnn, &one, xd, x.p, wd, w.p, cd, perf[0].algo, ws.p,
                                     ws_bytes, &zero, yd, yl.p),
             "cudnnConvolutionForward");
    };
    const double t_lib = median_ms(reps, call);
    const double t_graph = graph_ms(
        reps, [&](cudaStream_t st) { dnn_ok(cudnnSetStream(dnn, st), "cudnnSetStream"); }, call);
    const double ops = 2.0 * double(s.n * s.o * oh * ow) * double(s.c * s.kh * s.kw);
    row(L.name + " " + std::to_string(s.c) + "->" + std::to_string(s.o) + " " +
            std::to_string(s.h) + "x" + std::to_string(s.w) + " k" + std::to_string(s.kh) +
            " s" + std::to_string(s.stride) + " [algo " + std::to_string(int(perf[0].algo)) + "]",
        ops, t_weft, t_lib, t_graph, max_err(values(y, yn, DType::kFloat32), values(yl, yn, t)));
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Weft GPU backend against cuBLAS/cuBLASLt and cuDNN (times as ratios)");
  int reps = 20;
  int64_t batch = 1;
  std::vector<int64_t> sizes{1024, 4096};
  std::vector<std::string> shapes;
  std::string layers_csv, what = "all";
  app.add_option("--reps", reps, "timed runs per case (the median is reported)");
  app.add_option("--sizes", sizes, "GEMM sizes (M = N = K)");
  app.add_option("--shapes", shapes, "more GEMM shapes, MxNxK (e.g. 129x4096x257)");
  app.add_option("--layers", layers_csv, "ResNet-18 layers CSV (scripts/bench/cpu_resnet18_conv.csv)");
  app.add_option("--batch", batch, "conv2d batch");
  app.add_option("--what", what, "all, gemm or conv");
  CLI11_PARSE(app, argc, argv);
  const std::string why = gpu::Gpu::unavailable();
  if (!why.empty()) {
    std::cerr << "gpu_bench: " << why << "\ngpu_bench: nothing was measured (it needs an NVIDIA "
                 "GPU with its driver)\n";
    return 1;
  }
  try {
    gpu::Gpu& g = gpu::Gpu::get();
    int rt_version = 0, drv_version = 0, blas_version = 0;
    cudaRuntimeGetVersion(&rt_version);
    cudaDriverGetVersion(&drv_version);
    cublasHandle_t blas;
    cublasLtHandle_t lt;
    cudnnHandle_t dnn;
    blas_ok(cublasCreate(&blas), "cublasCreate");
    cublasGetVersion(blas, &blas_version);
    std::printf("# %s (%s), driver API %d, CUDA runtime %d, cuBLAS %d, cuBLASLt %zu, cuDNN %zu, "
                "%d reps\n\n",
                g.name().c_str(), g.arch().c_str(), drv_version, rt_version, blas_version,
                cublasLtGetVersion(), cudnnGetVersion(), reps);
    blas_ok(cublasLtCreate(&lt), "cublasLtCreate");
    dnn_ok(cudnnCreate(&dnn), "cudnnCreate");
    const char* head =
        "| case | Weft ms | Weft TFLOP/s | library ms | library TFLOP/s | Weft/library | library "
        "graph ms | Weft/graph | max err |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    if (what == "all" || what == "gemm") {
      std::printf("%s", head);
      std::vector<Gemm> gs;
      for (int64_t s : sizes) gs.push_back({s, s, s});
      for (const std::string& sh : shapes) {
        Gemm g{};
        char x1 = 0, x2 = 0;
        std::istringstream in(sh);
        if (!(in >> g.m >> x1 >> g.n >> x2 >> g.k) || x1 != 'x' || x2 != 'x' || g.m < 1 ||
            g.n < 1 || g.k < 1 || !in.eof())
          throw weft::UserError("--shapes: '" + sh + "' is not MxNxK with positive sizes");
        gs.push_back(g);
      }
      for (const Gemm& g : gs) gemms(g, reps, blas, lt);
      std::printf("\n");
    }
    if ((what == "all" || what == "conv") && !layers_csv.empty()) {
      const auto layers = read_layers(layers_csv, batch);
      for (DType t : {DType::kFloat32, DType::kFloat16}) {
        std::printf("ResNet-18 conv2d %s, batch %lld, against cuDNN%s\n\n%s",
                    t == DType::kFloat32 ? "float32" : "float16 (Weft: fp32 accumulate/output)",
                    static_cast<long long>(batch),
                    t == DType::kFloat16 ? " (tensor-op math, fp16 output)"
                                         : " (FMA math: float32 arithmetic, no TF32)",
                    head);
        convs(layers, t, reps, dnn);
        std::printf("\n");
      }
    }
    cudnnDestroy(dnn);
    cublasLtDestroy(lt);
    cublasDestroy(blas);
  } catch (const std::exception& e) {
    std::cerr << "gpu_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
