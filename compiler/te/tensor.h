// Tensor expressions: placeholders (inputs) and computed tensors defined by an index lambda,
// optionally a sum over reduction axes. A tensor owns the global buffer it is stored in; the
// lambda's body reads other tensors through their buffers.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::te {

/// A loop axis of a computation: a variable with an extent; `reduce` for reduction axes.
struct IterVarObj {
  IterVarObj(ir::Var v, int64_t e, bool r) : var(std::move(v)), extent(e), reduce(r) {}
  const ir::Var var;
  const int64_t extent;
  const bool reduce;
  const std::string& name() const { return var->name; }
};
using IterVar = std::shared_ptr<const IterVarObj>;

/// A reduction axis of `extent` named `name`.
IterVar reduce_axis(int64_t extent, const std::string& name);

/// How a reduction combines: a sum (starting at 0) or a maximum (starting at the lowest value
/// of the tensor's type: -128 for int8, -2^31 for int32, -FLT_MAX for float32).
enum class ReduceOp { kSum, kMax };

/// The body of a reduction: `op` of `value` over `axes`.
struct Reduce {
  ir::Expr value;
  std::vector<IterVar> axes;
  ReduceOp op = ReduceOp::kSum;
};
/// Sum of `value` over reduction axes.
Reduce sum(ir::Expr value, std::vector<IterVar> axes);
/// Maximum of `value` over reduction axes (e.g. max pooling).
Reduce maximum(ir::Expr value, std::vector<IterVar> axes);

struct TensorObj;
/// A tensor handle.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<const TensorObj> p) : p_(std::move(p)) {}
  /// Reads element `indices` (one expression per dimension).
  ir::Expr operator()(std::vector<ir::Expr> indices) const;
  const TensorObj* operator->() const { return p_.get(); }
  const TensorObj* get() const { return p_.get(); }
  bool operator<(const Tensor& o) const { return p_ < o.p_; }

 private:
  std::shared_ptr<const TensorObj> p_;
};

/// What defines a tensor.
struct TensorObj {
  std::string name;
  ir::DType dtype;
  std::vector<int64_t> shape;
  ir::Buffer buffer;  // where it lives (global)
  bool is_placeholder = true;
  std::vector<IterVar> axes;         // one spatial axis per dimension (compute only)
  std::vector<IterVar> reduce_axes;  // empty unless a reduction
  ReduceOp reduce_op = ReduceOp::kSum;
  ir::Expr body;                     // value, or the summand of a reduction
  std::vector<Tensor> inputs;        // tensors the body reads
};

/// An input tensor.
Tensor placeholder(std::vector<int64_t> shape, ir::DType dtype, const std::string& name);

/// An element-wise computed tensor: fcompute maps the axis variables to the value.
Tensor compute(std::vector<int64_t> shape, ir::DType dtype,
               const std::function<ir::Expr(const std::vector<ir::Expr>&)>& fcompute,
               const std::string& name);

/// A reduction: fcompute maps the axis variables to a `sum(...)` or `maximum(...)`.
Tensor compute_reduce(std::vector<int64_t> shape, ir::DType dtype,
                      const std::function<Reduce(const std::vector<ir::Expr>&)>& fcompute,
                      const std::string& name);

}  // namespace weft::compiler::te
