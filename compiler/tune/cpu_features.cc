// The CPU loop-nest features: one walk over the lowered function with the product of the
// enclosing trip counts (a vectorized loop counts once: its body is one vector operation).
#include "compiler/tune/cpu_features.h"

#include <algorithm>
#include <cmath>

#include "compiler/ir/visitor.h"
#include "compiler/tune/cpu_space.h"

namespace weft::compiler::tune {

namespace {

namespace ir = compiler::ir;

// The knobs in feature order (dense and conv2d knobs share the slots they have in common).
const std::vector<std::string> kKnobs = {"rows",     "cols",           "lanes",
                                         "k_unroll", "pack_a",         "row_block_tiles",
                                         "parallel_axis", "ow",        "oc_blocks",
                                         "reduce_order",  "ci_unroll", "rows_outer",
                                         "pack_w",        "k_block"};

class Walk : public ir::Visitor {
 public:
  double trips = 1, stores = 0, global_loads = 0, local_loads = 0, vector_ops = 0,
         scalar_ops = 0, loops = 0, parallel = 0, unrolled_stmts = 0, local_bytes = 0,
         max_lanes = 1, innermost_loads = 0;
  bool in_vector = false;
  int unroll_depth = 0;

 protected:
  void visit_For(const ir::For& n) override {
    ++loops;
    int64_t ext = 1;
    if (n.extent->kind == ir::NodeKind::kIntImm)
      ext = static_cast<const ir::IntImm&>(*n.extent).value;
    if (n.kind == ir::ForKind::kParallel) ++parallel;
    const double saved = trips;
    const bool saved_vec = in_vector;
    if (n.kind == ir::ForKind::kVectorized) {
      in_vector = true;
      max_lanes = std::max(max_lanes, static_cast<double>(ext));
    } else {
      trips *= static_cast<double>(ext);
    }
    if (n.kind == ir::ForKind::kUnrolled) ++unroll_depth;
    ir::Visitor::visit_For(n);
    if (n.kind == ir::ForKind::kUnrolled) --unroll_depth;
    trips = saved;
    in_vector = saved_vec;
  }
  void visit_Store(const ir::Store& n) override {
    stores += trips;
    (in_vector ? vector_ops : scalar_ops) += trips;
    if (unroll_depth > 0) unrolled_stmts += 1;
    ir::Visitor::visit_Store(n);
  }
  void visit_Load(const ir::Load& n) override {
    (n.buffer->scope == ir::Scope::kLocal ? local_loads : global_loads) += trips;
    ir::Visitor::visit_Load(n);
  }
  void visit_Allocate(const ir::Allocate& n) override {
    if (n.buffer->scope == ir::Scope::kLocal)
      local_bytes += static_cast<double>(n.buffer->elements()) * 4.0;
    ir::Visitor::visit_Allocate(n);
  }
};

float lg(double v) { return static_cast<float>(std::log2(1.0 + v)); }

}  // namespace

std::vector<std::string> CpuLoopFeatures::names() const {
  std::vector<std::string> n = {"log_stores",       "log_global_loads", "log_local_loads",
                                "log_vector_ops",   "log_scalar_ops",   "loops",
                                "parallel_loops",   "unrolled_stmts",   "log_local_bytes",
                                "max_lanes",        "log_ops",          "ops_per_global_load"};
  for (const std::string& k : kKnobs) n.push_back("knob_" + k);
  return n;
}

std::vector<float> CpuLoopFeatures::extract(const Candidate& c) const {
  std::vector<float> f(names().size(), 0.0f);
  const CpuCandidate* cc = c.ok() ? c.as<CpuCandidate>() : nullptr;
  if (!cc || !cc->func.body) return f;
  Walk w;
  w.visit(cc->func.body);
  size_t i = 0;
  f[i++] = lg(w.stores);
  f[i++] = lg(w.global_loads);
  f[i++] = lg(w.local_loads);
  f[i++] = lg(w.vector_ops);
  f[i++] = lg(w.scalar_ops);
  f[i++] = static_cast<float>(w.loops);
  f[i++] = static_cast<float>(w.parallel);
  f[i++] = static_cast<float>(w.unrolled_stmts);
  f[i++] = lg(w.local_bytes);
  f[i++] = static_cast<float>(w.max_lanes);
  f[i++] = lg(cc->ops);
  f[i++] = static_cast<float>(cc->ops / std::max(1.0, w.global_loads));
  for (const std::string& k : kKnobs) {
    f[i++] = cc->knobs.contains(k) && cc->knobs[k].is_number()
                 ? static_cast<float>(cc->knobs[k].get<double>())
                 : -1.0f;
  }
  return f;
}

}  // namespace weft::compiler::tune
