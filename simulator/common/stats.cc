// JSON form of the VTA counters.
#include "simulator/common/stats.h"

namespace weft::sim {

bool VtaCounters::operator==(const VtaCounters& o) const {
  return inp_load_nbytes == o.inp_load_nbytes && wgt_load_nbytes == o.wgt_load_nbytes &&
         acc_load_nbytes == o.acc_load_nbytes && uop_load_nbytes == o.uop_load_nbytes &&
         out_store_nbytes == o.out_store_nbytes && gemm_counter == o.gemm_counter &&
         alu_counter == o.alu_counter && insn_count == o.insn_count;
}

nlohmann::ordered_json to_json(const VtaCounters& c) {
  nlohmann::ordered_json j;
  j["inp_load_nbytes"] = c.inp_load_nbytes;
  j["wgt_load_nbytes"] = c.wgt_load_nbytes;
  j["acc_load_nbytes"] = c.acc_load_nbytes;
  j["uop_load_nbytes"] = c.uop_load_nbytes;
  j["out_store_nbytes"] = c.out_store_nbytes;
  j["gemm_counter"] = c.gemm_counter;
  j["alu_counter"] = c.alu_counter;
  j["insn_count"] = c.insn_count;
  return j;
}

}  // namespace weft::sim
