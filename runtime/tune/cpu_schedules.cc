// CPU schedules to and from knobs, their record keys, and the tuned-schedule lookup.
#include "runtime/tune/cpu_schedules.h"

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "hardware/isa/errors.h"
#include "runtime/tune/database.h"

namespace weft::rt::tune {

using compiler::tune::CpuKnobs;
using nlohmann::json;

namespace {
int64_t knob(const CpuKnobs& k, const char* name) {
  if (!k.contains(name) || !k[name].is_number_integer())
    throw UserError(std::string("CPU schedule: knob '") + name + "' is missing");
  return k[name].get<int64_t>();
}
}  // namespace

compiler::ops::cpu::DenseSchedule dense_schedule_of(const CpuKnobs& k) {
  compiler::ops::cpu::DenseSchedule s;
  s.rows = knob(k, "rows");
  s.cols = knob(k, "cols");
  s.lanes = knob(k, "lanes");
  s.k_unroll = knob(k, "k_unroll");
  s.pack_a = knob(k, "pack_a") != 0;
  s.row_block = knob(k, "row_block_tiles") * s.rows;
  s.parallel_axis = static_cast<int>(knob(k, "parallel_axis"));
  if (k.contains("k_pack")) s.k_pack = knob(k, "k_pack");
  // Records written before these knobs existed decided neither: the schedule they measured.
  s.pack_w = k.contains("pack_w") ? static_cast<int>(knob(k, "pack_w")) : 0;
  s.k_block = k.contains("k_block") ? knob(k, "k_block") : 0;
  return s;
}

compiler::ops::cpu::ConvSchedule conv_schedule_of(const CpuKnobs& k) {
  compiler::ops::cpu::ConvSchedule s;
  s.ow = knob(k, "ow");
  s.oc_blocks = knob(k, "oc_blocks");
  s.reduce_order = static_cast<int>(knob(k, "reduce_order"));
  s.ci_unroll = knob(k, "ci_unroll");
  s.rows_outer = knob(k, "rows_outer") != 0;
  if (k.contains("k_pack")) s.k_pack = knob(k, "k_pack");  // records before it: pairs
  return s;
}

CpuKnobs knobs_of(const compiler::ops::cpu::DenseSchedule& s) {
  return {{"rows", s.rows},
          {"cols", s.cols},
          {"lanes", s.lanes},
          {"k_unroll", s.k_unroll},
          {"pack_a", s.pack_a ? 1 : 0},
          {"row_block_tiles", s.rows > 0 ? s.row_block / s.rows : 0},
          {"parallel_axis", s.parallel_axis},
          {"pack_w", s.pack_w},
          {"k_block", s.k_block},
          {"k_pack", s.k_pack}};
}

CpuKnobs knobs_of(const compiler::ops::cpu::ConvSchedule& s) {
  return {{"ow", s.ow},
          {"oc_blocks", s.oc_blocks},
          {"reduce_order", s.reduce_order},
          {"ci_unroll", s.ci_unroll},
          {"rows_outer", s.rows_outer ? 1 : 0},
          {"k_pack", s.k_pack}};
}

compiler::tune::Workload cpu_dense_workload(int64_t m, int64_t n, int64_t k,
                                            const std::string& dtype) {
  return {"dense", {{"m", m}, {"n", n}, {"k", k}, {"dtype", dtype}}};
}

compiler::tune::Workload cpu_conv2d_workload(const compiler::ops::Conv2dNchw& s, const std::string& dtype) {
  if (s.kh != s.kw)
    throw UserError("tune --target llvm: conv2d kernels must be square (" +
                    std::to_string(s.kh) + "x" + std::to_string(s.kw) + ")");
  return {"conv2d",
          {{"n", s.n},
           {"h", s.h},
           {"w", s.w},
           {"ic", s.c},
           {"oc", s.o},
           {"k", s.kh},
           {"stride", s.stride},
           {"pad", s.pad},
           {"dtype", dtype}}};
}

compiler::tune::Target cpu_host_target() {
  return {"llvm", compiler::codegen::host_isa().key(), ""};
}

namespace {
// The best record: from the database when it has one, else from the shipped defaults.
std::optional<std::pair<TuningRecord, std::string>> best_record(
    const compiler::tune::Workload& w, const std::string& db_path) {
  const compiler::tune::Target t = cpu_host_target();
  if (!db_path.empty()) {
    Database db(db_path);
    if (auto r = db.best(w.key(), t.key())) return std::make_pair(*r, db_path);
  }
  if (auto r = lookup_best(w, t, "")) return std::make_pair(*r, std::string("default records"));
  return std::nullopt;
}
}  // namespace

std::optional<TunedDense> tuned_dense(int64_t m, int64_t n, int64_t k, const std::string& dtype,
                                      const std::string& db_path) {
  auto r = best_record(cpu_dense_workload(m, n, k, dtype), db_path);
  if (!r) return std::nullopt;
  CpuKnobs kn = json::object();
  for (const auto& s : r->first.trace.steps) kn[s.name] = r->first.trace.chosen_int(s.name);
  return TunedDense{dense_schedule_of(kn), r->second, r->first.value};
}

std::optional<TunedConv> tuned_conv2d(const compiler::ops::Conv2dNchw& s, const std::string& dtype,
                                      const std::string& db_path) {
  auto r = best_record(cpu_conv2d_workload(s, dtype), db_path);
  if (!r) return std::nullopt;
  CpuKnobs kn = json::object();
  for (const auto& st : r->first.trace.steps) kn[st.name] = r->first.trace.chosen_int(st.name);
  return TunedConv{conv_schedule_of(kn), r->second, r->first.value};
}

}  // namespace weft::rt::tune
