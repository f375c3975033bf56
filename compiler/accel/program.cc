// Accelerator program helpers; see program.h.
#include "compiler/accel/program.h"

#include "hardware/isa/errors.h"

namespace weft::compiler::accel {

isa::Module module_of(const Op& op) {
  switch (op.kind) {
    case Op::Kind::kLoad:
      return op.mem == isa::MemType::kInp || op.mem == isa::MemType::kWgt ? isa::Module::kLoad
                                                                          : isa::Module::kCompute;
    case Op::Kind::kStore:
      return isa::Module::kStore;
    case Op::Kind::kGemm:
      return isa::Module::kCompute;
    default:
      break;
  }
  throw InternalError("module_of: a dependency op runs on no module");
}

}  // namespace weft::compiler::accel
