// The graph executor's run loop: the static step list on one device, timed, into one report;
// see executor.h.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>

#include "compiler/graph/passes/partition.h"
#include "driver/launch.h"
#include "hardware/isa/errors.h"
#include "runtime/graph/cpu_kernels.h"
#include "runtime/graph/executor_impl.h"
#include "runtime/graph/packed_io.h"

namespace weft::rt::graph {

using namespace compiler::graph;  // NOLINT: the executor speaks the graph IR throughout

RunResult GraphExecutor::run(driver::Device& dev, const std::vector<std::vector<float>>& inputs,
                             std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  {
    std::lock_guard<std::mutex> lock(m.running_mu);
    m.running = &dev;
    m.cancelled = false;
    m.at_step = -1;
  }
  struct Done {
    Impl& m;
    ~Done() {
      std::lock_guard<std::mutex> lock(m.running_mu);
      m.running = nullptr;
    }
  } done{m};
  try {
    return run_steps(dev, inputs, timeout);
  } catch (const UserError& e) {
    if (m.at_step < 0) throw;
    // A device error (an AXI fault, a timeout, a cancelled run) names the node it stopped.
    const Node& n = m.g.node(m.steps[static_cast<size_t>(m.at_step)].node);
    const std::string cause = m.cancelled ? std::string("cancelled by the host (") + e.what() + ")"
                                          : std::string(e.what());
    throw UserError("network '" + m.g.name() + "', node '" + n.name + "' (" + op_name(n.kind) +
                    ", step " + std::to_string(m.at_step + 1) + " of " +
                    std::to_string(m.steps.size()) + "): " + cause +
                    "; the network's run was stopped there");
  }
}

void GraphExecutor::cancel() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.running_mu);
  if (!m.running) return;
  m.cancelled = true;
  m.running->abort();  // the kernel in flight, if any; no later step starts
}

RunResult GraphExecutor::run_steps(driver::Device& dev,
                                   const std::vector<std::vector<float>>& inputs,
                                   std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  const Graph& g = m.g;
  const auto wall0 = std::chrono::steady_clock::now();
  const auto ins = g.inputs();
  if (inputs.size() != ins.size())
    throw UserError("graph executor: " + std::to_string(inputs.size()) + " inputs given, '" +
                    g.name() + "' has " + std::to_string(ins.size()));
  for (size_t i = 0; i < ins.size(); ++i)
    if (static_cast<int64_t>(inputs[i].size()) != g.value(ins[i]).type.elements())
      throw UserError("graph executor: input '" + g.value(ins[i]).name + "' has " +
                      std::to_string(inputs[i].size()) + " elements, its type " +
                      g.value(ins[i]).type.str() + " needs " +
                      std::to_string(g.value(ins[i]).type.elements()));
  if (m.loaded != dev.serial()) {
    m.map->upload(dev);
    m.loaded = dev.serial();
  }
  std::vector<uint8_t> host(static_cast<size_t>(m.plan.host_arena) + 64, 0);
  auto host_ptr = [&](ValueId v) -> uint8_t* { return host.data() + m.plan.values.at(v).offset; };
  auto in_ptr = [&](ValueId v) -> const uint8_t* {
    const Value& val = g.value(v);
    if (val.is_constant()) return val.data->bytes.data();
    for (size_t i = 0; i < ins.size(); ++i)
      if (ins[i] == v) return reinterpret_cast<const uint8_t*>(inputs[i].data());
    return host_ptr(v);
  };
  RunResult res;
  RunReport& r = res.report;
  r.steps.reserve(m.steps.size());
  r.network = g.name();
  r.config = m.l.config.name;
  r.platform = m.pf.name;
  r.engine = dev.name();
  r.macs_per_cycle = double(m.l.config.batch()) * m.l.config.block_in() * m.l.config.block_out();
  r.device_arena = m.plan.device_arena;
  r.host_arena = m.plan.host_arena;
  r.weight_bytes = m.plan.weight_bytes;
  auto writer = [&](uint64_t base) {
    return [&dev, base](int64_t off, const int8_t* d, int64_t b) {
      dev.copy_to_device(base + static_cast<uint64_t>(off), d, static_cast<uint64_t>(b));
    };
  };
  auto staged = [&](int64_t b) { r.staging_bytes = std::max(r.staging_bytes, b); };
  for (const Step& s : m.steps) {
    m.at_step = &s - m.steps.data();
    if (m.cancelled) throw UserError("the run was cancelled before this step");
    const Node& n = g.node(s.node);
    StepReport sr;
    sr.node = n.name;
    sr.op = op_name(n.kind);
    const auto t0 = std::chrono::steady_clock::now();
    switch (s.kind) {
      case Step::kAccel: {
        const AccelKernel& k = m.kernels[s.kernel];
        const PlacedKernel& p = m.map->kernel(s.kernel);
        const driver::RunCounters rc = driver::run(dev, p.insn_addr, p.insn_count, timeout);
        sr.engine = "accel";
        sr.cycles = rc.cycles;
        sr.macs = k.macs;
        sr.detail = k.op.knobs.describe();
        sr.schedule_source = k.schedule_source;
        sr.isa_floor_cycles = k.floor.cycles;
        sr.isa_floor_all_taps_cycles = k.floor.cycles_all_taps;
        add_run_details(sr, dev.run_details(), m.l, m.pf);
        break;
      }
      case Step::kPack: {
        const ValueId out = n.outputs[0];
        staged(pack_stream(g.value(out).type, reinterpret_cast<const int8_t*>(in_ptr(n.inputs[0])),
                           writer(m.map->addr(out))));
        sr.engine = "cpu";
        sr.detail = "pack + copy to the device";
        break;
      }
      case Step::kUnpack: {
        const ValueId out = n.outputs[0];
        const auto& pl = m.plan.values.at(out);
        PlainSlice dst{reinterpret_cast<int8_t*>(host_ptr(out)), g.value(out).type.shape, 0, 0};
        if (pl.view_of != kNone)
          dst = {reinterpret_cast<int8_t*>(host_ptr(pl.view_of)), g.value(pl.view_of).type.shape,
                 pl.view_axis, pl.view_at};
        const uint64_t base = m.map->addr(n.inputs[0]);
        PackedReader read = [&dev, base](int64_t off, int8_t* d, int64_t b) {
          dev.copy_from_device(base + static_cast<uint64_t>(off), d, static_cast<uint64_t>(b));
        };
        TensorType t = g.value(n.inputs[0]).type;
        if (n.facts.out_h) {  // a window of rows (band_pool's halo)
          const int64_t H = t.shape[2];
          t.shape[2] = g.value(out).type.shape[2];
          read = rows_of(read, t.shape[3] * t.layout.n * t.layout.c, t.shape[2], H,
                         n.facts.y0.value_or(0));
        }
        staged(unpack_stream(t, read, dst));
        sr.engine = "cpu";
        sr.detail = pl.view_of != kNone
                        ? "copy from the device + unpack into " + g.value(pl.view_of).name
                        : "copy from the device + unpack";
        break;
      }
      case Step::kCpuPacked: {
        const ValueId out = n.outputs[0];
        const auto& pl = m.plan.values.at(out);
        PackedWriter write = writer(m.map->addr(out));
        if (pl.view_of != kNone) {  // its rows of a Concat in the device arena
          const TensorType& t = g.value(out).type;
          write = rows_of(write, t.shape[3] * t.layout.n * t.layout.c, t.shape[2],
                          g.value(pl.view_of).type.shape[2], pl.view_at);
        }
        if (auto it = m.llvm.find(s.node); it != m.llvm.end()) {
          staged(run_llvm_packed(*it->second, in_ptr(n.inputs[0]), write));
          sr.engine = "llvm";
        } else if (n.kind == OpKind::Im2Col) {
          staged(im2col_packed(g, n, in_ptr(n.inputs[0]), write));
          sr.engine = "cpu";
        } else {
          staged(pool_packed(g, n, reinterpret_cast<const int8_t*>(in_ptr(n.inputs[0])), write));
          sr.engine = "cpu";
        }
        sr.macs = passes::node_macs(g, n);
        sr.detail = "packed straight into the device arena";
        break;
      }
      case Step::kInPlace: {
        const ValueId y = n.outputs[0];
        int64_t axis = n.get_int("axis", 0);
        if (axis < 0) axis += g.value(y).type.rank();
        int64_t at = 0;
        for (ValueId in : n.inputs) {
          const auto& shape = g.value(in).type.shape;
          if (m.plan.values.at(in).view_of != y)
            copy_into(reinterpret_cast<const int8_t*>(in_ptr(in)), shape,
                      {reinterpret_cast<int8_t*>(host_ptr(y)), g.value(y).type.shape, axis, at});
          at += shape[static_cast<size_t>(axis)];
        }
        sr.engine = "cpu";
        sr.detail = "in place: its inputs were written into it";
        break;
      }
      case Step::kCpu: {
        std::vector<const uint8_t*> in;
        for (ValueId v : n.inputs) in.push_back(v == kNone ? nullptr : in_ptr(v));
        if (auto it = m.llvm.find(s.node); it != m.llvm.end()) {
          run_llvm_node(*it->second, in, host_ptr(n.outputs[0]));
          sr.engine = "llvm";
        } else {
          run_cpu_node(g, n, in, host_ptr(n.outputs[0]));
          sr.engine = "cpu";
        }
        if (n.facts.cpu_reason) sr.detail = *n.facts.cpu_reason;
        sr.macs = passes::node_macs(g, n);
        break;
      }
    }
    const double host_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (sr.engine == "accel") {
      sr.seconds = double(sr.cycles) / (m.pf.clock_mhz * 1e6);
      sr.utilization = sr.cycles ? double(sr.macs) / (double(sr.cycles) * r.macs_per_cycle) : 0;
      r.accel_cycles += sr.cycles;
      r.accel_seconds += sr.seconds;
      r.accel_macs += sr.macs;
    } else {
      sr.seconds = host_s;
      r.cpu_seconds += host_s;
    }
    r.macs += sr.macs;
    sr.start_us = r.total_seconds * 1e6;
    r.total_seconds += sr.seconds;
    r.steps.push_back(std::move(sr));
  }
  for (StepReport& s : r.steps) s.share = r.total_seconds > 0 ? s.seconds / r.total_seconds : 0;
  for (ValueId o : g.outputs()) {
    const TensorType& t = g.value(o).type;
    const uint8_t* p = in_ptr(o);
    std::vector<float> v(static_cast<size_t>(t.elements()));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = t.dtype == DType::F32  ? reinterpret_cast<const float*>(p)[i]
             : t.dtype == DType::I8 ? static_cast<float>(reinterpret_cast<const int8_t*>(p)[i])
                                    : static_cast<float>(reinterpret_cast<const int32_t*>(p)[i]);
    res.outputs.push_back(std::move(v));
  }
  m.at_step = -1;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

}  // namespace weft::rt::graph
