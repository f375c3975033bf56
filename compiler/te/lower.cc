// Schedule lowering; see lower.h.
#include "compiler/te/lower.h"

#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::te {

namespace {

class Substituter : public ir::Mutator {
 public:
  explicit Substituter(const std::map<const ir::VarObj*, ir::Expr>& m) : map_(m) {}

 protected:
  ir::Expr mutate_VarRef(const ir::VarRef& n, const ir::Expr& self) override {
    auto it = map_.find(n.var.get());
    return it == map_.end() ? self : it->second;
  }

 private:
  const std::map<const ir::VarObj*, ir::Expr>& map_;
};

// Root-axis expressions in terms of the leaf loop variables.
std::map<const IterVarObj*, ir::Expr> root_values(const Stage& st) {
  std::map<const IterVarObj*, ir::Expr> value;
  for (const IterVar& l : st.leaves()) value[l.get()] = ir::ref(l->var);
  // Relations are resolved repeatedly until nothing changes (their number is small).
  for (bool changed = true; changed;) {
    changed = false;
    for (const SplitRelation& s : st.splits()) {
      if (value.count(s.parent.get()) || !value.count(s.outer.get()) || !value.count(s.inner.get())) {
        continue;
      }
      value[s.parent.get()] =
          ir::add(ir::mul(value[s.outer.get()], ir::imm(s.factor)), value[s.inner.get()]);
      changed = true;
    }
    for (const FuseRelation& f : st.fuses()) {
      if (!value.count(f.fused.get()) || value.count(f.outer.get())) continue;
      value[f.outer.get()] = ir::floordiv(value[f.fused.get()], ir::imm(f.inner->extent));
      value[f.inner.get()] = ir::floormod(value[f.fused.get()], ir::imm(f.inner->extent));
      changed = true;
    }
  }
  for (const IterVar& r : st.root_axes()) {
    if (!value.count(r.get())) throw InternalError("lower: root axis " + r->name() + " unresolved");
  }
  return value;
}

ir::Stmt guarded(const std::vector<ir::Expr>& conds, ir::Stmt s) {
  if (conds.empty()) return s;
  ir::Expr c = conds[0];
  for (size_t i = 1; i < conds.size(); ++i) c = ir::logical_and(c, conds[i]);
  return ir::if_then_else(c, std::move(s));
}

ir::Stmt wrap_loop(const Stage& st, const IterVar& leaf, ir::Stmt body) {
  ir::Stmt loop = ir::for_loop(leaf->var, ir::imm(0), ir::imm(leaf->extent), st.kind(leaf), body);
  const auto& pragmas = st.pragmas(leaf);
  for (auto it = pragmas.rbegin(); it != pragmas.rend(); ++it) {
    loop = ir::attr("pragma_" + *it, ir::imm(1), loop);
  }
  return loop;
}

}  // namespace

ir::Expr substitute(const ir::Expr& e, const std::map<const ir::VarObj*, ir::Expr>& map) {
  Substituter s(map);
  return s.mutate(e);
}

ir::Stmt lower_stage(const Stage& st) {
  const TensorObj& t = *st.tensor().get();
  const auto value = root_values(st);

  std::map<const ir::VarObj*, ir::Expr> var_map;
  std::vector<ir::Expr> indices;
  for (const IterVar& a : t.axes) {
    var_map[a->var.get()] = value.at(a.get());
    indices.push_back(value.at(a.get()));
  }
  for (const IterVar& r : t.reduce_axes) var_map[r->var.get()] = value.at(r.get());
  const ir::Expr body = substitute(t.body, var_map);

  // Guards for splits that do not divide their extent.
  std::vector<ir::Expr> spatial_guards, all_guards;
  for (const SplitRelation& s : st.splits()) {
    if (s.parent->extent % s.factor == 0) continue;
    ir::Expr c = ir::lt(value.at(s.parent.get()), ir::imm(s.parent->extent));
    all_guards.push_back(c);
    if (!s.parent->reduce) spatial_guards.push_back(c);
  }

  if (t.reduce_axes.empty()) {
    ir::Stmt s = guarded(all_guards, ir::store(t.buffer, indices, body));
    for (auto it = st.leaves().rbegin(); it != st.leaves().rend(); ++it) s = wrap_loop(st, *it, s);
    return s;
  }

  const ir::Stmt update = guarded(
      all_guards,
      ir::store(t.buffer, indices, ir::cast(t.dtype, ir::add(ir::load(t.buffer, indices), body))));
  ir::Stmt init = guarded(spatial_guards, ir::store(t.buffer, indices, ir::imm(0, t.dtype)));
  const auto& leaves = st.leaves();
  size_t first_reduce = leaves.size();
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (leaves[i]->reduce) {
      first_reduce = i;
      break;
    }
  }
  ir::Stmt s = update;
  for (size_t i = leaves.size(); i-- > first_reduce;) s = wrap_loop(st, leaves[i], s);
  // The initialising store runs over the spatial loops nested inside the reduction.
  for (size_t i = leaves.size(); i-- > first_reduce + 1;) {
    if (!leaves[i]->reduce) init = wrap_loop(st, leaves[i], init);
  }
  s = ir::seq({init, s});
  for (size_t i = first_reduce; i-- > 0;) s = wrap_loop(st, leaves[i], s);
  return s;
}

ir::Stmt lower(Schedule& schedule) {
  std::vector<ir::Stmt> stages;
  for (const Tensor& t : schedule.order()) stages.push_back(lower_stage(schedule[t]));
  return ir::seq(stages);
}

}  // namespace weft::compiler::te
