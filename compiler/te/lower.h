// Lowers a schedule to loop IR: for each computed tensor (producers first) a loop nest in the
// stage's leaf order, root indices rebuilt from the split and fuse relations, guards where a
// split factor does not divide its extent, and for reductions an initialising store placed
// just outside the outermost reduction loop.
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/te/schedule.h"

namespace weft::compiler::te {

/// Every stage of the schedule, in dependency order.
ir::Stmt lower(Schedule& schedule);

}  // namespace weft::compiler::te
