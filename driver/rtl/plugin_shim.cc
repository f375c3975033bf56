// The C entry point of an RTL plugin: compiled by `weft rtl build` (plugin.cc) together with
// the Verilated weft_top of a configuration file (class Vweft_plugin) into a shared library
// that the rtl engine loads at run time. It only forwards to VerilatedTop.
#include "Vweft_plugin.h"
#include "plugin_key.h"  // WEFT_PLUGIN_BUILD_KEY, written next to this file by the build
#include "verilated_top.h"

#ifndef WEFT_PLUGIN_BUILD_KEY
#error "WEFT_PLUGIN_BUILD_KEY must name the build key"
#endif

namespace {

using Top = weft_rtl_abi::VerilatedTop<Vweft_plugin>;

Top* top(void* p) { return static_cast<Top*>(p); }

const weft_rtl_abi::WeftRtlPlugin kPlugin = {
    weft_rtl_abi::kPluginAbiVersion,
    WEFT_PLUGIN_BUILD_KEY,
    []() -> void* { return new Top(); },
    [](void* p) { delete top(p); },
    [](void* p, weft_rtl_abi::TopPorts* out) { *out = top(p)->ports(); },
    [](void* p) { top(p)->eval(); },
    [](void* p, const char* path) { return top(p)->trace_open(path) ? 1 : 0; },
    [](void* p, uint64_t time) { top(p)->trace_dump(time); },
    [](void* p) { top(p)->trace_close(); },
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const weft_rtl_abi::WeftRtlPlugin*
weft_rtl_plugin() {
  return &kPlugin;
}
