// Shared by the CPU dispatch benchmarks (cpu_dispatch_tune.cc, cpu_generic.cc): 64-byte aligned
// buffers for a lowered CPU operator's arguments with its inputs filled from a seed (float32 in
// [-1, 1], int8 in [-100, 100], int32 as two such int16 halves), interleaved timing of
// contenders by the thread's or the process's CPU time, and output comparison.
#pragma once

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"

namespace weft::bench {

struct OpBuffers {
  std::vector<std::unique_ptr<void, void (*)(void*)>> owned;
  std::vector<void*> ptrs;
  std::vector<size_t> bytes;
};

inline OpBuffers op_buffers(const compiler::ops::LoweredOp& op, uint32_t seed) {
  using compiler::ir::DType;
  OpBuffers b;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(-100, 100);
  for (size_t i = 0; i < op.num_inputs + op.num_outputs; ++i) {
    const compiler::ir::Buffer& buf = op.func.args[i];
    const size_t n = rt::cpu::buffer_bytes(buf);
    b.owned.emplace_back(std::aligned_alloc(64, (n + 63) / 64 * 64), &std::free);
    if (!b.owned.back()) throw UserError("out of memory for the buffer '" + buf->name + "'");
    void* p = b.owned.back().get();
    std::memset(p, 0, n);
    b.ptrs.push_back(p);
    b.bytes.push_back(n);
    if (i >= op.num_inputs) continue;
    const size_t e = static_cast<size_t>(buf->elements());
    if (buf->dtype == DType::kFloat32) {
      for (size_t j = 0; j < e; ++j) static_cast<float*>(p)[j] = real(rng);
    } else if (buf->dtype == DType::kInt8) {
      for (size_t j = 0; j < e; ++j) static_cast<int8_t*>(p)[j] = static_cast<int8_t>(small(rng));
    } else if (buf->dtype == DType::kInt32) {
      for (size_t j = 0; j < e; ++j)
        static_cast<int32_t*>(p)[j] = static_cast<int32_t>(
            (static_cast<uint32_t>(static_cast<uint16_t>(small(rng))) << 16) |
            static_cast<uint16_t>(small(rng)));
    } else {
      throw InternalError("bench: no random fill for the buffer '" + buf->name + "'");
    }
  }
  return b;
}

/// Seconds of CPU time: the calling thread's (`process` false: one thread, where the other
/// processes of a shared machine are not counted) or the whole process's (all its threads).
inline double cpu_seconds(bool process) {
  timespec t{};
  clock_gettime(process ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// Runs the contenders interleaved (a warm-up, then `reps` rounds); the median CPU seconds and
/// the median wall seconds of each.
struct RaceTimes {
  std::vector<double> cpu, wall;
};
inline RaceTimes race(const std::vector<std::function<void()>>& fs, int reps, bool process) {
  for (const auto& f : fs) f();
  std::vector<std::vector<double>> c(fs.size()), w(fs.size());
  for (int r = 0; r < reps; ++r) {
    for (size_t i = 0; i < fs.size(); ++i) {
      const double c0 = cpu_seconds(process);
      const auto w0 = std::chrono::steady_clock::now();
      fs[i]();
      w[i].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
      c[i].push_back(cpu_seconds(process) - c0);
    }
  }
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  RaceTimes t;
  for (size_t i = 0; i < fs.size(); ++i) {
    t.cpu.push_back(med(c[i]));
    t.wall.push_back(med(w[i]));
  }
  return t;
}

/// The largest difference between two outputs of `n` elements (float32 or int32).
inline double max_difference(const void* a, const void* b, size_t n, bool fp32) {
  double e = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = fp32 ? static_cast<const float*>(a)[i] : static_cast<const int32_t*>(a)[i];
    const double y = fp32 ? static_cast<const float*>(b)[i] : static_cast<const int32_t*>(b)[i];
    e = std::max(e, std::abs(x - y));
  }
  return e;
}

}  // namespace weft::bench
