// The graph executor; see executor.h.
#include "runtime/graph/executor.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <iomanip>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "compiler/graph/passes/partition.h"
#include "compiler/ops/channel_shifts.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/conv2d_floor.h"
#include "compiler/passes/bias_gemm.h"
#include "compiler/passes/residual_init.h"
#include "compiler/passes/skip_pad_taps.h"
#include "compiler/pipeline.h"
#include "driver/launch.h"
#include "hardware/isa/errors.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/graph/cpu_kernels.h"
#include "runtime/graph/packed_io.h"
#include "runtime/graph/llvm_kernels.h"
#include "runtime/graph/recorded_knobs.h"
#include "runtime/stream/compiled_program.h"
#include "runtime/stream/stream_builder.h"

namespace weft::rt::graph {

using namespace compiler::graph;  // NOLINT: the executor speaks the graph IR throughout

namespace {

uint64_t align(uint64_t v, uint64_t a = 4096) { return (v + a - 1) / a * a; }

// A conv/dense node as the conv2d operator's shape and epilogue.
compiler::ops::Conv2dShape conv_shape(const Graph& g, const Node& n) {
  const TensorType& x = g.value(n.inputs[0]).type;
  const TensorType& w = g.value(n.inputs[1]).type;
  compiler::ops::Conv2dShape s;
  s.n = x.shape[0];
  s.ic = x.shape[1];
  s.oc = w.shape[0];
  if (n.kind == OpKind::AccelDense) return s;  // 1x1 on a 1x1 image
  s.h = x.shape[2];
  s.w = x.shape[3];
  s.k = w.shape[2];
  s.stride = n.get_ints("strides", {1, 1})[0];
  s.pad = n.get_ints("pads", {0, 0, 0, 0})[0];
  return s;
}

// Knobs whose tiling covers the output, input and output channels exactly (a packed value
// passes from one kernel to the next with no padding rows or blocks in between): the analytic
// chooser's first, or the fastest of its first `tune` measured on the cycle model (remembered in
// `cache`). Cached per configuration, platform, shape and epilogue for the process too (ResNet-18
// repeats most of its layers).
compiler::ops::Conv2dKnobs exact_knobs(const isa::Layout& l, const isa::Platform& pf,
                                       const compiler::ops::Conv2dShape& s, bool residual,
                                       bool channel_shifts, const std::string& node, size_t tune,
                                       KnobCache* cache) {
  static std::map<std::string, compiler::ops::Conv2dKnobs> memo;
  const std::string key = l.config.name + "/" + pf.name + "/" + s.describe() +
                          (residual ? "/r" : "") + (channel_shifts ? "/pc" : "") + "/exact2/t" +
                          std::to_string(tune);  // exact2: non-power-of-two tile_oc
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  if (cache && tune > 1)
    if (auto k = cache->find(key)) return memo[key] = *k;
  const auto& c = l.config;
  const int64_t icb = (s.ic + c.block_in() - 1) / c.block_in(),
                ocb = (s.oc + c.block_out() - 1) / c.block_out();
  std::vector<compiler::ops::Conv2dKnobs> exact;
  for (int64_t vt : {2, 1}) {
    std::vector<compiler::ops::Conv2dKnobs> cand;
    try {
      cand = compiler::ops::conv2d_candidates(l, pf, s, vt, 100000, residual, channel_shifts);
    } catch (const UserError&) {
      continue;
    }
    for (auto k : cand) {
      const int64_t vo = k.vthread_axis == 'o' ? k.vthreads : 1, vh = k.vthread_axis == 'h' ? k.vthreads : 1;
      // The candidates' tile_oc are powers of two; when the channel blocks per thread are not
      // (the fc: 1000 outputs = 63 blocks) the largest divisor at most as large covers exactly
      // (tile_oc 1 alone leaves the fc's weight stream one block at a time: 109 K cycles, 36 K
      // with 63).
      if (const int64_t per = ocb / vo; ocb % vo == 0 && (per & (per - 1)) != 0 && per % k.tile_oc) {
        int64_t d = std::min(k.tile_oc, per);
        while (per % d) --d;
        k.tile_oc = d;
        try {
          compiler::ops::check_conv2d_knobs(l, s, k, residual, channel_shifts);
        } catch (const UserError&) {
          continue;
        }
        auto same = [&](const compiler::ops::Conv2dKnobs& e) {
          return e.tile_h == k.tile_h && e.tile_w == k.tile_w && e.tile_ic == k.tile_ic &&
                 e.tile_oc == k.tile_oc && e.vthreads == k.vthreads && e.vthread_axis == k.vthread_axis;
        };
        if (std::any_of(exact.begin(), exact.end(), same)) continue;
      }
      if (icb % k.tile_ic || ocb % (k.tile_oc * vo) || s.out_h() % (k.tile_h * vh) ||
          s.out_w() % k.tile_w)
        continue;
      if (exact.size() < std::max<size_t>(tune, 1)) exact.push_back(k);
    }
    if (exact.size() >= std::max<size_t>(tune, 1)) break;
  }
  if (exact.empty())
    throw UserError("graph executor: no tiling of node '" + node + "' (" + s.describe() +
                    ") covers it exactly on " + c.name);
  compiler::ops::Conv2dKnobs best = exact[0];
  if (tune > 1 && exact.size() > 1) {
    best = measure_knobs(l, pf, s, exact).best;
    if (cache) {
      cache->put(key, best);
      cache->save();
    }
  }
  return memo[key] = best;
}

}  // namespace

std::string default_graph_knob_cache() {
  std::string p = default_knob_cache_path();
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? "" : p.substr(0, slash) + "/graph_conv2d_knobs.json";
}

namespace {

struct Kernel {
  NodeId node = kNone;
  compiler::ops::Conv2d op;
  compiler::accel::Program program;
  Program stream;
  uint64_t insn_addr = 0, insn_count = 0, bias_addr = 0, shift_addr = 0;
  int64_t macs = 0;
  std::vector<uint8_t> bias_bytes;
  std::vector<uint8_t> shift_bytes;  // per-channel shift tile S[ocb][B][BO] int8 (else empty)
  std::string schedule_source;
  compiler::ops::Conv2dFloor floor;
  // passes/bias_gemm.h: the constant input block and the bias weight blocks, when used.
  compiler::ir::Buffer ones, bias_w;
  std::vector<uint8_t> ones_bytes, bias_w_bytes;
  uint64_t ones_addr = 0, bias_w_addr = 0;
};

struct Step {
  // kCpuPacked: a CPU node that writes its packed output into the device arena (fold_packs,
  // band_pool), maybe into its rows of a Concat there; kInPlace: a Concat whose inputs were
  // written straight into it (plan_memory's views); it copies in only the others.
  enum Kind { kAccel, kCpu, kPack, kUnpack, kCpuPacked, kInPlace } kind;
  NodeId node;
  int kernel = -1;
};

}  // namespace

struct GraphExecutor::Impl {
  Graph g;
  passes::MemoryPlan plan;
  const isa::Layout& l;
  const isa::Platform& pf;
  std::vector<Kernel> kernels;
  std::vector<Step> steps;
  std::map<NodeId, std::shared_ptr<LlvmNodeKernel>> llvm;  // CPU nodes with a JIT kernel
  uint64_t weights_base = 0, bias_base = 0, arena_base = 0, program_base = 0, total = 0;
  double compile_seconds = 0;
  const driver::Device* loaded = nullptr;
  // The run in progress (cancel() reaches its device) and the step it is at (errors name it).
  std::mutex running_mu;
  driver::Device* running = nullptr;
  std::atomic<bool> cancelled{false};
  int64_t at_step = -1;

  Impl(const CompiledGraph& c, const isa::Layout& layout, const isa::Platform& platform)
      : g(c.graph), plan(c.plan), l(layout), pf(platform) {}

  uint64_t device_addr(ValueId v) const {
    if (g.value(v).is_constant()) return weights_base + static_cast<uint64_t>(plan.weights.at(v));
    return arena_base + static_cast<uint64_t>(plan.values.at(v).offset);
  }
};

GraphExecutor::GraphExecutor(const CompiledGraph& c, const isa::Layout& l, const isa::Platform& pf,
                             const ExecutorOptions& opts)
    : impl_(std::make_unique<Impl>(c, l, pf)) {
  Impl& m = *impl_;
  std::unique_ptr<KnobCache> cache;
  if (opts.tune_candidates > 1 && !opts.knob_cache.empty())
    cache = std::make_unique<KnobCache>(opts.knob_cache);
  const auto t0 = std::chrono::steady_clock::now();
  const Graph& g = m.g;
  const int64_t B = l.config.batch(), BO = l.config.block_out();
  // The CPU nodes' LLVM kernels (llvm_kernels.h), JIT-compiled on a second thread while the
  // accelerator kernels are scheduled below.
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
  // Kernels: schedule and lower each accelerator node once.
  for (NodeId id : g.schedule_order()) {
    const Node& n = g.node(id);
    Step st{Step::kCpu, id};
    if (n.kind == OpKind::AccelConv || n.kind == OpKind::AccelDense) {
      Kernel k;
      k.node = id;
      const auto s = conv_shape(g, n);
      const bool residual = n.inputs.size() > 3 && n.inputs[3] != kNone;
      compiler::ops::Conv2dEpilogue e;
      e.shift = static_cast<int>(n.get_int("shift", 0));
      // Per-channel shifts: the common part as the immediate shift, the rest per lane from a
      // shift tile in the accumulator (compiler/ops/channel_shifts.h). Channels that all shift
      // alike need only the immediate shift: the per-tensor kernel.
      std::optional<compiler::ops::ChannelShifts> cs;
      if (n.has("shifts")) {
        cs = compiler::ops::split_channel_shifts(l, n.get_ints("shifts", {}),
                                                 "graph executor: node '" + n.name + "'");
        if (cs->uniform()) {
          e.shift = cs->common + cs->lane.front();
          cs.reset();
        } else {
          e.shift = cs->common;
          e.channel_shifts = true;
        }
      }
      // No bias input: stem_im2col folded it into the GEMM (constant input channels).
      const bool bias = n.inputs.size() > 2 && n.inputs[2] != kNone;
      e.bias = bias;
      e.relu = n.get_int("relu", 0) != 0;
      e.bias_first = bias;
      e.residual = residual;
      std::optional<compiler::ops::Conv2dKnobs> rec;
      if (opts.use_records) rec = exact_recorded_knobs(l, pf, s, e, opts.tune_db);
      if (rec) {
        k.schedule_source = "tuning records";
      } else {
        rec = exact_knobs(l, pf, s, residual, e.channel_shifts, n.name, opts.tune_candidates,
                          cache.get());
        k.schedule_source = opts.tune_candidates > 1
                                ? "measured (best of " + std::to_string(opts.tune_candidates) +
                                      " exact tilings" + (cache ? ", knob cache" : "") + ")"
                                : "analytic chooser";
      }
      k.op = compiler::ops::make_conv2d(l, s, *rec, e);
      std::vector<compiler::ProgramPass> rewrites;
      // The residual as the accumulator's initial value (passes/residual_init.h) when
      // r * 2^shift + sum + bias cannot wrap at 32 bits: |sum| <= 128 * 128 * IC * K * K.
      if (residual && opts.residual_init) {
        int64_t bmax = 0;
        for (int64_t o = 0; bias && o < s.oc; ++o)
          bmax = std::max<int64_t>(bmax, std::abs(int64_t{g.value(n.inputs[2]).data->i32()[o]}));
        if (16384 * s.ic * s.k * s.k + bmax + (int64_t{128} << e.shift) < (int64_t{1} << 31)) {
          const compiler::ir::Buffer r = k.op.residual->buffer;
          rewrites.push_back([r](const compiler::accel::Program& p) {
            return compiler::passes::residual_init(p, r);
          });
        }
      }
      // The bias through the GEMM (passes/bias_gemm.h) when its pieces fit the lanes.
      std::vector<int8_t> ones, bias_w;
      if (bias && opts.bias_gemm &&
          compiler::passes::bias_pieces(l, g.value(n.inputs[2]).data->i32(), s.oc, &ones, &bias_w)) {
        const int64_t blocks = k.op.ocb;
        bias_w.resize(static_cast<size_t>(blocks * l.config.block_out() * l.config.block_in()), 0);
        k.ones = compiler::ir::make_buffer(n.name + ".ones", compiler::ir::DType::kInt8,
                                           {l.config.batch(), l.config.block_in()});
        k.bias_w = compiler::ir::make_buffer(n.name + ".bias_w", compiler::ir::DType::kInt8,
                                             {blocks, l.config.block_out(), l.config.block_in()});
        k.ones_bytes.assign(ones.begin(), ones.end());
        k.bias_w_bytes.assign(bias_w.begin(), bias_w.end());
        const compiler::ir::Buffer b = k.op.bias->buffer, o = k.ones, w = k.bias_w;
        const isa::Layout* lp = &l;
        rewrites.push_back([b, o, w, blocks, lp](const compiler::accel::Program& p) {
          return compiler::passes::bias_gemm(p, *lp, b, o, w, blocks);
        });
      }
      // GEMM micro-ops on zero padding dropped (passes/skip_pad_taps.h), last: after the bias
      // and residual rewrites the epilogue's kernels are final.
      if (opts.skip_pad_taps) {
        const isa::Layout* lp = &l;
        rewrites.push_back([lp](const compiler::accel::Program& p) {
          return compiler::passes::skip_pad_taps(p, *lp);
        });
      }
      k.program = compiler::compile_accel(*k.op.schedule, l, rewrites);
      k.floor = compiler::ops::conv2d_floor(l, s, e, pf.axi_data_bits / 8);
      k.macs = passes::node_macs(g, n);
      // The bias packed once: [ocb][B][BO] int32, each channel's value over the batch rows.
      const int32_t* b = bias ? g.value(n.inputs[2]).data->i32() : nullptr;
      std::vector<int32_t> pb(bias ? static_cast<size_t>(k.op.ocb * B * BO) : 0, 0);
      for (int64_t o = 0; b && o < s.oc; ++o)
        for (int64_t r = 0; r < B; ++r) pb[((o / BO) * B + r) * BO + o % BO] = b[o];
      k.bias_bytes.resize(pb.size() * 4);
      if (!pb.empty()) std::memcpy(k.bias_bytes.data(), pb.data(), k.bias_bytes.size());
      // The per-channel shift amounts likewise: [ocb][B][BO] int8 (padding channels shift 0).
      if (cs) {
        k.shift_bytes.assign(static_cast<size_t>(k.op.ocb * B * BO), 0);
        for (int64_t o = 0; o < s.oc; ++o)
          for (int64_t r = 0; r < B; ++r)
            k.shift_bytes[((o / BO) * B + r) * BO + o % BO] = static_cast<uint8_t>(cs->lane[o]);
      }
      st = {Step::kAccel, id, static_cast<int>(m.kernels.size())};
      m.kernels.push_back(std::move(k));
    } else if (n.kind == OpKind::Pack) {
      st.kind = Step::kPack;
    } else if (n.kind == OpKind::Unpack) {
      st.kind = Step::kUnpack;
    } else if (n.kind == OpKind::Concat && n.get_int("in_place", 0)) {
      // On the device every input must be a view (there is no device copy); on the host the
      // Concat copies the others in.
      const bool device = g.value(n.outputs[0]).type.layout.kind == Layout::Blocked;
      for (ValueId in : n.inputs)
        if (device && m.plan.values.at(in).view_of != n.outputs[0])
          throw InternalError("graph executor: Concat '" + n.name + "' is in place but input '" +
                              g.value(in).name + "' is not a view of it");
      st.kind = Step::kInPlace;
    } else if (g.value(n.outputs[0]).type.layout.kind == Layout::Blocked) {
      if (n.kind != OpKind::Im2Col && n.kind != OpKind::MaxPool && n.kind != OpKind::AveragePool)
        throw InternalError("graph executor: CPU node '" + n.name + "' cannot write a packed output");
      st.kind = Step::kCpuPacked;
    }
    m.steps.push_back(st);
  }
  if (llvm_jobs.valid()) m.llvm = llvm_jobs.get();
  // Device memory: weights, biases, arena, then the programs.
  m.weights_base = 0;
  m.bias_base = align(static_cast<uint64_t>(m.plan.weight_bytes));
  uint64_t at = m.bias_base;
  for (Kernel& k : m.kernels) {
    k.bias_addr = at;
    at = align(at + k.bias_bytes.size());
    if (!k.shift_bytes.empty()) {
      k.shift_addr = at;
      at = align(at + k.shift_bytes.size());
    }
    if (k.bias_w) {
      k.bias_w_addr = at;
      k.ones_addr = align(at + k.bias_w_bytes.size(), 256);
      at = align(k.ones_addr + k.ones_bytes.size());
    }
  }
  m.arena_base = at;
  m.program_base = align(m.arena_base + static_cast<uint64_t>(m.plan.device_arena));
  at = m.program_base;
  for (Kernel& k : m.kernels) {
    const Node& n = g.node(k.node);
    TensorPlacement place;
    place[k.op.a->buffer.get()] = static_cast<int64_t>(m.device_addr(n.inputs[0]) / l.inp_elem_bytes);
    place[k.op.w->buffer.get()] = static_cast<int64_t>(m.device_addr(n.inputs[1]) / l.wgt_elem_bytes);
    place[k.op.d->buffer.get()] = static_cast<int64_t>(m.device_addr(n.outputs[0]) / l.out_elem_bytes);
    place[k.op.bias->buffer.get()] = static_cast<int64_t>(k.bias_addr / l.acc_elem_bytes);
    if (k.op.epilogue.channel_shifts)
      place[k.op.shifts->buffer.get()] = static_cast<int64_t>(k.shift_addr / l.acc8_elem_bytes);
    if (k.bias_w) {
      place[k.bias_w.get()] = static_cast<int64_t>(k.bias_w_addr / l.wgt_elem_bytes);
      place[k.ones.get()] = static_cast<int64_t>(k.ones_addr / l.inp_elem_bytes);
    }
    if (k.op.epilogue.residual)
      place[k.op.residual->buffer.get()] =
          static_cast<int64_t>(m.device_addr(n.inputs[3]) / l.acc8_elem_bytes);
    auto build = [&](uint64_t insn_at, uint64_t uop_at) {
      StreamBuilder sb(l);
      append(sb, k.program, place);
      sb.synchronize();
      return sb.build(insn_at, uop_at);
    };
    const Program probe = build(0, uint64_t{1} << 26);  // lengths only
    const uint64_t insn_at = at, uop_at = align(at + probe.insn_bytes.size(), 64);
    k.stream = build(insn_at, uop_at);
    k.insn_addr = insn_at;
    k.insn_count = k.stream.insn_count;
    at = align(uop_at + k.stream.uop_bytes.size());
  }
  m.total = at;
  m.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

GraphExecutor::~GraphExecutor() = default;

uint64_t GraphExecutor::device_bytes() const { return impl_->total; }
double GraphExecutor::kernel_compile_seconds() const { return impl_->compile_seconds; }
const Graph& GraphExecutor::graph() const { return impl_->g; }

std::string GraphExecutor::listing() const {
  const Impl& m = *impl_;
  std::ostringstream o;
  o << "device memory: weights @0x" << std::hex << m.weights_base << ", biases @0x" << m.bias_base
    << ", arena @0x" << m.arena_base << ", programs @0x" << m.program_base << ", end 0x" << m.total
    << std::dec << "\n";
  for (const Step& s : m.steps) {
    const Node& n = m.g.node(s.node);
    switch (s.kind) {
      case Step::kAccel: {
        const Kernel& k = m.kernels[s.kernel];
        o << "  launch  " << n.name << ": " << k.insn_count << " instructions @0x" << std::hex
          << k.insn_addr << std::dec << " (" << k.op.shape.describe() << "; " << k.op.knobs.describe();
        if (k.op.epilogue.channel_shifts)
          o << "; per-channel shifts: SHR by " << k.op.epilogue.shift << ", then by the shift tile @0x"
            << std::hex << k.shift_addr << std::dec;
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
        if (n.has("out_h"))
          o << "rows " << n.get_int("y0", 0) << "-" << n.get_int("y0", 0) + n.get_int("out_h", 1) - 1
            << ", " << m.g.value(n.outputs[0]).type.stored_bytes();
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
  if (m.loaded != &dev) {
    if (m.total > 0 && dev.alloc(m.total) != 0)
      throw InternalError("graph executor: the device's first allocation is not at 0");
    for (const auto& [v, off] : m.plan.weights) {
      const auto& d = g.value(v).data->bytes;
      dev.copy_to_device(m.weights_base + static_cast<uint64_t>(off), d.data(), d.size());
    }
    for (const Kernel& k : m.kernels) {
      if (!k.bias_bytes.empty()) dev.copy_to_device(k.bias_addr, k.bias_bytes.data(), k.bias_bytes.size());
      if (!k.shift_bytes.empty())
        dev.copy_to_device(k.shift_addr, k.shift_bytes.data(), k.shift_bytes.size());
      if (k.bias_w) {
        dev.copy_to_device(k.bias_w_addr, k.bias_w_bytes.data(), k.bias_w_bytes.size());
        dev.copy_to_device(k.ones_addr, k.ones_bytes.data(), k.ones_bytes.size());
      }
      dev.copy_to_device(k.stream.insn_byte_offset, k.stream.insn_bytes.data(), k.stream.insn_bytes.size());
      if (!k.stream.uop_bytes.empty())
        dev.copy_to_device(k.stream.uop_byte_offset, k.stream.uop_bytes.data(), k.stream.uop_bytes.size());
    }
    m.loaded = &dev;
  }
  std::vector<uint8_t> host(static_cast<size_t>(m.plan.host_arena) + 64, 0);
  auto host_ptr = [&](ValueId v) -> uint8_t* {
    return host.data() + m.plan.values.at(v).offset;
  };
  auto in_ptr = [&](ValueId v) -> const uint8_t* {
    const Value& val = g.value(v);
    if (val.is_constant()) return val.data->bytes.data();
    for (size_t i = 0; i < ins.size(); ++i)
      if (ins[i] == v) return reinterpret_cast<const uint8_t*>(inputs[i].data());
    return host_ptr(v);
  };
  RunResult res;
  RunReport& r = res.report;
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
        const Kernel& k = m.kernels[s.kernel];
        const driver::RunCounters rc = driver::run(dev, k.insn_addr, k.insn_count, timeout);
        sr.engine = "accel";
        sr.cycles = rc.cycles;
        sr.macs = k.macs;
        sr.detail = k.op.knobs.describe();
        sr.schedule_source = k.schedule_source;
        sr.isa_floor_cycles = k.floor.cycles;
        sr.isa_floor_all_taps_cycles = k.floor.cycles_all_taps;
        const auto d = dev.run_details();
        if (d.contains("modules") && d["modules"].contains("compute")) {
          sr.compute = d["modules"]["compute"];
          if (d.contains("alu_uops")) sr.compute["alu_uops"] = d["alu_uops"];
        }
        if (d.contains("gemm_uops") && d.contains("dram")) {
          sr.gemm_uops = d["gemm_uops"].get<uint64_t>();
          for (const auto& [kind, b] : d["dram"]["read_nbytes"].items()) sr.dram_bytes += b.get<uint64_t>();
          sr.dram_bytes += d["dram"]["write_nbytes"]["out"].get<uint64_t>();
          sr.memory_cycles = double(sr.dram_bytes) / (m.pf.axi_data_bits / 8.0);
          sr.mac_bound_cycles = double(k.macs) / (double(m.l.config.batch()) * m.l.config.block_in() *
                                                  m.l.config.block_out());
          const double top = std::max(double(sr.gemm_uops), sr.memory_cycles);
          if (sr.memory_cycles >= double(sr.gemm_uops))
            sr.limit = "memory";
          else if (double(rc.cycles) > 1.15 * top)
            sr.limit = "overlap";
          else if (double(sr.gemm_uops) > 1.15 * sr.mac_bound_cycles)
            sr.limit = "padding";
          else
            sr.limit = "compute";
        }
        break;
      }
      case Step::kPack: {
        const ValueId out = n.outputs[0];
        staged(pack_stream(g.value(out).type, reinterpret_cast<const int8_t*>(in_ptr(n.inputs[0])),
                           writer(m.device_addr(out))));
        sr.engine = "cpu";
        sr.detail = "pack + copy to the device";
        break;
      }
      case Step::kUnpack: {
        const ValueId out = n.outputs[0];
        const auto& pl = m.plan.values.at(out);
        PlainSlice dst{reinterpret_cast<int8_t*>(host_ptr(out)), g.value(out).type.shape, 0, 0};
        if (pl.view_of != kNone) dst = {reinterpret_cast<int8_t*>(host_ptr(pl.view_of)),
                                        g.value(pl.view_of).type.shape, pl.view_axis, pl.view_at};
        const uint64_t base = m.device_addr(n.inputs[0]);
        PackedReader read = [&dev, base](int64_t off, int8_t* d, int64_t b) {
          dev.copy_from_device(base + static_cast<uint64_t>(off), d, static_cast<uint64_t>(b));
        };
        TensorType t = g.value(n.inputs[0]).type;
        if (n.has("out_h")) {  // a window of rows (band_pool's halo)
          const int64_t H = t.shape[2];
          t.shape[2] = g.value(out).type.shape[2];
          read = rows_of(read, t.shape[3] * t.layout.n * t.layout.c, t.shape[2], H, n.get_int("y0", 0));
        }
        staged(unpack_stream(t, read, dst));
        sr.engine = "cpu";
        sr.detail = pl.view_of != kNone ? "copy from the device + unpack into " + g.value(pl.view_of).name
                                        : "copy from the device + unpack";
        break;
      }
      case Step::kCpuPacked: {
        const ValueId out = n.outputs[0];
        const auto& pl = m.plan.values.at(out);
        PackedWriter write = writer(m.device_addr(out));
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
        sr.macs = passes::node_macs(g, n);
        break;
      }
    }
    const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
    r.steps.push_back(sr);
  }
  for (StepReport& s : r.steps) s.share = r.total_seconds > 0 ? s.seconds / r.total_seconds : 0;
  for (ValueId o : g.outputs()) {
    const TensorType& t = g.value(o).type;
    const uint8_t* p = in_ptr(o);
    std::vector<float> v(static_cast<size_t>(t.elements()));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = t.dtype == DType::F32 ? reinterpret_cast<const float*>(p)[i]
             : t.dtype == DType::I8 ? static_cast<float>(reinterpret_cast<const int8_t*>(p)[i])
                                    : static_cast<float>(reinterpret_cast<const int32_t*>(p)[i]);
    res.outputs.push_back(std::move(v));
  }
  m.at_step = -1;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

double RunReport::utilization() const {
  return accel_cycles ? double(accel_macs) / (double(accel_cycles) * macs_per_cycle) : 0;
}

nlohmann::ordered_json RunReport::to_json() const {
  nlohmann::ordered_json j;
  j["network"] = network;
  j["config"] = config;
  j["platform"] = platform;
  j["engine"] = engine;
  j["accel_cycles"] = accel_cycles;
  j["accel_seconds"] = accel_seconds;
  j["cpu_seconds"] = cpu_seconds;
  j["total_seconds"] = total_seconds;
  j["wall_seconds"] = wall_seconds;
  j["macs"] = macs;
  j["accel_macs"] = accel_macs;
  j["accel_mac_fraction"] = macs ? double(accel_macs) / double(macs) : 0.0;
  j["gemm_bound_cycles"] = macs_per_cycle > 0 ? double(accel_macs) / macs_per_cycle : 0.0;
  j["utilization"] = utilization();
  int64_t floor = 0, floor_all_taps = 0;
  for (const StepReport& s : steps) {
    floor += s.isa_floor_cycles;
    floor_all_taps += s.isa_floor_all_taps_cycles;
  }
  j["isa_floor_cycles"] = floor;
  j["isa_floor_all_taps_cycles"] = floor_all_taps;
  j["device_arena_bytes"] = device_arena;
  j["host_arena_bytes"] = host_arena;
  j["host_staging_bytes"] = staging_bytes;
  j["weight_bytes"] = weight_bytes;
  j["nodes"] = nlohmann::ordered_json::array();
  for (const StepReport& s : steps) {
    nlohmann::ordered_json n;
    n["node"] = s.node;
    n["op"] = s.op;
    n["engine"] = s.engine;
    if (s.engine == "accel") {
      n["cycles"] = s.cycles;
      n["utilization"] = s.utilization;
      n["schedule"] = s.detail;
      n["schedule_source"] = s.schedule_source;
      n["isa_floor_cycles"] = s.isa_floor_cycles;
      n["isa_floor_all_taps_cycles"] = s.isa_floor_all_taps_cycles;
      if (!s.compute.is_null()) n["compute"] = s.compute;
      if (!s.limit.empty()) {
        n["gemm_uops"] = s.gemm_uops;
        n["dram_bytes"] = s.dram_bytes;
        n["memory_cycles"] = s.memory_cycles;
        n["mac_bound_cycles"] = s.mac_bound_cycles;
        n["limit"] = s.limit;
      }
    } else {
      n["host_seconds"] = s.seconds;
    }
    n["macs"] = s.macs;
    n["seconds"] = s.seconds;
    n["share"] = s.share;
    j["nodes"].push_back(n);
  }
  return j;
}

std::string RunReport::table() const {
  std::ostringstream o;
  o << network << " on " << config << " (" << engine << " engine, platform " << platform << ")\n";
  o << std::left << std::setw(28) << "node" << std::setw(18) << "op" << std::setw(7) << "engine"
    << std::right << std::setw(12) << "cycles" << std::setw(12) << "time us" << std::setw(14)
    << "MACs" << std::setw(8) << "util" << std::setw(8) << "share" << "\n";
  for (const StepReport& s : steps) {
    o << std::left << std::setw(28) << s.node.substr(0, 27) << std::setw(18) << s.op.substr(0, 17)
      << std::setw(7) << s.engine << std::right << std::setw(12)
      << (s.engine == "accel" ? std::to_string(s.cycles) : std::string("-")) << std::setw(12)
      << std::fixed << std::setprecision(1) << s.seconds * 1e6 << std::setw(14) << s.macs
      << std::setw(7) << std::setprecision(1)
      << (s.engine == "accel" ? s.utilization * 100 : 0.0) << "%" << std::setw(7)
      << s.share * 100 << "%\n";
  }
  o << std::setprecision(3);
  std::map<std::string, int> sources;
  for (const StepReport& s : steps)
    if (!s.schedule_source.empty()) ++sources[s.schedule_source];
  if (!sources.empty()) {
    o << "schedules:";
    const char* sep = " ";
    for (const auto& [src, count] : sources) {
      o << sep << count << " from " << src;
      sep = ", ";
    }
    o << "\n";
  }
  o << "accelerator: " << accel_cycles << " cycles (" << accel_seconds * 1e3 << " ms at the clock), "
    << accel_macs << " of " << macs << " MACs ("
    << (macs ? 100.0 * double(accel_macs) / double(macs) : 0.0) << "%), utilization "
    << utilization() * 100 << "% of the GEMM bound " << static_cast<uint64_t>(double(accel_macs) / macs_per_cycle)
    << " cycles\n";
  o << "cpu: " << cpu_seconds * 1e3 << " ms; total " << total_seconds * 1e3 << " ms; wall "
    << wall_seconds << " s; arenas: device " << device_arena << " B, host " << host_arena
    << " B; weights " << weight_bytes << " B; copy staging " << staging_bytes << " B\n";
  return o.str();
}

nlohmann::json RunReport::timeline() const {
  nlohmann::json ev = nlohmann::json::array();
  ev.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", network + " on " + config}}}});
  ev.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1}, {"args", {{"name", "accelerator (" + engine + ")"}}}});
  ev.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 2}, {"args", {{"name", "cpu"}}}});
  for (const StepReport& s : steps) {
    nlohmann::json args = {{"op", s.op}, {"macs", s.macs}};
    if (s.engine == "accel") {
      args["cycles"] = s.cycles;
      args["utilization"] = s.utilization;
    }
    ev.push_back({{"name", s.node}, {"cat", s.op}, {"ph", "X"}, {"pid", 1},
                  {"tid", s.engine == "accel" ? 1 : 2}, {"ts", s.start_us}, {"dur", s.seconds * 1e6},
                  {"args", args}});
  }
  return {{"traceEvents", ev}, {"displayTimeUnit", "ns"}};
}

std::unique_ptr<driver::Device> open_graph_device(const std::string& engine, const GraphExecutor& exe,
                                                  const isa::Layout& layout,
                                                  const isa::Platform& platform,
                                                  const driver::DeviceOptions& base) {
  driver::DeviceOptions o = base;
  o.layout = &layout;
  o.platform = &platform;
  o.memory_bytes = std::max<uint64_t>(align(exe.device_bytes(), 1 << 20), 1 << 20);
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
