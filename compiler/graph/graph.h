// The graph IR: a small typed DAG of operators over tensor values.
//
// A Graph owns its values and nodes; both are referred to by integer ids (their identity, never
// their names, which are only for printing). A value is a graph input, a constant (weights, with
// their data) or the output of exactly one node. Nodes keep their ids while passes run; a pass
// that replaces nodes marks the old ones dead (`erase_node`) and `prune()` removes what no longer
// reaches an output. `topo_order()` gives the live nodes in a dependency order (and is where a
// cycle is found). Operator kinds come from ops.def; attributes keep ONNX's names for ONNX kinds.
// What graph passes establish about a node for later passes, the kernels and the executor
// (requantization shifts, placement, row windows, the memory plan, ...) are typed fields of
// Node::facts (facts.def), never attribute strings read back.
//
// Building: add_input / add_constant / add_node (the output types given) or add_op (the output
// type inferred by infer_output_types, see infer.h), then set_outputs. Every pass is followed by
// verify() (verify.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "compiler/graph/bytes.h"
#include "compiler/graph/types.h"

namespace weft::compiler::graph {

/// Operator kinds (from ops.def).
enum class OpKind {
#define WEFT_GRAPH_OP(e, name, lo, hi, doc) e,
#include "compiler/graph/ops.def"
};

/// The operator's printed name ("Conv", "weft.AccelConv").
const char* op_name(OpKind k);
/// The kind for an ONNX op_type or a printed name; false when none.
bool op_from_name(const std::string& name, OpKind* out);
/// Input count bounds (max -1: unbounded).
int op_min_inputs(OpKind k);
int op_max_inputs(OpKind k);

/// An attribute: integer, float, integer list, float list or string.
using Attr = std::variant<int64_t, double, std::vector<int64_t>, std::vector<double>, std::string>;
using Attrs = std::map<std::string, Attr>;

/// Where a node runs (partition).
enum class Device { kCpu, kAccel };
/// "cpu", "accel".
const char* device_name(Device d);

/// Facts graph passes establish about a node (facts.def lists each with who sets it); a fact
/// that is not set is empty.
struct NodeFacts {
#define WEFT_GRAPH_FACT(field, type, printed) std::optional<type> field;
#include "compiler/graph/facts.def"
#undef WEFT_GRAPH_FACT
};
/// The facts that are set, as attributes under their printed names (for the dumps).
Attrs facts_as_attrs(const NodeFacts& facts);

using ValueId = int32_t;
using NodeId = int32_t;
constexpr int32_t kNone = -1;

/// Constant data, little-endian, in the value's stored layout (shared between copies of a graph).
struct ConstData {
  Bytes bytes;  // a view of the model file for a weight imported from ONNX
  const float* f32() const { return reinterpret_cast<const float*>(bytes.data()); }
  const int8_t* i8() const { return reinterpret_cast<const int8_t*>(bytes.data()); }
  const int32_t* i32() const { return reinterpret_cast<const int32_t*>(bytes.data()); }
  static std::shared_ptr<const ConstData> from_f32(const std::vector<float>& v);
  static std::shared_ptr<const ConstData> from_i8(const std::vector<int8_t>& v);
  static std::shared_ptr<const ConstData> from_i32(const std::vector<int32_t>& v);
};

/// One tensor value.
struct Value {
  ValueId id = kNone;
  std::string name;
  TensorType type;
  NodeId producer = kNone;                  // kNone for inputs and constants
  bool is_input = false;
  std::shared_ptr<const ConstData> data;    // set for constants
  bool dead = false;                        // dropped by prune()
  bool is_constant() const { return data != nullptr; }
};

/// One operator application.
struct Node {
  NodeId id = kNone;
  OpKind kind = OpKind::Relu;
  std::string name;
  std::vector<ValueId> inputs;   // kNone for an omitted optional input
  std::vector<ValueId> outputs;
  Attrs attrs;      // the operator's attributes (ONNX's, for ONNX kinds)
  NodeFacts facts;  // what graph passes established about it (facts.def)
  bool dead = false;

  bool has(const std::string& a) const { return attrs.count(a) != 0; }
  int64_t get_int(const std::string& a, int64_t dflt) const;
  double get_float(const std::string& a, double dflt) const;
  std::vector<int64_t> get_ints(const std::string& a, std::vector<int64_t> dflt = {}) const;
  std::vector<double> get_floats(const std::string& a, std::vector<double> dflt = {}) const;
  std::string get_string(const std::string& a, const std::string& dflt) const;
};

/// A network.
class Graph {
 public:
  explicit Graph(std::string name = "graph") : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  // --- building ---
  /// A graph input.
  ValueId add_input(const std::string& name, const TensorType& type);
  /// A constant; `data` must hold type.stored_bytes() bytes.
  ValueId add_constant(const std::string& name, const TensorType& type,
                       std::shared_ptr<const ConstData> data);
  /// A node whose output types are given; returns its id (outputs in node(id).outputs).
  NodeId add_node(OpKind kind, const std::string& name, const std::vector<ValueId>& inputs,
                  const Attrs& attrs, const std::vector<TensorType>& output_types,
                  const std::vector<std::string>& output_names = {}, const NodeFacts& facts = {});
  /// A single-output node whose output type is inferred (infer.h); returns the output value.
  /// UserError (naming the node) when the inputs do not fit the operator.
  ValueId add_op(OpKind kind, const std::string& name, const std::vector<ValueId>& inputs,
                 const Attrs& attrs = {}, const NodeFacts& facts = {});
  void set_outputs(const std::vector<ValueId>& outs) { outputs_ = outs; }
  void add_output(ValueId v) { outputs_.push_back(v); }

  // --- access ---
  const Value& value(ValueId v) const { return values_.at(static_cast<size_t>(v)); }
  Value& value(ValueId v) { return values_.at(static_cast<size_t>(v)); }
  const Node& node(NodeId n) const { return nodes_.at(static_cast<size_t>(n)); }
  Node& node(NodeId n) { return nodes_.at(static_cast<size_t>(n)); }
  size_t num_values() const { return values_.size(); }
  size_t num_nodes() const { return nodes_.size(); }
  const std::vector<Value>& values() const { return values_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  std::vector<ValueId>& outputs() { return outputs_; }
  /// Graph inputs, in the order they were added.
  std::vector<ValueId> inputs() const;
  /// The node producing v (nullptr for inputs and constants).
  const Node* producer(ValueId v) const;
  /// Live nodes reading v.
  std::vector<NodeId> consumers(ValueId v) const;
  /// Live nodes, in an order where every node follows its producers (ties by id).
  /// UserError naming a node on a cycle when there is one.
  std::vector<NodeId> topo_order() const;
  /// Live nodes in the order the executor runs them and plan_memory plans lifetimes for: a
  /// dependency order that, of the ready nodes, runs first one the most recently run node made
  /// ready (ties by id), so a chain (a stem band's im2col -> pack -> conv -> unpack) finishes
  /// before its sibling starts and its values die early. UserError on a cycle, as topo_order.
  std::vector<NodeId> schedule_order() const;

  // --- rewriting ---
  /// Marks a node dead (its outputs keep no producer use; prune() drops them).
  void erase_node(NodeId n) { node(n).dead = true; }
  /// Every use of `from` (node inputs and graph outputs) reads `to` instead.
  void replace_uses(ValueId from, ValueId to);
  /// Removes dead nodes and nodes/constants that do not reach an output; renumbers nothing
  /// (ids stay stable; dead slots stay as tombstones).
  void prune();
  /// Number of live nodes of a kind.
  int count(OpKind k) const;
  /// Total bytes of live constants.
  int64_t constant_bytes() const;

 private:
  ValueId new_value(const std::string& name, const TensorType& type);
  std::string name_;
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> outputs_;
};

}  // namespace weft::compiler::graph
