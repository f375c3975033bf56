// Text and JSON dumps of the graph IR.
#include "compiler/graph/dump.h"

#include <sstream>

namespace weft::compiler::graph {

std::string attr_str(const Attr& a) {
  std::ostringstream o;
  if (auto* p = std::get_if<int64_t>(&a)) {
    o << *p;
  } else if (auto* p = std::get_if<double>(&a)) {
    o << *p;
  } else if (auto* p = std::get_if<std::vector<int64_t>>(&a)) {
    o << shape_str(*p);
  } else if (auto* p = std::get_if<std::vector<double>>(&a)) {
    o << "[";
    if (p->size() > 8) {
      o << p->size() << " values";
    } else {
      for (size_t i = 0; i < p->size(); ++i) o << (i ? "," : "") << (*p)[i];
    }
    o << "]";
  } else if (auto* p = std::get_if<std::string>(&a)) {
    o << '"' << *p << '"';
  }
  return o.str();
}

// The attributes and the facts that are set, by name.
static Attrs printed_attrs(const Node& n) {
  Attrs a = n.attrs;
  for (auto& [k, v] : facts_as_attrs(n.facts)) a[k] = std::move(v);
  return a;
}

static nlohmann::json attr_json(const Attr& a) {
  if (auto* p = std::get_if<int64_t>(&a)) return *p;
  if (auto* p = std::get_if<double>(&a)) return *p;
  if (auto* p = std::get_if<std::vector<int64_t>>(&a)) return *p;
  if (auto* p = std::get_if<std::vector<double>>(&a)) return *p;
  return std::get<std::string>(a);
}

static nlohmann::json type_json(const TensorType& t) {
  nlohmann::json j = {{"dtype", dtype_name(t.dtype)},
                      {"shape", t.shape},
                      {"layout", layout_str(t.layout, t.rank())},
                      {"bytes", t.stored_bytes()}};
  if (t.quant.present()) {
    j["quant"] = {{"scale", t.quant.scale}, {"zero_point", t.quant.zero_point},
                  {"axis", t.quant.axis}, {"pow2", t.quant.is_pow2()}};
    if (t.quant.is_pow2()) {
      std::vector<int> e;
      for (size_t i = 0; i < t.quant.scale.size(); ++i) e.push_back(t.quant.exponent(i));
      j["quant"]["exponent"] = e;
    }
  }
  return j;
}

std::string to_text(const Graph& g) {
  std::ostringstream o;
  o << "graph " << g.name() << " {\n";
  for (ValueId v : g.inputs()) o << "  input %" << g.value(v).name << ": " << g.value(v).type.str() << "\n";
  int64_t nconst = 0, const_bytes = 0;
  for (const Value& v : g.values())
    if (!v.dead && v.is_constant()) {
      ++nconst;
      const_bytes += v.type.stored_bytes();
    }
  o << "  # " << nconst << " constants, " << const_bytes << " bytes\n";
  for (NodeId id : g.topo_order()) {
    const Node& n = g.node(id);
    o << "  ";
    for (size_t i = 0; i < n.outputs.size(); ++i) o << (i ? ", " : "") << "%" << g.value(n.outputs[i]).name;
    o << " = " << op_name(n.kind) << "(";
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      o << (i ? ", " : "");
      if (n.inputs[i] == kNone) {
        o << "_";
        continue;
      }
      const Value& v = g.value(n.inputs[i]);
      o << (v.is_constant() ? "$" : "%") << v.name;
    }
    o << ")";
    const Attrs attrs = printed_attrs(n);
    if (!attrs.empty()) {
      o << " {";
      bool first = true;
      for (const auto& [k, a] : attrs) {
        o << (first ? "" : ", ") << k << "=" << attr_str(a);
        first = false;
      }
      o << "}";
    }
    o << " : ";
    for (size_t i = 0; i < n.outputs.size(); ++i) o << (i ? ", " : "") << g.value(n.outputs[i]).type.str();
    o << "\n";
  }
  o << "  output";
  for (ValueId v : g.outputs()) o << " %" << g.value(v).name;
  o << "\n}\n";
  return o.str();
}

nlohmann::json to_json(const Graph& g) {
  nlohmann::json j;
  j["name"] = g.name();
  j["inputs"] = nlohmann::json::array();
  for (ValueId v : g.inputs())
    j["inputs"].push_back({{"name", g.value(v).name}, {"type", type_json(g.value(v).type)}});
  j["constants"] = nlohmann::json::array();
  for (const Value& v : g.values())
    if (!v.dead && v.is_constant())
      j["constants"].push_back({{"name", v.name}, {"type", type_json(v.type)}});
  j["nodes"] = nlohmann::json::array();
  for (NodeId id : g.topo_order()) {
    const Node& n = g.node(id);
    nlohmann::json jn = {{"name", n.name}, {"op", op_name(n.kind)}};
    jn["inputs"] = nlohmann::json::array();
    for (ValueId in : n.inputs) jn["inputs"].push_back(in == kNone ? nlohmann::json() : nlohmann::json(g.value(in).name));
    jn["outputs"] = nlohmann::json::array();
    for (ValueId out : n.outputs)
      jn["outputs"].push_back({{"name", g.value(out).name}, {"type", type_json(g.value(out).type)}});
    jn["attrs"] = nlohmann::json::object();
    for (const auto& [k, a] : printed_attrs(n)) jn["attrs"][k] = attr_json(a);
    j["nodes"].push_back(jn);
  }
  j["outputs"] = nlohmann::json::array();
  for (ValueId v : g.outputs()) j["outputs"].push_back(g.value(v).name);
  return j;
}

}  // namespace weft::compiler::graph
