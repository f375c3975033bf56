// Integer helpers the operators use to pad sizes to whole blocks and tiles (one home:
// compiler/ir/arith.h).
#pragma once

#include "compiler/ir/arith.h"

namespace weft::compiler::ops {

using ir::ceil_div;
using ir::round_up;

}  // namespace weft::compiler::ops
