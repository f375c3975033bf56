// Tensor-core fragments; see wmma.h.
#include "compiler/codegen/cuda/wmma.h"

#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/codegen/cuda/cuda_index.h"
#include "compiler/ir/linear.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

bool is_fragment(ir::Scope s) {
  return s == ir::Scope::kInp || s == ir::Scope::kWgt || s == ir::Scope::kAcc;
}

std::string fragment_type(const ir::Buffer& b) {
  const std::string t = cuda_type(b->dtype);
  const std::string w = kWmmaNamespace;
  switch (b->scope) {
    case ir::Scope::kInp:
      return w + "fragment<" + w + "matrix_a, 16, 16, 16, " + t + ", " + w + "row_major>";
    case ir::Scope::kWgt:
      return w + "fragment<" + w + "matrix_b, 16, 16, 16, " + t + ", " + w + "col_major>";
    default:
      return w + "fragment<" + w + "accumulator, 16, 16, 16, " + t + ">";
  }
}

void check_fragment_buffer(const ir::Buffer& b) {
  const size_t n = b->shape.size();
  if (n < 2 || b->shape[n - 1] != kWmmaTile || b->shape[n - 2] != kWmmaTile) {
    throw UserError("buffer '" + b->name + "' in " + ir::scope_name(b->scope) +
                    " scope is a tensor-core fragment on the GPU and must end in 16x16 tiles");
  }
  const bool in = b->scope != ir::Scope::kAcc;
  const ir::DType t = b->dtype;
  if (in ? (t != ir::DType::kFloat16 && t != ir::DType::kInt8)
         : (t != ir::DType::kFloat32 && t != ir::DType::kInt32 && t != ir::DType::kFloat16)) {
    throw UserError("buffer '" + b->name + "': tensor-core " +
                    (in ? "input fragments hold float16 or int8"
                        : "accumulators hold float32, float16 or int32") +
                    ", not " + ir::dtype_name(t));
  }
}

std::optional<FragmentCopy> fragment_copy(const ir::For& n) {
  const ir::Store* st = nullptr;
  const ir::For* inner = nullptr;
  if (n.body->kind == ir::NodeKind::kFor) {
    inner = static_cast<const ir::For*>(n.body.get());
    if (inner->body->kind == ir::NodeKind::kStore)
      st = static_cast<const ir::Store*>(inner->body.get());
  }
  const ir::Load* ld = st && st->value->kind == ir::NodeKind::kLoad
                           ? static_cast<const ir::Load*>(st->value.get())
                           : nullptr;
  const bool into = st && is_fragment(st->buffer->scope);
  const bool out = ld && is_fragment(ld->buffer->scope);
  if (!into && !out) return std::nullopt;
  auto fail = [&](const std::string& why) {
    throw UserError("loop '" + n.var->name + "': the copy " +
                    (into ? "into tensor-core fragment '" + st->buffer->name
                          : "out of tensor-core fragment '" + ld->buffer->name) +
                    "' must be one whole 16x16 tile per iteration: " + why);
  };
  if (!ld) fail("its value is not a plain load");
  if (ld->buffer->dtype != st->buffer->dtype) fail("the element types differ");
  if (into && out) fail("fragment to fragment");
  const ir::IntImm* e0 = ir::as_imm(n.extent);
  const ir::IntImm* e1 = ir::as_imm(inner->extent);
  if (!e0 || !e1 || e0->value != kWmmaTile || e1->value != kWmmaTile)
    fail("the two innermost loops must have extent 16");
  const ir::Buffer& frag = into ? st->buffer : ld->buffer;
  const std::vector<ir::Expr>& fidx = into ? st->indices : ld->indices;
  const ir::Buffer& mem = into ? ld->buffer : st->buffer;
  const std::vector<ir::Expr>& midx = into ? ld->indices : st->indices;
  check_fragment_buffer(frag);
  const size_t nd = fidx.size();
  if (!ir::is_var(fidx[nd - 2], n.var) || !ir::is_var(fidx[nd - 1], inner->var))
    fail("the fragment's tile dimensions must be indexed by the two loops");
  const auto rows = lane_form(flatten(mem, midx, midx.size()), n.var, kWmmaTile);
  const auto cols = rows ? lane_form(rows->first, inner->var, kWmmaTile) : std::nullopt;
  if (!rows || !cols || cols->second != 1 || rows->second <= 0)
    fail("'" + mem->name + "' must be read row by row with unit column stride");
  const int64_t ldm = rows->second;
  const int64_t esize = ir::dtype_bits(mem->dtype) / 8;
  if ((ldm * esize) % 16 != 0) {
    fail("the row stride of '" + mem->name + "' (" + std::to_string(ldm) +
         " elements) must be a multiple of 16 bytes");
  }
  const ir::Expr base = ir::simplify(cols->first);
  if (!multiple_of(base, 32 / esize))
    fail("the tile's start in '" + mem->name + "' must be 32-byte aligned");
  return FragmentCopy{into, frag, mem, flatten(frag, fidx, nd - 2), base, ldm};
}

}  // namespace weft::compiler::codegen
