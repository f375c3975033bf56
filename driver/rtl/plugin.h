// The RTL of a configuration file (docs/codesign.md, "RTL for a configuration file"). The
// models built into the binary cover the shipped configurations; for any other one,
// `weft rtl build --config FILE` generates the configuration's SystemVerilog package, Verilates
// weft_top with it (the RTL sources are compiled into the binary) into a shared library, an
// RTL plugin, in the RTL cache, and the rtl engine loads that plugin at run time. Verilator
// (and a C++ compiler) must be installed where the plugin is built, not where it runs.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "driver/rtl/top_model.h"
#include "hardware/isa/layout.h"

namespace weft::driver::rtl {

/// The key of a configuration's RTL: a hash of its generated package, the RTL sources and the
/// plugin interface. A plugin is found by its key, so a change to any of them needs a rebuild.
std::string rtl_build_key(const isa::Layout& l);

/// Where plugins live: $WEFT_RTL_CACHE, else $XDG_CACHE_HOME/weft/rtl, else ~/.cache/weft/rtl.
std::string rtl_cache_dir();

/// The plugin of a configuration: <cache>/<name>-<key>.so.
std::string rtl_plugin_path(const isa::Layout& l);

/// How to build a plugin.
struct RtlBuildOptions {
  int jobs = 2;                                  // parallel compile jobs
  bool force = false;                            // rebuild even when the plugin exists
  std::function<void(const std::string&)> log;  // told what happens, when set
};

/// What a build did.
struct RtlBuildResult {
  std::string path;     // the plugin
  bool built = false;   // false: it existed already
  double seconds = 0;   // wall time of the build
};

/// Builds the plugin of `l` unless it exists. UserError when Verilator is not installed or the
/// build fails (the message names the log).
RtlBuildResult build_rtl_plugin(const isa::Layout& l, const RtlBuildOptions& options = {});

/// Opens a Verilated weft_top from the plugin of `l`; nullptr when no plugin is built for it.
/// UserError when the file is not a plugin of this build (rebuild it).
std::unique_ptr<TopModel> open_rtl_plugin(const isa::Layout& l);

}  // namespace weft::driver::rtl
