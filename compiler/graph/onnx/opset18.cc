// See opset18.h.
#include "compiler/graph/onnx/opset18.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <vector>

#include "compiler/graph/onnx/onnx_model.h"
#include "compiler/graph/onnx/proto_helpers.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {
namespace {

// Operators that opset 18 introduced: no opset-17 form.
bool new_in_opset18(const std::string& op) {
  static const std::set<std::string> ops = {"BitwiseAnd", "BitwiseNot", "BitwiseOr",
                                            "BitwiseXor", "CenterCropPad", "Col2Im",
                                            "GroupNormalization", "Mish"};
  return ops.count(op) != 0;
}

// The Reduce operators whose `axes` became an input in opset 18 (ReduceSum's did in 13).
bool reduce_with_axes_input(const std::string& op) {
  static const std::set<std::string> ops = {"ReduceL1", "ReduceL2", "ReduceLogSum",
                                            "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                                            "ReduceMin", "ReduceProd", "ReduceSumSquare"};
  return ops.count(op) != 0;
}

void remove_attr(onnx::NodeProto* n, const std::string& name) {
  auto* attrs = n->mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i)
    if (attrs->Get(i).name() == name) {
      attrs->DeleteSubrange(i, 1);
      return;
    }
}

class Lowering {
 public:
  Lowering(onnx::GraphProto* g, const std::string& file) : g_(g), file_(file) {
    for (const auto& t : g->initializer()) constants_[t.name()] = &t;
    for (const auto& n : g->node()) {
      const onnx::AttributeProto* v = find_attr(n, "value");
      if (n.op_type() == "Constant" && v && v->has_t() && n.output_size() == 1)
        constants_[n.output(0)] = &v->t();
    }
  }

  void run() {
    for (int k = 0; k < g_->node_size(); ++k) {
      onnx::NodeProto* n = g_->mutable_node(k);
      if (!n->domain().empty() && n->domain() != "ai.onnx") continue;
      const std::string where =
          file_ + ": node '" + node_name(*n, k) + "' (" + n->op_type() + ")";
      lower(n, where);
    }
  }

 private:
  void lower(onnx::NodeProto* n, const std::string& where) {
    const std::string& op = n->op_type();
    if (new_in_opset18(op))
      throw UserError(where + ": operator " + op + " is new in opset 18 and not supported");
    if (reduce_with_axes_input(op)) {
      lower_reduce(n, where);
    } else if (op == "Split") {
      if (const onnx::AttributeProto* a = find_attr(*n, "num_outputs")) {
        if (a->i() != n->output_size())
          throw UserError(where + ": num_outputs " + std::to_string(a->i()) + " is not its " +
                          std::to_string(n->output_size()) + " outputs");
        remove_attr(n, "num_outputs");
      }
    } else if (op == "Pad") {
      if (n->input_size() > 3 && !n->input(3).empty())
        throw UserError(where + ": the axes input (opset 18) is not supported; give pads for "
                                "every axis");
    } else if (op == "Resize") {
      drop_default_int(n, where, "antialias", 0);
      drop_default_string(n, where, "keep_aspect_ratio_policy", "stretch");
      if (find_attr(*n, "axes")) throw UserError(where + ": attribute 'axes' is not supported");
    } else if (op == "LpPool") {
      drop_default_int(n, where, "ceil_mode", 0);
    } else if (op == "ScatterElements" || op == "ScatterND") {
      const onnx::AttributeProto* r = find_attr(*n, "reduction");
      if (r && (r->s() == "max" || r->s() == "min"))
        throw UserError(where + ": reduction '" + r->s() + "' is not supported");
    }
  }

  void lower_reduce(onnx::NodeProto* n, const std::string& where) {
    std::vector<int64_t> axes;
    const bool given = n->input_size() > 1 && !n->input(1).empty();
    if (given) {
      auto it = constants_.find(n->input(1));
      if (it == constants_.end())
        throw UserError(where + ": axes '" + n->input(1) + "' is computed; Weft needs constant "
                                "axes");
      const TensorData t = convert_tensor(*it->second, where + ": axes '" + n->input(1) + "'");
      if (t.type != ElemType::kInt64) throw UserError(where + ": axes must be int64");
      axes = t.to_int64();
    }
    const onnx::AttributeProto* noop = find_attr(*n, "noop_with_empty_axes");
    const bool is_noop = noop && noop->i() != 0 && axes.empty();
    if (n->input_size() > 1) n->mutable_input()->DeleteSubrange(1, n->input_size() - 1);
    remove_attr(n, "noop_with_empty_axes");
    if (is_noop) {  // reduces nothing: the input as it is
      n->set_op_type("Identity");
      n->clear_attribute();
      return;
    }
    if (!axes.empty()) {
      onnx::AttributeProto* a = n->add_attribute();
      a->set_name("axes");
      a->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : axes) a->add_ints(v);
    }
  }

  void drop_default_int(onnx::NodeProto* n, const std::string& where, const std::string& name,
                        int64_t default_value) {
    const onnx::AttributeProto* a = find_attr(*n, name);
    if (!a) return;
    if (a->i() != default_value)
      throw UserError(where + ": " + name + " " + std::to_string(a->i()) + " is not supported");
    remove_attr(n, name);
  }

  void drop_default_string(onnx::NodeProto* n, const std::string& where,
                           const std::string& name, const std::string& default_value) {
    const onnx::AttributeProto* a = find_attr(*n, name);
    if (!a) return;
    if (a->s() != default_value)
      throw UserError(where + ": " + name + " '" + a->s() + "' is not supported");
    remove_attr(n, name);
  }

  onnx::GraphProto* g_;
  const std::string& file_;
  std::map<std::string, const onnx::TensorProto*> constants_;
};

}  // namespace

void lower_opset18(onnx::ModelProto* proto, const std::string& file) {
  Lowering(proto->mutable_graph(), file).run();
  for (auto& o : *proto->mutable_opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") o.set_version(kLibraryOpset);
}

}  // namespace weft::compiler::onnx_import
