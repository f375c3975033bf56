// Fault injection as the driver hands it to its users (tools and tests): a plan of AXI error
// responses and unanswered bursts for the memory system of the cycle and rtl backends
// (DeviceOptions::faults; simulator/memory/fault_plan.h, docs/reliability.md).
#pragma once

#include "simulator/memory/fault_plan.h"

namespace weft::driver {

/// The faults of a run.
using FaultPlan = sim::FaultPlan;
/// Parses "read:slverr@0x1000,write:decerr#0,read:noresp#2" (fault_plan.h).
using sim::parse_fault_plan;

}  // namespace weft::driver
