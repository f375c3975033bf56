// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") so that `weft` starts on
// machines without an NVIDIA driver (it is never linked). One process-wide device: device 0
// and its primary context (the one the CUDA runtime, cuBLAS and cuDNN use too, so buffers and
// timings can be shared with them). The driver's types stay in cuda_driver.cc: here device
// pointers are uint64_t and modules and functions opaque handles.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

namespace weft::rt::gpu {

/// The GPU this process uses.
class Gpu {
 public:
  /// The device; UserError "no CUDA driver: libcuda.so.1 not found (...)" or "no CUDA device:
  /// ..." when there is none.
  static Gpu& get();
  /// Why there is no usable GPU ("no CUDA driver: ...", "no CUDA device: ..."), or "" when
  /// there is one. Never throws (tests skip with this reason).
  static std::string unavailable();

  const std::string& name() const { return name_; }
  /// Compute capability as major*10 + minor (e.g. 90 for H100).
  int compute_capability() const { return cc_; }
  /// "sm_XX" for NVRTC.
  std::string arch() const { return "sm_" + std::to_string(cc_); }

  uint64_t alloc(size_t bytes);
  void free(uint64_t ptr);
  void upload(uint64_t dst, const void* src, size_t bytes);
  void download(void* dst, uint64_t src, size_t bytes);
  void memset_zero(uint64_t dst, size_t bytes);

  /// Loads a cubin or PTX image; the handle lives as long as the process (or unload()).
  void* load_module(const std::string& image);
  void unload(void* module);
  /// A __global__ function of a loaded module; UserError when it is missing.
  void* function(void* module, const std::string& name);
  /// Launches `fn` with kernel parameters `params` (pointers to each argument) on the default
  /// stream, with `dynamic_shared_bytes` beyond its static shared memory; asynchronous.
  void launch(void* fn, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block,
              int64_t dynamic_shared_bytes, void** params);
  /// Waits for all launched work; UserError naming the error of a kernel that failed.
  void synchronize();
  /// Milliseconds `work` takes on the GPU (CUDA events around it on the default stream).
  double time_ms(const std::function<void()>& work);

 private:
  Gpu() = default;
  std::string name_;
  int cc_ = 0;
};

/// Owns one device allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : ptr_(Gpu::get().alloc(bytes)), bytes_(bytes) {}
  ~DeviceBuffer() {
    if (ptr_) Gpu::get().free(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  uint64_t ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  uint64_t ptr_ = 0;
  size_t bytes_ = 0;
};

}  // namespace weft::rt::gpu
