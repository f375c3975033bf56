// The int8-against-fp32 comparison of every value; see quant_error.h.
#include "compiler/graph/quant_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "compiler/graph/interpret.h"
#include "compiler/graph/reference_int8.h"
#include "compiler/ops/int8_rounding.h"

namespace weft::compiler::graph {

namespace {

// cos(a, b); 1 when both are zero, 0 when one is.
double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  if (aa == 0 && bb == 0) return 1.0;
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

// The operator that made `v` in the int8 graph, looking through the Reshape back to rows of a
// dense over rows (quantize.cc writes `name.2d` then `name`).
std::string int8_op(const Graph& g, ValueId v) {
  const Node* p = g.producer(v);
  if (!p) return "input";
  if (p->kind == OpKind::Reshape && g.value(p->inputs[0]).name == g.value(v).name + ".2d")
    return op_name(g.producer(p->inputs[0])->kind);
  return op_name(p->kind);
}

// The fp32 value an int8-graph value stands for: the one of the same name, or for a
// weft.Quantize of an fp32 value (`X.q`), X itself. kNone when there is none.
ValueId counterpart(const Graph& int8, ValueId v, const std::map<std::string, ValueId>& in_fp32) {
  auto it = in_fp32.find(int8.value(v).name);
  if (it != in_fp32.end()) return it->second;
  const Node* p = int8.producer(v);
  if (p && p->kind == OpKind::Quantize) {
    it = in_fp32.find(int8.value(p->inputs[0]).name);
    if (it != in_fp32.end()) return it->second;
  }
  return kNone;
}

}  // namespace

std::vector<ValueError> compare_to_fp32(const Graph& fp32, const Graph& int8,
                                        const std::vector<std::vector<float>>& inputs) {
  std::map<std::string, ValueId> in_fp32;
  for (const Value& v : fp32.values())
    if (!v.dead && !v.is_constant()) in_fp32.emplace(v.name, v.id);
  std::map<ValueId, ValueId> ref_of;  // int8-graph value -> its fp32 counterpart
  std::set<ValueId> wanted;
  for (const Value& v : int8.values()) {
    if (v.dead || v.is_constant()) continue;
    const ValueId r = counterpart(int8, v.id, in_fp32);
    if (r == kNone) continue;
    ref_of[v.id] = r;
    wanted.insert(r);
  }
  std::map<ValueId, std::vector<float>> ref;
  interpret<float>(fp32, inputs, [&](ValueId v, const std::vector<float>& d) {
    if (wanted.count(v)) ref[v] = d;
  });

  // The cosine an int8-graph value arrives with: its own where compared, else the worst of
  // what it was computed from (graph inputs are exact).
  std::map<ValueId, double> cos_of;
  std::function<double(ValueId)> arriving = [&](ValueId v) {
    auto c = cos_of.find(v);
    if (c != cos_of.end()) return c->second;
    const Node* p = int8.producer(v);
    double worst = 1.0;
    if (p)
      for (ValueId in : p->inputs)
        if (in != kNone && !int8.value(in).is_constant()) worst = std::min(worst, arriving(in));
    return cos_of[v] = worst;
  };
  std::vector<ValueError> rows;
  reference_int8(int8, inputs, [&](ValueId v, const std::vector<float>& got) {
    auto rv = ref_of.find(v);
    if (rv == ref_of.end() || !ref.count(rv->second)) return;
    const std::vector<float>& want = ref.at(rv->second);
    const Value& val = int8.value(v);
    const Node* made = fp32.producer(rv->second);
    ValueError r;
    r.value = val.name;
    r.op = made ? op_name(made->kind) : "input";
    r.ran_as = int8_op(int8, v);
    r.int8 = val.type.dtype == DType::I8;
    r.elements = static_cast<int64_t>(want.size());
    r.cosine = cosine(got, want);
    double diff = 0, norm = 0;
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
      diff += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
      norm += double(want[i]) * want[i];
    }
    r.relative_error = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
    if (r.int8) {
      r.exponent = val.type.quant.exponent();
      std::vector<float> grid(want.size());
      int64_t clipped = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        const double q = std::nearbyint(std::ldexp(double(want[i]), -r.exponent));
        clipped += q > 127 || q < -128;
        grid[i] = ops::dequantize(ops::quantize(want[i], r.exponent), r.exponent);
      }
      r.clipped = want.empty() ? 0.0 : double(clipped) / double(want.size());
      r.grid_cosine = cosine(grid, want);
    }
    double worst = 1.0;
    for (ValueId in : int8.producer(v)->inputs)
      if (in != kNone && !int8.value(in).is_constant()) worst = std::min(worst, arriving(in));
    r.drop = worst - r.cosine;
    cos_of[v] = r.cosine;
    rows.push_back(r);
  });
  return rows;
}

nlohmann::ordered_json quant_error_json(const std::vector<ValueError>& rows, size_t worst) {
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  for (const ValueError& r : rows) {
    nlohmann::ordered_json v;
    v["value"] = r.value;
    v["op"] = r.op;
    v["ran_as"] = r.ran_as;
    v["int8"] = r.int8;
    if (r.int8) {
      v["scale_exponent"] = r.exponent;
      v["clipped"] = r.clipped;
      v["grid_cosine"] = r.grid_cosine;
    }
    v["elements"] = r.elements;
    v["cosine"] = r.cosine;
    v["relative_error"] = r.relative_error;
    v["drop"] = r.drop;
    values.push_back(v);
  }
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rows[a].drop > rows[b].drop; });
  nlohmann::ordered_json drops = nlohmann::ordered_json::array();
  for (size_t i = 0; i < order.size() && i < worst; ++i)
    if (rows[order[i]].drop > 0) drops.push_back(rows[order[i]].value);
  return {{"values", values}, {"largest_drops", drops}};
}

std::string quant_error_table(const nlohmann::ordered_json& report) {
  const auto& values = report.at("values");
  size_t wv = 5, wo = 2, wr = 6;
  for (const auto& v : values) {
    wv = std::max(wv, v["value"].get<std::string>().size());
    wo = std::max(wo, v["op"].get<std::string>().size());
    wr = std::max(wr, v["ran_as"].get<std::string>().size() + 5);
  }
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof line, "%4s  %-*s  %-*s  %-*s  %6s  %7s  %8s  %8s  %8s  %8s\n", "#",
                int(wv), "value", int(wo), "op", int(wr), "ran as", "scale", "clipped",
                "grid cos", "cosine", "rel err", "drop");
  out += line;
  int i = 0;
  for (const auto& v : values) {
    const bool q = v["int8"].get<bool>();
    const std::string ran = v["ran_as"].get<std::string>() + (q ? " i8" : " f32");
    const std::string scale = q ? "2^" + std::to_string(v["scale_exponent"].get<int>()) : "-";
    char clip[16] = "-", grid[16] = "-";
    if (q) {
      std::snprintf(clip, sizeof clip, "%.2f%%", 100 * v["clipped"].get<double>());
      std::snprintf(grid, sizeof grid, "%.5f", v["grid_cosine"].get<double>());
    }
    std::snprintf(line, sizeof line, "%4d  %-*s  %-*s  %-*s  %6s  %7s  %8s  %8.5f  %8.4f  %8.5f\n",
                  i++, int(wv), v["value"].get<std::string>().c_str(), int(wo),
                  v["op"].get<std::string>().c_str(), int(wr), ran.c_str(), scale.c_str(), clip,
                  grid, v["cosine"].get<double>(), v["relative_error"].get<double>(),
                  v["drop"].get<double>());
    out += line;
  }
  std::string drops;
  for (const auto& d : report.at("largest_drops"))
    drops += (drops.empty() ? "" : ", ") + d.get<std::string>();
  out += "largest drops: " + (drops.empty() ? std::string("none") : drops) + "\n";
  return out;
}

}  // namespace weft::compiler::graph
