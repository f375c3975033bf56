// Sampling, replaying and validating accelerator dense/conv2d schedules (see accel_space.h).
#include "compiler/tune/accel_space.h"

#include <set>

#include "compiler/ops/tiling.h"
#include "compiler/pipeline.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::tune {

using nlohmann::json;

namespace {

const json kVthreads = json::array({1, 2, 4});

json int_choices(const std::vector<int64_t>& v) {
  json a = json::array();
  for (int64_t x : v) a.push_back(x);
  return a;
}

// Index of `value` among the choices of a step, or -1.
int64_t index_of(const json& choices, const json& value) {
  for (size_t i = 0; i < choices.size(); ++i)
    if (choices[i] == value) return static_cast<int64_t>(i);
  return -1;
}

void add_choice(Trace& t, const std::string& name, const json& choices, const json& value) {
  int64_t i = index_of(choices, value);
  if (i < 0) throw UserError("knobs outside the search space: " + name + " = " + value.dump());
  t.add("choose", name, {{"choices", choices}}, {i});
}

void add_split(Trace& t, const std::string& name, int64_t extent, int64_t inner) {
  if (inner < 1 || extent % inner != 0)
    throw UserError("knobs outside the search space: " + name + " = " + std::to_string(inner) +
                    " does not divide " + std::to_string(extent));
  t.add("split", name, {{"extent", extent}, {"parts", 2}}, {extent / inner, inner});
}

// The trace must have been made for this space: same steps, same arguments.
void check_same_space(const Trace& t, const Trace& reference, const std::string& space) {
  std::string err;
  if (t.steps.size() != reference.steps.size()) {
    err = "it has " + std::to_string(t.steps.size()) + " steps, the space " +
          std::to_string(reference.steps.size());
  } else {
    for (size_t i = 0; i < t.steps.size() && err.empty(); ++i) {
      const Step &a = t.steps[i], &b = reference.steps[i];
      if (a.primitive != b.primitive || a.name != b.name || a.args != b.args)
        err = "step " + std::to_string(i) + " (" + a.name + ") differs from the space's (" +
              b.name + " " + b.args.dump() + ")";
      else if (std::string e = check_step(a); !e.empty())
        err = e;
    }
  }
  if (!err.empty()) throw UserError("trace does not belong to the " + space + " space: " + err);
}

template <class F>
Candidate guarded(const Trace& t, F&& build) {
  Candidate c;
  c.trace = t;
  try {
    c.body = build();
  } catch (const UserError& e) {
    c.error = e.what();
  }
  return c;
}

}  // namespace

std::vector<int64_t> tile_sizes(int64_t n) {
  std::set<int64_t> v;
  for (int64_t t = 1; t <= n; t *= 2) v.insert(t);
  for (int64_t d : divisors(n)) v.insert(d);
  return {v.begin(), v.end()};
}

json AccelBody::describe() const {
  json j = {{"op", op}, {"vthreads", vthreads}, {"ops", program.ops.size()}};
  if (op == "conv2d") {
    j["knobs"] = {{"tile_h", conv_knobs.tile_h}, {"tile_w", conv_knobs.tile_w},
                  {"tile_ic", conv_knobs.tile_ic}, {"tile_oc", conv_knobs.tile_oc},
                  {"vthreads", conv_knobs.vthreads},
                  {"vthread_axis", std::string(1, conv_knobs.vthread_axis)}};
  } else {
    j["knobs"] = {{"tile_m", dense_knobs.tile_m}, {"tile_n", dense_knobs.tile_n},
                  {"tile_k", dense_knobs.tile_k}, {"vthreads", dense_knobs.vthreads},
                  {"vthread_axis", std::string(1, dense_knobs.vthread_axis)}};
  }
  return j;
}

// ---- what both spaces share ----

Trace AccelSpace::sample(Rng& rng) const {
  for (int i = 0; i < kMaxDraws; ++i) {
    Trace t = draw(rng);
    if (why_illegal(t).empty()) return t;
  }
  // Legal points are rare here: pick one of them uniformly (the constructor found one).
  std::vector<Trace> legal;
  Rng structure(0);
  for_each_decision(draw(structure), [&](const Trace& t) {
    if (why_illegal(t).empty()) legal.push_back(t);
    return false;
  });
  if (legal.empty()) throw InternalError(name() + ": a space without a legal point was built");
  return legal[rng.uniform(0, static_cast<int64_t>(legal.size()) - 1)];
}

Trace AccelSpace::mutate(const Trace& t, Rng& rng) const {
  for (int i = 0; i < kMaxDraws; ++i) {
    Trace m = mutate_trace(t, rng);
    if (m.key() != t.key() && why_illegal(m).empty()) return m;
  }
  return sample(rng);
}

void AccelSpace::check_belongs(const Trace& t) const {
  Rng rng(0);
  check_same_space(t, draw(rng), name());
}

std::string AccelSpace::check_trace(const Trace& t) const {
  try {
    check_belongs(t);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

void AccelSpace::require_legal_point(const std::string& what, const Trace& smallest) const {
  const std::string reason = why_illegal(smallest);
  if (reason.empty()) return;
  Rng structure(0);
  if (for_each_decision(draw(structure), [&](const Trace& t) { return why_illegal(t).empty(); }))
    return;
  throw UserError(what + ": no valid schedule: no point of the " + name() +
                  " search space passes the compiler's checks; even the smallest is refused: " +
                  reason);
}

// ---- conv2d ----

AccelConv2dSpace::AccelConv2dSpace(const isa::Layout& l, const isa::Platform& p,
                                   const ops::Conv2dShape& s, const ops::Conv2dEpilogue& e,
                                   AccelPostProcess post)
    : AccelSpace(l, p, std::move(post)), shape_(s), epilogue_(e) {
  ops::check_conv2d_shape(s);
  icb_ = ops::ceil_div(s.ic, l.config.block_in());
  ocb_ = ops::ceil_div(s.oc, l.config.block_out());
  require_legal_point("conv2d " + s.describe() + " on " + l.config.name,
                      trace_of({1, 1, 1, 1, 1, 'o'}));
}

Trace AccelConv2dSpace::draw(Rng& rng) const {
  Trace t;
  t.choose(rng, "tile_h", int_choices(tile_sizes(shape_.out_h())));
  t.choose(rng, "tile_w", int_choices(tile_sizes(shape_.out_w())));
  t.split(rng, "tile_ic", icb_, 2);
  t.split(rng, "tile_oc", ocb_, 2);
  t.choose(rng, "vthreads", kVthreads);
  t.choose(rng, "vthread_axis", json::array({"o", "h"}));
  return t;
}

Trace AccelConv2dSpace::trace_of(const ops::Conv2dKnobs& k) const {
  Trace t;
  add_choice(t, "tile_h", int_choices(tile_sizes(shape_.out_h())), k.tile_h);
  add_choice(t, "tile_w", int_choices(tile_sizes(shape_.out_w())), k.tile_w);
  add_split(t, "tile_ic", icb_, k.tile_ic);
  add_split(t, "tile_oc", ocb_, k.tile_oc);
  add_choice(t, "vthreads", kVthreads, k.vthreads);
  add_choice(t, "vthread_axis", json::array({"o", "h"}), std::string(1, k.vthread_axis));
  return t;
}

ops::Conv2dKnobs AccelConv2dSpace::knobs_of(const Trace& t) const {
  check_belongs(t);
  return decided(t);
}

std::string AccelConv2dSpace::why_illegal(const Trace& t) const {
  return ops::conv2d_knobs_error(*layout_, shape_, decided(t), epilogue_.residual,
                                 epilogue_.channel_shifts);
}

ops::Conv2dKnobs AccelConv2dSpace::decided(const Trace& t) const {
  ops::Conv2dKnobs k;
  k.tile_h = t.chosen_int("tile_h");
  k.tile_w = t.chosen_int("tile_w");
  k.tile_ic = t.factors("tile_ic")[1];
  k.tile_oc = t.factors("tile_oc")[1];
  k.vthreads = t.chosen_int("vthreads");
  k.vthread_axis = t.chosen_str("vthread_axis")[0];
  return k;
}

Candidate AccelConv2dSpace::apply(const Trace& t) const {
  return guarded(t, [&]() -> std::shared_ptr<const CandidateBody> {
    const ops::Conv2dKnobs k = knobs_of(t);
    auto body = std::make_shared<AccelBody>();
    body->op = "conv2d";
    body->conv_shape = shape_;
    body->conv_knobs = k;
    body->vthreads = k.vthreads;
    body->macs = shape_.macs();
    if (builder_) {
      builder_(*body);
      return body;
    }
    ops::Conv2d op = ops::make_conv2d(*layout_, shape_, k, epilogue_);
    body->program = compile_accel(*op.schedule, *layout_);
    if (post_) {
      std::string err = post_(body->program);
      if (!err.empty()) throw UserError(err);
    }
    return body;
  });
}

std::vector<Trace> AccelConv2dSpace::seeds() const {
  std::vector<Trace> out;
  for (int64_t vt : {2, 1, 4}) {
    std::vector<ops::Conv2dKnobs> ks;
    try {
      ks = ops::conv2d_candidates(*layout_, *platform_, shape_, vt, 4);
    } catch (const UserError&) {
      continue;
    }
    for (const auto& k : ks) {
      try {
        out.push_back(trace_of(k));
      } catch (const UserError&) {
      }
    }
  }
  return out;
}

double AccelConv2dSpace::weight() const {
  const auto& c = layout_->config;
  return double(ops::ceil_div(shape_.n, c.batch())) * double(icb_) * double(ocb_) *
         double(shape_.out_h() * shape_.out_w() * shape_.k * shape_.k);
}

// ---- dense ----

AccelDenseSpace::AccelDenseSpace(const isa::Layout& l, const isa::Platform& p,
                                 const ops::DenseShape& s, const ops::DenseEpilogue& e,
                                 AccelPostProcess post)
    : AccelSpace(l, p, std::move(post)), shape_(s), epilogue_(e) {
  if (s.m < 1 || s.n < 1 || s.k < 1)
    throw UserError("dense: M, N and K must be at least 1");
  mb_ = ops::ceil_div(s.m, l.config.batch());
  nb_ = ops::ceil_div(s.n, l.config.block_out());
  kb_ = ops::ceil_div(s.k, l.config.block_in());
  require_legal_point("dense M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) +
                          " K=" + std::to_string(s.k) + " on " + l.config.name,
                      trace_of({1, 1, 1, 1, 'm'}));
}

Trace AccelDenseSpace::draw(Rng& rng) const {
  Trace t;
  t.choose(rng, "tile_m", int_choices(tile_sizes(mb_)));
  t.choose(rng, "tile_n", int_choices(tile_sizes(nb_)));
  t.split(rng, "tile_k", kb_, 2);
  t.choose(rng, "vthreads", kVthreads);
  t.choose(rng, "vthread_axis", json::array({"m", "n"}));
  return t;
}

Trace AccelDenseSpace::trace_of(const ops::DenseKnobs& k) const {
  Trace t;
  add_choice(t, "tile_m", int_choices(tile_sizes(mb_)), k.tile_m);
  add_choice(t, "tile_n", int_choices(tile_sizes(nb_)), k.tile_n);
  add_split(t, "tile_k", kb_, k.tile_k);
  add_choice(t, "vthreads", kVthreads, k.vthreads);
  add_choice(t, "vthread_axis", json::array({"m", "n"}), std::string(1, k.vthread_axis));
  return t;
}

ops::DenseKnobs AccelDenseSpace::knobs_of(const Trace& t) const {
  check_belongs(t);
  return decided(t);
}

std::string AccelDenseSpace::why_illegal(const Trace& t) const {
  return ops::dense_knobs_error(*layout_, shape_, decided(t), epilogue_.channel_shifts);
}

ops::DenseKnobs AccelDenseSpace::decided(const Trace& t) const {
  ops::DenseKnobs k;
  k.tile_m = t.chosen_int("tile_m");
  k.tile_n = t.chosen_int("tile_n");
  k.tile_k = t.factors("tile_k")[1];
  k.vthreads = t.chosen_int("vthreads");
  k.vthread_axis = t.chosen_str("vthread_axis")[0];
  return k;
}

Candidate AccelDenseSpace::apply(const Trace& t) const {
  return guarded(t, [&]() -> std::shared_ptr<const CandidateBody> {
    const ops::DenseKnobs k = knobs_of(t);
    auto body = std::make_shared<AccelBody>();
    body->op = "dense";
    body->dense_shape = shape_;
    body->dense_knobs = k;
    body->vthreads = k.vthreads;
    body->macs = shape_.m * shape_.n * shape_.k;
    if (builder_) {
      builder_(*body);
      return body;
    }
    ops::Dense op = ops::make_dense(*layout_, shape_, k, epilogue_);
    body->program = compile_accel(*op.schedule, *layout_);
    if (post_) {
      std::string err = post_(body->program);
      if (!err.empty()) throw UserError(err);
    }
    return body;
  });
}

std::vector<Trace> AccelDenseSpace::seeds() const {
  std::vector<Trace> out;
  for (int64_t vt : {2, 1, 4}) {
    try {
      out.push_back(trace_of(ops::choose_dense_knobs(*layout_, *platform_, shape_, vt)));
    } catch (const UserError&) {
    }
  }
  return out;
}

double AccelDenseSpace::weight() const { return double(mb_) * double(nb_) * double(kb_); }

}  // namespace weft::compiler::tune
