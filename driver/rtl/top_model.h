// A Verilated weft_top as the harness sees it: its ports (top_ports.h) and evaluation and
// waveform calls, whether the model is built into the binary (BuiltinTop, one class per
// shipped configuration) or loaded from an RTL plugin a configuration file was built into
// (plugin.h).
#pragma once

#include <cstdint>
#include <string>

#include "driver/rtl/top_ports.h"

namespace weft::driver::rtl {

/// One Verilated weft_top.
class TopModel {
 public:
  virtual ~TopModel() = default;
  /// Pointers to its ports, valid for its lifetime.
  const weft_rtl_abi::TopPorts& io() const { return io_; }
  virtual void eval() = 0;
  /// Starts an FST waveform; false when the file cannot be written.
  virtual bool trace_open(const std::string& path) = 0;
  virtual void trace_dump(uint64_t time) = 0;
  virtual void trace_close() = 0;

 protected:
  weft_rtl_abi::TopPorts io_{};
};

}  // namespace weft::driver::rtl
