// Pass plan_memory: static memory planning. Every activation (a value that is neither a
// constant nor a graph input) gets an offset in one arena per device: packed values (the
// accelerator's) in the device arena, plain ones in the host arena. Lifetimes are intervals of
// the schedule order (Graph::schedule_order, the executor's; from the producer to the last
// reader; graph outputs live to the end). Concats are planned in place where their inputs'
// producers can write a slice: on the host, inputs that are whole weft.Unpacks read by nothing
// else (the Unpack writes straight into its slice of the Concat's buffer; other inputs are
// copied in by the Concat); in the device arena, along H, inputs that CPU nodes write packed
// (fold_packs, band_pool; all of them). Such inputs are views of the Concat's buffer (marked
// facts into/at; the Concat's facts.in_place), so a part and the whole are never both in the
// arena;
// offsets are chosen greedily, largest first, at the lowest aligned offset free of every
// overlapping lifetime. Constants read by the accelerator are laid out once in a weights region
// (packed at compile time by pack_layouts); the plan is recorded on the graph's nodes as facts
// (mem = "device"|"host", offset, bytes of each node's output; graph.h) and returned.
// Before: pack_layouts. After: no two live-at-once values overlap in an arena (the verifier of
// the plan, check_memory_plan, proves it).
#pragma once

#include <map>
#include <string>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph::passes {

/// Where one value lives.
struct Placement {
  bool device = false;
  int64_t offset = 0, bytes = 0;
  int first = 0, last = 0;  // lifetime, in schedule positions
  /// A view: the value is the slice [view_at, view_at + its extent) along view_axis of value
  /// view_of (a Concat's output, which its producer writes into); it takes no arena bytes of
  /// its own (offset is the parent's).
  ValueId view_of = kNone;
  int64_t view_axis = 0, view_at = 0;
};

/// The plan.
struct MemoryPlan {
  std::map<ValueId, Placement> values;  // activations
  std::map<ValueId, int64_t> weights;    // accelerator constants: offset in the weights region
  int64_t device_arena = 0, host_arena = 0, weight_bytes = 0;
  int64_t device_alignment = 256, host_alignment = 64;
  /// Sum of every activation's bytes (what the arenas would need without reuse).
  int64_t unshared_device = 0, unshared_host = 0;
};

/// The pass.
MemoryPlan plan_memory(Graph& g);

/// InternalError when two values live at the same time overlap.
void check_memory_plan(const MemoryPlan& p);

/// One line per arena, for the pass printout.
std::string describe(const MemoryPlan& p);

}  // namespace weft::compiler::graph::passes
