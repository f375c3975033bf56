// Traces: sampling the two kinds of decision, replay lookups, JSON and generic mutation.
#include "compiler/tune/trace.h"

#include <sstream>

#include "hardware/isa/errors.h"

namespace weft::compiler::tune {

using nlohmann::json;

bool Step::operator==(const Step& o) const {
  return primitive == o.primitive && name == o.name && args == o.args && decision == o.decision;
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

namespace {

// A random perfect split of `extent` into `parts` factors, innermost at most max_inner.
std::vector<int64_t> sample_split(Rng& rng, int64_t extent, int parts, int64_t max_inner) {
  std::vector<int64_t> f(parts, 1);
  int64_t rest = extent;
  // Innermost first (it has the bound), then the middle ones, the outermost takes the rest.
  for (int p = parts - 1; p >= 1; --p) {
    std::vector<int64_t> ds;
    for (int64_t d : divisors(rest))
      if (p != parts - 1 || max_inner <= 0 || d <= max_inner) ds.push_back(d);
    f[p] = ds[rng.uniform(0, static_cast<int64_t>(ds.size()) - 1)];
    rest /= f[p];
  }
  f[0] = rest;
  return f;
}

}  // namespace

std::vector<int64_t> Trace::split(Rng& rng, const std::string& name, int64_t extent, int parts,
                                  int64_t max_inner) {
  if (extent < 1 || parts < 1) throw InternalError("Trace::split: bad extent or parts");
  json args = {{"extent", extent}, {"parts", parts}};
  if (max_inner > 0) args["max_inner"] = max_inner;
  auto f = sample_split(rng, extent, parts, max_inner);
  steps.push_back({"split", name, args, f});
  return f;
}

size_t Trace::choose(Rng& rng, const std::string& name, const json& choices,
                     const std::vector<double>& weights) {
  if (!choices.is_array() || choices.empty())
    throw InternalError("Trace::choose: no choices for " + name);
  size_t i = weights.empty() ? static_cast<size_t>(rng.uniform(0, choices.size() - 1))
                             : rng.weighted(weights);
  steps.push_back({"choose", name, {{"choices", choices}}, {static_cast<int64_t>(i)}});
  return i;
}

void Trace::add(const std::string& primitive, const std::string& name, json args,
                std::vector<int64_t> decision) {
  steps.push_back({primitive, name, std::move(args), std::move(decision)});
}

const Step* Trace::find(const std::string& name) const {
  for (const Step& s : steps)
    if (s.name == name) return &s;
  return nullptr;
}

const std::vector<int64_t>& Trace::factors(const std::string& name) const {
  const Step* s = find(name);
  if (!s || s->primitive != "split")
    throw UserError("trace: no split decision named '" + name + "'");
  return s->decision;
}

const json& Trace::chosen(const std::string& name) const {
  const Step* s = find(name);
  if (!s || s->primitive != "choose")
    throw UserError("trace: no choice named '" + name + "'");
  return s->args.at("choices").at(s->decision.at(0));
}

int64_t Trace::chosen_int(const std::string& name) const {
  const json& v = chosen(name);
  if (!v.is_number_integer()) throw UserError("trace: choice '" + name + "' is not an integer");
  return v.get<int64_t>();
}

std::string Trace::chosen_str(const std::string& name) const {
  const json& v = chosen(name);
  if (!v.is_string()) throw UserError("trace: choice '" + name + "' is not a string");
  return v.get<std::string>();
}

std::string Trace::key() const {
  std::ostringstream os;
  for (const Step& s : steps) {
    if (s.decision.empty()) continue;
    if (os.tellp() > 0) os << ' ';
    os << s.name << '=';
    if (s.primitive == "choose") {
      os << s.args["choices"][s.decision[0]].dump();
    } else {
      for (size_t i = 0; i < s.decision.size(); ++i) os << (i ? "x" : "") << s.decision[i];
    }
  }
  return os.str();
}

json Trace::to_json() const {
  json a = json::array();
  for (const Step& s : steps)
    a.push_back({{"primitive", s.primitive}, {"name", s.name}, {"args", s.args},
                 {"decision", s.decision}});
  return {{"steps", a}};
}

std::string check_step(const Step& s) {
  if (s.primitive == "split") {
    if (!s.args.contains("extent") || !s.args["extent"].is_number_integer() ||
        !s.args.contains("parts") || !s.args["parts"].is_number_integer())
      return "split '" + s.name + "' needs integer args extent and parts";
    int64_t extent = s.args["extent"], parts = s.args["parts"];
    if (extent < 1 || parts < 1)
      return "split '" + s.name + "' needs extent and parts of at least 1";
    if (static_cast<int64_t>(s.decision.size()) != parts)
      return "split '" + s.name + "' has " + std::to_string(s.decision.size()) +
             " factors, expected " + std::to_string(parts);
    int64_t p = 1;
    for (int64_t f : s.decision) {
      if (f < 1) return "split '" + s.name + "' has a factor below 1";
      if (f > extent / p)  // also keeps the product from overflowing
        return "split '" + s.name + "' factors multiply past its extent " +
               std::to_string(extent);
      p *= f;
    }
    if (p != extent)
      return "split '" + s.name + "' factors multiply to " + std::to_string(p) +
             ", not its extent " + std::to_string(extent);
    if (s.args.contains("max_inner") && !s.args["max_inner"].is_number_integer())
      return "split '" + s.name + "' max_inner is not an integer";
    if (s.args.contains("max_inner") && s.decision.back() > s.args["max_inner"].get<int64_t>())
      return "split '" + s.name + "' innermost factor exceeds max_inner";
  } else if (s.primitive == "choose") {
    if (!s.args.contains("choices") || !s.args["choices"].is_array())
      return "choose '" + s.name + "' needs args.choices (an array)";
    if (s.decision.size() != 1 || s.decision[0] < 0 ||
        s.decision[0] >= static_cast<int64_t>(s.args["choices"].size()))
      return "choose '" + s.name + "' index out of range";
  }
  return "";
}

Trace Trace::from_json(const json& j) {
  if (!j.is_object() || !j.contains("steps") || !j["steps"].is_array())
    throw UserError("trace: expected an object with a 'steps' array");
  Trace t;
  size_t i = 0;
  for (const json& s : j["steps"]) {
    std::string where = "trace step " + std::to_string(i++);
    if (!s.is_object() || !s.contains("primitive") || !s["primitive"].is_string() ||
        !s.contains("name") || !s["name"].is_string())
      throw UserError(where + ": needs string fields 'primitive' and 'name'");
    Step st;
    st.primitive = s["primitive"];
    st.name = s["name"];
    if (s.contains("args")) st.args = s["args"];
    if (s.contains("decision")) {
      if (!s["decision"].is_array()) throw UserError(where + ": 'decision' must be an array");
      for (const json& d : s["decision"]) {
        if (!d.is_number_integer()) throw UserError(where + ": decisions are integers");
        st.decision.push_back(d.get<int64_t>());
      }
    }
    std::string err = check_step(st);
    if (!err.empty()) throw UserError(where + ": " + err);
    t.steps.push_back(std::move(st));
  }
  return t;
}

namespace {

// Every split of `extent` into `parts` factors (outermost first), innermost at most max_inner.
void splits_of(int64_t extent, int64_t parts, int64_t max_inner, std::vector<int64_t>& prefix,
               std::vector<std::vector<int64_t>>& out) {
  if (parts == 1) {
    if (max_inner > 0 && extent > max_inner) return;
    prefix.push_back(extent);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int64_t d : divisors(extent)) {
    prefix.push_back(d);
    splits_of(extent / d, parts - 1, max_inner, prefix, out);
    prefix.pop_back();
  }
}

bool visit_from(Trace& t, size_t i, const std::function<bool(const Trace&)>& visit) {
  if (i == t.steps.size()) return visit(t);
  Step& s = t.steps[i];
  std::vector<std::vector<int64_t>> decisions;
  if (s.primitive == "choose") {
    for (size_t c = 0; c < s.args["choices"].size(); ++c)
      decisions.push_back({static_cast<int64_t>(c)});
  } else if (s.primitive == "split") {
    std::vector<int64_t> prefix;
    splits_of(s.args["extent"].get<int64_t>(), s.args["parts"].get<int64_t>(),
              s.args.value("max_inner", int64_t{0}), prefix, decisions);
  } else {
    return visit_from(t, i + 1, visit);  // a fixed step
  }
  const std::vector<int64_t> kept = s.decision;
  for (auto& d : decisions) {
    t.steps[i].decision = std::move(d);
    if (visit_from(t, i + 1, visit)) return true;
  }
  t.steps[i].decision = kept;
  return false;
}

}  // namespace

bool for_each_decision(const Trace& t, const std::function<bool(const Trace&)>& visit) {
  Trace work = t;
  return visit_from(work, 0, visit);
}

Trace mutate_trace(const Trace& t, Rng& rng) {
  std::vector<size_t> mutable_steps;
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const Step& s = t.steps[i];
    if (s.primitive == "choose" && s.args["choices"].size() > 1) mutable_steps.push_back(i);
    if (s.primitive == "split" && s.decision.size() > 1 && s.args["extent"].get<int64_t>() > 1)
      mutable_steps.push_back(i);
  }
  if (mutable_steps.empty()) return t;
  Trace out = t;
  Step& s = out.steps[mutable_steps[rng.uniform(0, mutable_steps.size() - 1)]];
  if (s.primitive == "choose") {
    int64_t n = s.args["choices"].size();
    int64_t j = rng.uniform(0, n - 2);
    s.decision[0] = j >= s.decision[0] ? j + 1 : j;
    return out;
  }
  // Re-split the product of two factors between them (MetaSchedule's tile mutation).
  int64_t parts = s.decision.size();
  int64_t max_inner = s.args.contains("max_inner") ? s.args["max_inner"].get<int64_t>() : 0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    int64_t a = rng.uniform(0, parts - 1), b = rng.uniform(0, parts - 2);
    if (b >= a) ++b;
    int64_t prod = s.decision[a] * s.decision[b];
    auto ds = divisors(prod);
    int64_t fa = ds[rng.uniform(0, ds.size() - 1)];
    int64_t fb = prod / fa;
    if (fa == s.decision[a]) continue;
    if (max_inner > 0 && ((a == parts - 1 && fa > max_inner) || (b == parts - 1 && fb > max_inner)))
      continue;
    s.decision[a] = fa;
    s.decision[b] = fb;
    return out;
  }
  return out;
}

}  // namespace weft::compiler::tune
