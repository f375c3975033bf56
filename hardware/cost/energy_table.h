// The per-action energy table as data (docs/codesign.md, "Energy"): what one int8 MAC, one
// int32 accumulator add, one ALU lane operation, one byte of an on-chip buffer (by the
// buffer's size), one DRAM byte and one register or FIFO byte cost, each figure with its
// provenance next to it. The shipped table (hardware/cost/tables/horowitz45.json) is compiled
// into the binary and read by the same code as a user's file (`--energy FILE`), which is
// checked like a configuration file: every problem is a UserError naming the file and field.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace weft::cost {

/// The cost of one byte of an SRAM of `bytes` bytes.
struct SramPoint {
  uint64_t bytes = 0;
  double read_pj = 0, write_pj = 0;
};

/// One energy table, its on-chip figures already scaled to the process it is used at.
struct EnergyTable {
  std::string name, description;
  /// The process the figures apply to: the table's own, or its "scale_to".
  double node_nm = 45, vdd = 0.9;
  /// The process the file's figures were given for, and the factor that took them to node_nm
  /// and vdd (1 without "scale_to").
  double source_node_nm = 45, source_vdd = 0.9, scale = 1;
  double mac_int8_pj = 0;       // one int8 x int8 multiply with its add in the reduction tree
  double acc_add_int32_pj = 0;  // one int32 add of a dot product into its accumulator lane
  double alu_op_int32_pj = 0;   // one int32 ALU lane operation: MIN, MAX, ADD, SHR
  double alu_mul_int32_pj = 0;  // one int32 ALU lane multiply
  double register_byte_pj = 0;  // one byte written to or read from a register or FIFO
  double dram_byte_pj = 0;      // one byte moved to or from DRAM (never scaled)
  std::vector<SramPoint> sram;  // by increasing size, at least one

  /// pJ per byte read from (`write` false) or written to an SRAM of `bytes` bytes: a power law
  /// between the two points around it, the nearest segment extended past the ends.
  double sram_byte_pj(uint64_t bytes, bool write) const;
};

/// The scaling rule from one process to another for on-chip figures: dynamic energy C V^2 with
/// the switched capacitance proportional to the feature size, (node / from_node) (vdd /
/// from_vdd)^2. A first-order rule: below about 28 nm it promises more than processes give.
double process_scale(double from_node_nm, double from_vdd, double node_nm, double vdd);

/// Reads an energy table object; `where` names its origin in messages. UserError naming the
/// field for a missing or unknown field, a value of the wrong type, a negative energy, an
/// SRAM point that is not positive, sizes out of order, or a figure without its source.
EnergyTable energy_table_from_json(const nlohmann::json& j, const std::string& where);

/// The shipped tables (hardware/cost/tables), the default first.
const std::vector<EnergyTable>& shipped_energy_tables();

/// The table an `--energy` value names: "" the default, a shipped table's name, or a file (a
/// value ending in .json or containing '/'). UserError for an unknown name or a bad file.
EnergyTable energy_table_for(const std::string& name_or_file);

}  // namespace weft::cost
