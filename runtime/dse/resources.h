// The resource cost of a design point: by default the arithmetic estimate of
// hardware/cost/resource_estimate.h (block RAM of the buffers, MACs per cycle: microseconds);
// with synthesis, the LUT/FF/DSP/BRAM of `scripts/synth/synth.sh` (yosys, minutes per point),
// run on the point's configuration file in a temporary folder.
#pragma once

#include <nlohmann/json.hpp>

#include "hardware/isa/layout.h"

namespace weft::rt::dse {

/// Whether this build knows where synth.sh is (the source tree it was built from).
bool synthesis_available();

/// {"source": "estimate", "macs", "bram36"}, or with `synth` {"source": "yosys", "macs",
/// "bram36", and synth.sh's fields: "finished", "lut", "ff", "dsp", ...}. `config_file` is
/// the point's configuration in the file format. UserError when synth.sh cannot be run.
nlohmann::ordered_json point_resources(const isa::Layout& layout,
                                       const nlohmann::ordered_json& config_file, bool synth,
                                       int synth_timeout_s);

}  // namespace weft::rt::dse
