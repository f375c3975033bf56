// Loading an ONNX model through the ONNX library; see onnx_model.h.
#include "compiler/graph/onnx/onnx_model.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <set>
#include <type_traits>

#include "compiler/graph/onnx/inference_guard.h"
#include "compiler/graph/onnx/opset18.h"
#include "compiler/graph/onnx/proto_helpers.h"
#include "compiler/graph/onnx/set_aside_weights.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {

const char* elem_type_name(ElemType t) {
  switch (t) {
    case ElemType::kFloat32: return "float32";
    case ElemType::kInt8: return "int8";
    case ElemType::kUint8: return "uint8";
    case ElemType::kInt32: return "int32";
    case ElemType::kInt64: return "int64";
    case ElemType::kBool: return "bool";
  }
  return "?";
}

int elem_bytes(ElemType t) {
  switch (t) {
    case ElemType::kFloat32: return 4;
    case ElemType::kInt8: return 1;
    case ElemType::kUint8: return 1;
    case ElemType::kInt32: return 4;
    case ElemType::kInt64: return 8;
    case ElemType::kBool: return 1;
  }
  return 1;
}

int64_t TensorData::elements() const {
  // Empty first: the other sizes of an empty shape may multiply past int64.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

namespace {

template <typename T>
T load_at(const graph::Bytes& b, int64_t i) {
  T v;
  std::memcpy(&v, b.data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

// A float as R: double as is; an integer truncated toward zero, saturated, NaN as 0 (a float
// outside the integer's range, from a model's bytes, must not be undefined behaviour).
template <typename R>
R from_float(float f) {
  if constexpr (std::is_floating_point_v<R>) {
    return static_cast<R>(f);
  } else {
    if (std::isnan(f)) return 0;
    if (f >= static_cast<float>(std::numeric_limits<R>::max())) return std::numeric_limits<R>::max();
    if (f <= static_cast<float>(std::numeric_limits<R>::min())) return std::numeric_limits<R>::min();
    return static_cast<R>(f);
  }
}

template <typename R>
std::vector<R> widen(const TensorData& t) {
  const int64_t n = t.elements();
  std::vector<R> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    switch (t.type) {
      case ElemType::kFloat32: out[i] = from_float<R>(load_at<float>(t.bytes, i)); break;
      case ElemType::kInt8: out[i] = static_cast<R>(load_at<int8_t>(t.bytes, i)); break;
      case ElemType::kUint8: out[i] = static_cast<R>(load_at<uint8_t>(t.bytes, i)); break;
      case ElemType::kInt32: out[i] = static_cast<R>(load_at<int32_t>(t.bytes, i)); break;
      case ElemType::kInt64: out[i] = static_cast<R>(load_at<int64_t>(t.bytes, i)); break;
      case ElemType::kBool: out[i] = static_cast<R>(load_at<uint8_t>(t.bytes, i) != 0); break;
    }
  }
  return out;
}

}  // namespace

std::vector<double> TensorData::to_double() const { return widen<double>(*this); }
std::vector<int64_t> TensorData::to_int64() const { return widen<int64_t>(*this); }

TensorData TensorData::from_float(std::vector<int64_t> shape, const std::vector<float>& v) {
  TensorData t;
  t.type = ElemType::kFloat32;
  t.shape = std::move(shape);
  t.bytes.resize(v.size() * 4);
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", " : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  }
  return s + "]";
}

std::string Node::where() const { return "node '" + name + "' (" + op + ")"; }

std::string onnx_type_name(int32_t t) {
  if (onnx::TensorProto::DataType_IsValid(t))
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(t));
  return "type " + std::to_string(t);
}

namespace {

bool elem_type_of(int32_t onnx_type, ElemType* out) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT: *out = ElemType::kFloat32; return true;
    case onnx::TensorProto::INT8: *out = ElemType::kInt8; return true;
    case onnx::TensorProto::UINT8: *out = ElemType::kUint8; return true;
    case onnx::TensorProto::INT32: *out = ElemType::kInt32; return true;
    case onnx::TensorProto::INT64: *out = ElemType::kInt64; return true;
    case onnx::TensorProto::BOOL: *out = ElemType::kBool; return true;
    default: return false;
  }
}

int32_t onnx_data_type(ElemType t) {
  switch (t) {
    case ElemType::kFloat32: return onnx::TensorProto::FLOAT;
    case ElemType::kInt8: return onnx::TensorProto::INT8;
    case ElemType::kUint8: return onnx::TensorProto::UINT8;
    case ElemType::kInt32: return onnx::TensorProto::INT32;
    case ElemType::kInt64: return onnx::TensorProto::INT64;
    case ElemType::kBool: return onnx::TensorProto::BOOL;
  }
  return onnx::TensorProto::UNDEFINED;
}


Attribute convert_attr(const onnx::AttributeProto& a, const std::string& where) {
  Attribute r;
  switch (a.type()) {
    case onnx::AttributeProto::INT: r.kind = Attribute::Kind::kInt; r.i = a.i(); break;
    case onnx::AttributeProto::FLOAT: r.kind = Attribute::Kind::kFloat; r.f = a.f(); break;
    case onnx::AttributeProto::INTS:
      r.kind = Attribute::Kind::kInts;
      r.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case onnx::AttributeProto::FLOATS:
      r.kind = Attribute::Kind::kFloats;
      r.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case onnx::AttributeProto::STRING: r.kind = Attribute::Kind::kString; r.s = a.s(); break;
    case onnx::AttributeProto::TENSOR:
      r.kind = Attribute::Kind::kTensor;
      r.t = convert_tensor(a.t(), "attribute '" + a.name() + "' of " + where);
      break;
    default: r.kind = Attribute::Kind::kOther; break;
  }
  return r;
}

ValueType convert_type(const onnx::TypeProto& tp) {
  ValueType v;
  if (!tp.has_tensor_type()) return v;
  const auto& tt = tp.tensor_type();
  if (!elem_type_of(tt.elem_type(), &v.type)) v.type = ElemType::kFloat32;
  if (tt.has_shape()) {
    v.has_shape = true;
    for (const auto& d : tt.shape().dim()) v.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
  }
  return v;
}


// Checks that every node input is defined by a graph input, an initializer or another node,
// that no value is produced twice, and that the nodes form no cycle; then puts them in
// topological order (which the ONNX checker requires).
void order_nodes(onnx::GraphProto* g, const std::string& file) {
  std::set<std::string> defined;
  for (const auto& i : g->input()) defined.insert(i.name());
  for (const auto& i : g->initializer()) defined.insert(i.name());
  std::map<std::string, int> producer;
  const int n = g->node_size();
  for (int k = 0; k < n; ++k) {
    for (const auto& o : g->node(k).output()) {
      if (o.empty()) continue;
      if (defined.count(o) || producer.count(o)) {
        throw UserError(file + ": value '" + o + "' is produced twice (again by node '" +
                        node_name(g->node(k), k) + "' (" + g->node(k).op_type() + "))");
      }
      producer[o] = k;
    }
  }
  std::vector<std::vector<int>> users(n);
  std::vector<int> pending(n, 0);
  for (int k = 0; k < n; ++k) {
    for (const auto& in : g->node(k).input()) {
      if (in.empty() || defined.count(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        throw UserError(file + ": node '" + node_name(g->node(k), k) + "' (" +
                        g->node(k).op_type() + ") reads '" + in +
                        "', which no graph input, initializer or node defines (a truncated "
                        "or corrupt file?)");
      }
      users[it->second].push_back(k);
      ++pending[k];
    }
  }
  std::vector<int> order, ready;
  for (int k = n - 1; k >= 0; --k)
    if (pending[k] == 0) ready.push_back(k);
  while (!ready.empty()) {
    const int k = ready.back();
    ready.pop_back();
    order.push_back(k);
    for (int u : users[k])
      if (--pending[u] == 0) ready.push_back(u);
  }
  if (static_cast<int>(order.size()) != n) {
    // Walk back along unfinished inputs from an unfinished node until a node repeats.
    int k = 0;
    while (pending[k] == 0) ++k;
    std::vector<int> path;
    std::map<int, size_t> seen;
    while (!seen.count(k)) {
      seen[k] = path.size();
      path.push_back(k);
      for (const auto& in : g->node(k).input()) {
        auto it = producer.find(in);
        if (it != producer.end() && pending[it->second] > 0) {
          k = it->second;
          break;
        }
      }
    }
    std::string cycle;
    for (size_t i = seen[k]; i < path.size(); ++i) {
      cycle += "'" + node_name(g->node(path[i]), path[i]) + "' (" + g->node(path[i]).op_type() +
               ") <- ";
    }
    cycle += "'" + node_name(g->node(k), k) + "'";
    throw UserError(file + ": the graph has a cycle: " + cycle +
                    " (each reads an output of the next)");
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (int k : order) *sorted.Add() = g->node(k);
  g->mutable_node()->Swap(&sorted);
}

}  // namespace

TensorData convert_tensor(const onnx::TensorProto& p, const std::string& what) {
  TensorData t;
  if (!elem_type_of(p.data_type(), &t.type)) {
    throw UserError(what + " has element type " + onnx_type_name(p.data_type()) +
                    "; Weft reads float32, int8, uint8, int32, int64 and bool tensors");
  }
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    throw UserError(what + " keeps its data in an external file, which Weft does not read; "
                    "save the model with its weights inside (onnx.save(..., "
                    "save_as_external_data=False))");
  }
  int64_t n = 1;
  for (int64_t d : p.dims()) {
    if (d < 0 || (d > 0 && n > std::numeric_limits<int64_t>::max() / 16 / d))
      throw UserError(what + " has an invalid shape (dimension " + std::to_string(d) + ")");
    n *= d;
    t.shape.push_back(d);
  }
  const size_t eb = static_cast<size_t>(elem_bytes(t.type));
  auto count_error = [&](size_t got) {
    return UserError(what + " of shape " + shape_string(t.shape) + " holds " +
                     std::to_string(got) + " values, not " + std::to_string(n) +
                     " (a truncated or corrupt file)");
  };
  // The values present are counted before the buffer is sized: a few bytes of file may claim a
  // shape of billions of elements (found by fuzz_onnx: a 2 GiB allocation).
  if (p.has_raw_data()) {
    if (p.raw_data().size() != static_cast<size_t>(n) * eb)
      throw count_error(p.raw_data().size() / eb);
    // A byte pointer range, so the copy is one memmove (a char iterator range is copied byte by
    // byte); assign makes no memmove call for an empty range, whose data may be null.
    const auto* raw = reinterpret_cast<const uint8_t*>(p.raw_data().data());
    t.bytes.assign(raw, raw + p.raw_data().size());
    return t;
  }
  auto fill = [&](const auto& field, auto cast) {
    if (static_cast<int64_t>(field.size()) != n) throw count_error(field.size());
    t.bytes.resize(static_cast<size_t>(n) * eb);
    for (int64_t i = 0; i < n; ++i) {
      auto v = cast(field.Get(static_cast<int>(i)));
      std::memcpy(t.bytes.data() + i * eb, &v, eb);
    }
  };
  switch (t.type) {
    case ElemType::kFloat32: fill(p.float_data(), [](float v) { return v; }); break;
    case ElemType::kInt8: fill(p.int32_data(), [](int32_t v) { return int8_t(v); }); break;
    case ElemType::kUint8: fill(p.int32_data(), [](int32_t v) { return uint8_t(v); }); break;
    case ElemType::kInt32: fill(p.int32_data(), [](int32_t v) { return v; }); break;
    case ElemType::kInt64: fill(p.int64_data(), [](int64_t v) { return v; }); break;
    case ElemType::kBool: fill(p.int32_data(), [](int32_t v) { return uint8_t(v != 0); }); break;
  }
  return t;
}

std::string node_name(const onnx::NodeProto& n, int index) {
  return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// LoadOptions::batch: the symbolic first dimension of each graph input that is not an
// initializer (nor a weight set aside, in `weights`) set to `batch`.
static void set_batch(onnx::GraphProto* g, int64_t batch, const std::string& what,
                      const std::set<std::string>& weights) {
  std::set<std::string> inits = weights;
  for (const auto& t : g->initializer()) inits.insert(t.name());
  for (auto& in : *g->mutable_input()) {
    if (inits.count(in.name()) || !in.type().has_tensor_type() ||
        !in.type().tensor_type().has_shape() || in.type().tensor_type().shape().dim_size() == 0)
      continue;
    auto* d0 = in.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
    if (d0->has_dim_value() && d0->dim_value() != batch)
      throw UserError(what + ": graph input '" + in.name() + "' has a fixed batch of " +
                      std::to_string(d0->dim_value()) + ", not " + std::to_string(batch) +
                      " (--batch sets only a symbolic batch dimension)");
    d0->set_dim_value(batch);
  }
}

int64_t op_since_version(const std::string& op, int64_t opset) {
  const onnx::OpSchema* s =
      onnx::OpSchemaRegistry::Schema(op, static_cast<int>(opset), onnx::ONNX_DOMAIN);
  return s ? s->SinceVersion() : 0;
}

Model parse_model(const std::vector<uint8_t>& bytes, const std::string& what,
                  const LoadOptions& options) {
  return parse_model(bytes.data(), bytes.size(), what, options);
}

// Parses `size` bytes at `data` into `proto`, the large weights set aside (their bytes stay
// in `data`, see set_aside_weights.h) and returned; each becomes a graph input of its type and
// shape, so that the checker and shape inference see it as they would its initializer.
static std::vector<SetAsideWeight> parse_proto(const uint8_t* data, size_t size,
                                               const std::string& what,
                                               onnx::ModelProto* proto) {
  if (size == 0) throw UserError(what + " is empty, not an ONNX model");
  SetAside split;
  if (set_aside_weights(data, size, &split) &&
      split.skeleton.size() <= static_cast<size_t>(std::numeric_limits<int>::max()) &&
      proto->ParseFromArray(split.skeleton.data(), static_cast<int>(split.skeleton.size())) &&
      proto->has_graph()) {
    // A name given twice is left to the loader's checks on the file as it is.
    std::set<std::string> names;
    bool unique = true;
    for (const auto& t : proto->graph().initializer())
      unique = names.insert(t.name()).second && unique;
    for (const auto& w : split.weights) unique = names.insert(w.name).second && unique;
    if (unique) {
      std::set<std::string> inputs;
      for (const auto& v : proto->graph().input()) inputs.insert(v.name());
      for (const auto& w : split.weights) {
        if (inputs.count(w.name)) continue;  // IR 3 lists initializers as inputs too
        onnx::ValueInfoProto* v = proto->mutable_graph()->add_input();
        v->set_name(w.name);
        onnx::TypeProto_Tensor* tt = v->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(w.data_type);
        onnx::TensorShapeProto* shape = tt->mutable_shape();
        for (int64_t d : w.dims) shape->add_dim()->set_dim_value(d);
      }
      return std::move(split.weights);
    }
  }
  proto->Clear();
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !proto->ParseFromArray(data, static_cast<int>(size))) {
    throw UserError(what + " is not a valid ONNX model: protobuf cannot parse it (a truncated "
                    "or corrupt file)");
  }
  return {};
}

Model parse_model(const uint8_t* data, size_t size, const std::string& what,
                  const LoadOptions& options, std::shared_ptr<const void> owner) {
  onnx::ModelProto proto;
  const std::vector<SetAsideWeight> weights = parse_proto(data, size, what, &proto);
  std::set<std::string> weight_names;
  for (const auto& w : weights) weight_names.insert(w.name);
  if (!proto.has_graph() || proto.graph().node_size() == 0) {
    throw UserError(what + " holds no graph (a truncated or corrupt file, or not an ONNX model)");
  }
  Model m;
  m.path = what;
  bool have_opset = false;
  for (const auto& o : proto.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      m.opset = o.version();
      have_opset = true;
    }
  }
  if (!have_opset) throw UserError(what + " imports no opset of the default ONNX domain");
  if (options.lift_old_opset && m.opset < options.min_opset) {
    bool same = true;
    for (const auto& n : proto.graph().node())
      same = same && op_since_version(n.op_type(), m.opset) != 0 &&
             op_since_version(n.op_type(), m.opset) == op_since_version(n.op_type(), options.min_opset);
    if (same) {
      m.opset = options.min_opset;
      for (auto& o : *proto.mutable_opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx") o.set_version(m.opset);
    }
  }
  if (m.opset < options.min_opset || m.opset > options.max_opset) {
    throw UserError(what + " uses opset " + std::to_string(m.opset) + "; Weft imports opsets " +
                    std::to_string(options.min_opset) + " to " +
                    std::to_string(options.max_opset) +
                    " (convert it with onnx.version_converter)");
  }
  if (m.opset > kLibraryOpset) lower_opset18(&proto, what);
  onnx::GraphProto* g = proto.mutable_graph();
  // Bound inputs become initializers.
  for (const auto& [name, value] : options.bind) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx_data_type(value.type));
    for (int64_t d : value.shape) t->add_dims(d);
    t->set_raw_data(value.bytes.data(), value.bytes.size());
  }
  if (options.batch > 0) set_batch(g, options.batch, what, weight_names);
  order_nodes(g, what);
  try {
    onnx::checker::check_model(proto);
  } catch (const std::exception& e) {
    throw UserError(what + " fails the ONNX checker: " + std::string(e.what()));
  }
  check_for_shape_inference(*g, what);
  const std::map<std::string, std::string> pinned = pin_conv_kernel_shapes(g, what);
  try {
    infer_shapes(&proto);
  } catch (const std::exception& e) {
    std::string why = e.what();
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    // A kernel_shape the library complains about may be one the guard set, not the file's.
    for (const auto& [node, note] : pinned)
      if (why.find("node name: " + node + ")") != std::string::npos)
        why += " (Weft set node '" + node + "' " + note + ", as the node has no kernel_shape)";
    throw UserError(what + ": ONNX shape inference failed: " + why);
  }

  std::set<std::string> init_names;
  for (onnx::TensorProto& t : *g->mutable_initializer()) {
    m.initializers[t.name()] = convert_tensor(t, "initializer '" + t.name() + "' of " + what);
    init_names.insert(t.name());
    // Freed now, the parse's copy of the weights is memory the next tensors' copies reuse:
    // fresh pages cost a fault and the kernel's clearing each (a third of a large import).
    std::string().swap(*t.mutable_raw_data());
  }
  for (const SetAsideWeight& w : weights) {
    TensorData& t = m.initializers[w.name];
    elem_type_of(w.data_type, &t.type);
    t.shape = w.dims;
    t.bytes = owner ? graph::Bytes::view(w.data, w.size, w.element_bytes, owner)
                    : graph::Bytes(std::vector<uint8_t>(w.data, w.data + w.size));
    init_names.insert(w.name);
  }
  auto add_type = [&](const onnx::ValueInfoProto& v) {
    if (v.has_type()) m.types[v.name()] = convert_type(v.type());
  };
  for (const auto& v : g->input()) {
    add_type(v);
    if (!init_names.count(v.name())) {
      if (v.type().has_tensor_type()) {
        ElemType et;
        if (!elem_type_of(v.type().tensor_type().elem_type(), &et)) {
          throw UserError(what + ": graph input '" + v.name() + "' has element type " +
                          onnx_type_name(v.type().tensor_type().elem_type()) +
                          "; Weft reads float32, int8, uint8, int32, int64 and bool tensors");
        }
      }
      m.inputs.push_back(v.name());
    }
  }
  for (const auto& v : g->value_info()) add_type(v);
  for (const auto& v : g->output()) {
    add_type(v);
    m.outputs.push_back(v.name());
  }
  for (const std::string& name : init_names) {
    ValueType vt;
    vt.type = m.initializers[name].type;
    vt.shape = m.initializers[name].shape;
    vt.has_shape = true;
    m.types[name] = vt;
  }
  for (int k = 0; k < g->node_size(); ++k) {
    const onnx::NodeProto& p = g->node(k);
    Node n;
    n.name = node_name(p, k);
    n.op = p.op_type();
    n.domain = p.domain() == "ai.onnx" ? "" : p.domain();
    n.inputs.assign(p.input().begin(), p.input().end());
    n.outputs.assign(p.output().begin(), p.output().end());
    for (const auto& a : p.attribute()) n.attrs[a.name()] = convert_attr(a, n.where());
    if (n.op == "Constant" && n.domain.empty()) {
      auto it = n.attrs.find("value");
      if (it == n.attrs.end() || it->second.kind != Attribute::Kind::kTensor) {
        throw UserError(what + ": " + n.where() +
                        ": only a Constant with a 'value' tensor attribute is supported");
      }
      m.initializers[n.outputs.at(0)] = it->second.t;
      continue;
    }
    m.nodes.push_back(std::move(n));
  }
  return m;
}

Model load_model(const std::string& path, const LoadOptions& options) {
  // The file is mapped, not read into a buffer: protobuf parses the skeleton straight from the
  // page cache, and the large weights stay views of the mapping (kept alive by the tensors
  // that view it, the graph's constants included) where aligned, so import copies a weight at
  // most once.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UserError("cannot open ONNX model '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw UserError("cannot read ONNX model '" + path + "' (not a regular file)");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return parse_model(nullptr, 0, "'" + path + "'", options);
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED)
    throw UserError("cannot read ONNX model '" + path + "': " + std::strerror(errno));
  const std::shared_ptr<const void> mapping(map, [size](void* p) { ::munmap(p, size); });
  return parse_model(static_cast<const uint8_t*>(map), size, "'" + path + "'", options, mapping);
}

TensorData read_tensor_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError("cannot open tensor file '" + path + "'");
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  onnx::TensorProto p;
  if (!p.ParseFromString(bytes)) {
    throw UserError("'" + path + "' is not a serialized ONNX TensorProto (truncated or corrupt)");
  }
  return convert_tensor(p, "tensor '" + path + "'");
}

}  // namespace weft::compiler::onnx_import
