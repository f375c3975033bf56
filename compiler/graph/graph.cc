// The graph container: building, access, topological order and the small rewriting helpers
// every pass uses.
#include "compiler/graph/graph.h"

#include <cstring>
#include <queue>
#include <set>
#include <sstream>

#include "compiler/graph/infer.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

namespace {
struct OpInfo {
  const char* name;
  int lo, hi;
};
const OpInfo kOps[] = {
#define WEFT_GRAPH_OP(e, name, lo, hi, doc) {name, lo, hi},
#include "compiler/graph/ops.def"
};
constexpr size_t kNumOps = sizeof(kOps) / sizeof(kOps[0]);
}  // namespace

const char* op_name(OpKind k) { return kOps[static_cast<size_t>(k)].name; }
int op_min_inputs(OpKind k) { return kOps[static_cast<size_t>(k)].lo; }
int op_max_inputs(OpKind k) { return kOps[static_cast<size_t>(k)].hi; }

bool op_from_name(const std::string& name, OpKind* out) {
  for (size_t i = 0; i < kNumOps; ++i)
    if (name == kOps[i].name) {
      *out = static_cast<OpKind>(i);
      return true;
    }
  return false;
}

template <typename T>
static std::shared_ptr<const ConstData> make_data(const std::vector<T>& v) {
  auto d = std::make_shared<ConstData>();
  d->bytes.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(d->bytes.data(), v.data(), d->bytes.size());
  return d;
}
std::shared_ptr<const ConstData> ConstData::from_f32(const std::vector<float>& v) {
  return make_data(v);
}
std::shared_ptr<const ConstData> ConstData::from_i8(const std::vector<int8_t>& v) {
  return make_data(v);
}
std::shared_ptr<const ConstData> ConstData::from_i32(const std::vector<int32_t>& v) {
  return make_data(v);
}

const char* device_name(Device d) { return d == Device::kAccel ? "accel" : "cpu"; }

namespace {

// A fact as the attribute the dumps print (bools as 0 or 1).
Attr fact_attr(int64_t v) { return v; }
Attr fact_attr(bool v) { return int64_t{v}; }
Attr fact_attr(double v) { return v; }
Attr fact_attr(const std::vector<int64_t>& v) { return v; }
Attr fact_attr(const std::string& v) { return v; }
Attr fact_attr(Device d) { return std::string(device_name(d)); }

}  // namespace

Attrs facts_as_attrs(const NodeFacts& f) {
  Attrs a;
#define WEFT_GRAPH_FACT(field, type, printed) \
  if (f.field) a[printed] = fact_attr(*f.field);
#include "compiler/graph/facts.def"
#undef WEFT_GRAPH_FACT
  return a;
}

int64_t Node::get_int(const std::string& a, int64_t dflt) const {
  auto it = attrs.find(a);
  if (it == attrs.end()) return dflt;
  if (auto* p = std::get_if<int64_t>(&it->second)) return *p;
  if (auto* p = std::get_if<double>(&it->second)) return static_cast<int64_t>(*p);
  throw UserError("node '" + name + "' (" + op_name(kind) + "): attribute '" + a +
                  "' is not an integer");
}
double Node::get_float(const std::string& a, double dflt) const {
  auto it = attrs.find(a);
  if (it == attrs.end()) return dflt;
  if (auto* p = std::get_if<double>(&it->second)) return *p;
  if (auto* p = std::get_if<int64_t>(&it->second)) return static_cast<double>(*p);
  throw UserError("node '" + name + "' (" + op_name(kind) + "): attribute '" + a +
                  "' is not a number");
}
std::vector<int64_t> Node::get_ints(const std::string& a, std::vector<int64_t> dflt) const {
  auto it = attrs.find(a);
  if (it == attrs.end()) return dflt;
  if (auto* p = std::get_if<std::vector<int64_t>>(&it->second)) return *p;
  if (auto* p = std::get_if<int64_t>(&it->second)) return {*p};
  throw UserError("node '" + name + "' (" + op_name(kind) + "): attribute '" + a +
                  "' is not a list of integers");
}
std::vector<double> Node::get_floats(const std::string& a, std::vector<double> dflt) const {
  auto it = attrs.find(a);
  if (it == attrs.end()) return dflt;
  if (auto* p = std::get_if<std::vector<double>>(&it->second)) return *p;
  if (auto* p = std::get_if<double>(&it->second)) return {*p};
  throw UserError("node '" + name + "' (" + op_name(kind) + "): attribute '" + a +
                  "' is not a list of numbers");
}
std::string Node::get_string(const std::string& a, const std::string& dflt) const {
  auto it = attrs.find(a);
  if (it == attrs.end()) return dflt;
  if (auto* p = std::get_if<std::string>(&it->second)) return *p;
  throw UserError("node '" + name + "' (" + op_name(kind) + "): attribute '" + a +
                  "' is not a string");
}

ValueId Graph::new_value(const std::string& name, const TensorType& type) {
  Value v;
  v.id = static_cast<ValueId>(values_.size());
  v.name = name.empty() ? "v" + std::to_string(v.id) : name;
  v.type = type;
  values_.push_back(std::move(v));
  return values_.back().id;
}

ValueId Graph::add_input(const std::string& name, const TensorType& type) {
  ValueId v = new_value(name, type);
  values_[v].is_input = true;
  return v;
}

ValueId Graph::add_constant(const std::string& name, const TensorType& type,
                            std::shared_ptr<const ConstData> data) {
  if (!data || static_cast<int64_t>(data->bytes.size()) != type.stored_bytes())
    throw InternalError("constant '" + name + "' of type " + type.str() + " has " +
                        std::to_string(data ? data->bytes.size() : 0) + " bytes, not " +
                        std::to_string(type.stored_bytes()));
  ValueId v = new_value(name, type);
  values_[v].data = std::move(data);
  return v;
}

NodeId Graph::add_node(OpKind kind, const std::string& name, const std::vector<ValueId>& inputs,
                       const Attrs& attrs, const std::vector<TensorType>& output_types,
                       const std::vector<std::string>& output_names, const NodeFacts& facts) {
  Node n;
  n.id = static_cast<NodeId>(nodes_.size());
  n.kind = kind;
  n.name = name.empty() ? std::string(op_name(kind)) + "_" + std::to_string(n.id) : name;
  n.inputs = inputs;
  n.attrs = attrs;
  n.facts = facts;
  for (ValueId in : inputs)
    if (in != kNone && (in < 0 || static_cast<size_t>(in) >= values_.size()))
      throw InternalError("node '" + n.name + "' reads value " + std::to_string(in) +
                          ", which does not exist");
  for (size_t i = 0; i < output_types.size(); ++i) {
    std::string on = i < output_names.size() ? output_names[i]
                     : output_types.size() == 1 ? n.name
                                                : n.name + ":" + std::to_string(i);
    ValueId v = new_value(on, output_types[i]);
    values_[v].producer = n.id;
    n.outputs.push_back(v);
  }
  nodes_.push_back(std::move(n));
  return nodes_.back().id;
}

ValueId Graph::add_op(OpKind kind, const std::string& name, const std::vector<ValueId>& inputs,
                      const Attrs& attrs, const NodeFacts& facts) {
  Node probe;
  probe.kind = kind;
  probe.name = name.empty() ? std::string(op_name(kind)) + "_" + std::to_string(nodes_.size())
                            : name;
  probe.inputs = inputs;
  probe.attrs = attrs;
  probe.facts = facts;
  std::vector<TensorType> outs = infer_output_types(*this, probe);
  NodeId n = add_node(kind, probe.name, inputs, attrs, outs, {}, facts);
  return nodes_[n].outputs.at(0);
}

std::vector<ValueId> Graph::inputs() const {
  std::vector<ValueId> r;
  for (const Value& v : values_)
    if (v.is_input && !v.dead) r.push_back(v.id);
  return r;
}

const Node* Graph::producer(ValueId v) const {
  NodeId p = value(v).producer;
  return p == kNone ? nullptr : &nodes_[p];
}

std::vector<NodeId> Graph::consumers(ValueId v) const {
  std::vector<NodeId> r;
  for (const Node& n : nodes_) {
    if (n.dead) continue;
    for (ValueId in : n.inputs)
      if (in == v) {
        r.push_back(n.id);
        break;
      }
  }
  return r;
}

std::vector<NodeId> Graph::topo_order() const {
  // Kahn's algorithm over live nodes; a min-heap on ids keeps the order stable.
  std::vector<int> indeg(nodes_.size(), 0);
  std::vector<std::vector<NodeId>> users(nodes_.size());
  size_t live = 0;
  for (const Node& n : nodes_) {
    if (n.dead) continue;
    ++live;
    for (ValueId in : n.inputs) {
      if (in == kNone) continue;
      NodeId p = values_[in].producer;
      if (p == kNone || nodes_[p].dead) continue;
      ++indeg[n.id];
      users[p].push_back(n.id);
    }
  }
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<NodeId>> ready;
  for (const Node& n : nodes_)
    if (!n.dead && indeg[n.id] == 0) ready.push(n.id);
  std::vector<NodeId> order;
  while (!ready.empty()) {
    NodeId n = ready.top();
    ready.pop();
    order.push_back(n);
    for (NodeId u : users[n])
      if (--indeg[u] == 0) ready.push(u);
  }
  if (order.size() != live) {
    for (const Node& n : nodes_)
      if (!n.dead && indeg[n.id] > 0)
        throw UserError("graph '" + name_ + "' has a cycle through node '" + n.name + "' (" +
                        op_name(n.kind) + ")");
  }
  return order;
}

std::vector<NodeId> Graph::schedule_order() const {
  // Kahn's algorithm as topo_order, but the ready set is ordered by when a node became ready
  // (latest first), then by id: the users a node releases run before older ready nodes.
  std::vector<int> indeg(nodes_.size(), 0);
  std::vector<std::vector<NodeId>> users(nodes_.size());
  for (const Node& n : nodes_) {
    if (n.dead) continue;
    for (ValueId in : n.inputs) {
      if (in == kNone) continue;
      NodeId p = values_[in].producer;
      if (p == kNone || nodes_[p].dead) continue;
      ++indeg[n.id];
      users[p].push_back(n.id);
    }
  }
  // Key: (-step at which the node became ready, id); the smallest runs next.
  std::set<std::pair<int64_t, NodeId>> ready;
  for (const Node& n : nodes_)
    if (!n.dead && indeg[n.id] == 0) ready.insert({0, n.id});
  std::vector<NodeId> order;
  while (!ready.empty()) {
    const NodeId n = ready.begin()->second;
    ready.erase(ready.begin());
    order.push_back(n);
    const int64_t step = static_cast<int64_t>(order.size());
    for (NodeId u : users[n])
      if (--indeg[u] == 0) ready.insert({-step, u});
  }
  // A cycle leaves nodes unscheduled; topo_order names one (and throws).
  size_t live = 0;
  for (const Node& n : nodes_) live += n.dead ? 0 : 1;
  if (order.size() != live) return topo_order();
  return order;
}

void Graph::replace_uses(ValueId from, ValueId to) {
  for (Node& n : nodes_) {
    if (n.dead) continue;
    for (ValueId& in : n.inputs)
      if (in == from) in = to;
  }
  for (ValueId& o : outputs_)
    if (o == from) o = to;
}

void Graph::prune() {
  std::vector<char> needed(values_.size(), 0);
  std::vector<ValueId> work(outputs_.begin(), outputs_.end());
  std::vector<char> node_live(nodes_.size(), 0);
  while (!work.empty()) {
    ValueId v = work.back();
    work.pop_back();
    if (v == kNone || needed[v]) continue;
    needed[v] = 1;
    NodeId p = values_[v].producer;
    if (p != kNone && !nodes_[p].dead && !node_live[p]) {
      node_live[p] = 1;
      for (ValueId in : nodes_[p].inputs) work.push_back(in);
    }
  }
  for (Node& n : nodes_)
    if (!node_live[n.id]) n.dead = true;
  for (Value& v : values_) {
    if (v.is_input) continue;  // inputs stay, even when unused
    bool produced_live = v.producer != kNone && !nodes_[v.producer].dead;
    if (!needed[v.id] && !produced_live) v.dead = true;
    if (v.producer != kNone && nodes_[v.producer].dead) v.dead = true;
  }
}

int Graph::count(OpKind k) const {
  int c = 0;
  for (const Node& n : nodes_)
    if (!n.dead && n.kind == k) ++c;
  return c;
}

int64_t Graph::constant_bytes() const {
  int64_t b = 0;
  for (const Value& v : values_)
    if (!v.dead && v.is_constant()) b += static_cast<int64_t>(v.data->bytes.size());
  return b;
}

}  // namespace weft::compiler::graph
