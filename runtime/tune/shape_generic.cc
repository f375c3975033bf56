// Shape-generic tuning (see shape_generic.h): families, candidate micro-kernels, measuring on
// representative shapes, the per-micro-kernel cost fit with the analytic spatial term, and the
// dispatch table (its JSON and the lookup that `weft run` uses).
#include "runtime/tune/shape_generic.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "compiler/tune/accel_features.h"
#include "compiler/tune/accel_space.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "runtime/io/files.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/thread_runner.h"

namespace weft::rt::tune {

using namespace compiler::tune;
namespace ops = compiler::ops;
using nlohmann::json;

// ---- knobs <-> JSON ----------------------------------------------------------------------

json knobs_to_json(const ops::DenseKnobs& k) {
  return {{"tile_m", k.tile_m}, {"tile_n", k.tile_n}, {"tile_k", k.tile_k},
          {"vthreads", k.vthreads}, {"vthread_axis", std::string(1, k.vthread_axis)}};
}
json knobs_to_json(const ops::Conv2dKnobs& k) {
  return {{"tile_h", k.tile_h}, {"tile_w", k.tile_w}, {"tile_ic", k.tile_ic},
          {"tile_oc", k.tile_oc}, {"vthreads", k.vthreads},
          {"vthread_axis", std::string(1, k.vthread_axis)}};
}

namespace {

int64_t get_int(const json& j, const char* key, const std::string& what) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer())
    throw UserError(what + ": missing or non-integer '" + key + "'");
  return j[key].get<int64_t>();
}
char get_axis(const json& j, const std::string& what) {
  if (!j.is_object() || !j.contains("vthread_axis") || !j["vthread_axis"].is_string() ||
      j["vthread_axis"].get<std::string>().size() != 1)
    throw UserError(what + ": missing or bad 'vthread_axis'");
  return j["vthread_axis"].get<std::string>()[0];
}

}  // namespace

ops::DenseKnobs dense_knobs_from_json(const json& j) {
  ops::DenseKnobs k;
  k.tile_m = get_int(j, "tile_m", "dense micro-kernel");
  k.tile_n = get_int(j, "tile_n", "dense micro-kernel");
  k.tile_k = get_int(j, "tile_k", "dense micro-kernel");
  k.vthreads = get_int(j, "vthreads", "dense micro-kernel");
  k.vthread_axis = get_axis(j, "dense micro-kernel");
  return k;
}
ops::Conv2dKnobs conv2d_knobs_from_json(const json& j) {
  ops::Conv2dKnobs k;
  k.tile_h = get_int(j, "tile_h", "conv2d micro-kernel");
  k.tile_w = get_int(j, "tile_w", "conv2d micro-kernel");
  k.tile_ic = get_int(j, "tile_ic", "conv2d micro-kernel");
  k.tile_oc = get_int(j, "tile_oc", "conv2d micro-kernel");
  k.vthreads = get_int(j, "vthreads", "conv2d micro-kernel");
  k.vthread_axis = get_axis(j, "conv2d micro-kernel");
  return k;
}

// ---- families ----------------------------------------------------------------------------

ShapeFamily ShapeFamily::parse(const std::string& op, const std::string& spec,
                               const ops::DenseShape& dense, const ops::Conv2dShape& conv) {
  ShapeFamily f;
  f.op = op;
  f.dense = dense;
  f.conv = conv;
  const std::string want = op == "dense" ? "M" : op == "conv2d" ? "HW" : "";
  if (want.empty())
    throw UserError("--family: shape families exist for dense (M=LO:HI) and conv2d (HW=LO:HI), "
                    "not '" + op + "'");
  const auto eq = spec.find('=');
  const auto colon = spec.find(':');
  if (eq == std::string::npos || colon == std::string::npos || colon < eq)
    throw UserError("--family '" + spec + "': expected " + want + "=LO:HI, e.g. " +
                    (op == "dense" ? "M=1:256" : "HW=7:224"));
  f.var = spec.substr(0, eq);
  if (f.var != want)
    throw UserError("--family '" + spec + "': " + op + " varies " + want + ", not '" + f.var +
                    "'");
  auto num = [&](const std::string& s, const char* which) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9)
      throw UserError("--family '" + spec + "': " + which + " '" + s +
                      "' is not a positive integer");
    return static_cast<int64_t>(std::stoll(s));
  };
  f.lo = num(spec.substr(eq + 1, colon - eq - 1), "LO");
  f.hi = num(spec.substr(colon + 1), "HI");
  if (f.lo < 1 || f.hi < f.lo)
    throw UserError("--family '" + spec + "': need 1 <= LO <= HI (got " + std::to_string(f.lo) +
                    ":" + std::to_string(f.hi) + ")");
  if (f.hi - f.lo > 4096)
    throw UserError("--family '" + spec + "': at most 4097 members");
  if (op == "conv2d") {
    ops::Conv2dShape s = f.conv_at(f.lo);
    if (s.h + 2 * s.pad < s.k)
      throw UserError("--family '" + spec + "': HW=" + std::to_string(f.lo) +
                      " is smaller than the kernel " + std::to_string(s.k));
    ops::check_conv2d_shape(s);
  }
  return f;
}

ops::DenseShape ShapeFamily::dense_at(int64_t v) const {
  ops::DenseShape s = dense;
  s.m = v;
  return s;
}
ops::Conv2dShape ShapeFamily::conv_at(int64_t v) const {
  ops::Conv2dShape s = conv;
  s.h = s.w = v;
  return s;
}
Workload ShapeFamily::workload_at(int64_t v) const {
  return op == "dense" ? dense_workload(dense_at(v)) : conv2d_workload(conv_at(v));
}

std::optional<int64_t> ShapeFamily::member(const Workload& w) const {
  if (w.op != op) return std::nullopt;
  const json& s = w.shape;
  int64_t v = 0;
  try {
    if (op == "dense") {
      v = s.at("m").get<int64_t>();
    } else {
      v = s.at("h").get<int64_t>();
      if (s.at("w").get<int64_t>() != v) return std::nullopt;
    }
  } catch (const json::exception&) {
    return std::nullopt;
  }
  if (v < lo || v > hi) return std::nullopt;
  if (workload_at(v).key() != w.key()) return std::nullopt;  // the fixed sizes differ
  return v;
}

json ShapeFamily::to_json() const {
  json j = {{"op", op}, {"var", var}, {"lo", lo}, {"hi", hi}};
  j["fixed"] = workload_at(lo).to_json();
  return j;
}

ShapeFamily ShapeFamily::from_json(const json& j) {
  if (!j.is_object() || !j.contains("op") || !j.contains("fixed"))
    throw UserError("dispatch table: 'family' lacks op or fixed");
  ShapeFamily f;
  f.op = j["op"].get<std::string>();
  f.var = j.value("var", "");
  f.lo = get_int(j, "lo", "dispatch table family");
  f.hi = get_int(j, "hi", "dispatch table family");
  Workload w = Workload::from_json(j["fixed"]);
  const json& s = w.shape;
  if (f.op == "dense") {
    f.dense = {1, s.at("n").get<int64_t>(), s.at("k").get<int64_t>()};
  } else if (f.op == "conv2d") {
    f.conv = {s.at("n").get<int64_t>(), 1, 1, s.at("ic").get<int64_t>(),
              s.at("oc").get<int64_t>(), s.at("k").get<int64_t>(),
              s.at("stride").get<int64_t>(), s.at("pad").get<int64_t>()};
  } else {
    throw UserError("dispatch table: family op '" + f.op + "' is not dense or conv2d");
  }
  return f;
}

std::vector<int64_t> ShapeFamily::representatives(int n) const {
  std::set<int64_t> out = {lo, hi};
  if (n <= 1) return {hi};
  for (int i = 1; i + 1 < n; ++i) {
    double t = static_cast<double>(i) / (n - 1);
    out.insert(std::clamp<int64_t>(
        std::llround(std::exp(std::log(double(lo)) * (1 - t) + std::log(double(hi)) * t)), lo,
        hi));
  }
  return {out.begin(), out.end()};
}

// ---- micro-kernels and tables -----------------------------------------------------------

json MicroKernel::to_json() const {
  json m = json::object();
  for (const auto& [v, c] : measured) m[std::to_string(v)] = c;
  return {{"knobs", knobs}, {"fixed", fixed}, {"per_tile", per_tile}, {"measured", m}};
}
MicroKernel MicroKernel::from_json(const json& j) {
  MicroKernel k;
  if (!j.is_object() || !j.contains("knobs")) throw UserError("dispatch table: kernel lacks knobs");
  k.knobs = j["knobs"];
  k.fixed = j.value("fixed", 0.0);
  k.per_tile = j.value("per_tile", 0.0);
  if (j.contains("measured"))
    for (const auto& [v, c] : j["measured"].items()) k.measured[std::stoll(v)] = c.get<double>();
  return k;
}

json DispatchTable::to_json() const {
  json j = {{"format", "weft.dispatch.v1"}, {"family", family.to_json()},
            {"target", target.to_json()}, {"trials", trials}, {"kernels", json::array()},
            {"dispatch", json::array()}};
  for (const auto& k : kernels) j["kernels"].push_back(k.to_json());
  for (const auto& [v, i] : kernel_of)
    j["dispatch"].push_back({{family.var, v}, {"kernel", i}, {"predicted", predicted.at(v)}});
  return j;
}

DispatchTable DispatchTable::from_json(const json& j) {
  if (!j.is_object() || j.value("format", "") != "weft.dispatch.v1")
    throw UserError("not a weft dispatch table (format weft.dispatch.v1)");
  DispatchTable t;
  try {
    t.family = ShapeFamily::from_json(j.at("family"));
    t.target = Target::from_json(j.at("target"));
    t.trials = j.value("trials", int64_t{0});
    for (const auto& k : j.at("kernels")) t.kernels.push_back(MicroKernel::from_json(k));
    for (const auto& e : j.at("dispatch")) {
      int64_t v = e.at(t.family.var).get<int64_t>();
      int i = e.at("kernel").get<int>();
      if (i < 0 || i >= static_cast<int>(t.kernels.size()))
        throw UserError("dispatch entry " + std::to_string(v) + " names kernel " +
                        std::to_string(i) + " of " + std::to_string(t.kernels.size()));
      t.kernel_of[v] = i;
      t.predicted[v] = e.value("predicted", 0.0);
    }
  } catch (const json::exception& e) {
    throw UserError(std::string("dispatch table: ") + e.what());
  }
  return t;
}

void DispatchTable::save(const std::string& path) const {
  write_text_file(path, to_json().dump(1) + "\n");
}

DispatchTable DispatchTable::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(path + ": cannot read the dispatch table");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return from_json(json::parse(ss.str()));
  } catch (const json::parse_error& e) {
    throw UserError(path + ": not JSON (" + e.what() + ")");
  } catch (const UserError& e) {
    throw UserError(path + ": " + e.what());
  }
}

std::string dispatch_path(const std::string& db_path) { return db_path + ".dispatch.json"; }

std::optional<json> dispatch_knobs(const Workload& w, const Target& t,
                                   const std::string& db_path) {
  if (db_path.empty()) return std::nullopt;
  const std::string p = dispatch_path(db_path);
  std::error_code ec;
  if (!std::filesystem::exists(p, ec)) return std::nullopt;
  DispatchTable table = DispatchTable::load(p);
  if (table.target.key() != t.key()) return std::nullopt;
  auto v = table.family.member(w);
  if (!v) return std::nullopt;
  auto it = table.kernel_of.find(*v);
  if (it == table.kernel_of.end()) return std::nullopt;
  return table.kernels[it->second].knobs;
}

// ---- the spatial term -----------------------------------------------------------------------

namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool in_sizes(int64_t t, int64_t n) {
  auto s = tile_sizes(n);
  return std::find(s.begin(), s.end(), t) != s.end();
}

// A member's task and the trace of a micro-kernel there (nothing when it does not fit).
std::optional<Trace> trace_at(const Task& task, const ShapeFamily& f, const json& knobs) {
  try {
    if (f.op == "dense")
      return static_cast<const AccelDenseSpace&>(*task.space).trace_of(dense_knobs_from_json(knobs));
    return static_cast<const AccelConv2dSpace&>(*task.space).trace_of(conv2d_knobs_from_json(knobs));
  } catch (const UserError&) {
    return std::nullopt;
  }
}

json knobs_of_trace(const Task& task, const ShapeFamily& f, const Trace& t) {
  if (f.op == "dense")
    return knobs_to_json(static_cast<const AccelDenseSpace&>(*task.space).knobs_of(t));
  return knobs_to_json(static_cast<const AccelConv2dSpace&>(*task.space).knobs_of(t));
}

Task task_at(const ShapeFamily& f, const std::string& config, const std::string& platform,
             int64_t v) {
  const std::string name = f.op + "[" + f.var + "=" + std::to_string(v) + "]";
  return f.op == "dense" ? make_accel_dense_task(name, config, platform, f.dense_at(v))
                         : make_accel_conv2d_task(name, config, platform, f.conv_at(v));
}

}  // namespace

std::optional<double> spatial_tiles(const ShapeFamily& f, const std::string& config,
                                    const json& knobs, int64_t v) {
  const isa::Layout& l = isa::layout_for(config);
  if (f.op == "dense") {
    const ops::DenseKnobs k = dense_knobs_from_json(knobs);
    const int64_t mb = cdiv(v, l.config.batch());
    if (k.tile_m > mb || !in_sizes(k.tile_m, mb)) return std::nullopt;
    return static_cast<double>(cdiv(mb, k.tile_m));
  }
  const ops::Conv2dKnobs k = conv2d_knobs_from_json(knobs);
  const ops::Conv2dShape s = f.conv_at(v);
  const int64_t oh = s.out_h(), ow = s.out_w();
  if (k.tile_h > oh || k.tile_w > ow || !in_sizes(k.tile_h, oh) || !in_sizes(k.tile_w, ow))
    return std::nullopt;
  return static_cast<double>(cdiv(oh, k.tile_h) * cdiv(ow, k.tile_w));
}

// ---- tuning a family ----------------------------------------------------------------------

DispatchTable tune_family(const ShapeFamily& f, const std::string& config,
                          const std::string& platform, const GenericOptions& opts, Database* db,
                          const GenericProgress& progress) {
  if (opts.trials < 1) throw UserError("--trials must be at least 1");
  const isa::Layout& layout = isa::layout_for(config);
  const isa::Platform& plat = isa::find_platform(platform);
  auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  DispatchTable table;
  table.family = f;
  table.target = accel_target(config, platform);

  const std::vector<int64_t> reps = f.representatives(std::max(1, opts.reps));
  std::map<int64_t, Task> rep_task;
  for (int64_t v : reps) rep_task.emplace(v, task_at(f, config, platform, v));

  // 1. Candidate micro-kernels: the chooser's picks over the family, then random samples.
  std::vector<json> pool;
  std::set<std::string> seen;
  auto add = [&](const json& k) {
    if (seen.insert(k.dump()).second) pool.push_back(k);
  };
  for (int64_t v : f.representatives(8)) {
    Task t = task_at(f, config, platform, v);
    for (const Trace& tr : t.space->seeds()) add(knobs_of_trace(t, f, tr));
  }
  Rng rng(opts.seed);
  for (int tries = 0; static_cast<int>(pool.size()) < opts.pool && tries < opts.pool * 8; ++tries) {
    const Task& t = rep_task.at(reps[rng.uniform(0, static_cast<int64_t>(reps.size()) - 1)]);
    add(knobs_of_trace(t, f, t.space->sample(rng)));
  }

  // Rank without simulating: the program's cycle lower bound at each ranking shape (the
  // representatives and more geometric points) that the candidate fits.
  std::vector<int64_t> rank_at = f.representatives(8);
  for (int64_t v : reps) rank_at.push_back(v);
  std::sort(rank_at.begin(), rank_at.end());
  rank_at.erase(std::unique(rank_at.begin(), rank_at.end()), rank_at.end());
  std::map<int64_t, Task> rank_task;
  for (int64_t v : rank_at) rank_task.emplace(v, task_at(f, config, platform, v));
  struct Ranked {
    json knobs;
    std::map<int64_t, double> bound;     // ranking shape -> lower bound
    std::map<int64_t, Candidate> cand;   // representative -> compiled candidate
  };
  std::vector<Ranked> ranked;
  for (const json& k : pool) {
    Ranked r{k, {}, {}};
    for (int64_t v : rank_at) {
      const Task& t = rank_task.at(v);
      auto tr = trace_at(t, f, k);
      if (!tr) continue;
      Candidate c = t.space->apply(*tr);
      if (!c.ok()) continue;
      r.bound[v] = accel_lower_bound(*c.as<AccelBody>(), layout, plat);
      if (rep_task.count(v)) r.cand.emplace(v, std::move(c));
    }
    if (r.cand.empty()) continue;
    ranked.push_back(std::move(r));
  }
  if (ranked.empty())
    throw UserError("no candidate micro-kernel is valid on the family " + f.op + " " + f.var +
                    "=" + std::to_string(f.lo) + ":" + std::to_string(f.hi) + " on " + config);
  // Round robin over the ranking shapes: each turn takes the unmeasured candidate with the
  // least bound at that shape (ties: the pool's order, the chooser's picks first), so every
  // part of the family gets micro-kernels that fit it.
  std::vector<size_t> order;
  {
    std::vector<bool> taken(ranked.size(), false);
    bool any = true;
    while (any) {
      any = false;
      for (int64_t v : rank_at) {
        size_t best = ranked.size();
        for (size_t i = 0; i < ranked.size(); ++i) {
          if (taken[i] || !ranked[i].bound.count(v)) continue;
          if (best == ranked.size() || ranked[i].bound.at(v) < ranked[best].bound.at(v)) best = i;
        }
        if (best == ranked.size()) continue;
        taken[best] = true;
        order.push_back(best);
        any = true;
      }
    }
  }

  // 2. Measure on the representatives within the budget.
  ThreadRunner runner(std::max(1, opts.workers));
  int64_t spent = 0;
  std::vector<MicroKernel> measured;
  for (size_t oi = 0; oi < order.size() && spent < opts.trials; ++oi) {
    Ranked& r = ranked[order[oi]];
    MicroKernel mk;
    mk.knobs = r.knobs;
    for (auto& [v, c] : r.cand) {
      if (spent >= opts.trials) break;
      const Task& task = rep_task.at(v);
      MeasureResult m = runner.run(task, {c}, std::numeric_limits<double>::infinity())[0];
      ++spent;
      if (db) {
        TuningRecord rec;
        rec.workload = task.workload;
        rec.target = task.target;
        rec.trace = c.trace;
        rec.value = m.value;
        rec.unit = task.measurer->unit();
        rec.error = m.error;
        rec.trial = spent - 1;
        rec.strategy = "shape-generic";
        rec.seed = opts.seed;
        db->add(rec);
      }
      if (m.ok() && !m.stopped_early) mk.measured[v] = m.value;
    }
    if (mk.measured.empty()) continue;
    // 3. cycles = fixed + per_tile * tiles, least squares (one point: proportional).
    std::vector<std::pair<double, double>> pts;
    for (const auto& [v, c] : mk.measured)
      pts.push_back({*spatial_tiles(f, config, mk.knobs, v), c});
    if (pts.size() == 1) {
      mk.fixed = 0;
      mk.per_tile = pts[0].second / pts[0].first;
    } else {
      double sx = 0, sy = 0, sxx = 0, sxy = 0, n = pts.size();
      for (auto [x, y] : pts) sx += x, sy += y, sxx += x * x, sxy += x * y;
      double den = n * sxx - sx * sx;
      if (std::abs(den) < 1e-9) {
        mk.fixed = 0;
        mk.per_tile = sy / sx;
      } else {
        mk.per_tile = (n * sxy - sx * sy) / den;
        mk.fixed = (sy - mk.per_tile * sx) / n;
        if (mk.per_tile < 0 || mk.fixed < 0) {  // keep the model monotone in the tiles
          mk.fixed = 0;
          mk.per_tile = sy / sx;
        }
      }
    }
    say("[" + f.op + " " + f.var + "] " + std::to_string(spent) + "/" +
        std::to_string(opts.trials) + " trials, micro-kernel " + mk.knobs.dump() + ": " +
        std::to_string(mk.fixed) + " + " + std::to_string(mk.per_tile) + " x tiles");
    measured.push_back(std::move(mk));
  }
  table.trials = spent;
  if (measured.empty())
    throw UserError("no micro-kernel of the family could be measured in " +
                    std::to_string(spent) + " trials");
  table.kernels = measured;

  // 4. Dispatch: every member to its predicted best micro-kernel that is valid there.
  for (int64_t v = f.lo; v <= f.hi; ++v) {
    std::vector<std::pair<double, int>> cands;
    for (size_t i = 0; i < measured.size(); ++i) {
      auto tiles = spatial_tiles(f, config, measured[i].knobs, v);
      if (!tiles) continue;
      double pred = measured[i].fixed + measured[i].per_tile * *tiles;
      auto m = measured[i].measured.find(v);
      if (m != measured[i].measured.end()) pred = m->second;  // measured here: exact
      cands.push_back({pred, static_cast<int>(i)});
    }
    std::sort(cands.begin(), cands.end());
    std::optional<Task> task;
    for (auto [pred, i] : cands) {
      // Knob checks (buffers, DMA fields) are cheap; a full compile only for the winner.
      bool ok = false;
      try {
        if (f.op == "dense")
          ops::check_dense_knobs(layout, f.dense_at(v), dense_knobs_from_json(measured[i].knobs));
        else
          ops::check_conv2d_knobs(layout, f.conv_at(v), conv2d_knobs_from_json(measured[i].knobs));
        ok = true;
      } catch (const UserError&) {
      }
      if (!ok) continue;
      table.kernel_of[v] = i;
      table.predicted[v] = pred;
      break;
    }
    if (!table.kernel_of.count(v))
      throw UserError("no measured micro-kernel fits " + f.op + " " + f.var + "=" +
                      std::to_string(v) + "; raise --trials so that small tiles are measured");
  }
  return table;
}

}  // namespace weft::rt::tune
