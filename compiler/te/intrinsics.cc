// Intrinsic declarations; see intrinsics.h.
#include "compiler/te/intrinsics.h"

namespace weft::compiler::te {

GemmIntrinsic gemm_intrinsic(const isa::Layout& layout) {
  GemmIntrinsic g;
  g.batch = layout.config.batch();
  g.block_in = layout.config.block_in();
  g.block_out = layout.config.block_out();
  return g;
}

}  // namespace weft::compiler::te
