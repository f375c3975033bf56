// The graph executor's state, shared by its construction (executor.cc) and its run loop
// (executor_run.cc); not part of the library API (see executor.h).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "compiler/graph/lower/accel_kernel.h"
#include "runtime/graph/device_map.h"
#include "runtime/graph/executor.h"
#include "runtime/graph/llvm_kernels.h"

namespace weft::rt::graph {

/// One step of the static list, in the graph's schedule order.
struct Step {
  // kAccel: a kernel launch; kCpu: a CPU node on host values; kPack / kUnpack: copies into and
  // out of the device arena; kCpuPacked: a CPU node that writes its packed output into the
  // device arena (fold_packs, band_pool), maybe into its rows of a Concat there; kInPlace: a
  // Concat whose inputs were written straight into it (plan_memory's views); it copies in only
  // the others.
  enum Kind { kAccel, kCpu, kPack, kUnpack, kCpuPacked, kInPlace } kind;
  compiler::graph::NodeId node;
  int kernel = -1;  // kAccel: the index into kernels
};

struct GraphExecutor::Impl {
  compiler::graph::Graph g;
  compiler::graph::passes::MemoryPlan plan;
  const isa::Layout& l;
  const isa::Platform& pf;
  std::vector<compiler::graph::AccelKernel> kernels;  // compiler/graph/lower
  std::vector<Step> steps;
  std::map<compiler::graph::NodeId, std::shared_ptr<LlvmNodeKernel>>
      llvm;  // CPU nodes' JIT kernels
  std::unique_ptr<DeviceMap> map;
  double compile_seconds = 0;
  ProgramSources sources;
  uint64_t loaded = 0;  // the serial of the device holding the weights and programs (0: none)
  // The run in progress (cancel() reaches its device) and the step it is at (errors name it).
  std::mutex running_mu;
  driver::Device* running = nullptr;
  std::atomic<bool> cancelled{false};
  int64_t at_step = -1;

  Impl(const compiler::graph::CompiledGraph& c, const isa::Layout& layout,
       const isa::Platform& platform)
      : g(c.graph), plan(c.plan), l(layout), pf(platform) {}
};

}  // namespace weft::rt::graph
