// The single hardware specification of Weft: what an accelerator configuration and a platform
// are. The shipped ones are data files (hardware/isa/configs/*.json, platforms/*.json, compiled
// into the binary and read by config_file.h like a user's file). Everything else (field
// layouts, the generated C++ header and SystemVerilog package, the simulators) is derived from
// a configuration by layout.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/isa/options.h"

namespace weft::isa {

/// Fixed ISA constants shared by every configuration (VTA's published encoding).
struct IsaConstants {
  static constexpr int kInsnBits = 128;
  static constexpr int kUopBits = 32;
  static constexpr int kOpcodeBits = 3;
  static constexpr int kMemTypeBits = 3;
  static constexpr int kMinSramBaseBits = 16;  // VTA uses 16 even when depths need fewer.
  static constexpr int kDramBaseBits = 32;
  static constexpr int kSizeBits = 16;  // y_size, x_size, x_stride
  static constexpr int kPadBits = 4;
  static constexpr int kLoopIterBits = 14;
  static constexpr int kAluOpcodeBits = 3;
  static constexpr int kAluImmBits = 16;
};

/// One accelerator configuration: GEMM shape, element widths and on-chip buffer sizes.
struct HwConfig {
  std::string name;
  std::string description;
  int log_batch = 0;      // GEMM rows per micro-op (BATCH = 1 << log_batch)
  int log_block_in = 4;   // reduction width (BLOCK_IN)
  int log_block_out = 4;  // output channels (BLOCK_OUT)
  int inp_bits = 8;
  int wgt_bits = 8;
  int acc_bits = 32;
  int out_bits = 8;
  uint64_t uop_buf_bytes = 0;
  uint64_t inp_buf_bytes = 0;
  uint64_t wgt_buf_bytes = 0;
  uint64_t acc_buf_bytes = 0;
  int token_queue_depth = 0;  // capacity of each of the four dependency-token queues
  // Microarchitecture (docs/microarchitecture.md): shared by the cycle model and the RTL.
  int cmd_queue_depth = 8;      // command queue in front of each module
  int fetch_fifo_depth = 32;    // instructions fetch may hold or have in flight
  int gemm_pipeline_depth = 4;  // micro-op issue to accumulator write, in cycles
  int alu_pipeline_depth = 4;
  HwOptions options;  // opt-in hardware options (options.h); none in `vta`

  int batch() const { return 1 << log_batch; }
  int block_in() const { return 1 << log_block_in; }
  int block_out() const { return 1 << log_block_out; }
};

/// The memory system the accelerator sees through its AXI master.
struct Platform {
  std::string name;
  std::string description;
  int axi_data_bits = 64;  // AXI data bus width
  int read_latency = 0;    // cycles from read address accepted to first data beat
  int write_latency = 0;   // cycles from last write beat to write response
  int max_outstanding_reads = 1;
  int max_outstanding_writes = 1;
  int max_burst_beats = 16;  // AXI4 INCR bursts are at most 256 beats and never cross 4 KiB
  double clock_mhz = 100.0;  // accelerator clock, for GOPS reports
};

/// The shipped configurations (hardware/isa/configs), `gemm8x8` first (the default).
const std::vector<HwConfig>& shipped_configs();
/// The shipped platforms (hardware/isa/platforms), the default first.
const std::vector<Platform>& shipped_platforms();

/// Name of the default configuration.
inline constexpr const char* kDefaultConfig = "gemm8x8";

/// Finds a shipped configuration; throws UserError listing the known names otherwise.
const HwConfig& find_config(const std::string& name);
/// A shipped platform by name, or the platform a file gives (a value ending in .json or
/// containing '/': a platform file, or a configuration file's "platform"; config_file.h).
/// Throws UserError listing the known names, or naming the file and field, otherwise.
const Platform& find_platform(const std::string& name_or_file);

/// Whether two configurations describe the same hardware (every field but name and
/// description).
bool same_hardware(const HwConfig& a, const HwConfig& b);
/// Whether two platforms have the same parameters (every field but name and description).
bool same_platform(const Platform& a, const Platform& b);

}  // namespace weft::isa
