// Fuzz target: the ONNX importer (compiler/graph/onnx) on mutated real models. The seed corpus
// holds the models the project writes (scripts/fuzz/make_onnx_corpus.py: a narrow ResNet-18
// with the real topology, and the small test models of scripts/onnx/make_models.py). Debian
// has no libprotobuf-mutator, so the target brings its own structure-aware mutator
// (LLVMFuzzerCustomMutator): it parses the input as an ONNX ModelProto and changes one thing a
// file could plausibly hold wrong (an operator, an attribute's value or type, a node's inputs or
// outputs, a node dropped, duplicated or moved, an initializer's dimensions, type or data, a
// graph input's shape, the opset), or, for bytes that do not parse, or one time in eight,
// leaves it to libFuzzer's byte-level mutations. The oracle: parse_model + import_model either
// give a graph that verifies (compiler/graph/verify.h) and prints, or a UserError; an
// InternalError, any other exception or a crash is a bug.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compiler/graph/dump.h"
#include "compiler/graph/onnx/onnx_import.h"
#include "compiler/graph/onnx/onnx_model.h"
#include "compiler/graph/verify.h"
#include "hardware/isa/errors.h"

using namespace weft;

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

// Operators Weft imports (the importer's own list, so a new operator is fuzzed at once), one
// it does not, and nonsense.
const std::vector<std::string>& fuzzed_ops() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> v = compiler::onnx_import::supported_operators();
    for (const char* other : {"LRN", "", "weft.QConv"}) v.push_back(other);
    return v;
  }();
  return ops;
}
// Values that sit on the edges of what attributes and dimensions mean.
const int64_t kInts[] = {-9223372036854775807LL - 1, -2, -1, 0, 1, 2, 3, 4, 7, 8, 16, 255, 256,
                         65535, 1LL << 31, 1LL << 40, 9223372036854775807LL};

class Mutator {
 public:
  explicit Mutator(unsigned seed) : rng_(seed) {}

  // One structural change; false when the model has nothing of the kind to change.
  bool mutate(onnx::ModelProto& m) {
    onnx::GraphProto& g = *m.mutable_graph();
    switch (pick(12)) {
      case 0: {  // an operator
        if (!g.node_size()) return false;
        node(g).set_op_type(fuzzed_ops()[pick(fuzzed_ops().size())]);
        return true;
      }
      case 1: {  // an attribute's value
        if (!g.node_size()) return false;
        onnx::NodeProto& n = node(g);
        if (!n.attribute_size()) return false;
        onnx::AttributeProto& a = *n.mutable_attribute(pick(n.attribute_size()));
        if (a.ints_size()) a.set_ints(pick(a.ints_size()), value());
        else if (a.has_i()) a.set_i(value());
        else if (a.has_f()) a.set_f(static_cast<float>(value()));
        else a.set_i(value());
        return true;
      }
      case 2: {  // an attribute's type, or one removed, or one the operator does not have
        if (!g.node_size()) return false;
        onnx::NodeProto& n = node(g);
        if (n.attribute_size() && pick(2)) {
          onnx::AttributeProto& a = *n.mutable_attribute(pick(n.attribute_size()));
          a.set_type(static_cast<onnx::AttributeProto::AttributeType>(pick(15)));
          if (pick(2)) a.clear_ints();
        } else if (n.attribute_size() && pick(2)) {
          n.mutable_attribute()->DeleteSubrange(pick(n.attribute_size()), 1);
        } else {
          onnx::AttributeProto* a = n.add_attribute();
          a->set_name(pick(2) ? "group" : "auto_pad");
          a->set_type(onnx::AttributeProto::INT);
          a->set_i(value());
        }
        return true;
      }
      case 3: {  // a node's input: another value's name, a missing one, or one more/less
        if (!g.node_size()) return false;
        onnx::NodeProto& n = node(g);
        const int r = pick(3);
        if (r == 0 && n.input_size()) n.set_input(pick(n.input_size()), any_name(g));
        else if (r == 1 && n.input_size()) n.mutable_input()->RemoveLast();
        else n.add_input(any_name(g));
        return true;
      }
      case 4: {  // a node's output renamed (its readers lose it, or it clashes)
        if (!g.node_size()) return false;
        onnx::NodeProto& n = node(g);
        if (!n.output_size()) return false;
        n.set_output(pick(n.output_size()), any_name(g));
        return true;
      }
      case 5: {  // a node dropped, duplicated, or two swapped
        if (!g.node_size()) return false;
        const int i = pick(g.node_size()), r = pick(3);
        if (r == 0) g.mutable_node()->DeleteSubrange(i, 1);
        else if (r == 1) *g.add_node() = g.node(i);
        else g.mutable_node()->SwapElements(i, pick(g.node_size()));
        return true;
      }
      case 6: {  // an initializer's dimension
        if (!g.initializer_size()) return false;
        onnx::TensorProto& t = *g.mutable_initializer(pick(g.initializer_size()));
        if (t.dims_size() && pick(4)) t.set_dims(pick(t.dims_size()), value());
        else t.add_dims(value());
        return true;
      }
      case 7: {  // an initializer's element type, or its data cut short or dropped
        if (!g.initializer_size()) return false;
        onnx::TensorProto& t = *g.mutable_initializer(pick(g.initializer_size()));
        const int r = pick(3);
        if (r == 0) t.set_data_type(pick(17));
        else if (r == 1 && !t.raw_data().empty()) t.mutable_raw_data()->resize(pick(int(t.raw_data().size())));
        else { t.clear_raw_data(); t.clear_float_data(); }
        return true;
      }
      case 8: {  // a graph input's or output's shape
        onnx::ValueInfoProto* v = pick(2) && g.output_size() ? g.mutable_output(pick(g.output_size()))
                                  : g.input_size() ? g.mutable_input(pick(g.input_size()))
                                                   : nullptr;
        if (!v) return false;
        auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
        if (shape->dim_size() && pick(4)) {
          auto* d = shape->mutable_dim(pick(shape->dim_size()));
          if (pick(4)) d->set_dim_value(value());
          else d->set_dim_param("N");
        } else if (shape->dim_size() && pick(2)) {
          shape->mutable_dim()->RemoveLast();
        } else {
          shape->add_dim()->set_dim_value(value());
        }
        if (!pick(8)) v->mutable_type()->mutable_tensor_type()->set_elem_type(pick(17));
        return true;
      }
      case 9: {  // the opset
        if (!m.opset_import_size()) m.add_opset_import();
        m.mutable_opset_import(pick(m.opset_import_size()))->set_version(pick(26));
        if (!pick(4)) m.mutable_opset_import(0)->set_domain(pick(2) ? "ai.onnx.ml" : "weft");
        return true;
      }
      case 10: {  // a graph input turned into nothing, or an initializer into a graph input
        if (g.input_size() && pick(2)) {
          g.mutable_input()->DeleteSubrange(pick(g.input_size()), 1);
        } else if (g.initializer_size()) {
          onnx::ValueInfoProto* v = g.add_input();
          v->set_name(g.initializer(pick(g.initializer_size())).name());
        } else {
          return false;
        }
        return true;
      }
      default: {  // a graph output pointed at another value
        if (!g.output_size()) return false;
        g.mutable_output(pick(g.output_size()))->set_name(any_name(g));
        return true;
      }
    }
  }

 private:
  int pick(int n) { return n <= 1 ? 0 : std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  int64_t value() {
    return pick(3) ? kInts[pick(sizeof kInts / sizeof *kInts)]
                   : static_cast<int64_t>(pick(64)) - 8;
  }
  onnx::NodeProto& node(onnx::GraphProto& g) { return *g.mutable_node(pick(g.node_size())); }
  // The name of some value of the graph (a node output, an initializer, an input), or a new one.
  std::string any_name(const onnx::GraphProto& g) {
    const int r = pick(4);
    if (r == 0 && g.node_size()) {
      const onnx::NodeProto& n = g.node(pick(g.node_size()));
      if (n.output_size()) return n.output(pick(n.output_size()));
    }
    if (r == 1 && g.initializer_size()) return g.initializer(pick(g.initializer_size())).name();
    if (r == 2 && g.input_size()) return g.input(pick(g.input_size())).name();
    return pick(2) ? "" : "fuzz_" + std::to_string(pick(1000));
  }

  std::mt19937 rng_;
};

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  onnx::ModelProto m;
  if (seed % 8 == 0 || !m.ParseFromArray(data, static_cast<int>(size)) || !m.has_graph()) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  Mutator mut(seed);
  for (int tries = 0; tries < 8 && !mut.mutate(m); ++tries) {
  }
  std::string out;
  if (!m.SerializeToString(&out) || out.size() > max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  std::copy(out.begin(), out.end(), data);
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  try {
    const compiler::onnx_import::Model m =
        compiler::onnx_import::parse_model(bytes, "'fuzz.onnx'", {});
    const compiler::onnx_import::Imported imported = compiler::onnx_import::import_model(m);
    compiler::graph::verify(imported.graph, "import");
    (void)compiler::graph::to_text(imported.graph);
  } catch (const UserError&) {
  }
  return 0;
}
