// Tuning records as the graph executor's conv2d schedules; see recorded_knobs.h.
#include "runtime/graph/recorded_knobs.h"

#include "hardware/isa/errors.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/database.h"

namespace weft::rt::graph {

bool knobs_cover_exactly(const isa::Layout& l, const compiler::ops::Conv2dShape& s,
                         const compiler::ops::Conv2dKnobs& k) {
  const auto& c = l.config;
  const int64_t icb = (s.ic + c.block_in() - 1) / c.block_in(),
                ocb = (s.oc + c.block_out() - 1) / c.block_out();
  const int64_t vo = k.vthread_axis == 'o' ? k.vthreads : 1,
                vh = k.vthread_axis == 'h' ? k.vthreads : 1;
  if (k.tile_ic <= 0 || k.tile_oc <= 0 || k.tile_h <= 0 || k.tile_w <= 0) return false;
  return icb % k.tile_ic == 0 && ocb % (k.tile_oc * vo) == 0 && s.out_h() % (k.tile_h * vh) == 0 &&
         s.out_w() % k.tile_w == 0;
}

std::optional<compiler::ops::Conv2dKnobs> exact_recorded_knobs(
    const isa::Layout& l, const isa::Platform& pf, const compiler::ops::Conv2dShape& s,
    const compiler::ops::Conv2dEpilogue& e, const std::string& db_path) {
  std::optional<compiler::ops::Conv2dKnobs> k;
  try {
    k = tune::recorded_conv2d_knobs(l.config.name, pf.name, s, db_path);
  } catch (const UserError&) {
    // A corrupt records file is the user's error: looking the record up again rethrows it.
    // Otherwise the record's trace does not replay in this shape's space: not a schedule.
    (void)tune::lookup_best(tune::conv2d_workload(s), tune::accel_target(l.config.name, pf.name),
                            db_path);
    return std::nullopt;
  }
  if (!k || !knobs_cover_exactly(l, s, *k)) return std::nullopt;
  try {
    (void)compiler::ops::make_conv2d(l, s, *k, e);  // fits the buffers with this epilogue
  } catch (const UserError&) {
    return std::nullopt;
  }
  return k;
}

}  // namespace weft::rt::graph
