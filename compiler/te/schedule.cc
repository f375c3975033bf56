// Schedule primitives; see schedule.h.
#include "compiler/te/schedule.h"

#include <algorithm>
#include <functional>
#include <set>

#include "hardware/isa/errors.h"

namespace weft::compiler::te {

Stage::Stage(Tensor t) : tensor_(std::move(t)) { leaves_ = root_axes(); }

std::vector<IterVar> Stage::root_axes() const {
  std::vector<IterVar> r = tensor_->axes;
  r.insert(r.end(), tensor_->reduce_axes.begin(), tensor_->reduce_axes.end());
  return r;
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
  const int64_t outer_extent = (axis->extent + factor - 1) / factor;
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
  auto fused = std::make_shared<IterVarObj>(ir::make_var(outer->name() + "." + inner->name() + ".fused"),
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

ir::ForKind Stage::kind(const IterVar& leaf) const {
  auto it = kinds_.find(leaf.get());
  return it == kinds_.end() ? ir::ForKind::kSerial : it->second;
}

const std::vector<std::string>& Stage::pragmas(const IterVar& leaf) const {
  static const std::vector<std::string> kNone;
  auto it = pragmas_.find(leaf.get());
  return it == pragmas_.end() ? kNone : it->second;
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
