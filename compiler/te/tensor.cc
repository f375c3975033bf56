// Tensor-expression construction; see tensor.h.
#include "compiler/te/tensor.h"

#include <map>
#include <mutex>
#include <set>

#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::te {

namespace {

// The global buffers a body reads, to record the tensors it depends on.
class LoadCollector : public ir::Visitor {
 public:
  // In the order the body first reads them (not by address, which would make a compute's
  // inputs, hence its stages' order and the emitted program, depend on the heap).
  std::vector<const ir::BufferObj*> buffers;

 protected:
  void visit_Load(const ir::Load& n) override {
    if (seen_.insert(n.buffer.get()).second) buffers.push_back(n.buffer.get());
    ir::Visitor::visit_Load(n);
  }

 private:
  std::set<const ir::BufferObj*> seen_;
};

// Registry from buffer to tensor, so that compute() can list its inputs. Guarded by
// registry_mutex(): operators may be defined on several threads at once (the graph executor
// builds its CPU kernels while it schedules the accelerator's).
std::map<const ir::BufferObj*, std::weak_ptr<const TensorObj>>& registry() {
  static std::map<const ir::BufferObj*, std::weak_ptr<const TensorObj>> r;
  return r;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

Tensor make(std::shared_ptr<TensorObj> t) {
  auto p = std::shared_ptr<const TensorObj>(std::move(t));
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[p->buffer.get()] = p;
  return Tensor(p);
}

std::shared_ptr<TensorObj> new_compute(std::vector<int64_t> shape, ir::DType dtype,
                                       const std::string& name, std::vector<ir::Expr>* axis_exprs) {
  auto t = std::make_shared<TensorObj>();
  t->name = name;
  t->dtype = dtype;
  t->shape = shape;
  t->buffer = ir::make_buffer(name, dtype, shape);
  t->is_placeholder = false;
  static const char* const kAxisNames[] = {"i", "j", "k", "l", "m", "n"};
  for (size_t d = 0; d < shape.size(); ++d) {
    const std::string axis = d < 6 ? kAxisNames[d] : "ax" + std::to_string(d);
    t->axes.push_back(std::make_shared<IterVarObj>(ir::make_var(axis), shape[d], false));
    axis_exprs->push_back(ir::ref(t->axes.back()->var));
  }
  return t;
}

void record_inputs(TensorObj& t) {
  LoadCollector c;
  c.visit(t.body);
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (const ir::BufferObj* b : c.buffers) {
    auto it = registry().find(b);
    if (it != registry().end()) {
      if (auto in = it->second.lock()) t.inputs.push_back(Tensor(in));
    }
  }
}

}  // namespace

IterVar reduce_axis(int64_t extent, const std::string& name) {
  if (extent <= 0)
    throw UserError("reduce_axis '" + name + "': extent " + std::to_string(extent) +
                    " is not positive");
  return std::make_shared<IterVarObj>(ir::make_var(name), extent, true);
}

Reduce sum(ir::Expr value, std::vector<IterVar> axes) {
  for (const IterVar& a : axes) {
    if (!a->reduce) throw UserError("sum over '" + a->name() + "', which is not a reduce_axis");
  }
  return Reduce{std::move(value), std::move(axes)};
}

Reduce maximum(ir::Expr value, std::vector<IterVar> axes) {
  for (const IterVar& a : axes) {
    if (!a->reduce)
      throw UserError("maximum over '" + a->name() + "', which is not a reduce_axis");
  }
  return Reduce{std::move(value), std::move(axes), ReduceOp::kMax};
}

ir::Expr Tensor::operator()(std::vector<ir::Expr> indices) const {
  if (indices.size() != p_->shape.size()) {
    throw UserError("tensor '" + p_->name + "' has " + std::to_string(p_->shape.size()) +
                    " dimensions, indexed with " + std::to_string(indices.size()));
  }
  return ir::load(p_->buffer, std::move(indices));
}

Tensor placeholder(std::vector<int64_t> shape, ir::DType dtype, const std::string& name) {
  auto t = std::make_shared<TensorObj>();
  t->name = name;
  t->dtype = dtype;
  t->shape = shape;
  t->buffer = ir::make_buffer(name, dtype, shape);
  return make(t);
}

Tensor compute(std::vector<int64_t> shape, ir::DType dtype,
               const std::function<ir::Expr(const std::vector<ir::Expr>&)>& fcompute,
               const std::string& name) {
  std::vector<ir::Expr> axes;
  auto t = new_compute(std::move(shape), dtype, name, &axes);
  t->body = ir::cast(dtype, fcompute(axes));
  record_inputs(*t);
  return make(t);
}

Tensor compute_reduce(std::vector<int64_t> shape, ir::DType dtype,
                      const std::function<Reduce(const std::vector<ir::Expr>&)>& fcompute,
                      const std::string& name) {
  std::vector<ir::Expr> axes;
  auto t = new_compute(std::move(shape), dtype, name, &axes);
  Reduce r = fcompute(axes);
  if (r.axes.empty())
    throw UserError("compute_reduce '" + name + "': the reduction has no reduction axes");
  t->body = ir::cast(dtype, r.value);
  t->reduce_axes = std::move(r.axes);
  t->reduce_op = r.op;
  record_inputs(*t);
  return make(t);
}

}  // namespace weft::compiler::te
