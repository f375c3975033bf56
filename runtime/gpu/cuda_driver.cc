// The CUDA driver API by dlopen; see cuda_driver.h. The few driver types and entry points
// used are declared here by hand (the driver's ABI: handles are pointers, CUdeviceptr is
// 64-bit, CUresult an int), resolved by name, the _v2 variants where the driver has them.
#include "runtime/gpu/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

#include "hardware/isa/errors.h"

namespace weft::rt::gpu {

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUstream = void*;
using CUevent = void*;
constexpr int kAttrCcMajor = 75, kAttrCcMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_*

struct Api {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void**, void**);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorString)(CUresult, const char**);
};

Api g_api;
CUcontext g_ctx = nullptr;
std::string g_error;  // why there is no GPU ("" once one is usable)
std::once_flag g_once;

std::string error_text(CUresult r) {
  const char* s = nullptr;
  if (g_api.cuGetErrorString && g_api.cuGetErrorString(r, &s) == 0 && s) return s;
  return "CUDA error " + std::to_string(r);
}

void check(CUresult r, const char* what) {
  if (r != 0) throw UserError(std::string("CUDA driver: ") + what + " failed: " + error_text(r));
}

template <typename F>
bool resolve(void* lib, F& f, const char* name, const char* v2 = nullptr) {
  void* p = v2 ? dlsym(lib, v2) : nullptr;
  if (!p) p = dlsym(lib, name);
  f = reinterpret_cast<F>(p);
  return p != nullptr;
}

void load(std::string& name, int& cc) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    g_error = std::string("no CUDA driver: libcuda.so.1 not found (") + (e ? e : "dlopen failed") +
              "); the GPU backend needs an NVIDIA driver";
    return;
  }
  Api& a = g_api;
  bool ok = resolve(lib, a.cuInit, "cuInit") && resolve(lib, a.cuDeviceGetCount, "cuDeviceGetCount") &&
            resolve(lib, a.cuDeviceGet, "cuDeviceGet") &&
            resolve(lib, a.cuDeviceGetName, "cuDeviceGetName") &&
            resolve(lib, a.cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
            resolve(lib, a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
            resolve(lib, a.cuCtxSetCurrent, "cuCtxSetCurrent") &&
            resolve(lib, a.cuCtxSynchronize, "cuCtxSynchronize") &&
            resolve(lib, a.cuMemAlloc, "cuMemAlloc", "cuMemAlloc_v2") &&
            resolve(lib, a.cuMemFree, "cuMemFree", "cuMemFree_v2") &&
            resolve(lib, a.cuMemcpyHtoD, "cuMemcpyHtoD", "cuMemcpyHtoD_v2") &&
            resolve(lib, a.cuMemcpyDtoH, "cuMemcpyDtoH", "cuMemcpyDtoH_v2") &&
            resolve(lib, a.cuMemsetD8, "cuMemsetD8", "cuMemsetD8_v2") &&
            resolve(lib, a.cuModuleLoadData, "cuModuleLoadData") &&
            resolve(lib, a.cuModuleUnload, "cuModuleUnload") &&
            resolve(lib, a.cuModuleGetFunction, "cuModuleGetFunction") &&
            resolve(lib, a.cuLaunchKernel, "cuLaunchKernel") &&
            resolve(lib, a.cuEventCreate, "cuEventCreate") &&
            resolve(lib, a.cuEventRecord, "cuEventRecord") &&
            resolve(lib, a.cuEventSynchronize, "cuEventSynchronize") &&
            resolve(lib, a.cuEventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime_v2") &&
            resolve(lib, a.cuEventDestroy, "cuEventDestroy", "cuEventDestroy_v2") &&
            resolve(lib, a.cuGetErrorString, "cuGetErrorString");
  if (!ok) {
    g_error = "no CUDA driver: libcuda.so.1 lacks a driver API entry point the GPU backend "
              "needs (the driver is too old)";
    return;
  }
  if (CUresult r = a.cuInit(0); r != 0) {
    g_error = "no CUDA device: cuInit failed (" + error_text(r) + ")";
    return;
  }
  int count = 0;
  if (a.cuDeviceGetCount(&count) != 0 || count == 0) {
    g_error = "no CUDA device: the driver reports no GPU";
    return;
  }
  CUdevice dev = 0;
  char buf[256] = {};
  int major = 0, minor = 0;
  if (a.cuDeviceGet(&dev, 0) != 0 || a.cuDeviceGetName(buf, sizeof buf, dev) != 0 ||
      a.cuDeviceGetAttribute(&major, kAttrCcMajor, dev) != 0 ||
      a.cuDeviceGetAttribute(&minor, kAttrCcMinor, dev) != 0) {
    g_error = "no CUDA device: device 0 could not be queried";
    return;
  }
  if (CUresult r = a.cuDevicePrimaryCtxRetain(&g_ctx, dev); r != 0) {
    g_error = "no CUDA device: its context could not be created (" + error_text(r) + ")";
    return;
  }
  name = buf;
  cc = major * 10 + minor;
}

}  // namespace

Gpu& Gpu::get() {
  static Gpu gpu;
  std::call_once(g_once, [] { load(gpu.name_, gpu.cc_); });
  if (!g_error.empty()) throw UserError(g_error);
  if (g_api.cuCtxSetCurrent) check(g_api.cuCtxSetCurrent(g_ctx), "cuCtxSetCurrent");
  return gpu;
}

std::string Gpu::unavailable() {
  try {
    get();
    return "";
  } catch (const UserError& e) {
    return e.what();
  }
}

uint64_t Gpu::alloc(size_t bytes) {
  CUdeviceptr p = 0;
  check(g_api.cuMemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc");
  return p;
}
void Gpu::free(uint64_t ptr) { g_api.cuMemFree(ptr); }
void Gpu::upload(uint64_t dst, const void* src, size_t bytes) {
  if (bytes) check(g_api.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}
void Gpu::download(void* dst, uint64_t src, size_t bytes) {
  if (bytes) check(g_api.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}
void Gpu::memset_zero(uint64_t dst, size_t bytes) {
  if (bytes) check(g_api.cuMemsetD8(dst, 0, bytes), "cuMemsetD8");
}

void* Gpu::load_module(const std::string& image) {
  CUmodule m = nullptr;
  check(g_api.cuModuleLoadData(&m, image.data()), "cuModuleLoadData");
  return m;
}
void Gpu::unload(void* module) { g_api.cuModuleUnload(module); }
void* Gpu::function(void* module, const std::string& name) {
  CUfunction f = nullptr;
  if (g_api.cuModuleGetFunction(&f, module, name.c_str()) != 0 || !f)
    throw UserError("CUDA driver: the module has no kernel '" + name + "'");
  return f;
}

void Gpu::launch(void* fn, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block,
                 int64_t shared_bytes, void** params) {
  check(g_api.cuLaunchKernel(fn, unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2]),
                             unsigned(block[0]), unsigned(block[1]), unsigned(block[2]),
                             unsigned(shared_bytes), nullptr,
                             params, nullptr),
        "cuLaunchKernel");
}

void Gpu::synchronize() { check(g_api.cuCtxSynchronize(), "a kernel (cuCtxSynchronize)"); }

double Gpu::time_ms(const std::function<void()>& work) {
  CUevent start = nullptr, stop = nullptr;
  check(g_api.cuEventCreate(&start, 0), "cuEventCreate");
  check(g_api.cuEventCreate(&stop, 0), "cuEventCreate");
  check(g_api.cuEventRecord(start, nullptr), "cuEventRecord");
  work();
  check(g_api.cuEventRecord(stop, nullptr), "cuEventRecord");
  check(g_api.cuEventSynchronize(stop), "a kernel (cuEventSynchronize)");
  float ms = 0;
  check(g_api.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  g_api.cuEventDestroy(start);
  g_api.cuEventDestroy(stop);
  return ms;
}

}  // namespace weft::rt::gpu
