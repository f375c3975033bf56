// Helpers shared by the libFuzzer targets: a check that aborts with a message (libFuzzer then
// saves the input as a crash), and the shipped configuration a byte selects.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "hardware/isa/layout.h"

namespace weft::fuzz {

/// Aborts (a crash for libFuzzer) with `what` when `ok` is false.
inline void check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::abort();
}

/// The shipped configuration `selector` picks (tiny, gemm8x8, vta).
inline const isa::Layout& layout_of(unsigned selector) {
  static const char* const kNames[] = {"tiny", "gemm8x8", "vta"};
  return isa::layout_for(kNames[selector % 3]);
}

}  // namespace weft::fuzz
