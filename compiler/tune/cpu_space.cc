// The CPU search spaces: the decisions and their choices, sampling, replay into knobs, the
// register-count check, and applying a trace through the injected builder.
#include "compiler/tune/cpu_space.h"

#include <algorithm>

#include "hardware/isa/errors.h"

namespace weft::compiler::tune {

using nlohmann::json;

namespace {

int64_t shape_int(const Workload& w, const char* name) {
  if (!w.shape.contains(name) || !w.shape[name].is_number_integer())
    throw UserError("llvm." + w.op + " space: workload " + w.key() + " has no integer '" + name +
                    "'");
  return w.shape[name].get<int64_t>();
}

}  // namespace

CpuSpace::CpuSpace(std::string op, Workload w, CpuSpaceHost host, CpuBuilder build,
                   std::vector<CpuKnobs> seeds)
    : op_(std::move(op)),
      workload_(std::move(w)),
      host_(host),
      build_(std::move(build)),
      seeds_(std::move(seeds)) {
  const int64_t vl = host_.lanes32;
  if (op_ == "dense") {
    std::vector<int64_t> cols;
    for (int64_t f = 1; f <= 4; ++f)
      if (vl * f <= 64) cols.push_back(vl * f);
    decisions_ = {{"rows", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16}},
                  {"cols", cols},
                  {"lanes", {0, 8, 16}},
                  {"k_unroll", {1, 2, 4, 8}},
                  {"pack_a", {0, 1}},
                  {"row_block_tiles", {0, 4, 8, 16, 32}},
                  {"parallel_axis", {0, 1}},
                  {"pack_w", {0, 1, 2, 3}},
                  {"k_block", {0, 64, 128, 256, 512}}};
    if (workload_.shape.value("dtype", std::string("float32")) == "int8")
      decisions_.push_back({"k_pack", {2, 4}});
  } else if (op_ == "conv2d") {
    decisions_ = {{"ow", {2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16}},
                  {"oc_blocks", {1, 2, 4}},
                  {"reduce_order", {0, 1}},
                  {"ci_unroll", {1, 2, 4, 8, 16}},
                  {"rows_outer", {0, 1}}};
  } else {
    throw UserError("llvm space: no CPU search space for '" + op_ + "' (dense or conv2d)");
  }
}

Trace CpuSpace::sample(Rng& rng) const {
  Trace t;
  for (const auto& [name, choices] : decisions_) t.choose(rng, name, json(choices));
  return t;
}

Trace CpuSpace::trace_of(const CpuKnobs& knobs) const {
  Trace t;
  for (const auto& [name, choices] : decisions_) {
    if (!knobs.contains(name) || !knobs[name].is_number_integer())
      throw UserError("llvm." + op_ + " space: knob '" + name + "' is missing");
    const int64_t v = knobs[name].get<int64_t>();
    auto it = std::find(choices.begin(), choices.end(), v);
    if (it == choices.end())
      throw UserError("llvm." + op_ + " space: " + name + " = " + std::to_string(v) +
                      " is not one of its choices");
    t.add("choose", name, {{"choices", choices}}, {static_cast<int64_t>(it - choices.begin())});
  }
  return t;
}

CpuKnobs CpuSpace::knobs_of(const Trace& t) const {
  CpuKnobs k = json::object();
  for (const auto& [name, choices] : decisions_) k[name] = t.chosen_int(name);
  return k;
}

std::string CpuSpace::check_registers(const CpuKnobs& k) const {
  const int64_t vl = host_.lanes32;
  int64_t acc = 0, loads = 0;
  std::string tile;
  if (op_ == "dense") {
    const int64_t per_row = (k["cols"].get<int64_t>() + vl - 1) / vl;
    acc = k["rows"].get<int64_t>() * per_row;
    loads = per_row + 1;
    tile = std::to_string(k["rows"].get<int64_t>()) + "x" + std::to_string(k["cols"].get<int64_t>());
  } else {
    const int64_t per_col = k["oc_blocks"].get<int64_t>() * ((16 + vl - 1) / vl);
    acc = k["ow"].get<int64_t>() * per_col;
    loads = per_col + 1;
    tile = std::to_string(k["ow"].get<int64_t>()) + " columns x " +
           std::to_string(k["oc_blocks"].get<int64_t>() * 16) + " channels";
  }
  if (acc + loads > host_.registers)
    return "register tile " + tile + " needs " + std::to_string(acc) + " accumulators + " +
           std::to_string(loads) + " operand registers; the host has " +
           std::to_string(host_.registers) + " vector registers";
  return "";
}

Candidate CpuSpace::apply(const Trace& t) const {
  Candidate c;
  c.trace = t;
  try {
    CpuKnobs k = knobs_of(t);
    c.error = check_registers(k);
    if (c.error.empty()) c.body = build_(k);
    if (c.error.empty() && !c.body) c.error = "llvm." + op_ + ": the builder made no operator";
  } catch (const UserError& e) {
    c.error = e.what();
    c.body.reset();
  }
  return c;
}

std::vector<Trace> CpuSpace::seeds() const {
  std::vector<Trace> out;
  for (const CpuKnobs& k : seeds_) {
    try {
      out.push_back(trace_of(k));
    } catch (const UserError&) {
      // A seed outside this host's space (e.g. an AVX-512 tile on AVX2) is skipped.
    }
  }
  return out;
}

double CpuSpace::weight() const {
  if (op_ == "dense") {
    return 2.0 * static_cast<double>(shape_int(workload_, "m")) *
           static_cast<double>(shape_int(workload_, "n")) *
           static_cast<double>(shape_int(workload_, "k"));
  }
  const int64_t h = shape_int(workload_, "h"), w = shape_int(workload_, "w");
  const int64_t k = shape_int(workload_, "k"), s = shape_int(workload_, "stride");
  const int64_t p = shape_int(workload_, "pad");
  const int64_t oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
  return 2.0 * static_cast<double>(shape_int(workload_, "n") * shape_int(workload_, "oc") * oh *
                                   ow) *
         static_cast<double>(shape_int(workload_, "ic") * k * k);
}

}  // namespace weft::compiler::tune
