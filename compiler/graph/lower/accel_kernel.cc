// Lowering accelerator nodes to kernels; see accel_kernel.h.
#include "compiler/graph/lower/accel_kernel.h"

#include <algorithm>
#include <cstdlib>

#include "compiler/graph/passes/partition.h"
#include "compiler/passes/bias_gemm.h"
#include "compiler/passes/residual_init.h"
#include "hardware/isa/config_file.h"

namespace weft::compiler::graph {

namespace {

// Everything compile_accel's output depends on besides the schedule's buffers: the operator
// (shape, knobs, epilogue) and which rewrites run (a rewrite's inputs beyond the buffers only
// decide whether it runs).
std::string program_key(const isa::Layout& l, const ops::Conv2d& op, const PipelineOptions& p) {
  const ops::Conv2dEpilogue& e = op.epilogue;
  // The whole configuration, as its file writes it: two files of one name may differ (runs
  // weeks apart, a sweep's edits), and passes read more of it than the shape and the buffers
  // (store_requant runs when the option is on).
  std::string k = isa::config_to_json(l.config).dump() + "|";
  k += op.shape.describe() + "|" + op.knobs.describe() + "|" + std::to_string(e.shift);
  for (bool b : {e.bias, e.relu, e.bias_first, e.residual, e.channel_shifts}) k += b ? '1' : '0';
  const auto& r = p.residual_init;
  k += r && compiler::passes::residual_init_cannot_wrap(r->products, r->bias_max, r->shift) ? "|ri" : "|-";
  if (p.bias_gemm) k += "|bg" + std::to_string(p.bias_gemm->blocks);
  k += p.skip_pad_taps ? "|sp" : "|-";
  return k;
}

// The DRAM tensors a program of `op` built with `p` may name, in a fixed order.
std::vector<ir::Buffer> program_roles(const ops::Conv2d& op, const PipelineOptions& p) {
  std::vector<ir::Buffer> r;
  for (const te::Tensor* t : {&op.a, &op.w, &op.bias, &op.c, &op.d, &op.residual, &op.shifts})
    r.push_back(t->get() ? (*t)->buffer : ir::Buffer());
  r.push_back(p.bias_gemm ? p.bias_gemm->ones : ir::Buffer());
  r.push_back(p.bias_gemm ? p.bias_gemm->weights : ir::Buffer());
  return r;
}

// `prog` with each tensor of `from` replaced by the same role's tensor of `to`; false when it
// names a tensor outside `from` (then the caller compiles instead).
bool rebind(accel::Program* prog, const std::vector<ir::Buffer>& from,
            const std::vector<ir::Buffer>& to) {
  auto swap = [&](ir::Buffer* b) {
    if (!*b) return true;
    for (size_t i = 0; i < from.size(); ++i)
      if (from[i] == *b && to[i]) {
        *b = to[i];
        return true;
      }
    return false;
  };
  for (accel::Op& o : prog->ops)
    if (!swap(&o.tensor)) return false;
  for (ir::Buffer& b : prog->tensors)
    if (!swap(&b)) return false;
  return true;
}

}  // namespace

AccelLowering::AccelLowering(const isa::Layout& layout, const isa::Platform& platform,
                             LowerOptions options, KnobChooser& knobs, ProgramCache* cache)
    : layout_(layout), platform_(platform), options_(options), knobs_(knobs), cache_(cache) {}

PipelineOptions AccelLowering::rewrites(const Graph& g, const ConvNode& c, const std::string& name,
                                        const ops::Conv2d& op,
                                        std::vector<KernelConstant>* constants) const {
  const isa::Layout& l = layout_;
  const int32_t* bias = c.bias != kNone ? g.value(c.bias).data->i32() : nullptr;
  PipelineOptions p;
  if (c.epilogue.residual && options_.residual_init) {
    int64_t bias_max = 0;
    for (int64_t o = 0; bias && o < c.shape.oc; ++o)
      bias_max = std::max<int64_t>(bias_max, std::abs(int64_t{bias[o]}));
    p.residual_init = ResidualInitOption{op.residual->buffer, c.shape.ic * c.shape.k * c.shape.k,
                                         bias_max, c.epilogue.shift};
  }
  // bias_pieces is bias_gemm's legality check: a bias too large for the lanes gets no option.
  std::vector<int8_t> ones, bias_w;
  if (bias && options_.bias_gemm &&
      compiler::passes::bias_pieces(l, bias, c.shape.oc, &ones, &bias_w)) {
    const int64_t blocks = op.ocb;
    bias_w.resize(static_cast<size_t>(blocks * l.config.block_out() * l.config.block_in()), 0);
    BiasGemmOption b;
    b.bias = op.bias->buffer;
    b.ones =
        ir::make_buffer(name + ".ones", ir::DType::kInt8, {l.config.batch(), l.config.block_in()});
    b.weights = ir::make_buffer(name + ".bias_w", ir::DType::kInt8,
                                {blocks, l.config.block_out(), l.config.block_in()});
    b.blocks = blocks;
    constants->push_back({b.weights, {bias_w.begin(), bias_w.end()}, l.wgt_elem_bytes, 4096});
    constants->push_back({b.ones, {ones.begin(), ones.end()}, l.inp_elem_bytes, 256});
    p.bias_gemm = b;
  }
  p.skip_pad_taps = options_.skip_pad_taps;
  return p;
}

AccelKernel AccelLowering::lower(const Graph& g, NodeId id, const PassObserver& after_pass,
                                 const ProgramObserver& after_step) {
  const isa::Layout& l = layout_;
  const Node& n = g.node(id);
  const ConvNode c = conv_node(g, n, l);
  AccelKernel k;
  k.node = id;
  const KnobChoice choice = knobs_.choose(c.shape, c.epilogue, n.name);
  k.schedule_source = choice.source;
  k.op = ops::make_conv2d(l, c.shape, choice.knobs, c.epilogue);
  // The constants in the order the device memory map lays them out.
  const int32_t* bias = c.bias != kNone ? g.value(c.bias).data->i32() : nullptr;
  k.constants.push_back(
      {k.op.bias->buffer, pack_bias_tile(l, bias, c.shape.oc, k.op.ocb), l.acc_elem_bytes, 4096});
  if (c.channel_shifts)
    k.constants.push_back({k.op.shifts->buffer,
                           pack_shift_tile(l, c.channel_shifts->lane, k.op.ocb), l.acc8_elem_bytes,
                           4096});
  const PipelineOptions p = rewrites(g, c, n.name, k.op, &k.constants);
  const auto& fixed = accel_program_step_names();
  const std::string key = program_key(l, k.op, p);
  const std::vector<ir::Buffer> roles = program_roles(k.op, p);
  // This run's earlier nodes first, then the cache of earlier runs, else the pipeline (not
  // when observed: the observers want to see every pass).
  const bool observed = after_pass || after_step;
  bool have = false;
  if (auto it = programs_.find(key); it != programs_.end() && !observed) {
    k.program = it->second.program;
    have = rebind(&k.program, it->second.roles, roles);
    if (have) {
      k.rewrites = it->second.rewrites;
      ++reused_;
    }
  }
  if (!have && cache_ && !observed) {
    if (auto stored = cache_->find(key, roles)) {
      k.program = std::move(stored->program);
      k.rewrites = std::move(stored->rewrites);
      programs_[key] = {k.program, k.rewrites, roles};
      ++cached_;
      have = true;
    }
  }
  if (!have) {
    k.rewrites.clear();
    k.program = compile_accel(*k.op.schedule, l, p, after_pass,
                              [&](const std::string& step, const accel::Program& prog) {
                                if (step != fixed.front() && step != fixed.back())
                                  k.rewrites.push_back(step);
                                if (after_step) after_step(step, prog);
                              });
    programs_[key] = {k.program, k.rewrites, roles};
    if (cache_ && !observed) cache_->put(key, {k.program, k.rewrites}, roles);
  }
  k.floor = ops::conv2d_floor(l, c.shape, c.epilogue, platform_.axi_data_bits / 8);
  k.macs = passes::node_macs(g, n);
  k.slices = n.facts.slices.value_or(1);
  auto slice_bytes = [&](ValueId v) { return g.value(v).type.stored_bytes() / k.slices; };
  k.operands = {{k.op.a->buffer, n.inputs[0], l.inp_elem_bytes, slice_bytes(n.inputs[0])},
                {k.op.w->buffer, n.inputs[1], l.wgt_elem_bytes, slice_bytes(n.inputs[1])},
                {k.op.d->buffer, n.outputs[0], l.out_elem_bytes, slice_bytes(n.outputs[0])}};
  for (int64_t* f : {&k.floor.vectors, &k.floor.gemm_uops, &k.floor.gemm_uops_all_taps,
                     &k.floor.memory_cycles, &k.floor.cycles, &k.floor.cycles_all_taps})
    *f *= k.slices;
  if (c.epilogue.residual)
    k.operands.push_back({k.op.residual->buffer, c.residual, l.acc8_elem_bytes});
  return k;
}

}  // namespace weft::compiler::graph
