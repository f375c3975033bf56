// Paths of the configuration files the tests share; see test_configs.h.
#include "tests/support/test_configs.h"

namespace weft::test {

std::string test_config_file() {
  return std::string(WEFT_SOURCE_DIR) + "/tests/support/configs/b2x8x8.json";
}

}  // namespace weft::test
