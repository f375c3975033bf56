// The driver's engine interface: run a raw program (DESIGN.md §4 raw-run contract) on a
// backend chosen by name at run time. Today: `functional`. The cycle model, the Verilated RTL
// and XRT join here behind the same interface.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hardware/isa/layout.h"
#include "simulator/common/stats.h"

namespace weft::driver {

/// What a run reports: the VTA counters every engine has, plus engine-specific statistics.
struct RunResult {
  sim::VtaCounters counters;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
};

/// A backend that executes programs held in a DRAM image.
class Engine {
 public:
  virtual ~Engine() = default;
  /// The engine's name, as given to make_engine.
  virtual std::string name() const = 0;
  /// Runs `insn_count` instructions at byte `insn_offset` of `dram`, updating it in place.
  /// Throws UserError for a bad program or a run that cannot finish.
  virtual RunResult run(std::vector<uint8_t>& dram, uint64_t insn_offset,
                        uint64_t insn_count) = 0;
};

/// Names accepted by make_engine.
std::vector<std::string> engine_names();

/// Creates an engine by name for a configuration; UserError listing the names otherwise.
std::unique_ptr<Engine> make_engine(const std::string& name, const isa::Layout& layout);

}  // namespace weft::driver
