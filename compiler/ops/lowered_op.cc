// Lowering a scheduled operator for a code generator; see lowered_op.h.
#include "compiler/ops/lowered_op.h"

namespace weft::compiler::ops {

LoweredOp lower_op(const std::string& name, te::Schedule& s, const std::vector<te::Tensor>& inputs,
                   const std::vector<te::Tensor>& outputs, double ops, const std::string& path) {
  LoweredOp op;
  op.func = codegen::lower_func(name, s, inputs, outputs);
  op.num_inputs = inputs.size();
  op.num_outputs = outputs.size();
  op.ops = ops;
  op.path = path;
  return op;
}

}  // namespace weft::compiler::ops
