// The GPU backend against cuBLAS (SGEMM, HGEMM with float32 accumulation, int8 GEMM through
// cuBLASLt) and cuDNN (ResNet-18 C1-C12 convolutions, float32 and float16): each case runs
// Weft's kernels and the library's side by side in one process on the same device buffers
// (the primary context, shared with the CUDA runtime), `reps` timed runs (CUDA events) after a
// warm-up, and prints medians and the ratio Weft time / library time. Without a GPU it says so
// and exits 1. scripts/bench/gpu_bench.sh runs it.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "hardware/isa/errors.h"
#include "runtime/gpu/cuda_driver.h"
#include "runtime/gpu/executor.h"
#include "runtime/gpu/ops.h"

namespace gpu = weft::rt::gpu;
using gpu::DType;

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

// Device memory filled with small values (so every dtype stays finite), freed at the end.
struct Mem {
  void* p = nullptr;
  explicit Mem(size_t bytes) {
    cuda_ok(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
    cuda_ok(cudaMemset(p, 0x11, bytes), "cudaMemset");
  }
  ~Mem() { cudaFree(p); }
  uint64_t u() const { return reinterpret_cast<uint64_t>(p); }
};

void row(const std::string& name, double ops, double weft_ms, double lib_ms) {
  std::printf("| %s | %.3f | %.1f | %.3f | %.1f | %.2f |\n", name.c_str(), weft_ms,
              ops / weft_ms / 1e9, lib_ms, ops / lib_ms / 1e9, weft_ms / lib_ms);
  std::fflush(stdout);
}

double weft_ms(const gpu::GpuOp& op, const std::vector<uint64_t>& bufs, int reps) {
  gpu::GpuKernel k(op);
  return median_ms(reps, [&] { k.run(bufs); });
}

// C[M, N] = A[M, K] W[N, K]^T row-major is column-major C^T = op_T(W) op_N(A): "TN".
void gemms(int64_t s, int reps, cublasHandle_t blas, cublasLtHandle_t lt) {
  const int n = int(s);
  const double ops = 2.0 * double(s) * double(s) * double(s);
  {
    Mem a(s * s * 4), w(s * s * 4), c(s * s * 4);
    const float one = 1, zero = 0;
    const double t = weft_ms(gpu::dense(s, s, s, DType::kFloat32), {a.u(), w.u(), c.u()}, reps);
    const double l = median_ms(reps, [&] {
      blas_ok(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one,
                          static_cast<float*>(w.p), n, static_cast<float*>(a.p), n, &zero,
                          static_cast<float*>(c.p), n),
              "cublasSgemm");
    });
    row("SGEMM " + std::to_string(s) + "^3 (fp32, SIMT)", ops, t, l);
  }
  {
    Mem a(s * s * 2), w(s * s * 2), c(s * s * 4);
    const float one = 1, zero = 0;
    const double t = weft_ms(gpu::dense(s, s, s, DType::kFloat16), {a.u(), w.u(), c.u()}, reps);
    const double l = median_ms(reps, [&] {
      blas_ok(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, w.p, CUDA_R_16F, n, a.p,
                           CUDA_R_16F, n, &zero, c.p, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx");
    });
    row("HGEMM " + std::to_string(s) + "^3 (fp16 in, fp32 acc/out)", ops, t, l);
  }
  {
    Mem a(s * s), w(s * s), c(s * s * 4);
    const double t = weft_ms(gpu::dense(s, s, s, DType::kInt8), {a.u(), w.u(), c.u()}, reps);
    cublasLtMatmulDesc_t desc;
    blas_ok(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32I, CUDA_R_32I), "MatmulDescCreate");
    const cublasOperation_t tr = CUBLAS_OP_T;
    blas_ok(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &tr, sizeof tr),
            "TRANSA");
    cublasLtMatrixLayout_t la, lb, lc;
    blas_ok(cublasLtMatrixLayoutCreate(&la, CUDA_R_8I, s, s, s), "layout");
    blas_ok(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8I, s, s, s), "layout");
    blas_ok(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32I, s, s, s), "layout");
    const int32_t one = 1, zero = 0;
    const double l = median_ms(reps, [&] {
      blas_ok(cublasLtMatmul(lt, desc, &one, w.p, la, a.p, lb, &zero, c.p, lc, c.p, lc, nullptr,
                             nullptr, 0, nullptr),
              "cublasLtMatmul");
    });
    row("int8 GEMM " + std::to_string(s) + "^3 (int32 acc/out, GOP/s)", ops, t, l);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
  }
}

struct Layer {
  std::string name;
  gpu::Conv2dShape s;
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
    out.push_back({f[0], gpu::Conv2dShape{batch, std::stoll(f[3]), std::stoll(f[1]),
                                          std::stoll(f[2]), std::stoll(f[4]), k, k,
                                          std::stoll(f[6]), std::stoll(f[7])}});
  }
  return out;
}

void convs(const std::vector<Layer>& layers, DType t, int reps, cudnnHandle_t dnn) {
  const cudnnDataType_t dt = t == DType::kFloat16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  const size_t eb = t == DType::kFloat16 ? 2 : 4;
  for (const Layer& L : layers) {
    const gpu::Conv2dShape& s = L.s;
    const int64_t oh = s.oh(), ow = s.ow();
    Mem x(s.n * s.c * s.h * s.w * eb), w(s.o * s.c * s.kh * s.kw * eb);
    Mem y(s.n * s.o * oh * ow * 4), yl(s.n * s.o * oh * ow * eb);
    const double t_weft = weft_ms(gpu::conv2d(s, t), {x.u(), w.u(), y.u()}, reps);
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
                                                                : CUDNN_DEFAULT_MATH),
           "math");
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int found = 0;
    dnn_ok(cudnnGetConvolutionForwardAlgorithm_v7(dnn, xd, wd, cd, yd, 8, &found, perf), "algo");
    size_t ws_bytes = 0;
    dnn_ok(cudnnGetConvolutionForwardWorkspaceSize(dnn, xd, wd, cd, yd, perf[0].algo, &ws_bytes),
           "workspace");
    Mem ws(ws_bytes);
    const float one = 1, zero = 0;
    const double t_lib = median_ms(reps, [&] {
      dnn_ok(cudnnConvolutionForward(dnn, &one, xd, x.p, wd, w.p, cd, perf[0].algo, ws.p,
                                     ws_bytes, &zero, yd, yl.p),
             "cudnnConvolutionForward");
    });
    const double ops = 2.0 * double(s.n * s.o * oh * ow) * double(s.c * s.kh * s.kw);
    row(L.name + " " + std::to_string(s.c) + "->" + std::to_string(s.o) + " " +
            std::to_string(s.h) + "x" + std::to_string(s.w) + " k" + std::to_string(s.kh) +
            " s" + std::to_string(s.stride),
        ops, t_weft, t_lib);
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
  std::string layers_csv, what = "all";
  app.add_option("--reps", reps, "timed runs per case (the median is reported)");
  app.add_option("--sizes", sizes, "GEMM sizes (M = N = K)");
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
    int rt_version = 0;
    cudaRuntimeGetVersion(&rt_version);
    std::printf("# %s (%s), CUDA runtime %d, cuDNN %zu, %d reps\n\n", g.name().c_str(),
                g.arch().c_str(), rt_version, cudnnGetVersion(), reps);
    cublasHandle_t blas;
    cublasLtHandle_t lt;
    cudnnHandle_t dnn;
    blas_ok(cublasCreate(&blas), "cublasCreate");
    blas_ok(cublasLtCreate(&lt), "cublasLtCreate");
    dnn_ok(cudnnCreate(&dnn), "cudnnCreate");
    const char* head =
        "| case | Weft ms | Weft GFLOP/s | library ms | library GFLOP/s | Weft/library |\n"
        "|---|---:|---:|---:|---:|---:|\n";
    if (what == "all" || what == "gemm") {
      std::printf("%s", head);
      for (int64_t s : sizes) gemms(s, reps, blas, lt);
      std::printf("\n");
    }
    if ((what == "all" || what == "conv") && !layers_csv.empty()) {
      const auto layers = read_layers(layers_csv, batch);
      for (DType t : {DType::kFloat32, DType::kFloat16}) {
        std::printf("ResNet-18 conv2d %s, batch %lld, against cuDNN%s\n\n%s",
                    t == DType::kFloat32 ? "float32" : "float16 (Weft: fp32 accumulate/output)",
                    static_cast<long long>(batch),
                    t == DType::kFloat16 ? " (tensor-op math, fp16 output)" : "", head);
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
