// A Verilated weft_top with its own context and optional FST waveform: what the harness
// evaluates. Used for the models built into the binary (rtl_model.cc) and, compiled into it,
// by an RTL plugin (plugin_shim.cc), so it includes only Verilator's headers and top_ports.h.
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>

#include <memory>

#include "top_ports.h"

namespace weft_rtl_abi {

template <class M>
class VerilatedTop {
 public:
  VerilatedTop() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->traceEverOn(true);
    ctx_->commandArgs(0, static_cast<const char**>(nullptr));
    model_ = std::make_unique<M>(ctx_.get(), "weft");
    ports_ = bind_ports(*model_);
  }
  ~VerilatedTop() {
    trace_close();
    model_->final();
  }
  VerilatedTop(const VerilatedTop&) = delete;
  VerilatedTop& operator=(const VerilatedTop&) = delete;

  const TopPorts& ports() const { return ports_; }
  void eval() { model_->eval(); }
  bool trace_open(const char* path) {
    trace_close();
    wave_ = std::make_unique<VerilatedFstC>();
    model_->trace(wave_.get(), 99);
    wave_->open(path);
    if (!wave_->isOpen()) wave_.reset();
    return wave_ != nullptr;
  }
  void trace_dump(uint64_t time) {
    if (wave_) wave_->dump(time);
  }
  void trace_close() {
    if (wave_) {
      wave_->close();
      wave_.reset();
    }
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<M> model_;
  std::unique_ptr<VerilatedFstC> wave_;
  TopPorts ports_;
};

}  // namespace weft_rtl_abi
