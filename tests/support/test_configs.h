// Configuration files the tests share (tests/support/configs): a configuration no model is
// built in for, which the tests load the way a user's file is loaded (by its path).
#pragma once

#include <string>

namespace weft::test {

/// tests/support/configs/b2x8x8.json: a 2x8x8 GEMM with small buffers and queues.
std::string test_config_file();

}  // namespace weft::test
