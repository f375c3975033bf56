// Compiled program to builder calls; see compiled_program.h.
#include "runtime/stream/compiled_program.h"

#include "hardware/isa/errors.h"

namespace weft::rt {

void append(StreamBuilder& b, const compiler::accel::Program& program,
            const TensorPlacement& placement) {
  using compiler::accel::Op;
  for (const Op& op : program.ops) {
    switch (op.kind) {
      case Op::Kind::kLoad:
      case Op::Kind::kStore: {
        auto it = placement.find(op.tensor.get());
        if (it == placement.end()) {
          throw UserError("compiled program: tensor '" + op.tensor->name + "' has no DRAM place");
        }
        const int64_t dram = it->second + op.dram_offset;
        if (op.kind == Op::Kind::kLoad) {
          b.load_2d(op.mem, op.sram_base, dram, op.y_size, op.x_size, op.x_stride,
                    Pads{op.y_pad0, op.y_pad1, op.x_pad0, op.x_pad1});
        } else {
          b.store_2d(op.sram_base, dram, op.y_size, op.x_size, op.x_stride, op.requant);
        }
        break;
      }
      case Op::Kind::kGemm:
      case Op::Kind::kAlu: {
        UopKernel k;
        k.uops = op.uops;
        k.iter_out = op.iter_out;
        k.iter_in = op.iter_in;
        k.dst_factor_out = op.dst_factor_out;
        k.dst_factor_in = op.dst_factor_in;
        k.src_factor_out = op.src_factor_out;
        k.src_factor_in = op.src_factor_in;
        k.wgt_factor_out = op.wgt_factor_out;
        k.wgt_factor_in = op.wgt_factor_in;
        if (op.kind == Op::Kind::kAlu) {
          b.alu(op.alu_op, k, op.use_imm, static_cast<int32_t>(op.imm));
          break;
        }
        k.reset = op.reset;
        b.gemm(k);
        break;
      }
      case Op::Kind::kDepPush:
        b.dep_push(op.from, op.to);
        break;
      case Op::Kind::kDepPop:
        b.dep_pop(op.from, op.to);
        break;
    }
  }
}

}  // namespace weft::rt
