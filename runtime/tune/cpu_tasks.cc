// The CPU (LLVM) tuning tasks: the search space for the host's vector width, the operator
// builder the space calls for each trace, seeds (today's default schedule first), the host
// measurer and the loop-nest features.
#include "runtime/tune/cpu_tasks.h"

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/tune/cpu_features.h"
#include "compiler/ops/op_args.h"
#include "hardware/isa/errors.h"
#include "runtime/tune/cpu_measurer.h"
#include "runtime/tune/cpu_schedules.h"

namespace weft::rt::tune {

namespace ops = compiler::ops;
using compiler::ir::DType;
using compiler::tune::CpuKnobs;
using compiler::tune::Workload;

bool cpu_tuning_available() { return true; }

namespace {

int64_t get(const Workload& w, const char* n) {
  if (!w.shape.contains(n) || !w.shape[n].is_number_integer())
    throw UserError("tune --target llvm: workload " + w.key() + " has no integer '" + n + "'");
  return w.shape[n].get<int64_t>();
}

}  // namespace

Task make_cpu_task(const Workload& w, const std::string& name) {
  const compiler::codegen::HostIsa isa = compiler::codegen::host_isa();
  const compiler::tune::CpuSpaceHost host{isa.lanes32(), isa.registers()};
  const std::string dtype = w.shape.value("dtype", std::string("float32"));
  const DType dt = ops::parse_dtype(dtype, "tune --dtype", {DType::kFloat32, DType::kInt8});
  Workload wl = w;
  wl.shape["dtype"] = dtype;
  std::vector<CpuKnobs> seeds;
  compiler::tune::CpuBuilder build;
  if (w.op == "dense") {
    const int64_t m = get(w, "m"), n = get(w, "n"), k = get(w, "k");
    ops::cpu::dense(m, n, k, dt);  // shape errors now, not per candidate
    seeds.push_back(knobs_of(ops::cpu::DenseSchedule{}));
    const int64_t vl = isa.lanes32();
    seeds.push_back(knobs_of(ops::cpu::DenseSchedule{8, 2 * vl}));
    seeds.push_back(knobs_of(ops::cpu::DenseSchedule{6, 4 * vl}));
    // W's panels packed row by row inside the kernel (no gathers, no pass over a packed copy).
    ops::cpu::DenseSchedule fused{8, 2 * vl};
    fused.pack_w = 3;
    seeds.push_back(knobs_of(fused));
    ops::cpu::DenseSchedule wide{4, 4 * vl};  // 4 x 64 on AVX-512: the best SGEMM tile on Zen 5
    wide.pack_w = 3;
    wide.lanes = vl;
    wide.k_unroll = 2;
    seeds.push_back(knobs_of(wide));
    if (dt == DType::kInt8) {
      ops::cpu::DenseSchedule q{8, 2 * vl};
      q.k_pack = 4;
      seeds.push_back(knobs_of(q));
      q.pack_w = 3;
      q.k_unroll = 4;
      q.lanes = vl;
      seeds.push_back(knobs_of(q));
    }
    build = [=](const CpuKnobs& kn) {
      auto b = std::make_shared<CpuOpCandidate>();
      b->op = ops::cpu::dense(m, n, k, dt, dense_schedule_of(kn));
      b->func = b->op.func;
      b->knobs = kn;
      b->ops = b->op.ops;
      return std::shared_ptr<const compiler::tune::CandidateBody>(b);
    };
  } else if (w.op == "conv2d") {
    const int64_t ks = get(w, "k");
    const ops::Conv2dNchw s{get(w, "n"), get(w, "ic"), get(w, "h"),      get(w, "w"),  get(w, "oc"),
                             ks,          ks,           get(w, "stride"), get(w, "pad")};
    ops::cpu::conv2d(s, dt);  // shape errors now
    ops::cpu::ConvSchedule def;
    def.ow = s.ow() % 7 == 0 ? 7 : 6;  // what ow = 0 resolves to
    seeds.push_back(knobs_of(def));
    def.oc_blocks = 2;
    seeds.push_back(knobs_of(def));
    build = [=](const CpuKnobs& kn) {
      auto b = std::make_shared<CpuOpCandidate>();
      b->op = ops::cpu::conv2d(s, dt, conv_schedule_of(kn));
      b->func = b->op.func;
      b->knobs = kn;
      b->ops = b->op.ops;
      return std::shared_ptr<const compiler::tune::CandidateBody>(b);
    };
  } else {
    throw UserError("tune --target llvm: no CPU search space for '" + w.op +
                    "' (dense or conv2d)");
  }
  Task t;
  t.name = name;
  t.workload = wl;
  t.target = cpu_host_target();
  t.space = std::make_shared<compiler::tune::CpuSpace>(w.op, wl, host, build, seeds);
  t.measurer = std::make_shared<CpuMeasurer>(wl, 5);
  t.features = std::make_shared<compiler::tune::CpuLoopFeatures>();
  t.weight = t.space->weight();
  return t;
}

}  // namespace weft::rt::tune
