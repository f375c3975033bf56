// A program held in a DRAM image, run on an engine (the raw-run contract of docs/isa.md, as
// `weft sim` runs it): the statistics in the form `weft sim --json` prints them, and one
// function that opens the engine, runs the image and reads the final image back, for callers
// that hold the image in memory (the Python package's weft.run_image and weft.build's
// accelerator modules).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver/timeline.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/cli/device_run.h"

namespace weft::cli {

/// The statistics of a raw run: config, engine (the device's name), platform (cycle and rtl
/// engines), everything the device measured (`details`), wall_seconds and, with cycles,
/// simulated_cycles_per_second.
nlohmann::ordered_json raw_run_stats(const isa::Layout& layout, const isa::Platform& platform,
                                     const std::string& engine, const std::string& device_name,
                                     const nlohmann::ordered_json& details, double seconds);

/// Runs the `insn_count` instructions at byte `insn_offset` of `image` on `o.engine` (the
/// image is the device's whole memory, from address 0) and replaces `image` with the final
/// one; returns raw_run_stats. `trace` records the cycle engine's timeline when o.trace is set.
/// UserError for an empty image, instructions outside it, or a run that fails.
nlohmann::ordered_json run_program_image(const DeviceRunOptions& o, const isa::Layout& layout,
                                         const isa::Platform& platform,
                                         std::vector<uint8_t>& image, uint64_t insn_offset,
                                         uint64_t insn_count, driver::Timeline* trace);

}  // namespace weft::cli
