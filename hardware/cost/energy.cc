// Pricing a run's action counts; see energy.h.
#include "hardware/cost/energy.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <vector>

#include "hardware/isa/errors.h"

namespace weft::cost {

const char* component_name(Component c) {
  switch (c) {
    case Component::kGemm: return "gemm";
    case Component::kAlu: return "alu";
    case Component::kUopSram: return "uop_sram";
    case Component::kInpSram: return "inp_sram";
    case Component::kWgtSram: return "wgt_sram";
    case Component::kAccSram: return "acc_sram";
    case Component::kDram: return "dram";
    case Component::kQueues: return "queues";
    case Component::kPipeline: return "pipeline";
  }
  throw InternalError("component_name: bad component");
}

double Energy::total_pj() const {
  double s = 0;
  for (double v : pj) s += v;
  return s;
}

double Energy::average_power_mw(double clock_mhz) const {
  // pJ over cycles / (MHz * 1e6) seconds, in mW.
  return cycles ? total_pj() * clock_mhz / double(cycles) * 1e-3 : 0.0;
}

Energy& Energy::operator+=(const Energy& o) {
  for (int i = 0; i < kComponents; ++i) pj[i] += o.pj[i];
  macs += o.macs;
  cycles += o.cycles;
  return *this;
}

namespace {

double buffer_pj(const EnergyTable& t, uint64_t size, const sim::BufferTraffic& b) {
  return double(b.read_bytes) * t.sram_byte_pj(size, false) +
         double(b.write_bytes) * t.sram_byte_pj(size, true);
}

// Bytes of a token queue's occupancy counter (0..depth), which a push or pop rewrites.
uint64_t token_counter_bytes(int depth) {
  int bits = 0;
  while ((int64_t{1} << bits) < int64_t{depth} + 1) ++bits;
  return uint64_t((bits + 7) / 8);
}

}  // namespace

Energy energy_of(const EnergyTable& t, const isa::Layout& l, const sim::Activity& a,
                 uint64_t cycles) {
  Energy e;
  auto set = [&](Component c, double v) { e.pj[static_cast<int>(c)] = v; };
  set(Component::kGemm, double(a.macs) * t.mac_int8_pj + double(a.acc_adds) * t.acc_add_int32_pj);
  set(Component::kAlu, double(a.alu_ops) * t.alu_op_int32_pj + double(a.alu_muls) * t.alu_mul_int32_pj);
  const isa::HwConfig& c = l.config;
  set(Component::kUopSram, buffer_pj(t, c.uop_buf_bytes, a.uop));
  set(Component::kInpSram, buffer_pj(t, c.inp_buf_bytes, a.inp));
  set(Component::kWgtSram, buffer_pj(t, c.wgt_buf_bytes, a.wgt));
  set(Component::kAccSram, buffer_pj(t, c.acc_buf_bytes, a.acc));
  set(Component::kDram, double(a.dram_read_bytes + a.dram_write_bytes) * t.dram_byte_pj);
  const uint64_t queue_bytes =
      a.queue_bytes + a.token_ops * token_counter_bytes(c.token_queue_depth);
  set(Component::kQueues, double(queue_bytes) * t.register_byte_pj);
  set(Component::kPipeline, double(a.pipeline_bytes) * t.register_byte_pj);
  e.macs = a.macs;
  e.cycles = cycles;
  return e;
}

nlohmann::ordered_json to_json(const Energy& e, const EnergyTable& t, double clock_mhz,
                               int64_t useful_macs) {
  nlohmann::ordered_json j;
  j["table"] = t.name;
  j["node_nm"] = t.node_nm;
  j["vdd"] = t.vdd;
  j["total_uj"] = e.total_pj() * 1e-6;
  j["on_chip_uj"] = e.on_chip_pj() * 1e-6;
  j["macs"] = e.macs;
  j["pj_per_mac"] = e.macs ? e.total_pj() / double(e.macs) : 0.0;
  j["on_chip_pj_per_mac"] = e.macs ? e.on_chip_pj() / double(e.macs) : 0.0;
  if (useful_macs > 0) j["pj_per_useful_mac"] = e.total_pj() / double(useful_macs);
  j["clock_mhz"] = clock_mhz;
  j["average_power_mw"] = e.average_power_mw(clock_mhz);
  nlohmann::ordered_json parts;
  for (int i = 0; i < kComponents; ++i)
    parts[component_name(static_cast<Component>(i))] = e.pj[i] * 1e-6;
  j["components_uj"] = parts;
  return j;
}

std::string summary(const Energy& e, double clock_mhz, int64_t useful_macs) {
  const double total = e.total_pj();
  const double macs = useful_macs > 0 ? double(useful_macs) : double(e.macs);
  std::ostringstream o;
  o << std::fixed << std::setprecision(3) << "energy: " << total * 1e-6 << " uJ ("
    << std::setprecision(2) << (macs > 0 ? total / macs : 0.0) << " pJ per "
    << (useful_macs > 0 ? "useful" : "executed") << " MAC, "
    << (macs > 0 ? e.on_chip_pj() / macs : 0.0) << " on chip), "
    << std::setprecision(1) << e.average_power_mw(clock_mhz) << " mW at " << clock_mhz
    << " MHz";
  std::vector<int> order(kComponents);
  for (int i = 0; i < kComponents; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return e.pj[a] > e.pj[b]; });
  const char* sep = "; ";
  for (int k = 0; k < 3 && total > 0; ++k) {
    o << sep << component_name(static_cast<Component>(order[k])) << " "
      << std::setprecision(0) << 100.0 * e.pj[order[k]] / total << "%";
    sep = ", ";
  }
  o << std::defaultfloat;
  return o.str();
}

}  // namespace weft::cost
