// The functional-simulator test fixture; see functional_fixture.h. FunctionalSimTest::run is
// in functional_fixture_run.cc, so that the RTL suite can link its own (tests/rtl/rtl_fixture.cc).
#include "tests/support/functional_fixture.h"

#include <exception>

#include "hardware/isa/errors.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_stats.h"

namespace weft::sim {
void PrintTo(const VtaCounters& c, std::ostream* os) { *os << to_json(c).dump(); }
}  // namespace weft::sim

namespace weft::test {

std::vector<std::string> config_names() {
  std::vector<std::string> names;
  for (const isa::HwConfig& c : isa::shipped_configs()) names.push_back(c.name);
  return names;
}

std::string FunctionalSimTest::run_error(Program& p) {
  try {
    sim_.run(p.dram, p.insn_offset, p.insn_count);
  } catch (const UserError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected weft::UserError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected weft::UserError, but the program ran to completion";
  return "";
}

std::vector<int32_t> FunctionalSimTest::acc_buffer(int64_t elem, int64_t count) const {
  const std::vector<int32_t>& acc = sim_.buffers().acc;
  const size_t lanes = static_cast<size_t>(acc_lanes());
  const size_t begin = static_cast<size_t>(elem) * lanes;
  const size_t end = begin + static_cast<size_t>(count) * lanes;
  if (end > acc.size()) {
    ADD_FAILURE() << "acc_buffer: elements [" << elem << ", " << elem + count
                  << ") lie beyond the accumulator";
    return {};
  }
  return std::vector<int32_t>(acc.begin() + begin, acc.begin() + end);
}

}  // namespace weft::test
