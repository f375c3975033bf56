// Co-simulation helper; see cosim.h.
#include "tests/rtl/cosim.h"

#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include "hardware/isa/assembly.h"
#include "hardware/isa/spec.h"
#include "simulator/common/program.h"
#include "simulator/cycle/trace.h"

namespace weft::test {

namespace {

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

std::string first_byte_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                  const char* an, const char* bn) {
  if (a.size() != b.size()) return "image sizes differ";
  size_t i = 0;
  while (i < a.size() && a[i] == b[i]) ++i;
  if (i == a.size()) return "";
  std::ostringstream s;
  s << "final DRAM images differ; first at byte " << i << ": " << an << " " << int(a[i]) << ", "
    << bn << " " << int(b[i]);
  return s.str();
}

void compare_module(std::ostringstream& s, const char* name, const sim::cycle::ModuleCycles& c,
                    const sim::cycle::ModuleCycles& r) {
  auto f = [&](const char* field, uint64_t a, uint64_t b) {
    if (a != b) s << " " << name << "." << field << " cycle " << a << " rtl " << b << ";";
  };
  f("busy", c.busy, r.busy);
  f("stall_token", c.stall_token, r.stall_token);
  f("stall_dram", c.stall_dram, r.stall_dram);
  f("stall_cmd_empty", c.stall_cmd_empty, r.stall_cmd_empty);
  f("stall_hazard", c.stall_hazard, r.stall_hazard);
  f("stall_drain", c.stall_drain, r.stall_drain);
  f("idle", c.idle, r.idle);
}

}  // namespace

driver::rtl::RtlEngine& rtl_engine(const std::string& config, const std::string& platform) {
  static std::map<std::string, std::unique_ptr<driver::rtl::RtlEngine>> engines;
  auto& e = engines[config + "/" + platform];
  if (!e) e = driver::rtl::make_rtl_engine(isa::layout_for(config), isa::find_platform(platform));
  return *e;
}

Cosim cosimulate(const Program& p, sim::FunctionalSim& functional, sim::cycle::CycleSim& cycle,
                 driver::rtl::RtlEngine& rtl) {
  Cosim out;
  std::vector<uint8_t> f_img = p.dram, c_img = p.dram, r_img = p.dram;
  functional.run(f_img, p.insn_offset, p.insn_count);
  sim::cycle::Trace trace;
  sim::cycle::RunOptions ro;
  ro.trace = &trace;
  out.cycle_stats = cycle.run(c_img, p.insn_offset, p.insn_count, ro);
  out.cycles = out.cycle_stats.cycles;
  out.rtl = rtl.run(r_img, p.insn_offset, p.insn_count, {});
  out.rtl_cycles = out.rtl.stats.cycles;

  std::ostringstream s;
  if (out.rtl.error != 0) s << " rtl error register " << out.rtl.error << " " << out.rtl.error_detail << ";";
  const std::string img = first_byte_difference(f_img, r_img, "functional", "rtl");
  if (!img.empty()) s << " " << img << ";";
  const std::string cimg = first_byte_difference(f_img, c_img, "functional", "cycle");
  if (!cimg.empty()) s << " (cycle model) " << cimg << ";";
  if (out.cycles != out.rtl_cycles)
    s << " cycles: cycle model " << out.cycles << ", rtl " << out.rtl_cycles << ";";
  if (out.rtl.reg_cycles != out.rtl_cycles) s << " cycle register disagrees;";

  // Per-instruction start and completion cycles from the cycle model's trace.
  std::vector<uint64_t> c_start(p.insn_count, kNone), c_done(p.insn_count, kNone);
  const nlohmann::json tj = trace.to_json();
  for (const auto& ev : tj["traceEvents"]) {
    if (ev.value("cat", "") != "insn" || ev.value("ph", "") != "X") continue;
    const auto& args = ev["args"];
    if (!args.contains("insn")) continue;
    const size_t i = args["insn"].get<size_t>();
    const uint64_t ts = ev["ts"].get<uint64_t>();
    c_start[i] = ts;
    c_done[i] = args.contains("writes_land") ? args["writes_land"].get<uint64_t>()
                                             : ts + ev["dur"].get<uint64_t>() - 1;
  }
  size_t worst = kNone;
  uint64_t when = kNone;
  for (size_t i = 0; i < p.insn_count; ++i) {
    if (c_done[i] != out.rtl.done[i] || c_start[i] != out.rtl.start[i]) {
      const uint64_t t = std::min(c_done[i], out.rtl.done[i]);
      if (t < when) {
        when = t;
        worst = i;
      }
    }
  }
  if (worst != kNone) {
    const std::vector<isa::Insn> prog = sim::fetch_program(*p.layout, p.dram, p.insn_offset,
                                                           p.insn_count);
    auto str = [](uint64_t v) { return v == kNone ? std::string("never") : std::to_string(v); };
    s << " first instruction whose completion differs: " << sim::describe(worst, prog[worst])
      << " [" << isa::format_insn(*p.layout, prog[worst]) << "]: cycle model starts "
      << str(c_start[worst]) << " completes " << str(c_done[worst]) << ", rtl starts "
      << str(out.rtl.start[worst]) << " completes " << str(out.rtl.done[worst]) << ";";
  }
  const sim::cycle::CycleStats& cs = out.cycle_stats;
  const sim::cycle::CycleStats& rs = out.rtl.stats;
  compare_module(s, "load", cs.load, rs.load);
  compare_module(s, "compute", cs.compute, rs.compute);
  compare_module(s, "store", cs.store, rs.store);
  auto f = [&](const char* field, uint64_t a, uint64_t b) {
    if (a != b) s << " " << field << " cycle " << a << " rtl " << b << ";";
  };
  f("fetch.busy", cs.fetch.busy, rs.fetch.busy);
  f("fetch.stall_cmd_full", cs.fetch.stall_cmd_full, rs.fetch.stall_cmd_full);
  f("fetch.stall_dram", cs.fetch.stall_dram, rs.fetch.stall_dram);
  f("fetch.idle", cs.fetch.idle, rs.fetch.idle);
  f("read_bursts", cs.read_bursts, rs.read_bursts);
  f("read_beats", cs.read_beats, rs.read_beats);
  f("write_bursts", cs.write_bursts, rs.write_bursts);
  f("write_beats", cs.write_beats, rs.write_beats);
  if (!(cs.counters == rs.counters)) s << " VTA counters differ;";
  out.mismatch = s.str();
  return out;
}

}  // namespace weft::test
