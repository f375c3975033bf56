// Schedule lowering; see lower.h.
#include "compiler/te/lower.h"

#include <algorithm>
#include <limits>
#include <set>

#include "compiler/ir/arith.h"
#include "compiler/ir/linear.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/substitute.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::te {

namespace {

// The identity of a max reduction: the lowest value of `t`.
ir::Expr lowest(ir::DType t) {
  switch (t) {
    case ir::DType::kInt8: return ir::imm(-128, t);
    case ir::DType::kInt32: return ir::imm(std::numeric_limits<int32_t>::min(), t);
    case ir::DType::kInt64: return ir::imm(std::numeric_limits<int64_t>::min(), t);
    default: return ir::fimm(-double(std::numeric_limits<float>::max()), t);
  }
}

// Extents of every axis of a stage (roots, then through the split and fuse relations) when its
// root axes have the extents in `e`: a stage realized over a region has smaller roots than its
// axes were created with.
std::map<const IterVarObj*, int64_t> derive_extents(const Stage& st,
                                                    std::map<const IterVarObj*, int64_t> e) {
  for (bool changed = true; changed;) {
    changed = false;
    for (const SplitRelation& s : st.splits()) {
      if (!e.count(s.parent.get()) || e.count(s.outer.get())) continue;
      const int64_t pe = e[s.parent.get()], f = std::min(s.factor, pe);
      e[s.outer.get()] = ir::ceil_div(pe, f);
      e[s.inner.get()] = f;
      changed = true;
    }
    for (const FuseRelation& f : st.fuses()) {
      if (!e.count(f.outer.get()) || !e.count(f.inner.get()) || e.count(f.fused.get())) continue;
      e[f.fused.get()] = e[f.outer.get()] * e[f.inner.get()];
      changed = true;
    }
  }
  return e;
}

// Root-axis expressions in terms of the leaf loop variables (`extent`: every axis's extent).
std::map<const IterVarObj*, ir::Expr> root_values(
    const Stage& st, const std::map<const IterVarObj*, int64_t>& extent) {
  std::map<const IterVarObj*, ir::Expr> value;
  for (const IterVar& l : st.leaves()) value[l.get()] = ir::ref(l->var);
  // Relations are resolved repeatedly until nothing changes (their number is small).
  for (bool changed = true; changed;) {
    changed = false;
    for (const SplitRelation& s : st.splits()) {
      if (value.count(s.parent.get()) || !value.count(s.outer.get()) ||
          !value.count(s.inner.get())) {
        continue;
      }
      value[s.parent.get()] =
          ir::add(ir::mul(value[s.outer.get()], ir::imm(s.factor)), value[s.inner.get()]);
      changed = true;
    }
    for (const FuseRelation& f : st.fuses()) {
      if (!value.count(f.fused.get()) || value.count(f.outer.get())) continue;
      const int64_t inner = extent.at(f.inner.get());
      value[f.outer.get()] = ir::floordiv(value[f.fused.get()], ir::imm(inner));
      value[f.inner.get()] = ir::floormod(value[f.fused.get()], ir::imm(inner));
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

class LoadCollector : public ir::Visitor {
 public:
  explicit LoadCollector(const ir::BufferObj* b) : buffer_(b) {}
  std::vector<const ir::Load*> loads;

 protected:
  void visit_Load(const ir::Load& n) override {
    if (n.buffer.get() == buffer_) loads.push_back(&n);
    ir::Visitor::visit_Load(n);
  }

 private:
  const ir::BufferObj* buffer_;
};

// Where an attached stage is realized: the region of its output the consumer needs.
struct Region {
  std::vector<ir::Expr> base;   // first index per dimension (in the consumer's outer loops)
  std::vector<int64_t> extent;  // size per dimension
  ir::Buffer local;             // the region-sized buffer, or null when writing in place
};

// Rewrites loads of realized producers to their region buffers.
class ToLocal : public ir::Mutator {
 public:
  explicit ToLocal(const std::map<const ir::BufferObj*, const Region*>& r) : regions_(r) {}

 protected:
  ir::Expr mutate_Load(const ir::Load& n, const ir::Expr& self) override {
    auto it = regions_.find(n.buffer.get());
    if (it == regions_.end() || !it->second->local) return ir::Mutator::mutate_Load(n, self);
    std::vector<ir::Expr> idx;
    for (size_t d = 0; d < n.indices.size(); ++d) {
      idx.push_back(ir::sub(mutate(n.indices[d]), it->second->base[d]));
    }
    return ir::load(it->second->local, idx);
  }

 private:
  const std::map<const ir::BufferObj*, const Region*>& regions_;
};

// floordiv(e, d) and floormod(e, d) with a constant d > 0 and an affine e = d*Q + R whose
// remainder R stays within one multiple of d over the variables' ranges [0, extent): Q + q0
// and R - q0*d. Bound inference reads a packed buffer indexed by j/16 and j%16 this way once j
// is a tile's base plus a loop inside the tile.
class DivModByRange : public ir::Mutator {
 public:
  explicit DivModByRange(const std::map<const ir::VarObj*, int64_t>& extent) : extent_(extent) {}

 protected:
  ir::Expr mutate_Binary(const ir::Binary& n, const ir::Expr& self) override {
    if (n.op != ir::BinOp::kFloorDiv && n.op != ir::BinOp::kFloorMod)
      return ir::Mutator::mutate_Binary(n, self);
    const ir::IntImm* d = ir::as_imm(n.b);
    const ir::Expr a = mutate(n.a);
    auto f = ir::linear_form(a);
    if (!d || d->value <= 0 || !f) return ir::Mutator::mutate_Binary(n, self);
    const int64_t dv = d->value;
    ir::LinearForm q, r;
    q.constant = ir::floor_div(f->constant, dv);
    r.constant = f->constant - q.constant * dv;
    int64_t lo = r.constant, hi = r.constant;
    for (const ir::Var& v : f->order) {
      const int64_t k = f->coef.at(v.get());
      if (k == 0) continue;
      if (k % dv == 0) {
        q.order.push_back(v);
        q.coef[v.get()] = k / dv;
        continue;
      }
      auto it = extent_.find(v.get());
      if (it == extent_.end()) return ir::Mutator::mutate_Binary(n, self);
      r.order.push_back(v);
      r.coef[v.get()] = k;
      (k < 0 ? lo : hi) += k * (it->second - 1);
    }
    const int64_t q0 = ir::floor_div(lo, dv);
    if (ir::floor_div(hi, dv) != q0) return ir::Mutator::mutate_Binary(n, self);
    if (n.op == ir::BinOp::kFloorDiv) {
      q.constant += q0;
      return ir::cast(n.dtype, ir::from_linear(q));
    }
    r.constant -= q0 * dv;
    return ir::cast(n.dtype, ir::from_linear(r));
  }

 private:
  const std::map<const ir::VarObj*, int64_t>& extent_;
};

class Lowerer {
 public:
  explicit Lowerer(Schedule& s) : s_(s) {
    for (const Tensor& t : s.order()) {
      const Stage& st = s[t];
      for (const IterVar& l : st.leaves()) {
        extent_of_[l->var.get()] = l->extent;
        const ThreadAxis* a = st.binding(l);
        if (a && ir::is_thread_index(*a)) thread_bound_[l->var.get()] = l->extent;
      }
      if (st.attach_stage()) attached_[{st.attach_stage(), st.attach_leaf().get()}].push_back(&st);
    }
  }

  ir::Stmt run() {
    std::vector<ir::Stmt> out;
    for (const Tensor& t : s_.order()) {
      const Stage& st = s_[t];
      if (!st.attach_stage()) out.push_back(lower_stage(st, nullptr));
    }
    return ir::seq(out);
  }

 private:
  // The region of `producer` that `consumer_body` reads, with `inner` loops free.
  Region infer_region(const Stage& producer, const Stage& consumer, const ir::Expr& consumer_body,
                      const std::map<const ir::VarObj*, int64_t>& inner) {
    LoadCollector c(producer.buffer().get());
    c.visit(consumer_body);
    const size_t dims = producer.buffer()->shape.size();
    if (c.loads.empty()) {
      throw UserError("stage '" + producer.name() + "' is computed at stage '" + consumer.name() +
                      "', which does not read it");
    }
    // Shared memory is the block's: the region covers what all its threads read.
    const bool shared = producer.buffer()->scope == ir::Scope::kShared;
    Region r;
    for (size_t d = 0; d < dims; ++d) {
      int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
      ir::LinearForm outer_form;
      bool first = true;
      for (const ir::Load* l : c.loads) {
        std::map<const ir::VarObj*, int64_t> ranges = extent_of_;
        for (const auto& [v, e] : inner) ranges[v] = e;
        const auto form = ir::linear_form(DivModByRange(ranges).mutate(l->indices[d]));
        if (!form) {
          throw UserError("stage '" + producer.name() + "': cannot infer the region read by '" +
                          consumer.name() + "': index " + ir::to_string(l->indices[d]) +
                          " of dimension " + std::to_string(d) + " is not affine");
        }
        const ir::LinearForm& f = *form;
        int64_t mn = f.constant, mx = f.constant;
        ir::LinearForm outer;
        for (const ir::Var& var : f.order) {
          const int64_t k = f.coef.at(var.get());
          if (k == 0) continue;
          const int64_t* free_extent = nullptr;
          if (auto it = inner.find(var.get()); it != inner.end()) free_extent = &it->second;
          if (auto it = thread_bound_.find(var.get()); !free_extent && shared &&
                                                      it != thread_bound_.end()) {
            free_extent = &it->second;
          }
          if (!free_extent) {
            outer.order.push_back(var);
            outer.coef[var.get()] = k;
            continue;
          }
          const int64_t span = k * (*free_extent - 1);
          (span < 0 ? mn : mx) += span;
        }
        if (!first && outer.coef != outer_form.coef) {
          throw UserError(
              "stage '" + producer.name() + "': reads by '" + consumer.name() + "' in dimension " +
              std::to_string(d) +
              " move differently with the outer loops; cannot bound them as one region");
        }
        outer_form = outer;
        first = false;
        lo = std::min(lo, mn);
        hi = std::max(hi, mx);
      }
      outer_form.constant = lo;
      r.base.push_back(ir::from_linear(outer_form));
      r.extent.push_back(std::min(hi - lo + 1, producer.buffer()->shape[d]));
    }
    if (producer.buffer()->scope != ir::Scope::kGlobal) {
      r.local = ir::make_buffer(producer.buffer()->name, producer.buffer()->dtype, r.extent,
                                producer.buffer()->scope);
    }
    return r;
  }

  ir::Stmt wrap_loop(const Stage& st, const IterVar& leaf, int64_t extent, ir::Stmt body) {
    const ThreadAxis* a = st.binding(leaf);
    ir::Stmt loop = ir::for_loop(leaf->var, ir::imm(0), ir::imm(extent), st.kind(leaf), body,
                                 a ? std::optional(*a) : std::nullopt);
    const auto& pragmas = st.pragmas(leaf);
    for (auto it = pragmas.rbegin(); it != pragmas.rend(); ++it) {
      loop = ir::attr("pragma_" + *it, ir::imm(1), loop);
    }
    return loop;
  }

  // Whether some iteration of the loops outside places region dimension `d` past `shape`:
  // the largest base plus the extent, over the outer loops' ranges (true when unknown).
  bool may_overrun(const Region& r, size_t d, int64_t shape) const {
    const auto f = ir::linear_form(r.base[d]);
    if (!f) return true;
    int64_t hi = f->constant;
    for (const ir::Var& v : f->order) {
      const int64_t k = f->coef.at(v.get());
      if (k <= 0) continue;
      auto it = extent_of_.find(v.get());
      if (it == extent_of_.end()) return true;
      hi += k * (it->second - 1);
    }
    return hi + r.extent[d] > shape;
  }

  // Lowers a stage; `region` is set when it is realized inside its consumer.
  ir::Stmt lower_stage(const Stage& st, const Region* region) {
    // Axis extents (region-limited when attached).
    std::map<const IterVarObj*, int64_t> roots;
    for (size_t d = 0; d < st.axes().size(); ++d)
      roots[st.axes()[d].get()] = region ? region->extent[d] : st.axes()[d]->extent;
    for (const IterVar& r : st.reduce_axes()) roots[r.get()] = r->extent;
    std::map<const IterVarObj*, int64_t> extent = derive_extents(st, roots);
    const auto value = root_values(st, extent);

    std::map<const ir::VarObj*, ir::Expr> var_map;
    std::vector<ir::Expr> global_idx, store_idx;
    std::vector<ir::Expr> spatial_guards, all_guards;
    for (size_t d = 0; d < st.axes().size(); ++d) {
      const IterVar& a = st.axes()[d];
      ir::Expr local = value.at(a.get());
      if (region) {
        ir::Expr global = ir::add(region->base[d], local);
        if (may_overrun(*region, d, st.buffer()->shape[d])) {
          spatial_guards.push_back(ir::lt(global, ir::imm(st.buffer()->shape[d])));
        }
        global_idx.push_back(global);
        store_idx.push_back(region->local ? local : global);
      } else {
        global_idx.push_back(local);
        store_idx.push_back(local);
      }
      var_map[a->var.get()] = global_idx.back();
    }
    for (const IterVar& r : st.reduce_axes()) var_map[r->var.get()] = value.at(r.get());
    for (const SplitRelation& s : st.splits()) {
      const int64_t pe = extent.at(s.parent.get());
      if (pe % std::min(s.factor, pe) == 0) continue;
      ir::Expr c = ir::lt(value.at(s.parent.get()), ir::imm(pe));
      (s.parent->reduce ? all_guards : spatial_guards).push_back(c);
    }
    all_guards.insert(all_guards.begin(), spatial_guards.begin(), spatial_guards.end());
    ir::Expr body = ir::substitute(st.body(), var_map);

    // Producers computed inside this stage's loops: infer their regions, then read them there.
    std::map<const IterVarObj*, std::vector<std::pair<const Stage*, Region>>> inside;
    const auto& leaves = st.leaves();
    for (size_t i = 0; i < leaves.size(); ++i) {
      auto it = attached_.find({&st, leaves[i].get()});
      if (it == attached_.end()) continue;
      std::map<const ir::VarObj*, int64_t> inner;
      for (size_t j = i + 1; j < leaves.size(); ++j)
        inner[leaves[j]->var.get()] = extent[leaves[j].get()];
      // Later producers first: one that only a sibling reads (a shared tile copied on into
      // tensor-core fragments at the same loop) covers what that sibling's region reads.
      const auto& ps = it->second;
      std::vector<std::pair<const Stage*, Region>> list(ps.size());
      for (size_t q = ps.size(); q-- > 0;) {
        LoadCollector direct(ps[q]->buffer().get());
        direct.visit(body);
        for (size_t r = q + 1; direct.loads.empty() && r < ps.size(); ++r) {
          const Stage& sib = *list[r].first;
          LoadCollector via(ps[q]->buffer().get());
          via.visit(sib.body());
          if (via.loads.empty()) continue;
          std::map<const ir::VarObj*, ir::Expr> at;
          std::map<const ir::VarObj*, int64_t> inner2 = inner;
          for (size_t d = 0; d < sib.axes().size(); ++d) {
            const ir::Var v = ir::make_var(sib.axes()[d]->name());
            at[sib.axes()[d]->var.get()] = ir::add(list[r].second.base[d], ir::ref(v));
            inner2[v.get()] = list[r].second.extent[d];
          }
          for (const IterVar& ra : sib.reduce_axes()) inner2[ra->var.get()] = ra->extent;
          list[q] = {ps[q], infer_region(*ps[q], sib, ir::substitute(sib.body(), at), inner2)};
          break;
        }
        // One that only a stage computed at a deeper loop of this stage reads (a packed panel
        // of weights that the row tiles inside it read): the region that stage's iterations
        // read, with its axes, its reductions and the loops between free.
        for (size_t j = i + 1; direct.loads.empty() && !list[q].first && j < leaves.size(); ++j) {
          auto deeper = attached_.find({&st, leaves[j].get()});
          if (deeper == attached_.end()) continue;
          for (const Stage* d : deeper->second) {
            LoadCollector via(ps[q]->buffer().get());
            via.visit(d->body());
            if (via.loads.empty()) continue;
            std::map<const ir::VarObj*, int64_t> inner_j;
            for (size_t t = j + 1; t < leaves.size(); ++t)
              inner_j[leaves[t]->var.get()] = extent[leaves[t].get()];
            const Region dr = infer_region(*d, st, body, inner_j);
            std::map<const ir::VarObj*, ir::Expr> at;
            std::map<const ir::VarObj*, int64_t> inner2 = inner;
            for (size_t a = 0; a < d->axes().size(); ++a) {
              const ir::Var v = ir::make_var(d->axes()[a]->name());
              at[d->axes()[a]->var.get()] = ir::add(dr.base[a], ir::ref(v));
              inner2[v.get()] = dr.extent[a];
            }
            for (const IterVar& r : d->reduce_axes()) inner2[r->var.get()] = r->extent;
            list[q] = {ps[q], infer_region(*ps[q], *d, ir::substitute(d->body(), at), inner2)};
            break;
          }
        }
        if (!list[q].first) list[q] = {ps[q], infer_region(*ps[q], st, body, inner)};
      }
      inside[leaves[i].get()] = std::move(list);
    }
    // Every region realized around here is visible inside (a fragment copy reads the shared
    // tile its consumer's loop holds).
    const auto saved_visible = visible_;
    struct Restore {
      std::map<const ir::BufferObj*, const Region*>& v;
      std::map<const ir::BufferObj*, const Region*> saved;
      ~Restore() { v = saved; }
    } restore{visible_, saved_visible};
    for (auto& [leaf, list] : inside) {
      for (auto& [p, r] : list) visible_[p->buffer().get()] = &r;
    }
    body = ToLocal(visible_).mutate(body);

    const ir::Buffer& out = region && region->local ? region->local : st.buffer();
    if (st.tensorize_leaf()) {
      size_t t = 0;
      while (leaves[t] != st.tensorize_leaf()) ++t;
      const auto [update, reset] = tensorized(st, leaves, t, body, out, store_idx);
      return reduction_nest(st, leaves, t, extent, inside, update, reset);
    }
    if (st.reduce_axes().empty()) {
      ir::Stmt s = guarded(all_guards, ir::store(out, store_idx, body));
      for (size_t i = leaves.size(); i-- > 0;) s = nest_at(st, leaves[i], extent, inside, s);
      return s;
    }
    const bool is_max = st.tensor()->reduce_op == ReduceOp::kMax;
    const ir::Expr acc = ir::load(out, store_idx);
    const ir::Stmt update = guarded(
        all_guards, ir::store(out, store_idx,
                              ir::cast(out->dtype, is_max ? ir::max(acc, body) : ir::add(acc, body))));
    const ir::Stmt init = guarded(
        spatial_guards, ir::store(out, store_idx, is_max ? lowest(out->dtype) : ir::imm(0, out->dtype)));
    return reduction_nest(st, leaves, leaves.size(), extent, inside, update, init);
  }

  using Inside = std::map<const IterVarObj*, std::vector<std::pair<const Stage*, Region>>>;

  // The loop of `leaf` around `body`, with the producers computed at that loop (and their
  // region buffers) first.
  ir::Stmt nest_at(const Stage& st, const IterVar& leaf,
                   std::map<const IterVarObj*, int64_t>& extent, Inside& inside, ir::Stmt body) {
    auto it = inside.find(leaf.get());
    if (it != inside.end()) {
      std::vector<ir::Stmt> parts;
      for (auto& [p, r] : it->second) parts.push_back(lower_stage(*p, &r));
      parts.push_back(body);
      body = ir::seq(parts);
      for (auto p = it->second.rbegin(); p != it->second.rend(); ++p) {
        if (p->first->is_double_buffered() &&
            (!p->second.local || p->second.local->scope != ir::Scope::kShared)) {
          throw UserError("stage '" + p->first->name() +
                          "': double_buffer needs a shared-scope stage computed at a loop");
        }
        if (p->second.local) body = ir::allocate(p->second.local, body);
        if (p->first->is_double_buffered()) body = ir::attr(kDoubleBufferAttr, ir::imm(1), body);
      }
    }
    return wrap_loop(st, leaf, extent[leaf.get()], body);
  }

  // The first `n` leaf loops around `update`, with `init` placed just outside the outermost
  // reduction loop, inside the spatial loops that run within the reduction.
  ir::Stmt reduction_nest(const Stage& st, const std::vector<IterVar>& leaves, size_t n,
                          std::map<const IterVarObj*, int64_t>& extent, Inside& inside,
                          ir::Stmt update, ir::Stmt init) {
    size_t first_reduce = n;
    for (size_t i = 0; i < n; ++i) {
      if (leaves[i]->reduce) {
        first_reduce = i;
        break;
      }
    }
    ir::Stmt s = std::move(update);
    for (size_t i = n; i-- > first_reduce;) s = nest_at(st, leaves[i], extent, inside, s);
    for (size_t i = n; i-- > first_reduce + 1;) {
      if (!leaves[i]->reduce) init = wrap_loop(st, leaves[i], extent[leaves[i].get()], init);
    }
    s = ir::seq({init, s});
    for (size_t i = first_reduce; i-- > 0;) s = nest_at(st, leaves[i], extent, inside, s);
    return s;
  }

  // The element (block) index of a tile access: every block dimension (the last two) must be
  // indexed by exactly the given tensorized loop variables, which are then dropped.
  ir::Expr block_index(const Stage& st, const ir::Buffer& b, const std::vector<ir::Expr>& idx,
                       const ir::Var& row, const ir::Var& col) {
    const size_t n = idx.size();
    if (n < 2 || !ir::is_var(idx[n - 2], row) || !ir::is_var(idx[n - 1], col)) {
      throw UserError("stage '" + st.name() + "': tensorized access to '" + b->name +
                      "' must index its two block dimensions with loops '" + row->name + "' and '" +
                      col->name + "'");
    }
    return ir::simplify(ir::flat_index(b, idx, n - 2));
  }

  // The GEMM intrinsic call that replaces the block loops from leaf `t`, and its reset.
  std::pair<ir::Stmt, ir::Stmt> tensorized(const Stage& st, const std::vector<IterVar>& leaves,
                                           size_t t, const ir::Expr& body, const ir::Buffer& out,
                                           const std::vector<ir::Expr>& store_idx) {
    const ir::Var& vb = leaves[t]->var;
    const ir::Var& vo = leaves[t + 1]->var;
    const ir::Var& vc = leaves[t + 2]->var;
    // The body must be a product of an inp-scope and a wgt-scope tile.
    const ir::Load* inp = nullptr;
    const ir::Load* wgt = nullptr;
    class Finder : public ir::Visitor {
     public:
      const ir::Load** inp;
      const ir::Load** wgt;

     protected:
      void visit_Load(const ir::Load& n) override {
        if (n.buffer->scope == ir::Scope::kInp) *inp = &n;
        if (n.buffer->scope == ir::Scope::kWgt) *wgt = &n;
      }
    } finder;
    finder.inp = &inp;
    finder.wgt = &wgt;
    finder.visit(body);
    if (!inp || !wgt) {
      throw UserError("stage '" + st.name() +
                      "': tensorize needs its body to read an inp-scope "
                      "and a wgt-scope tile (cache_read them first)");
    }
    const ir::Expr acc_e = block_index(st, out, store_idx, vb, vo);
    const ir::Expr inp_e = block_index(st, inp->buffer, inp->indices, vb, vc);
    const ir::Expr wgt_e = block_index(st, wgt->buffer, wgt->indices, vo, vc);
    const auto& g = st.intrinsic();
    ir::Stmt update = ir::evaluate(ir::call(ir::DType::kInt32, g.update, {acc_e, inp_e, wgt_e},
                                            {out, inp->buffer, wgt->buffer}));
    ir::Stmt reset = ir::evaluate(ir::call(ir::DType::kInt32, g.reset, {acc_e}, {out}));
    return {update, reset};
  }

  Schedule& s_;
  std::map<std::pair<const Stage*, const IterVarObj*>, std::vector<const Stage*>> attached_;
  std::map<const ir::VarObj*, int64_t> extent_of_;  // every stage's leaf loop extents
  std::map<const ir::VarObj*, int64_t> thread_bound_;  // leaves bound to threadIdx: extents
  std::map<const ir::BufferObj*, const Region*> visible_;  // regions realized around the stage
};

}  // namespace

ir::Stmt lower(Schedule& schedule) { return ir::simplify(Lowerer(schedule).run()); }

}  // namespace weft::compiler::te
