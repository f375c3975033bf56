// The graph verifier.
#include "compiler/graph/verify.h"

#include "compiler/graph/infer.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

void verify(const Graph& g, const std::string& after) {
  std::string where = after.empty() ? "" : " (after " + after + ")";
  auto bad = [&](const std::string& what) { throw InternalError("graph verifier" + where + ": " + what); };
  for (const Value& v : g.values()) {
    if (v.dead) continue;
    if (v.id < 0 || static_cast<size_t>(v.id) >= g.num_values() || &g.value(v.id) != &v)
      bad("value '" + v.name + "' has a wrong id");
    int kinds = (v.is_input ? 1 : 0) + (v.is_constant() ? 1 : 0) + (v.producer != kNone ? 1 : 0);
    if (kinds != 1)
      bad("value '" + v.name + "' must be exactly one of input, constant or node output");
    if (v.is_constant() && static_cast<int64_t>(v.data->bytes.size()) != v.type.stored_bytes())
      bad("constant '" + v.name + "' holds " + std::to_string(v.data->bytes.size()) +
          " bytes, its type " + v.type.str() + " needs " + std::to_string(v.type.stored_bytes()));
    for (int64_t d : v.type.shape)
      if (d < 0) bad("value '" + v.name + "' has a negative dimension");
    if (v.producer != kNone) {
      const Node& p = g.node(v.producer);
      bool listed = false;
      for (ValueId o : p.outputs) listed |= o == v.id;
      if (!listed) bad("value '" + v.name + "' names producer '" + p.name + "', which does not list it");
    }
  }
  for (const Node& n : g.nodes()) {
    if (n.dead) continue;
    for (ValueId in : n.inputs) {
      if (in == kNone) continue;
      if (in < 0 || static_cast<size_t>(in) >= g.num_values())
        bad("node '" + n.name + "' reads value " + std::to_string(in) + ", which does not exist");
      const Value& v = g.value(in);
      if (v.dead) bad("node '" + n.name + "' reads '" + v.name + "', which was removed");
      if (v.producer != kNone && g.node(v.producer).dead)
        bad("node '" + n.name + "' reads '" + v.name + "', whose producer was removed");
    }
    for (ValueId o : n.outputs)
      if (g.value(o).producer != n.id) bad("node '" + n.name + "' output '" + g.value(o).name + "' names another producer");
  }
  for (ValueId o : g.outputs()) {
    if (o < 0 || static_cast<size_t>(o) >= g.num_values() || g.value(o).dead)
      bad("a graph output is not a live value");
  }
  if (g.outputs().empty()) bad("the graph has no outputs");
  // Acyclic (UserError naming a node on the cycle), then types in dependency order.
  for (NodeId id : g.topo_order()) {
    const Node& n = g.node(id);
    std::vector<TensorType> want = infer_output_types(g, n);
    if (want.size() != n.outputs.size())
      bad("node '" + n.name + "' has " + std::to_string(n.outputs.size()) + " outputs, its operator " +
          std::to_string(want.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      const TensorType& have = g.value(n.outputs[i]).type;
      if (have.dtype != want[i].dtype || have.shape != want[i].shape || have.layout != want[i].layout ||
          (want[i].quant.present() && have.quant != want[i].quant))
        bad("node '" + n.name + "' (" + op_name(n.kind) + ") output '" + g.value(n.outputs[i]).name +
            "' is " + have.str() + ", its inputs give " + want[i].str());
    }
  }
}

}  // namespace weft::compiler::graph
