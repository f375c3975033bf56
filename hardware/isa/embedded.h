// Files compiled into the binary (cmake/WeftEmbed.cmake), so that it works from any
// directory: the shipped configurations and platforms (hardware/isa/configs, platforms) and,
// for `weft rtl build`, the RTL sources. Each list is a function in weft::embedded.
#pragma once

#include <string>
#include <vector>

namespace weft {

/// One embedded file: its name (without folder) and contents.
struct EmbeddedFile {
  std::string name;
  std::string text;
};

namespace embedded {
/// hardware/isa/configs/*.json, the default configuration first.
const std::vector<EmbeddedFile>& shipped_configs();
/// hardware/isa/platforms/*.json, the default platform first.
const std::vector<EmbeddedFile>& shipped_platforms();
}  // namespace embedded

}  // namespace weft
