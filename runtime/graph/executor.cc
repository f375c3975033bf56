// The graph executor's construction and its static step list; see executor.h. The kernels come
// from the compiler (compiler/graph/lower), device memory from device_map.h, the run loop is
// executor_run.cc and the report run_report.h.
#include "runtime/graph/executor.h"

#include <future>
#include <sstream>

#include "hardware/isa/assembly.h"
#include "hardware/isa/errors.h"
#include "runtime/graph/executor_impl.h"
#include "runtime/graph/program_cache.h"
#include "runtime/tune/knob_search.h"
#include "runtime/tune/tuned_knobs.h"

namespace weft::rt::graph {

using namespace compiler::graph;  // NOLINT: the executor speaks the graph IR throughout

std::string default_graph_knob_cache() {
  std::string p = default_knob_cache_path();
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? "" : p.substr(0, slash) + "/graph_conv2d_knobs.json";
}

namespace {

// The step that runs node `n` (kAccel steps get their kernel index from the caller).
Step::Kind step_kind(const Graph& g, const passes::MemoryPlan& plan, const Node& n) {
  if (n.kind == OpKind::AccelConv || n.kind == OpKind::AccelDense) return Step::kAccel;
  if (n.kind == OpKind::Pack) return Step::kPack;
  if (n.kind == OpKind::Unpack) return Step::kUnpack;
  const bool device = g.value(n.outputs[0]).type.layout.kind == Layout::Blocked;
  if (n.kind == OpKind::Concat && n.facts.in_place.value_or(false)) {
    // On the device every input must be a view (there is no device copy); on the host the
    // Concat copies the others in.
    for (ValueId in : n.inputs)
      if (device && plan.values.at(in).view_of != n.outputs[0])
        throw InternalError("graph executor: Concat '" + n.name + "' is in place but input '" +
                            g.value(in).name + "' is not a view of it");
    return Step::kInPlace;
  }
  if (!device) return Step::kCpu;
  if (n.kind != OpKind::Im2Col && n.kind != OpKind::MaxPool && n.kind != OpKind::AveragePool)
    throw InternalError("graph executor: CPU node '" + n.name + "' cannot write a packed output");
  return Step::kCpuPacked;
}

// The compiler's lowering of accelerator nodes with the runtime's knob source, as `opts` ask.
struct Lowering {
  tune::TunedKnobs source;
  KnobChooser chooser;
  ProgramFileCache programs;
  AccelLowering lowering;
  Lowering(const isa::Layout& l, const isa::Platform& pf, const ExecutorOptions& opts)
      : source(l, pf,
               {opts.use_records, opts.tune_db,
                opts.tune_candidates > 1 ? opts.knob_cache : std::string()}),
        chooser(l, pf, opts.tune_candidates, &source),
        programs(opts.program_cache),
        lowering(l, pf, {opts.residual_init, opts.bias_gemm, opts.skip_pad_taps}, chooser,
                 opts.program_cache.empty() ? nullptr : &programs) {}
};

}  // namespace

GraphExecutor::GraphExecutor(const CompiledGraph& c, const isa::Layout& l, const isa::Platform& pf,
                             const ExecutorOptions& opts)
    : impl_(std::make_unique<Impl>(c, l, pf)) {
  Impl& m = *impl_;
  const auto t0 = std::chrono::steady_clock::now();
  const Graph& g = m.g;
  // The CPU nodes' LLVM kernels (llvm_kernels.h), JIT-compiled on a second thread while the
  // accelerator kernels are lowered below.
  std::future<std::map<NodeId, std::shared_ptr<LlvmNodeKernel>>> llvm_jobs;
  if (opts.llvm_kernels && have_llvm_kernels())
    llvm_jobs = std::async(std::launch::async, [&g] {
      std::map<NodeId, std::shared_ptr<LlvmNodeKernel>> out;
      for (NodeId id : g.schedule_order()) {
        const Node& n = g.node(id);
        if (n.kind == OpKind::AccelConv || n.kind == OpKind::AccelDense ||
            n.kind == OpKind::Pack || n.kind == OpKind::Unpack)
          continue;
        if (auto lk = make_llvm_node_kernel(g, n)) out[id] = std::move(lk);
        else if (auto pk = make_llvm_packed_kernel(g, n)) out[id] = std::move(pk);  // kCpuPacked
      }
      return out;
    });
  // The accelerator nodes, each lowered to a kernel once by the compiler, with knobs from the
  // tuning records or measured on the cycle model.
  Lowering lower(l, pf, opts);
  for (NodeId id : g.schedule_order()) {
    Step st{step_kind(g, m.plan, g.node(id)), id};
    if (st.kind == Step::kAccel) {
      st.kernel = static_cast<int>(m.kernels.size());
      m.kernels.push_back(lower.lowering.lower(g, id));
    }
    m.steps.push_back(st);
  }
  m.sources.reused = lower.lowering.programs_reused();
  m.sources.cached = lower.lowering.programs_cached();
  m.sources.compiled =
      static_cast<int64_t>(m.kernels.size()) - m.sources.reused - m.sources.cached;
  if (llvm_jobs.valid()) m.llvm = llvm_jobs.get();
  m.map = std::make_unique<DeviceMap>(g, m.plan, m.kernels, l);
  m.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

GraphExecutor::~GraphExecutor() = default;

uint64_t GraphExecutor::device_bytes() const { return impl_->map->total(); }
double GraphExecutor::kernel_compile_seconds() const { return impl_->compile_seconds; }
ProgramSources GraphExecutor::program_sources() const { return impl_->sources; }
const Graph& GraphExecutor::graph() const { return impl_->g; }

std::string GraphExecutor::listing() const {
  const Impl& m = *impl_;
  std::ostringstream o;
  o << m.map->describe() << "\n";
  for (const Step& s : m.steps) {
    const Node& n = m.g.node(s.node);
    switch (s.kind) {
      case Step::kAccel: {
        const AccelKernel& k = m.kernels[s.kernel];
        const PlacedKernel& p = m.map->kernel(s.kernel);
        o << "  launch  " << n.name << ": " << p.insn_count << " instructions @0x" << std::hex
          << p.insn_addr << std::dec << " (" << k.op.shape.describe() << "; "
          << k.op.knobs.describe();
        if (k.op.epilogue.channel_shifts)
          for (size_t c = 0; c < k.constants.size(); ++c)
            if (k.constants[c].buffer == k.op.shifts->buffer)
              o << "; per-channel shifts: SHR by " << k.op.epilogue.shift
                << ", then by the shift tile @0x" << std::hex << p.constant_addrs[c] << std::dec;
        o << ")\n";
        break;
      }
      case Step::kPack:
        o << "  copy-in " << n.name << " (pack on the host, " << m.g.value(n.outputs[0]).type.stored_bytes()
          << " B to the device arena)\n";
        break;
      case Step::kUnpack: {
        const auto& pl = m.plan.values.at(n.outputs[0]);
        o << "  copy-out " << n.name << " (";
        if (n.facts.out_h)
          o << "rows " << n.facts.y0.value_or(0) << "-"
            << n.facts.y0.value_or(0) + *n.facts.out_h - 1 << ", "
            << m.g.value(n.outputs[0]).type.stored_bytes();
        else
          o << m.g.value(n.inputs[0]).type.stored_bytes();
        o << " B from the device arena, unpack on the host";
        if (pl.view_of != kNone)
          o << " into " << m.g.value(pl.view_of).name << " at " << pl.view_at << " on axis " << pl.view_axis;
        o << ")\n";
        break;
      }
      case Step::kCpuPacked: {
        const auto& pl = m.plan.values.at(n.outputs[0]);
        o << "  cpu     " << n.name << " (" << op_name(n.kind) << ", packed straight into the device arena, "
          << m.g.value(n.outputs[0]).type.stored_bytes() << " B";
        if (pl.view_of != kNone) o << ", into " << m.g.value(pl.view_of).name << " at " << pl.view_at;
        o << (m.llvm.count(s.node) ? ", llvm" : "") << ")\n";
        break;
      }
      case Step::kInPlace: {
        int copied = 0;
        for (ValueId in : n.inputs) copied += m.plan.values.at(in).view_of == n.outputs[0] ? 0 : 1;
        o << (copied ? "  cpu     " : "  none    ") << n.name << " (" << op_name(n.kind)
          << " in place: its inputs were written into it";
        if (copied) o << ", but " << copied << " copied in";
        o << ")\n";
        break;
      }
      case Step::kCpu:
        o << "  cpu     " << n.name << " (" << op_name(n.kind)
          << (m.llvm.count(s.node) ? ", llvm" : "") << ")\n";
        break;
    }
  }
  return o.str();
}

std::string GraphExecutor::kernel_listing(const std::string& node) const {
  const Impl& m = *impl_;
  for (const Step& s : m.steps) {
    if (s.kind != Step::kAccel || m.g.node(s.node).name != node) continue;
    const AccelKernel& k = m.kernels[s.kernel];
    const PlacedKernel& p = m.map->kernel(s.kernel);
    std::ostringstream o;
    o << "// " << node << ": " << k.op.shape.describe() << "; " << k.op.knobs.describe() << " ("
      << k.schedule_source << "); rewrites:";
    for (const std::string& r : k.rewrites) o << " " << r;
    if (k.rewrites.empty()) o << " none";
    o << "\n// " << p.insn_count << " instructions @0x" << std::hex << p.insn_addr
      << ", micro-ops @0x" << p.stream.uop_byte_offset << std::dec << "\n";
    for (size_t i = 0; i < p.stream.insns.size(); ++i)
      o << i << ": " << isa::format_insn(m.l, p.stream.insns[i]) << "\n";
    return o.str();
  }
  throw UserError("graph executor: no accelerator node named '" + node + "'");
}

AccelKernel lower_node(const CompiledGraph& c, const std::string& node, const isa::Layout& l,
                       const isa::Platform& pf, const ExecutorOptions& opts,
                       const compiler::PassObserver& after_pass,
                       const compiler::ProgramObserver& after_step) {
  for (NodeId id : c.graph.topo_order()) {
    const Node& n = c.graph.node(id);
    if (n.name != node || (n.kind != OpKind::AccelConv && n.kind != OpKind::AccelDense)) continue;
    Lowering lower(l, pf, opts);
    return lower.lowering.lower(c.graph, id, after_pass, after_step);
  }
  throw UserError("graph executor: no accelerator node named '" + node + "'");
}

std::unique_ptr<driver::Device> open_graph_device(const std::string& engine, const GraphExecutor& exe,
                                                  const isa::Layout& layout,
                                                  const isa::Platform& platform,
                                                  const driver::DeviceOptions& base) {
  driver::DeviceOptions o = base;
  o.layout = &layout;
  o.platform = &platform;
  constexpr uint64_t kMiB = 1 << 20;
  o.memory_bytes = std::max<uint64_t>((exe.device_bytes() + kMiB - 1) / kMiB * kMiB, kMiB);
  return driver::open_device(engine, o);
}

RunResult run_network(const Graph& g, const std::string& config, const std::string& engine,
                      const std::vector<std::vector<float>>& inputs,
                      const GraphCompileOptions& options, const std::string& platform) {
  const isa::Layout& l = isa::layout_for(config);
  const isa::Platform& pf = isa::find_platform(platform);
  CompiledGraph c = compile_graph(g, l, pf, options);
  GraphExecutor exe(c, l, pf);
  auto dev = open_graph_device(engine, exe, l, pf);
  return exe.run(*dev, inputs);
}

}  // namespace weft::rt::graph
