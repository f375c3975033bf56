// Pass store_requant (hardware option store_requant, hardware/isa/store_requant.h): a conv or
// dense epilogue's shift and clip move from the compute module onto the STORE. The epilogue
// ends, on each output tile's accumulator rows, with right shifts by immediates and a clip
// (MAX lo, MIN hi); each is an ALU instruction that takes one compute-module cycle per row while
// the GEMM core waits. A STORE with requantization narrows clamp(acc >> s, lo, hi) itself, so
// the pass drops those instructions and writes s, lo and hi into the STOREs that read the rows.
//
// Before: an emitted accel::Program without tokens. A STORE's rows are folded only when the
// pattern is exact: on every row it reads, the operations since anything else touched the row
// are immediate SHRs (amounts summing to at most 31) followed by one MAX (lo: 0 or -128) and
// one MIN (hi, lo..127) in either order, the same instructions for every row; those
// instructions write only rows of STOREs folded with the same values; and after the STORE the
// next access to each row writes it without reading it (or there is none). After: the same
// program without the folded ALU instructions, their STOREs carrying the requantization
// (plan_tokens then places the tokens for it).
#pragma once

#include "compiler/accel/program.h"

namespace weft::compiler::passes {

/// The pass; see above. `folded` (optional) receives the number of ALU instructions removed.
accel::Program store_requant(const accel::Program& program, int* folded = nullptr);

}  // namespace weft::compiler::passes
