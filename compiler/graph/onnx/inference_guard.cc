// See inference_guard.h.
#include "compiler/graph/onnx/inference_guard.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include "compiler/graph/onnx/onnx_model.h"
#include "compiler/graph/onnx/proto_helpers.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {
namespace {

// The input that holds the weight of each guarded operator (default domain).
int weight_input(const std::string& op) {
  if (op == "Conv" || op == "ConvInteger") return 1;
  if (op == "QLinearConv") return 3;
  return -1;
}

// Operators whose first output has the shape of their first input.
bool keeps_shape(const std::string& op) {
  return op == "Identity" || op == "Cast" || op == "QuantizeLinear" || op == "DequantizeLinear";
}

// Every dimension of a graph input's declared shape; false when one is unknown or symbolic.
bool declared_dims(const onnx::ValueInfoProto& v, std::vector<int64_t>* dims) {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return false;
  for (const auto& d : v.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return false;
    dims->push_back(d.dim_value());
  }
  return true;
}

// Bytes of one element of an ONNX element type with fixed-size elements; 0 for strings and
// types this library version does not know.
size_t element_bytes(int32_t type) {
  switch (type) {
    case onnx::TensorProto::UINT8: case onnx::TensorProto::INT8: case onnx::TensorProto::BOOL:
      return 1;
    case onnx::TensorProto::UINT16: case onnx::TensorProto::INT16:
    case onnx::TensorProto::FLOAT16: case onnx::TensorProto::BFLOAT16:
      return 2;
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32:
      return 4;
    case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64:
    case onnx::TensorProto::DOUBLE: case onnx::TensorProto::COMPLEX64:
      return 8;
    case onnx::TensorProto::COMPLEX128: return 16;
    default: return 0;
  }
}

void check_raw_size(const onnx::TensorProto& t, const std::string& what) {
  if (!t.has_raw_data()) return;
  const size_t eb = element_bytes(t.data_type());
  if (eb == 0) return;
  // The expected size in bytes, without overflow: a shape may claim anything.
  size_t want = eb;
  for (int64_t d : t.dims()) {
    if (d < 0) throw UserError(what + " has a negative dimension (" + std::to_string(d) + ")");
    if (d == 0) {
      want = 0;
      break;
    }
    if (want > std::numeric_limits<size_t>::max() / static_cast<size_t>(d)) {
      want = std::numeric_limits<size_t>::max();
    } else {
      want *= static_cast<size_t>(d);
    }
  }
  if (t.raw_data().size() != want) {
    std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
    throw UserError(what + " of shape " + shape_string(shape) + " and element type " +
                    onnx_type_name(t.data_type()) + " holds " +
                    std::to_string(t.raw_data().size()) + " bytes of data, not " +
                    (want == std::numeric_limits<size_t>::max() ? std::string("that many")
                                                                  : std::to_string(want)) +
                    " (a truncated or corrupt file)");
  }
}

// Operators whose shape inference computes a sliding window from these attributes.
bool has_window(const std::string& op) {
  return op == "Conv" || op == "ConvInteger" || op == "QLinearConv" || op == "ConvTranspose" ||
         op == "MaxPool" || op == "AveragePool" || op == "LpPool";
}

void check_window(const onnx::NodeProto& n, const std::string& where) {
  for (const auto& a : n.attribute()) {
    const std::string& name = a.name();
    const int64_t least = name == "pads" ? 0 : 1;
    if (name != "strides" && name != "dilations" && name != "kernel_shape" && name != "pads")
      continue;
    for (int64_t v : a.ints()) {
      if (v < least) {
        std::vector<int64_t> all(a.ints().begin(), a.ints().end());
        throw UserError(where + ": attribute '" + name + "' " + shape_string(all) + " must be " +
                        (least ? "positive" : "non-negative"));
      }
    }
  }
}

// A ConstantOfShape whose shape is a graph input must read a 1-D int64 tensor of at most
// kMaxRank values: libonnx's inference of one that reads another input (a float image) built
// shapes of millions of dimensions until memory ran out (found by fuzz_onnx).
constexpr int64_t kMaxRank = 64;

void check_shape_input(const onnx::GraphProto& g, const onnx::NodeProto& n,
                       const std::string& where) {
  if (n.input_size() < 1) return;
  for (const auto& t : g.initializer())
    if (t.name() == n.input(0)) return;  // a constant: checked where it is read
  for (const auto& v : g.input()) {
    if (v.name() != n.input(0) || !v.type().has_tensor_type()) continue;
    const auto& tt = v.type().tensor_type();
    std::vector<int64_t> dims;  // as declared, -1 where unknown
    for (const auto& d : tt.shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    const bool fits = !tt.has_shape() || (dims.size() == 1 && dims[0] <= kMaxRank);
    if (tt.elem_type() != onnx::TensorProto::INT64 || !fits)
      throw UserError(where + ": its shape, graph input '" + v.name() + "' (" +
                      onnx_type_name(tt.elem_type()) + ", shape " + shape_string(dims) +
                      "), must be a 1-D int64 tensor of at most " + std::to_string(kMaxRank) +
                      " values");
  }
}

void check_graph(const onnx::GraphProto& g, const std::string& file) {
  for (const auto& t : g.initializer())
    check_raw_size(t, file + ": initializer '" + t.name() + "'");
  for (int k = 0; k < g.node_size(); ++k) {
    const onnx::NodeProto& n = g.node(k);
    const std::string where = "node '" + node_name(n, k) + "' (" + n.op_type() + ")";
    const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    if (default_domain && has_window(n.op_type())) check_window(n, file + ": " + where);
    if (default_domain && n.op_type() == "ConstantOfShape")
      check_shape_input(g, n, file + ": " + where);
    for (const auto& a : n.attribute()) {
      const std::string what = file + ": attribute '" + a.name() + "' of " + where;
      if (a.has_t()) check_raw_size(a.t(), what);
      for (const auto& t : a.tensors()) check_raw_size(t, what);
      if (a.has_g()) check_graph(a.g(), file);
      for (const auto& sub : a.graphs()) check_graph(sub, file);
    }
  }
}

// Initializers up to this size keep their data in the first pass (shapes, axes, pads: what an
// inference function may read); larger ones are weights, whose type and shape are enough.
constexpr size_t kProbeDataBytes = 4096;

// `m` without its large initializers' data: each becomes a graph input of its type and shape.
onnx::ModelProto probe_of(onnx::ModelProto* m) {
  onnx::GraphProto* g = m->mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::TensorProto> inits;
  inits.Swap(g->mutable_initializer());
  onnx::ModelProto probe = *m;
  inits.Swap(g->mutable_initializer());
  std::set<std::string> inputs;
  for (const auto& v : g->input()) inputs.insert(v.name());
  onnx::GraphProto* pg = probe.mutable_graph();
  for (const auto& t : g->initializer()) {
    if (t.ByteSizeLong() <= kProbeDataBytes) {
      *pg->add_initializer() = t;
    } else if (!inputs.count(t.name())) {
      onnx::ValueInfoProto* v = pg->add_input();
      v->set_name(t.name());
      onnx::TypeProto_Tensor* tt = v->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(t.data_type());
      onnx::TensorShapeProto* shape = tt->mutable_shape();
      for (int64_t d : t.dims()) shape->add_dim()->set_dim_value(d);
    }
  }
  return probe;
}

bool has_type(const onnx::ValueInfoProto& v) {
  return v.has_type() && v.type().value_case() != onnx::TypeProto::VALUE_NOT_SET;
}

// The names of `g` and its sub-graphs' values that have a type.
void collect_typed(const onnx::GraphProto& g, std::set<std::string>* typed) {
  for (const auto& t : g.initializer()) typed->insert(t.name());
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& v : *list)
      if (has_type(v)) typed->insert(v.name());
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_typed(a.g(), typed);
      for (const auto& sub : a.graphs()) collect_typed(sub, typed);
    }
}

// Declares in `g` (and its sub-graphs, which `inferred` mirrors) the type of each value that
// `inferred` types and `g` does not declare, without its shape.
void declare_types(const onnx::GraphProto& inferred, onnx::GraphProto* g) {
  std::set<std::string> declared;
  for (const auto& t : g->initializer()) declared.insert(t.name());
  for (const auto* list : {&g->input(), &g->value_info(), &g->output()})
    for (const auto& v : *list) declared.insert(v.name());
  for (const auto& v : inferred.value_info()) {
    if (!has_type(v) || declared.count(v.name())) continue;
    onnx::ValueInfoProto* d = g->add_value_info();
    d->set_name(v.name());
    *d->mutable_type() = v.type();
    if (d->type().has_tensor_type()) d->mutable_type()->mutable_tensor_type()->clear_shape();
  }
  for (int k = 0; k < g->node_size() && k < inferred.node_size(); ++k) {
    onnx::NodeProto* n = g->mutable_node(k);
    const onnx::NodeProto& in = inferred.node(k);
    for (int a = 0; a < n->attribute_size() && a < in.attribute_size(); ++a) {
      onnx::AttributeProto* attr = n->mutable_attribute(a);
      if (attr->has_g()) declare_types(in.attribute(a).g(), attr->mutable_g());
      for (int s = 0; s < attr->graphs_size() && s < in.attribute(a).graphs_size(); ++s)
        declare_types(in.attribute(a).graphs(s), attr->mutable_graphs(s));
    }
  }
}

// Whether every value read by a node of `g` (or its sub-graphs) whose operator propagates data
// has a type in `typed`.
bool data_propagation_is_safe(const onnx::GraphProto& g, int opset,
                              const std::set<std::string>& typed) {
  for (const auto& n : g.node()) {
    const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    const onnx::OpSchema* s =
        default_domain ? onnx::OpSchemaRegistry::Schema(n.op_type(), opset) : nullptr;
    if (s && s->has_data_propagation_function())
      for (const auto& in : n.input())
        if (!in.empty() && !typed.count(in)) return false;
    for (const auto& a : n.attribute()) {
      if (a.has_g() && !data_propagation_is_safe(a.g(), opset, typed)) return false;
      for (const auto& sub : a.graphs())
        if (!data_propagation_is_safe(sub, opset, typed)) return false;
    }
  }
  return true;
}

}  // namespace

void infer_shapes(onnx::ModelProto* proto) {
  int opset = 0;
  for (const auto& o : proto->opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = static_cast<int>(o.version());
  onnx::ModelProto probe = probe_of(proto);
  onnx::shape_inference::InferShapes(
      probe, onnx::OpSchemaRegistry::Instance(),
      onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/false));
  declare_types(probe.graph(), proto->mutable_graph());
  std::set<std::string> typed;
  collect_typed(probe.graph(), &typed);
  const bool data_prop = data_propagation_is_safe(proto->graph(), opset, typed);
  onnx::shape_inference::InferShapes(
      *proto, onnx::OpSchemaRegistry::Instance(),
      onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1, data_prop));
}

void check_for_shape_inference(const onnx::GraphProto& g, const std::string& file) {
  check_graph(g, file);
}

std::map<std::string, std::string> pin_conv_kernel_shapes(onnx::GraphProto* g,
                                                          const std::string& file) {
  std::map<std::string, std::string> pinned;
  std::map<std::string, std::vector<int64_t>> dims;  // values whose every dimension is known
  for (const auto& t : g->initializer()) dims[t.name()].assign(t.dims().begin(), t.dims().end());
  for (const auto& v : g->input()) {
    std::vector<int64_t> d;
    if (!dims.count(v.name()) && declared_dims(v, &d)) dims[v.name()] = d;
  }
  for (int k = 0; k < g->node_size(); ++k) {
    onnx::NodeProto& n = *g->mutable_node(k);
    if (!n.domain().empty() && n.domain() != "ai.onnx") continue;
    if (keeps_shape(n.op_type())) {
      if (n.input_size() == 0 || n.output_size() == 0 || n.output(0).empty()) continue;
      auto it = dims.find(n.input(0));
      if (it != dims.end()) dims[n.output(0)] = it->second;
      continue;
    }
    const int w = weight_input(n.op_type());
    if (w < 0 || find_attr(n, "kernel_shape") || n.input_size() <= w) continue;
    const std::string name = node_name(n, k);
    auto it = dims.find(n.input(w));
    if (it == dims.end()) {
      throw UserError(file + ": node '" + name + "' (" + n.op_type() + ") has no kernel_shape " +
                      "attribute and its weight '" + n.input(w) +
                      "' is computed, so its shape is not known before shape inference (Weft " +
                      "imports convolutions with constant weights)");
    }
    onnx::AttributeProto* a = n.add_attribute();
    a->set_name("kernel_shape");
    a->set_type(onnx::AttributeProto::INTS);
    std::vector<int64_t> kernel;
    for (size_t i = 2; i < it->second.size(); ++i) kernel.push_back(it->second[i]);
    for (int64_t d : kernel) a->add_ints(d);
    pinned[name] = "kernel_shape " + shape_string(kernel) + " from the weight '" + n.input(w) +
                   "' of shape " + shape_string(it->second);
  }
  return pinned;
}

}  // namespace weft::compiler::onnx_import
