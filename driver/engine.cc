// Engine registry and the functional backend.
#include "driver/engine.h"

#include "hardware/isa/errors.h"
#include "simulator/functional/functional_sim.h"

namespace weft::driver {

namespace {

class FunctionalEngine : public Engine {
 public:
  explicit FunctionalEngine(const isa::Layout& l) : sim_(l) {}
  std::string name() const override { return "functional"; }
  RunResult run(std::vector<uint8_t>& dram, uint64_t insn_offset, uint64_t insn_count) override {
    RunResult r;
    r.counters = sim_.run(dram, insn_offset, insn_count);
    return r;
  }

 private:
  sim::FunctionalSim sim_;
};

}  // namespace

std::vector<std::string> engine_names() { return {"functional"}; }

std::unique_ptr<Engine> make_engine(const std::string& name, const isa::Layout& layout) {
  if (name == "functional") return std::make_unique<FunctionalEngine>(layout);
  std::string known;
  for (const std::string& n : engine_names()) known += (known.empty() ? "" : ", ") + n;
  const bool planned = name == "cycle" || name == "rtl" || name == "xrt";
  throw UserError("unknown engine '" + name + "' (available: " + known + ")" +
                  (planned ? "; '" + name + "' is planned but not built yet" : ""));
}

}  // namespace weft::driver
