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

#include "compiler/ir/arith.h"
#include "compiler/tune/accel_features.h"
#include "compiler/tune/accel_space.h"
#include "compiler/tune/cost_model.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/json_text.h"
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
  if (!j.is_object() || !j.contains("format") || j["format"] != "weft.dispatch.v1")
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
    return from_json(isa::parse_json_text(ss.str(), "the dispatch table"));
  } catch (const UserError& e) {
    throw UserError(path + ": " + e.what());
  }
}

std::string dispatch_path(const std::string& db_path) { return db_path + ".dispatch.json"; }

std::optional<Dispatched> dispatch_knobs(const Workload& w, const Target& t,
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
  return Dispatched{table.kernels[it->second].knobs, table.predicted.at(*v)};
}

// ---- the spatial term -----------------------------------------------------------------------

namespace {

using compiler::ir::ceil_div;

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
    if (k.tile_m < 1) return std::nullopt;
    return static_cast<double>(ceil_div(ceil_div(v, l.config.batch()), k.tile_m));
  }
  const ops::Conv2dKnobs k = conv2d_knobs_from_json(knobs);
  const ops::Conv2dShape s = f.conv_at(v);
  if (k.tile_h < 1 || k.tile_w < 1) return std::nullopt;
  return static_cast<double>(ceil_div(s.out_h(), k.tile_h) * ceil_div(s.out_w(), k.tile_w));
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

  // Home shapes: the family's ends and geometric points between. Each home contributes
  // candidate micro-kernels that fit it without padding (the chooser's picks there, then
  // random samples), ranked by the program's cycle lower bound (no simulation).
  const std::vector<int64_t> homes = f.representatives(std::max(1, opts.reps));
  struct Cand {
    json knobs;
    double bound;  // the analytic score (lower = better)
    Candidate cand;
    std::vector<float> x;  // cost-model features
  };
  std::vector<Task> home_task;
  std::vector<std::vector<Cand>> per_home;
  Rng rng(opts.seed);
  const AccelFeatures feats(layout, plat);
  const std::vector<std::string> names = feats.names();
  auto index_of = [&](const std::string& n) {
    return static_cast<size_t>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  const size_t i_bound = index_of("bound_cycles"), i_compute = index_of("compute_cycles"),
               i_memory = index_of("memory_cycles"), i_latency = index_of("load_latency_cycles");
  if (i_latency >= names.size()) throw std::logic_error("accel features lack the roofline terms");
  const int per_home_pool = std::max<int>(8, opts.pool / static_cast<int>(homes.size()));
  for (int64_t v : homes) {
    home_task.push_back(task_at(f, config, platform, v));
    const Task& t = home_task.back();
    // Candidates in three groups, each ranked by score: (1) the whole output in one tile with
    // the largest channel / reduction blockings and 1, 2, 4 threads dealt along the channels
    // (the home's own micro-kernel; elsewhere it pads or repeats; too big for the buffers:
    // left out),
    // (2) the chooser's picks, (3) random samples.
    std::vector<std::vector<Trace>> groups(3);
    {
      // Channel / reduction blockings: the divisors of the blocks down to a quarter of them.
      auto top_divisors = [](int64_t n) {
        std::vector<int64_t> d;
        for (int64_t x = n; x >= 1 && x * 4 >= n; --x)
          if (n % x == 0) d.push_back(x);
        return d;
      };
      const int64_t bi = layout.config.block_in(), bo = layout.config.block_out();
      std::vector<json> ks;
      if (f.op == "dense") {
        for (int64_t tn : top_divisors(ceil_div(f.dense.n, bo)))
          for (int64_t tk : top_divisors(ceil_div(f.dense.k, bi)))
            for (int64_t vt : {1, 2, 4})
              ks.push_back({{"tile_m", ceil_div(v, layout.config.batch())},
                            {"tile_n", tn},
                            {"tile_k", tk},
                            {"vthreads", vt},
                            {"vthread_axis", "n"}});
      } else {
        const ops::Conv2dShape cs = f.conv_at(v);
        for (int64_t ti : top_divisors(ceil_div(cs.ic, bi)))
          for (int64_t to : top_divisors(ceil_div(cs.oc, bo)))
            for (int64_t vt : {1, 2, 4})
              ks.push_back({{"tile_h", cs.out_h()}, {"tile_w", cs.out_w()}, {"tile_ic", ti},
                            {"tile_oc", to}, {"vthreads", vt}, {"vthread_axis", "o"}});
      }
      for (const json& k : ks) {
        try {
          if (f.op == "dense") {
            ops::check_dense_knobs(layout, f.dense_at(v), dense_knobs_from_json(k));
            groups[0].push_back(static_cast<const AccelDenseSpace&>(*t.space)
                                    .trace_of(dense_knobs_from_json(k)));
          } else {
            ops::check_conv2d_knobs(layout, f.conv_at(v), conv2d_knobs_from_json(k));
            groups[0].push_back(static_cast<const AccelConv2dSpace&>(*t.space)
                                    .trace_of(conv2d_knobs_from_json(k)));
          }
        } catch (const UserError&) {  // too big for the buffers at this home
        }
      }
    }
    groups[1] = t.space->seeds();
    for (int i = 0; i < per_home_pool; ++i) groups[2].push_back(t.space->sample(rng));
    std::vector<Cand> cands;
    std::set<std::string> seen;
    for (const auto& traces : groups) {
      std::vector<Cand> group;
      for (const Trace& tr : traces) {
        Candidate c = t.space->apply(tr);
        if (!c.ok()) continue;
        json k = knobs_of_trace(t, f, tr);
        if (!seen.insert(k.dump()).second) continue;
        // The roofline bound ranks first; the non-overlapped part (min of compute and
        // memory, which only perfect overlap hides) and the read latency break its ties.
        const std::vector<float> x = feats.extract(c);
        auto cyc = [&](size_t i) { return std::exp2(static_cast<double>(x[i])) - 1; };
        // One thread serialises loads and compute; more threads overlap most of the smaller.
        const double hidden = k["vthreads"].get<int64_t>() > 1 ? 0.25 : 1.0;
        const double score =
            cyc(i_bound) + hidden * std::min(cyc(i_compute), cyc(i_memory)) + cyc(i_latency);
        group.push_back({k, score, std::move(c), x});
      }
      std::stable_sort(group.begin(), group.end(),
                       [](const Cand& x, const Cand& y) { return x.bound < y.bound; });
      for (auto& c : group) cands.push_back(std::move(c));
    }
    per_home.push_back(std::move(cands));
  }

  // Measure round robin over the homes: each turn the next-ranked candidate of a home, once,
  // at that home, until the budget is spent.
  ThreadRunner runner(std::max(1, opts.workers));
  int64_t spent = 0;
  std::map<std::string, MicroKernel> by_knobs;
  std::vector<std::string> kernel_order;
  std::vector<size_t> next(homes.size(), 0);
  // After each round the XGBoost ranker (when built) is retrained on every measurement so
  // far, grouped by home, and reorders what is left at each home: what it learned at one
  // shape (which blockings and threads win) carries to the others.
  std::unique_ptr<CostModel> model;
  if (xgboost_available()) model = make_xgboost_model(1, opts.seed, 40);
  std::vector<std::vector<float>> mx;
  std::vector<double> mcost;
  std::vector<int> mgroup;
  for (bool any = true; any && spent < opts.trials;) {
    if (model && mx.size() >= 4) {
      model->train(mx, mcost, mgroup);
      for (size_t h = 0; h < homes.size(); ++h) {
        auto first = per_home[h].begin() + static_cast<std::ptrdiff_t>(next[h]);
        if (first == per_home[h].end()) continue;
        std::vector<std::vector<float>> xs;
        for (auto it = first; it != per_home[h].end(); ++it) xs.push_back(it->x);
        const std::vector<double> pred = model->predict(xs);
        std::vector<size_t> idx(xs.size());
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::stable_sort(idx.begin(), idx.end(),
                         [&](size_t a, size_t b) { return pred[a] > pred[b]; });
        std::vector<Cand> rest;
        for (size_t i : idx) rest.push_back(std::move(*(first + static_cast<std::ptrdiff_t>(i))));
        std::move(rest.begin(), rest.end(), first);
      }
    }
    any = false;
    for (size_t h = 0; h < homes.size() && spent < opts.trials; ++h) {
      if (next[h] >= per_home[h].size()) continue;
      any = true;
      const Cand& c = per_home[h][next[h]++];
      const Task& task = home_task[h];
      MeasureResult m = runner.run(task, {c.cand}, std::numeric_limits<double>::infinity())[0];
      ++spent;
      if (db) {
        TuningRecord rec;
        rec.workload = task.workload;
        rec.target = task.target;
        rec.trace = c.cand.trace;
        rec.value = m.value;
        rec.unit = task.measurer->unit();
        rec.error = m.error;
        rec.trial = spent - 1;
        rec.strategy = "shape-generic";
        rec.seed = opts.seed;
        db->add(rec);
      }
      if (!m.ok() || m.stopped_early) continue;
      mx.push_back(c.x);
      mcost.push_back(m.value);
      mgroup.push_back(static_cast<int>(h));
      const std::string key = c.knobs.dump();
      if (!by_knobs.count(key)) {
        by_knobs[key].knobs = c.knobs;
        kernel_order.push_back(key);
      }
      by_knobs[key].measured[homes[h]] = m.value;
      say("[" + f.op + " " + f.var + "] " + std::to_string(spent) + "/" +
          std::to_string(opts.trials) + " trials, " + f.var + "=" + std::to_string(homes[h]) +
          " micro-kernel " + key + ": " + std::to_string(static_cast<int64_t>(m.value)) +
          " cycles");
    }
  }
  // The cost of a micro-kernel anywhere: fixed + per_tile x tiles (least squares over the
  // shapes it was measured on; one shape: proportional).
  std::vector<MicroKernel> measured;
  for (const std::string& key : kernel_order) {
    MicroKernel mk = by_knobs[key];
    std::vector<std::pair<double, double>> pts;
    for (const auto& [v, c] : mk.measured) pts.push_back({*spatial_tiles(f, config, mk.knobs, v), c});
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = static_cast<double>(pts.size());
    for (auto [x, y] : pts) sx += x, sy += y, sxx += x * x, sxy += x * y;
    const double den = n * sxx - sx * sx;
    mk.fixed = 0;
    mk.per_tile = sy / sx;
    if (pts.size() > 1 && std::abs(den) > 1e-9) {
      const double pt = (n * sxy - sx * sy) / den, fx = (sy - pt * sx) / n;
      if (pt >= 0 && fx >= 0) mk.per_tile = pt, mk.fixed = fx;  // keep it monotone
    }
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
