// Printing accelerator programs; see printer.h.
#include "compiler/accel/printer.h"

#include <sstream>

namespace weft::compiler::accel {

namespace {

const char* mem_name(isa::MemType m) { return isa::mem_type_name(static_cast<int64_t>(m)); }

void kernel(std::ostream& o, const Op& op) {
  o << " uops";
  for (const isa::Uop& u : op.uops) o << " (" << u.dst << ',' << u.src << ',' << u.wgt << ')';
  o << " x" << op.iter_out;
  if (op.iter_in != 1) o << 'x' << op.iter_in;
  o << " (dst " << op.dst_factor_out << ',' << op.dst_factor_in << " src " << op.src_factor_out
    << ',' << op.src_factor_in << " wgt " << op.wgt_factor_out << ',' << op.wgt_factor_in << ')';
}

}  // namespace

std::string to_string(const Op& op) {
  std::ostringstream o;
  switch (op.kind) {
    case Op::Kind::kLoad:
    case Op::Kind::kStore: {
      const bool load = op.kind == Op::Kind::kLoad;
      o << isa::module_name(op.module) << (load ? " LOAD " : " STORE ")
        << (load ? mem_name(op.mem) : "OUT") << ' ' << (op.tensor ? op.tensor->name : "?") << "[+"
        << op.dram_offset << "] " << op.y_size << 'x' << op.x_size << " stride " << op.x_stride;
      if (op.y_pad0 || op.y_pad1 || op.x_pad0 || op.x_pad1)
        o << " pad " << op.y_pad0 << ',' << op.y_pad1 << ',' << op.x_pad0 << ',' << op.x_pad1;
      if (op.requant.on)
        o << " requant >>" << op.requant.shift << " clamp " << op.requant.lo << ','
          << op.requant.hi;
      o << (load ? " -> " : " <- ") << (load ? mem_name(op.mem) : "ACC") << ' ' << op.sram_base;
      break;
    }
    case Op::Kind::kGemm:
      o << isa::module_name(op.module) << " GEMM" << (op.reset ? " reset" : "");
      kernel(o, op);
      break;
    case Op::Kind::kAlu:
      o << isa::module_name(op.module) << " ALU "
        << isa::alu_op_name(static_cast<int64_t>(op.alu_op));
      if (op.use_imm) o << " imm " << op.imm;
      kernel(o, op);
      break;
    case Op::Kind::kDepPush:
    case Op::Kind::kDepPop:
      o << (op.kind == Op::Kind::kDepPush ? "push " : "pop ") << isa::module_name(op.from) << "->"
        << isa::module_name(op.to);
      break;
  }
  return o.str();
}

std::string to_string(const Program& p) {
  std::ostringstream o;
  for (size_t i = 0; i < p.ops.size(); ++i) o << i << ": " << to_string(p.ops[i]) << "\n";
  return o.str();
}

}  // namespace weft::compiler::accel
