// Schedule primitives; see schedule.h.
#include "compiler/te/schedule.h"

#include <algorithm>
#include <functional>
#include <set>

#include "compiler/ir/arith.h"
#include "compiler/ir/substitute.h"
#include "compiler/ir/visitor.h"
#include "compiler/te/lower.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::te {

Stage::Stage(Tensor t)
    : tensor_(std::move(t)),
      axes_(tensor_->axes),
      reduce_axes_(tensor_->reduce_axes),
      body_(tensor_->body),
      buffer_(tensor_->buffer) {
  leaves_ = root_axes();
}

std::vector<IterVar> Stage::root_axes() const {
  std::vector<IterVar> r = axes_;
  r.insert(r.end(), reduce_axes_.begin(), reduce_axes_.end());
  return r;
}

void Stage::tensorize(const IterVar& leaf, const GemmIntrinsic& intrinsic) {
  const size_t i = leaf_index(leaf, "tensorize");
  if (tensor_->reduce_op != ReduceOp::kSum)
    throw UserError("stage '" + name() + "': cannot tensorize a max reduction to " +
                    ir::intrinsic_name(intrinsic.update));
  const std::vector<IterVar> inner(leaves_.begin() + static_cast<ptrdiff_t>(i), leaves_.end());
  auto fail = [&](const std::string& why) {
    throw UserError("stage '" + name() + "': cannot tensorize at loop '" + leaf->name() + "' to " +
                    ir::intrinsic_name(intrinsic.update) + " (" + std::to_string(intrinsic.batch) +
                    "x" + std::to_string(intrinsic.block_in) + "x" +
                    std::to_string(intrinsic.block_out) + "): " + why);
  };
  if (inner.size() != 3) {
    fail("it needs exactly three loops inside (batch, output, reduction), found " +
         std::to_string(inner.size()));
  }
  const int64_t want[3] = {intrinsic.batch, intrinsic.block_out, intrinsic.block_in};
  const char* role[3] = {"batch", "output", "reduction"};
  for (int k = 0; k < 3; ++k) {
    if (inner[k]->reduce != (k == 2))
      fail(std::string("loop '") + inner[k]->name() + "' must be the " + role[k] + " loop");
    if (inner[k]->extent != want[k]) {
      fail(std::string("the ") + role[k] + " loop '" + inner[k]->name() + "' has extent " +
           std::to_string(inner[k]->extent) + ", the intrinsic " + std::to_string(want[k]));
    }
  }
  if (buffer_->scope != ir::Scope::kAcc)
    fail("the stage must write an acc-scope buffer (cache_write)");
  if (reduce_axes_.empty()) fail("the stage is not a reduction");
  tensorize_leaf_ = leaf;
  intrinsic_ = intrinsic;
}

void Stage::compute_at(const Stage& consumer, const IterVar& leaf) {
  consumer.leaf_index(leaf, "compute_at");
  if (&consumer == this) {
    throw UserError("stage '" + name() + "': compute_at of a stage inside itself");
  }
  // The accelerator's passes read an on-chip tile's copy loops as whole tile dimensions (DMA
  // detection, tensorize); GPU stages (global, shared, local) may split and fuse them.
  const ir::Scope scope = buffer_->scope;
  if (scope == ir::Scope::kInp || scope == ir::Scope::kWgt || scope == ir::Scope::kAcc ||
      scope == ir::Scope::kUop) {
    for (const SplitRelation& s : splits_) {
      if (!s.parent->reduce) {
        throw UserError("stage '" + name() + "': compute_at needs its spatial loops whole, but '" +
                        s.parent->name() + "' was split (split the consumer's loops instead)");
      }
    }
    for (const FuseRelation& f : fuses_) {
      if (!f.outer->reduce) {
        throw UserError("stage '" + name() + "': compute_at needs its spatial loops whole, but '" +
                        f.outer->name() + "' was fused");
      }
    }
  }
  for (const Stage* s = &consumer; s; s = s->attach_stage_) {
    if (s == this) throw UserError("stage '" + name() + "': compute_at would form a cycle");
  }
  attach_stage_ = &consumer;
  attach_leaf_ = leaf;
}

size_t Stage::leaf_index(const IterVar& axis, const char* what) const {
  for (size_t i = 0; i < leaves_.size(); ++i) {
    if (leaves_[i] == axis) return i;
  }
  std::string names;
  for (const IterVar& l : leaves_) names += (names.empty() ? "" : ", ") + l->name();
  throw UserError("stage '" + tensor_->name + "': " + what + " of loop '" +
                  (axis ? axis->name() : "null") + "', which is not a loop of this stage now " +
                  "(loops: " + names + ")");
}

std::pair<IterVar, IterVar> Stage::split(const IterVar& axis, int64_t factor) {
  const size_t i = leaf_index(axis, "split");
  if (factor <= 0) {
    throw UserError("stage '" + tensor_->name + "': split of loop '" + axis->name() +
                    "' by factor " + std::to_string(factor) + " (must be positive)");
  }
  const int64_t outer_extent = ir::ceil_div(axis->extent, factor);
  auto outer = std::make_shared<IterVarObj>(ir::make_var(axis->name() + ".outer"), outer_extent,
                                            axis->reduce);
  auto inner = std::make_shared<IterVarObj>(ir::make_var(axis->name() + ".inner"),
                                            std::min(factor, axis->extent), axis->reduce);
  splits_.push_back({axis, outer, inner, std::min(factor, axis->extent)});
  leaves_[i] = outer;
  leaves_.insert(leaves_.begin() + static_cast<ptrdiff_t>(i) + 1, inner);
  return {outer, inner};
}

std::vector<IterVar> Stage::tile(const IterVar& x, const IterVar& y, int64_t fx, int64_t fy) {
  auto [xo, xi] = split(x, fx);
  auto [yo, yi] = split(y, fy);
  reorder({xo, yo, xi, yi});
  return {xo, yo, xi, yi};
}

void Stage::reorder(const std::vector<IterVar>& order) {
  std::vector<size_t> slots;
  std::set<const IterVarObj*> seen;
  for (const IterVar& v : order) {
    if (!seen.insert(v.get()).second) {
      throw UserError("stage '" + tensor_->name + "': reorder names loop '" + v->name() +
                      "' twice");
    }
    slots.push_back(leaf_index(v, "reorder"));
  }
  std::sort(slots.begin(), slots.end());
  for (size_t k = 0; k < order.size(); ++k) leaves_[slots[k]] = order[k];
}

IterVar Stage::fuse(const IterVar& outer, const IterVar& inner) {
  const size_t i = leaf_index(outer, "fuse");
  const size_t j = leaf_index(inner, "fuse");
  if (j != i + 1) {
    throw UserError("stage '" + tensor_->name + "': fuse of '" + outer->name() + "' and '" +
                    inner->name() + "', which are not adjacent (outer directly before inner)");
  }
  if (outer->reduce != inner->reduce) {
    throw UserError("stage '" + tensor_->name + "': fuse of spatial and reduction loops '" +
                    outer->name() + "' and '" + inner->name() + "'");
  }
  auto fused =
      std::make_shared<IterVarObj>(ir::make_var(outer->name() + "." + inner->name() + ".fused"),
                                   outer->extent * inner->extent, outer->reduce);
  fuses_.push_back({outer, inner, fused});
  leaves_[i] = fused;
  leaves_.erase(leaves_.begin() + static_cast<ptrdiff_t>(j));
  return fused;
}

void Stage::set_kind(const IterVar& leaf, ir::ForKind kind) {
  leaf_index(leaf, "annotation");
  if (kind == ir::ForKind::kVirtualThread && leaf->reduce) {
    throw UserError("stage '" + tensor_->name + "': virtual thread on reduction loop '" +
                    leaf->name() + "' (threads must own distinct outputs)");
  }
  kinds_[leaf.get()] = kind;
}

void Stage::pragma(const IterVar& leaf, const std::string& key) {
  leaf_index(leaf, "pragma");
  pragmas_[leaf.get()].push_back(key);
}

void Stage::bind(const IterVar& leaf, ThreadAxis axis) {
  leaf_index(leaf, "bind");
  if (leaf->reduce) {
    throw UserError("stage '" + tensor_->name + "': bind of reduction loop '" + leaf->name() +
                    "' to " + ir::thread_axis_name(axis) + " (threads must own distinct outputs)");
  }
  for (const auto& [l, a] : bindings_) {
    if (a == axis && l != leaf.get()) {
      throw UserError("stage '" + tensor_->name + "': loop '" + leaf->name() + "' bound to " +
                      ir::thread_axis_name(axis) + ", which another loop of the stage is bound to");
    }
  }
  bindings_[leaf.get()] = axis;
}

const ThreadAxis* Stage::binding(const IterVar& leaf) const {
  auto it = bindings_.find(leaf.get());
  return it == bindings_.end() ? nullptr : &it->second;
}

ir::ForKind Stage::kind(const IterVar& leaf) const {
  auto it = kinds_.find(leaf.get());
  return it == kinds_.end() ? ir::ForKind::kSerial : it->second;
}

const std::vector<std::string>& Stage::pragmas(const IterVar& leaf) const {
  static const std::vector<std::string> kNone;
  auto it = pragmas_.find(leaf.get());
  return it == pragmas_.end() ? kNone : it->second;
}

namespace {

// Replaces loads of one buffer by loads of another with the same indices.
class RedirectLoads : public ir::Mutator {
 public:
  RedirectLoads(const ir::Buffer& from, const ir::Buffer& to) : from_(from), to_(to) {}

 protected:
  ir::Expr mutate_Load(const ir::Load& n, const ir::Expr& self) override {
    if (n.buffer != from_) return ir::Mutator::mutate_Load(n, self);
    std::vector<ir::Expr> idx;
    for (const ir::Expr& i : n.indices) idx.push_back(mutate(i));
    return ir::load(to_, idx);
  }

 private:
  const ir::Buffer& from_;
  const ir::Buffer& to_;
};

// "inp" for acc.inp and so on: the suffix of a cache stage's name.
std::string short_scope(ir::Scope s) {
  const std::string n = ir::scope_name(s);
  return n.rfind("acc.", 0) == 0 ? n.substr(4) : n;
}

std::shared_ptr<TensorObj> copy_of(const std::string& name, ir::DType dtype,
                                   const std::vector<int64_t>& shape, ir::Scope scope) {
  auto c = std::make_shared<TensorObj>();
  c->name = name;
  c->dtype = dtype;
  c->shape = shape;
  c->buffer = ir::make_buffer(name, dtype, shape, scope);
  c->is_placeholder = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    c->axes.push_back(
        std::make_shared<IterVarObj>(ir::make_var("ax" + std::to_string(d)), shape[d], false));
  }
  return c;
}

}  // namespace

Tensor Schedule::cache_read(const Tensor& t, ir::Scope scope, const std::vector<Tensor>& readers) {
  if (readers.empty()) throw UserError("cache_read of '" + t->name + "' with no readers");
  auto c = copy_of(t->name + "." + short_scope(scope), t->dtype, t->shape, scope);
  std::vector<ir::Expr> idx;
  for (const IterVar& a : c->axes) idx.push_back(ir::ref(a->var));
  c->body = ir::load(t->buffer, idx);
  c->inputs = {t};
  const Tensor ct{std::shared_ptr<const TensorObj>(c)};
  size_t first = order_.size();
  for (const Tensor& r : readers) {
    Stage& st = (*this)[r];
    RedirectLoads redirect(t->buffer, c->buffer);
    const ir::Expr before = st.body_;
    st.body_ = redirect.mutate(st.body_);
    if (st.body_ == before) {
      throw UserError("cache_read of '" + t->name + "': stage '" + r->name + "' does not read it");
    }
    for (size_t i = 0; i < order_.size(); ++i) {
      if (order_[i].get() == r.get()) first = std::min(first, i);
    }
  }
  order_.insert(order_.begin() + static_cast<ptrdiff_t>(first), ct);
  stages_.emplace(c.get(), Stage(ct));
  return ct;
}

Tensor Schedule::cache_write(const Tensor& t, ir::Scope scope) {
  Stage& st = (*this)[t];
  if (!st.splits_.empty() || !st.fuses_.empty() || st.attach_stage_) {
    throw UserError("cache_write of '" + t->name + "' after it was scheduled; call it first");
  }
  auto w = copy_of(t->name + "." + short_scope(scope), t->dtype, t->shape, scope);
  std::map<const ir::VarObj*, ir::Expr> rename;
  for (size_t d = 0; d < st.axes_.size(); ++d)
    rename[st.axes_[d]->var.get()] = ir::ref(w->axes[d]->var);
  for (const IterVar& r : st.reduce_axes_) {
    auto nr = std::make_shared<IterVarObj>(ir::make_var(r->name()), r->extent, true);
    w->reduce_axes.push_back(nr);
    rename[r->var.get()] = ir::ref(nr->var);
  }
  w->reduce_op = t->reduce_op;
  w->body = ir::substitute(st.body_, rename);
  w->inputs = t->inputs;
  const Tensor wt{std::shared_ptr<const TensorObj>(w)};
  // The original stage becomes the copy out of the cache.
  std::vector<ir::Expr> idx;
  for (const IterVar& a : st.axes_) idx.push_back(ir::ref(a->var));
  st.body_ = ir::load(w->buffer, idx);
  st.reduce_axes_.clear();
  st.leaves_ = st.root_axes();
  for (size_t i = 0; i < order_.size(); ++i) {
    if (order_[i].get() == t.get()) {
      order_.insert(order_.begin() + static_cast<ptrdiff_t>(i), wt);
      break;
    }
  }
  stages_.emplace(w.get(), Stage(wt));
  return wt;
}

void Schedule::set_scope(const Tensor& t, ir::Scope scope) {
  Stage& st = (*this)[t];
  for (const Tensor& o : outputs_) {
    if (o.get() == t.get()) {
      throw UserError("set_scope of '" + t->name + "': it is an output of the schedule and " +
                      "stays in DRAM (cache_write it instead)");
    }
  }
  if (st.buffer_->scope != ir::Scope::kGlobal) {
    throw UserError("set_scope of '" + t->name + "': it is already in " +
                    ir::scope_name(st.buffer_->scope));
  }
  const ir::Buffer scoped = ir::make_buffer(t->name + "." + short_scope(scope), st.buffer_->dtype,
                                            st.buffer_->shape, scope);
  for (auto& [obj, reader] : stages_) {
    RedirectLoads redirect(st.buffer_, scoped);
    reader.body_ = redirect.mutate(reader.body_);
  }
  st.buffer_ = scoped;
}

namespace {

// Replaces loads of one buffer by the defining expression of its tensor at the load's indices.
class InlineLoads : public ir::Mutator {
 public:
  InlineLoads(const ir::Buffer& b, const TensorObj& t) : buffer_(b), t_(t) {}

 protected:
  ir::Expr mutate_Load(const ir::Load& n, const ir::Expr& self) override {
    if (n.buffer != buffer_) return ir::Mutator::mutate_Load(n, self);
    std::map<const ir::VarObj*, ir::Expr> at;
    for (size_t d = 0; d < t_.axes.size(); ++d) at[t_.axes[d]->var.get()] = mutate(n.indices[d]);
    return ir::substitute(t_.body, at);
  }

 private:
  const ir::Buffer& buffer_;
  const TensorObj& t_;
};

}  // namespace

void Schedule::compute_inline(const Tensor& t) {
  Stage& st = (*this)[t];
  for (const Tensor& o : outputs_) {
    if (o.get() == t.get()) {
      throw UserError("compute_inline of '" + t->name + "': it is an output of the schedule");
    }
  }
  if (!st.reduce_axes_.empty()) {
    throw UserError("compute_inline of '" + t->name + "': a reduction cannot be inlined");
  }
  if (!st.splits_.empty() || !st.fuses_.empty() || st.attach_stage_) {
    throw UserError("compute_inline of '" + t->name + "' after it was scheduled");
  }
  const ir::Buffer buffer = st.buffer_;
  for (auto& [obj, reader] : stages_) {
    if (obj == t.get()) continue;
    if (reader.attach_stage_ == &st) {
      throw UserError("compute_inline of '" + t->name + "': stage '" + reader.name() +
                      "' is computed at it");
    }
    InlineLoads inline_loads(buffer, *t.get());
    reader.body_ = inline_loads.mutate(reader.body_);
  }
  order_.erase(std::remove_if(order_.begin(), order_.end(),
                              [&](const Tensor& x) { return x.get() == t.get(); }),
               order_.end());
  stages_.erase(t.get());
}

Schedule::Schedule(std::vector<Tensor> outputs) : outputs_(std::move(outputs)) {
  std::set<const TensorObj*> visited;
  std::function<void(const Tensor&)> walk = [&](const Tensor& t) {
    if (!visited.insert(t.get()).second) return;
    for (const Tensor& in : t->inputs) walk(in);
    if (!t->is_placeholder) {
      order_.push_back(t);
      stages_.emplace(t.get(), Stage(t));
    }
  };
  for (const Tensor& t : outputs_) walk(t);
}

Stage& Schedule::operator[](const Tensor& t) {
  auto it = stages_.find(t.get());
  if (it == stages_.end()) {
    throw UserError("tensor '" + t->name + "' has no stage in this schedule" +
                    (t->is_placeholder ? " (it is a placeholder: an input)" : ""));
  }
  return it->second;
}

}  // namespace weft::compiler::te
