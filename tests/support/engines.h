// The engines a parameterized driver test runs on: every engine this binary has, less `rtl`
// when the configuration the test uses is not verilated into it (the sanitizer and fuzz tree
// builds `tiny` only, WEFT_RTL_CONFIGS), so such a build runs the test on the others.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "driver/device.h"
#include "driver/rtl_device.h"

namespace weft::test {

inline std::vector<std::string> engines_for(const std::string& config) {
  const std::vector<std::string> built = driver::rtl_builtin_configs();
  const bool rtl = std::find(built.begin(), built.end(), config) != built.end();
  std::vector<std::string> engines;
  for (const std::string& e : driver::device_names())
    if (e != "rtl" || rtl) engines.push_back(e);
  return engines;
}

}  // namespace weft::test
