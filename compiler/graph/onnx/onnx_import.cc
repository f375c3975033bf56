// ONNX model to graph IR; see onnx_import.h.
#include "compiler/graph/onnx/onnx_import.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <memory>

#include "compiler/graph/infer.h"
#include "compiler/graph/onnx/contrib_ops.h"
#include "compiler/graph/onnx/fold_constants.h"
#include "compiler/graph/onnx/gelu_from_erf.h"
#include "compiler/graph/onnx/import_resize.h"
#include "compiler/graph/onnx/layer_norm_from_parts.h"
#include "compiler/graph/onnx/pad_into_conv.h"
#include "compiler/graph/onnx/slice_ranges.h"
#include "compiler/graph/verify.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {

using graph::Attr;
using graph::Attrs;
using graph::DType;
using graph::OpKind;
using graph::TensorType;
using graph::ValueId;

namespace {

// The attributes each operator may carry (others are rejected by name).
const std::map<std::string, std::set<std::string>>& allowed_attrs() {
  static const std::map<std::string, std::set<std::string>> a = {
      {"Conv", {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}},
      {"QLinearConv", {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}},
      {"BatchNormalization", {"epsilon", "momentum", "training_mode"}},
      {"Relu", {}},
      {"Clip", {}},
      {"MaxPool",
       {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"}},
      {"AveragePool",
       {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"}},
      {"GlobalAveragePool", {}},
      {"Add", {}},
      {"Flatten", {"axis"}},
      {"Reshape", {"allowzero"}},
      {"Gemm", {"alpha", "beta", "transA", "transB"}},
      {"MatMul", {}},
      {"Concat", {"axis"}},
      {"QuantizeLinear", {"axis"}},
      {"DequantizeLinear", {"axis"}},
      {"Identity", {}},
      {"Dropout", {"ratio", "seed"}},
      {"Sigmoid", {}},
      {"Tanh", {}},
      {"Erf", {}},
      {"Sqrt", {}},
      {"HardSigmoid", {"alpha", "beta"}},
      {"HardSwish", {}},
      {"Gelu", {"approximate"}},
      {"Mul", {}},
      {"Sub", {}},
      {"Div", {}},
      {"Pow", {}},
      {"Transpose", {"perm"}},
      {"Softmax", {"axis"}},
      {"ReduceMean", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"LayerNormalization", {"axis", "epsilon", "stash_type"}},
      {"Squeeze", {"axes"}},
      {"Unsqueeze", {"axes"}},
      {"Pad", {"mode"}},
      {"Split", {"axis", "split"}},
      {"Slice", {}},
      {"Gather", {"axis"}},
      {"Resize",
       {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
        "exclude_outside", "extrapolation_value", "antialias", "axes", "keep_aspect_ratio_policy"}},
  };
  return a;
}

class Importer {
 public:
  explicit Importer(Model& m) : m_(m) { out_.graph.set_name(graph_name(m.path)); }

  Imported run() {
    out_.opset = m_.opset;
    if (m_.outputs.empty())
      throw UserError(m_.path + " declares no graph outputs, so there is nothing to compute (a "
                      "truncated or corrupt file?)");
    for (const std::string& name : m_.inputs) add_graph_input(name);
    for (const Node& n : m_.nodes) import_node(n);
    for (const std::string& name : m_.outputs) out_.graph.add_output(value_of(name, nullptr));
    graph::verify(out_.graph, "onnx import");
    return std::move(out_);
  }

 private:
  static std::string graph_name(const std::string& path) {
    std::string s = path;
    if (!s.empty() && s.front() == '\'') s = s.substr(1, s.size() - 2);
    const size_t slash = s.find_last_of('/');
    if (slash != std::string::npos) s = s.substr(slash + 1);
    if (s.size() > 5 && s.substr(s.size() - 5) == ".onnx") s.resize(s.size() - 5);
    return s.empty() ? "model" : s;
  }

  [[noreturn]] void fail(const Node& n, const std::string& what) const {
    throw UserError(m_.path + ": " + n.where() + ": " + what);
  }

  // Element type of an ONNX tensor in the IR (uint8 is held as int8 - 128).
  DType dtype_of(ElemType t, const std::string& what, bool* is_u8) const {
    *is_u8 = t == ElemType::kUint8;
    switch (t) {
      case ElemType::kFloat32: return DType::F32;
      case ElemType::kInt8:
      case ElemType::kUint8: return DType::I8;
      case ElemType::kInt32:
      case ElemType::kInt64: return DType::I32;
      case ElemType::kBool: break;  // read only as a constant input (Dropout's training_mode)
    }
    throw UserError(m_.path + ": " + what + " has an unsupported element type");
  }

  void add_graph_input(const std::string& name) {
    auto it = m_.types.find(name);
    if (it == m_.types.end() || !it->second.has_shape)
      throw UserError(m_.path + ": graph input '" + name + "' has no shape");
    for (int64_t d : it->second.shape)
      if (d < 0)
        throw UserError(m_.path + ": graph input '" + name + "' has shape " +
                        shape_string(it->second.shape) +
                        " with an unknown dimension; Weft compiles fixed shapes (a symbolic "
                        "batch: run with --batch N; else fix the size in the model, e.g. with "
                        "onnx.tools.update_model_dims)");
    int64_t count = 0;
    if (!graph::count_elements(it->second.shape, &count))
      throw UserError(m_.path + ": graph input '" + name + "' has shape " +
                      shape_string(it->second.shape) + ", more than 2^40 elements");
    if (it->second.type == ElemType::kInt64)
      throw UserError(m_.path + ": graph input '" + name +
                      "' is int64; Weft takes float32, int8, uint8 or int32 inputs");
    bool u8 = false;
    const DType dt = dtype_of(it->second.type, "graph input '" + name + "'", &u8);
    const ValueId v = out_.graph.add_input(name, TensorType(dt, it->second.shape));
    if (u8) out_.uint8_values.insert(v);
    values_[name] = v;
  }

  ValueId add_constant(const std::string& name, const TensorData& t) {
    bool u8 = false;
    const DType dt = dtype_of(t.type, "constant '" + name + "'", &u8);
    TensorType type(dt, t.shape);
    std::shared_ptr<const graph::ConstData> data;
    const int64_t n = t.elements();
    if (t.type == ElemType::kFloat32) {
      // The bytes are already the stored layout (little-endian float32): shared, not copied (a
      // large weight's are a view of the mapped model file).
      auto d = std::make_shared<graph::ConstData>();
      d->bytes = t.bytes;
      data = std::move(d);
    } else if (dt == DType::I8) {
      std::vector<int8_t> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        v[i] = u8 ? static_cast<int8_t>(int(t.bytes[i]) - 128) : static_cast<int8_t>(t.bytes[i]);
      data = graph::ConstData::from_i8(v);
    } else {
      std::vector<int32_t> v(static_cast<size_t>(n));
      const std::vector<int64_t> wide = t.to_int64();
      for (int64_t i = 0; i < n; ++i) {
        if (wide[i] < std::numeric_limits<int32_t>::min() ||
            wide[i] > std::numeric_limits<int32_t>::max())
          throw UserError(m_.path + ": constant '" + name + "' holds " +
                          std::to_string(wide[i]) + ", outside int32 (Weft's integer type)");
        v[i] = static_cast<int32_t>(wide[i]);
      }
      data = graph::ConstData::from_i32(v);
    }
    const ValueId id = out_.graph.add_constant(name, type, data);
    if (u8) out_.uint8_values.insert(id);
    return id;
  }

  // The IR value of ONNX value `name` (constants are added on first use).
  ValueId value_of(const std::string& name, const Node* user) {
    if (auto p = pads_.find(name); p != pads_.end())
      throw UserError(m_.path + ": " + p->second.where + ": its output is read by " +
                      (user ? user->where() : std::string("a graph output")) +
                      "; Weft imports a Pad only folded into the Conv that reads it");
    auto it = values_.find(name);
    if (it != values_.end()) return it->second;
    auto c = m_.initializers.find(name);
    if (c != m_.initializers.end()) return values_[name] = add_constant(name, c->second);
    throw UserError(m_.path + ": " + (user ? user->where() + " reads" : "graph output") + " '" +
                    name + "', which nothing defines");
  }

  // Integer constant `name` (`t`) as a float32 constant, `name`.f32 (added on first use).
  ValueId float_copy(const std::string& name, const TensorData& t) {
    const std::string key = name + ".f32";
    auto it = values_.find(key);
    if (it != values_.end()) return it->second;
    std::vector<float> v;
    for (int64_t x : t.to_int64()) v.push_back(static_cast<float>(x));
    return values_[key] = out_.graph.add_constant(key, TensorType(DType::F32, t.shape),
                                                  graph::ConstData::from_f32(v));
  }

  bool is_constant(const std::string& name) const {
    return m_.initializers.count(name) && !values_.count(name);
  }
  const TensorData& constant(const Node& n, size_t i, const std::string& what) const {
    if (i >= n.inputs.size() || n.inputs[i].empty()) fail(n, what + " is missing");
    auto it = m_.initializers.find(n.inputs[i]);
    if (it == m_.initializers.end())
      fail(n, what + " ('" + n.inputs[i] + "') must be a constant (an initializer or a Constant "
                     "node); Weft compiles it ahead of time");
    return it->second;
  }

  static Attr to_attr(const Attribute& a) {
    switch (a.kind) {
      case Attribute::Kind::kInt: return a.i;
      case Attribute::Kind::kFloat: return a.f;
      case Attribute::Kind::kInts: return a.ints;
      case Attribute::Kind::kFloats: return a.floats;
      case Attribute::Kind::kString: return a.s;
      default: return int64_t(0);
    }
  }

  int64_t int_attr(const Node& n, const std::string& name, int64_t dflt) const {
    auto it = n.attrs.find(name);
    if (it == n.attrs.end()) return dflt;
    if (it->second.kind != Attribute::Kind::kInt) fail(n, "attribute '" + name + "' must be an integer");
    return it->second.i;
  }
  // A Conv's `group` (grouped and depthwise convolutions); infer.cc checks it against the
  // channels and the weight.
  int64_t conv_group(const Node& n) const {
    const int64_t g = int_attr(n, "group", 1);
    if (g < 1) fail(n, "attribute group=" + std::to_string(g) + " is not a positive count");
    return g;
  }
  std::vector<int64_t> ints_attr(const Node& n, const std::string& name,
                                 std::vector<int64_t> dflt) const {
    auto it = n.attrs.find(name);
    if (it == n.attrs.end()) return dflt;
    if (it->second.kind != Attribute::Kind::kInts)
      fail(n, "attribute '" + name + "' must be a list of integers");
    return it->second.ints;
  }

  // Conv/QLinearConv/MaxPool/AveragePool: 2D only; auto_pad to explicit pads.
  void normalise_window(const Node& n, Attrs& attrs, const std::vector<int64_t>& x,
                        std::vector<int64_t> kernel) {
    if (x.size() != 4)
      fail(n, "input of shape " + shape_string(x) +
                  " is not 2D (N, C, H, W); Weft imports 2D convolutions and pools only");
    if (kernel.size() != 2) fail(n, "kernel_shape " + shape_string(kernel) + " is not 2D");
    auto strides = ints_attr(n, "strides", {1, 1});
    auto dil = ints_attr(n, "dilations", {1, 1});
    auto pads = ints_attr(n, "pads", {0, 0, 0, 0});
    if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
      fail(n, "strides, dilations and pads must be 2D (2, 2 and 4 values)");
    for (int64_t v : strides)
      if (v < 1) fail(n, "strides " + shape_string(strides) + " must be positive");
    for (int64_t v : dil)
      if (v < 1) fail(n, "dilations " + shape_string(dil) + " must be positive");
    for (int64_t v : pads)
      if (v < 0) fail(n, "pads " + shape_string(pads) + " must not be negative");
    std::string ap = "NOTSET";
    if (auto it = n.attrs.find("auto_pad"); it != n.attrs.end()) ap = it->second.s;
    if (ap == "VALID") {
      pads = {0, 0, 0, 0};
    } else if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      if (int_attr(n, "ceil_mode", 0)) fail(n, "auto_pad " + ap + " with ceil_mode is not supported");
      for (int d = 0; d < 2; ++d) {
        const int64_t in = x[2 + d], s = strides[d];
        const int64_t out = (in + s - 1) / s;
        const int64_t total =
            std::max<int64_t>(0, (out - 1) * s + (kernel[d] - 1) * dil[d] + 1 - in);
        const int64_t small = total / 2, big = total - small;
        pads[d] = ap == "SAME_UPPER" ? small : big;
        pads[d + 2] = ap == "SAME_UPPER" ? big : small;
      }
    } else if (ap != "NOTSET") {
      fail(n, "auto_pad '" + ap + "' is not an ONNX value");
    }
    attrs["auto_pad"] = std::string("NOTSET");
    attrs["strides"] = strides;
    attrs["dilations"] = dil;
    attrs["pads"] = pads;
    attrs["kernel_shape"] = kernel;
  }

  // Identity, and Dropout at inference, output their input unchanged: the output's name
  // becomes another name for the input's value, and no node is added.
  void import_pass_through(const Node& n) {
    if (n.inputs.empty() || n.inputs[0].empty()) fail(n, "has no inputs");
    if (n.op == "Dropout") {
      // A mask that nothing reads (torch writes one on Swin's attention dropout) is dropped.
      const auto reads_mask = [&](const Node& o) {
        return std::find(o.inputs.begin(), o.inputs.end(), n.outputs[1]) != o.inputs.end();
      };
      if (n.outputs.size() > 1 && !n.outputs[1].empty() &&
          (std::find(m_.outputs.begin(), m_.outputs.end(), n.outputs[1]) != m_.outputs.end() ||
           std::any_of(m_.nodes.begin(), m_.nodes.end(), reads_mask)))
        fail(n, "the mask output is not supported (Weft imports Dropout for inference, where "
                "it passes its input through)");
      // Training mode with a ratio of 0 (Swin's attention dropout, exported with training=True
      // and p=0) drops nothing and scales by 1: the identity too.
      const bool no_drop = n.inputs.size() > 1 && !n.inputs[1].empty() &&
                           is_constant(n.inputs[1]) &&
                           constant(n, 1, "ratio").to_double() == std::vector<double>{0.0};
      if (n.inputs.size() > 2 && !n.inputs[2].empty() && !no_drop) {
        for (int64_t on : constant(n, 2, "training_mode").to_int64())
          if (on) fail(n, "training_mode=true is not supported (inference only)");
      }
    }
    values_[n.outputs.at(0)] = value_of(n.inputs[0], &n);
  }

  const std::vector<int64_t>& shape_of(ValueId v) const { return out_.graph.value(v).type.shape; }

  // The axes of Squeeze / Unsqueeze / ReduceMean as given: the attribute (opsets before 13,
  // ReduceMean's before 18) or the constant input 1; `given` says whether there were any.
  std::vector<int64_t> raw_axes(const Node& n, bool* given) const {
    *given = true;
    if (n.attrs.count("axes")) return ints_attr(n, "axes", {});
    if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
      const TensorData& t = constant(n, 1, "axes");
      if (t.type != ElemType::kInt64) fail(n, "axes must be int64");
      return t.to_int64();
    }
    *given = false;
    return {};
  }

  // `axes` made non-negative against `rank` and sorted; out of range or repeated is a named
  // error.
  std::vector<int64_t> normal_axes(const Node& n, std::vector<int64_t> axes, int64_t rank) const {
    std::set<int64_t> seen;
    for (int64_t& a : axes) {
      const int64_t orig = a;
      if (a < 0) a += rank;
      if (a < 0 || a >= rank)
        fail(n, "axis " + std::to_string(orig) + " is outside -" + std::to_string(rank) + ".." +
                    std::to_string(rank - 1));
      if (!seen.insert(a).second) fail(n, "axis " + std::to_string(orig) + " is repeated");
    }
    std::sort(axes.begin(), axes.end());
    return axes;
  }

  // Squeeze and Unsqueeze only change the shape: each becomes a Reshape to the shape they give.
  void import_squeeze(const Node& n) {
    if (n.inputs.empty() || n.inputs[0].empty()) fail(n, "has no inputs");
    const ValueId x = value_of(n.inputs[0], &n);
    const std::vector<int64_t> xs = shape_of(x);
    const int64_t rank = static_cast<int64_t>(xs.size());
    std::vector<int64_t> shape;
    bool given = false;
    if (n.op == "Unsqueeze") {
      std::vector<int64_t> axes = raw_axes(n, &given);
      if (!given) fail(n, "axes are missing");
      const int64_t out_rank = rank + static_cast<int64_t>(axes.size());
      axes = normal_axes(n, axes, out_rank);
      size_t next = 0, k = 0;
      for (int64_t d = 0; d < out_rank; ++d) {
        if (k < axes.size() && axes[k] == d) {
          shape.push_back(1);
          ++k;
        } else {
          shape.push_back(xs[next++]);
        }
      }
    } else {
      const std::vector<int64_t> axes = normal_axes(n, raw_axes(n, &given), rank);
      for (int64_t d = 0; d < rank; ++d) {
        const bool listed = std::binary_search(axes.begin(), axes.end(), d);
        if (listed && xs[static_cast<size_t>(d)] != 1)
          fail(n, "axis " + std::to_string(d) + " of " + shape_string(xs) +
                      " is not 1 and cannot be squeezed");
        if (!(listed || (!given && xs[static_cast<size_t>(d)] == 1))) shape.push_back(xs[d]);
      }
    }
    std::vector<int32_t> d32(shape.begin(), shape.end());
    const ValueId sv = out_.graph.add_constant(
        n.outputs.at(0) + ".shape", TensorType(DType::I32, {int64_t(shape.size())}),
        graph::ConstData::from_i32(d32));
    add_imported(n, OpKind::Reshape, {x, sv}, {}, out_.uint8_values.count(x) != 0);
  }

  // Split: one Slice node per used output ('split' sizes as the attribute, opsets 11-12, or
  // the constant input 1, 13+; equal parts when absent).
  void import_split(const Node& n) {
    if (n.inputs.empty() || n.inputs[0].empty()) fail(n, "has no inputs");
    const ValueId x = value_of(n.inputs[0], &n);
    const std::vector<int64_t> xs = shape_of(x);
    const int64_t given = int_attr(n, "axis", 0), rank = static_cast<int64_t>(xs.size());
    const int64_t axis = given < 0 ? given + rank : given;
    if (axis < 0 || axis >= rank)
      fail(n, "axis " + std::to_string(given) + " is outside the " + std::to_string(rank) +
                  " axes of " + shape_string(xs));
    const int64_t dim = xs[static_cast<size_t>(axis)];
    const int64_t parts = static_cast<int64_t>(n.outputs.size());
    std::vector<int64_t> sizes = ints_attr(n, "split", {});
    if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
      const TensorData& t = constant(n, 1, "split");
      if (t.type != ElemType::kInt64) fail(n, "split must be int64");
      sizes = t.to_int64();
    }
    if (sizes.empty()) {
      if (dim % parts)
        fail(n, "axis " + std::to_string(axis) + " of " + shape_string(xs) + " does not split into " +
                    std::to_string(parts) + " equal parts");
      sizes.assign(static_cast<size_t>(parts), dim / parts);
    }
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 1) fail(n, "split " + shape_string(sizes) + " has a size below 1");
      total += s;
    }
    if (static_cast<int64_t>(sizes.size()) != parts || total != dim)
      fail(n, "split " + shape_string(sizes) + " does not divide axis " + std::to_string(axis) +
                  " of " + shape_string(xs) + " into the node's " + std::to_string(parts) +
                  " outputs");
    int64_t start = 0;
    for (size_t o = 0; o < sizes.size(); start += sizes[o], ++o) {
      if (n.outputs[o].empty()) continue;
      Attrs a;
      a["axis"] = axis;
      a["start"] = start;
      a["end"] = start + sizes[o];
      add_imported(n, OpKind::Slice, {x}, a, false, o);
    }
  }

  // Slice and Gather of a computed tensor (constant ones were folded): a graph Slice per axis
  // cut, chained; Gather's axis then dropped by a Reshape.
  void import_slice_or_gather(const Node& n) {
    if (n.inputs.empty() || n.inputs[0].empty()) fail(n, "has no inputs");
    const ValueId x = value_of(n.inputs[0], &n);
    const std::vector<int64_t> xs = shape_of(x);
    std::vector<AxisRange> cuts(1);
    std::string why;
    if (n.op == "Gather") {
      why = gather_range(xs, int_attr(n, "axis", 0), constant(n, 1, "indices").to_int64(), &cuts[0]);
    } else {
      auto ints = [&](size_t i, const char* what) {
        return i < n.inputs.size() && !n.inputs[i].empty() ? constant(n, i, what).to_int64()
                                                            : std::vector<int64_t>{};
      };
      if (n.inputs.size() < 3) fail(n, "starts and ends are missing (opset 10+ inputs)");
      why = slice_ranges(xs, ints(1, "starts"), ints(2, "ends"), ints(3, "axes"), ints(4, "steps"),
                         &cuts);
    }
    if (!why.empty()) fail(n, why);
    const bool drop = n.op == "Gather" && constant(n, 1, "indices").shape.empty();
    if (cuts.empty()) {  // the whole tensor
      values_[n.outputs.at(0)] = x;
      return;
    }
    ValueId v = x;
    for (size_t i = 0; i < cuts.size(); ++i) {
      Attrs a;
      a["axis"] = cuts[i].axis;
      a["start"] = cuts[i].start;
      a["end"] = cuts[i].end;
      if (cuts[i].step != 1) a["step"] = cuts[i].step;
      if (i + 1 == cuts.size() && !drop) return add_imported(n, OpKind::Slice, {v}, a, false);
      try {
        v = out_.graph.add_op(OpKind::Slice, n.name + ".axis" + std::to_string(cuts[i].axis), {v}, a);
      } catch (const UserError& e) {
        throw UserError(m_.path + ": " + e.what());
      }
    }
    // A scalar index removes its axis.
    std::vector<int32_t> d32;
    for (size_t d = 0; d < xs.size(); ++d)
      if (static_cast<int64_t>(d) != cuts[0].axis) d32.push_back(static_cast<int32_t>(xs[d]));
    const ValueId sv = out_.graph.add_constant(
        n.outputs.at(0) + ".shape", TensorType(DType::I32, {int64_t(d32.size())}),
        graph::ConstData::from_i32(d32));
    add_imported(n, OpKind::Reshape, {v, sv}, {}, false);
  }

  void import_node(const Node& n) {
    // A node whose inputs became constant only now (a Shape of a value whose shape ONNX's
    // inference left unknown, and what depends on it): folded, as fold_constants would have.
    const bool graph_output =
        std::find(m_.outputs.begin(), m_.outputs.end(), n.outputs.empty() ? "" : n.outputs[0]) !=
        m_.outputs.end();
    if (fold_node(&m_, n, [&](const std::string& name, std::vector<int64_t>* shape) {
          auto it = values_.find(name);
          if (it == values_.end()) return false;
          *shape = out_.graph.value(it->second).type.shape;
          return true;
        }, !graph_output))
      return;
    std::vector<Node> as_onnx;
    if (contrib_as_onnx(n, &as_onnx)) {
      for (const Node& o : as_onnx) import_node(o);
      return;
    }
    if (!n.domain.empty())
      fail(n, "operator domain '" + n.domain + "' is not supported (only the default ONNX "
                                               "domain)");
    const auto& table = allowed_attrs();
    auto spec = table.find(n.op);
    if (spec == table.end()) {
      const auto& fold = foldable_operators();
      if (std::find(fold.begin(), fold.end(), n.op) != fold.end())
        fail(n, "operator " + n.op + " is imported only on constant inputs (it is folded at "
                "import; for Shape, an input whose shape is static), and an input here is "
                "computed");
      std::string ops;
      for (const auto& s : supported_operators()) ops += (ops.empty() ? "" : ", ") + s;
      fail(n, "operator " + n.op + " is not supported (Weft imports " + ops + ")");
    }
    for (const auto& [name, a] : n.attrs) {
      if (!spec->second.count(name)) fail(n, "attribute '" + name + "' is not supported");
      if (a.kind == Attribute::Kind::kOther || a.kind == Attribute::Kind::kTensor)
        fail(n, "attribute '" + name + "' has an unsupported kind");
    }
    if (n.op == "Identity" || n.op == "Dropout") return import_pass_through(n);
    if (n.op == "Squeeze" || n.op == "Unsqueeze") return import_squeeze(n);
    if (n.op == "Split") return import_split(n);
    if (n.op == "Slice" || n.op == "Gather") return import_slice_or_gather(n);
    if (n.op == "Resize") {  // import_resize.h
      if (n.inputs.empty() || n.inputs[0].empty()) fail(n, "has no inputs");
      const ValueId x = value_of(n.inputs[0], &n);
      return add_imported(n, OpKind::Resize, {x}, resize_attrs(m_, n, shape_of(x)), false);
    }
    if (n.op == "Pad") {
      if (n.inputs.empty() || n.inputs[0].empty()) fail(n, "has no inputs");
      const ValueId x = value_of(n.inputs[0], &n);
      const std::vector<int64_t> pads = pad_as_conv_pads(m_, n, shape_of(x));
      if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) {
        values_[n.outputs.at(0)] = x;  // pads of 0 (torch writes them before an AveragePool)
        return;
      }
      pads_[n.outputs.at(0)] = {n.inputs[0], pads, n.where()};
      return;
    }
    if (n.op == "Conv" && !n.inputs.empty() && pads_.count(n.inputs[0])) {
      // The Conv reads a zero Pad: read the Pad's input and add its pads to the Conv's own.
      const PendingPad& p = pads_.at(n.inputs[0]);
      Node conv = n;
      conv.inputs[0] = p.input;
      Attribute& pads = conv.attrs["pads"];
      if (pads.kind != Attribute::Kind::kInts) {
        pads.kind = Attribute::Kind::kInts;
        pads.ints.assign(4, 0);
      }
      if (int_attr_string(n, "auto_pad") != "NOTSET" || pads.ints.size() != 4)
        fail(n, "reads " + p.where + " and has auto_pad or pads that are not 2D; only explicit "
                "2D pads combine with a Pad");
      for (size_t k = 0; k < 4; ++k) {
        const int64_t own = pads.ints[k];
        if (__builtin_add_overflow(own, p.pads[k], &pads.ints[k]))
          fail(n, "pad " + std::to_string(own) + " plus the " + std::to_string(p.pads[k]) +
                      " of " + p.where + " overflows 64 bits");
      }
      return import_node(conv);
    }
    graph::OpKind kind;
    if (!graph::op_from_name(n.op, &kind)) fail(n, "operator " + n.op + " has no graph IR kind");

    Attrs attrs;
    for (const auto& [name, a] : n.attrs) attrs[name] = to_attr(a);
    std::vector<ValueId> ins;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const std::string& in = n.inputs[i];
      auto c = m_.initializers.find(in);
      if (kind == OpKind::Pow && i == 1 && c != m_.initializers.end() &&
          c->second.type != ElemType::kFloat32 && c->second.type != ElemType::kBool) {
        ins.push_back(float_copy(in, c->second));  // ONNX allows an integer exponent
        continue;
      }
      ins.push_back(in.empty() ? graph::kNone : value_of(in, &n));
    }
    while (!ins.empty() && ins.back() == graph::kNone) ins.pop_back();
    // An omitted input before a given one: only Clip's min may be left out that way.
    for (size_t i = 0; i < ins.size(); ++i)
      if (ins[i] == graph::kNone && !(kind == OpKind::Clip && i == 1))
        fail(n, "input " + std::to_string(i) + " is missing (an empty name) but input " +
                    std::to_string(ins.size() - 1) + " is given");
    const int outputs_used = [&] {
      int k = 0;
      for (size_t i = 0; i < n.outputs.size(); ++i)
        if (!n.outputs[i].empty()) k = static_cast<int>(i) + 1;
      return k;
    }();
    if (outputs_used > 1 && kind != OpKind::LayerNormalization)
      fail(n, "only the first output is supported (the node has " +
                                  std::to_string(outputs_used) + ")");
    if (ins.empty()) fail(n, "has no inputs");
    const TensorType& x = out_.graph.value(ins[0]).type;
    auto want_f32 = [&](ValueId v, const std::string& what) {
      if (out_.graph.value(v).type.dtype != DType::F32)
        fail(n, what + " is " + graph::dtype_name(out_.graph.value(v).type.dtype) +
                    "; this operator is imported for float32 only");
    };
    bool out_u8 = false;

    switch (kind) {
      case OpKind::Conv: {
        for (size_t i = 0; i < ins.size(); ++i) want_f32(ins[i], "input " + std::to_string(i));
        const auto& w = shape_of(ins.at(1));
        if (w.size() != 4) fail(n, "weight of shape " + shape_string(w) + " is not 2D (OIHW)");
        normalise_window(n, attrs, x.shape, ints_attr(n, "kernel_shape", {w[2], w[3]}));
        attrs["group"] = conv_group(n);
        if (std::get<std::vector<int64_t>>(attrs["dilations"]) != std::vector<int64_t>{1, 1})
          fail(n, "dilations other than 1 are not supported");
        break;
      }
      case OpKind::QLinearConv: {
        if (ins.size() < 8) fail(n, "needs 8 or 9 inputs");
        for (size_t i : {1, 2, 4, 5, 6, 7}) constant(n, i, "input " + std::to_string(i));
        const auto& w = shape_of(ins.at(3));
        if (w.size() != 4) fail(n, "weight of shape " + shape_string(w) + " is not 2D (OIHW)");
        normalise_window(n, attrs, x.shape, ints_attr(n, "kernel_shape", {w[2], w[3]}));
        attrs["group"] = conv_group(n);
        if (std::get<std::vector<int64_t>>(attrs["dilations"]) != std::vector<int64_t>{1, 1})
          fail(n, "dilations other than 1 are not supported");
        out_u8 = constant(n, 7, "y_zero_point").type == ElemType::kUint8;
        break;
      }
      case OpKind::MaxPool:
      case OpKind::AveragePool: {
        if (kind == OpKind::AveragePool) want_f32(ins[0], "the input");
        if (int_attr(n, "storage_order", 0) != 0)
          fail(n, "storage_order=1 is not supported");
        auto it = n.attrs.find("kernel_shape");
        if (it == n.attrs.end()) fail(n, "attribute 'kernel_shape' is missing");
        normalise_window(n, attrs, x.shape, it->second.ints);
        attrs["ceil_mode"] = int_attr(n, "ceil_mode", 0);
        if (kind == OpKind::AveragePool)
          attrs["count_include_pad"] = int_attr(n, "count_include_pad", 0);
        out_u8 = out_.uint8_values.count(ins[0]) != 0;
        break;
      }
      case OpKind::BatchNormalization:
        for (size_t i = 0; i < ins.size(); ++i) want_f32(ins[i], "input " + std::to_string(i));
        if (int_attr(n, "training_mode", 0) != 0)
          fail(n, "training_mode=1 is not supported (inference only)");
        attrs.erase("momentum");
        attrs.erase("training_mode");
        if (!attrs.count("epsilon")) attrs["epsilon"] = 1e-5;
        break;
      case OpKind::Relu:
      case OpKind::GlobalAveragePool:
      case OpKind::Gemm:
      case OpKind::MatMul:
        for (size_t i = 0; i < ins.size(); ++i) want_f32(ins[i], "input " + std::to_string(i));
        if (kind == OpKind::Gemm) {
          if (!attrs.count("alpha")) attrs["alpha"] = 1.0;
          if (!attrs.count("beta")) attrs["beta"] = 1.0;
          if (!attrs.count("transA")) attrs["transA"] = int64_t(0);
          if (!attrs.count("transB")) attrs["transB"] = int64_t(0);
        }
        if (kind == OpKind::GlobalAveragePool && x.rank() != 4)
          fail(n, "input of shape " + shape_string(x.shape) + " is not 2D (N, C, H, W)");
        break;
      case OpKind::Sigmoid:
      case OpKind::Tanh:
      case OpKind::Erf:
      case OpKind::Sqrt:
      case OpKind::HardSwish:
        want_f32(ins[0], "the input");
        break;
      case OpKind::Gelu: {
        want_f32(ins[0], "the input");
        const auto it = n.attrs.find("approximate");
        const std::string a = it == n.attrs.end() ? "none" : it->second.s;
        if (a != "none" && a != "tanh")
          fail(n, "attribute approximate='" + a + "' is not 'none' or 'tanh'");
        attrs["approximate"] = a;
        break;
      }
      case OpKind::HardSigmoid:
        want_f32(ins[0], "the input");
        for (const char* a : {"alpha", "beta"}) {
          auto it = n.attrs.find(a);
          if (it != n.attrs.end() && it->second.kind != Attribute::Kind::kFloat)
            fail(n, std::string("attribute '") + a + "' must be a float");
        }
        if (!attrs.count("alpha")) attrs["alpha"] = 0.2;
        if (!attrs.count("beta")) attrs["beta"] = 0.5;
        break;
      case OpKind::Pow:
      case OpKind::Add:
      case OpKind::Sub:
      case OpKind::Mul:
      case OpKind::Div:
        for (size_t i = 0; i < ins.size(); ++i) want_f32(ins[i], "input " + std::to_string(i));
        break;
      case OpKind::Transpose: {
        want_f32(ins[0], "the input");
        std::vector<int64_t> perm;
        for (int64_t d = x.rank(); d-- > 0;) perm.push_back(d);  // ONNX's default: reversed
        attrs["perm"] = ints_attr(n, "perm", perm);
        break;
      }
      case OpKind::Softmax: {
        want_f32(ins[0], "the input");
        const int64_t given = int_attr(n, "axis", m_.opset >= 13 ? -1 : 1);
        const int64_t axis = given < 0 ? given + x.rank() : given;
        if (axis < 0 || axis >= x.rank())
          fail(n, "axis " + std::to_string(given) + " is outside the " +
                      std::to_string(x.rank()) + " axes of " + shape_string(x.shape));
        if (m_.opset < 13 && axis != x.rank() - 1)
          fail(n, "opset " + std::to_string(m_.opset) + " Softmax over axes " +
                      std::to_string(axis) + ".." + std::to_string(x.rank() - 1) +
                      " (flattened) is not supported; only over the last axis (or re-export at "
                      "opset 13)");
        attrs["axis"] = axis;
        break;
      }
      case OpKind::ReduceMean: {
        want_f32(ins[0], "the input");
        bool given = false;
        std::vector<int64_t> axes = normal_axes(n, raw_axes(n, &given), x.rank());
        ins.resize(1);  // opset 18's axes input is now an attribute
        if (!given || axes.empty()) {
          if (int_attr(n, "noop_with_empty_axes", 0)) {
            values_[n.outputs.at(0)] = ins[0];  // reduces nothing
            return;
          }
          axes.clear();
          for (int64_t d = 0; d < x.rank(); ++d) axes.push_back(d);
        }
        attrs.erase("noop_with_empty_axes");
        attrs["axes"] = axes;
        attrs["keepdims"] = int_attr(n, "keepdims", 1) != 0 ? int64_t(1) : int64_t(0);
        break;
      }
      case OpKind::LayerNormalization: {
        for (size_t i = 0; i < ins.size(); ++i) want_f32(ins[i], "input " + std::to_string(i));
        const int64_t given = int_attr(n, "axis", -1);
        const int64_t axis = given < 0 ? given + x.rank() : given;
        if (axis < 0 || axis >= x.rank())
          fail(n, "axis " + std::to_string(given) + " is outside the " +
                      std::to_string(x.rank()) + " axes of " + shape_string(x.shape));
        if (int_attr(n, "stash_type", 1) != 1)
          fail(n, "stash_type " + std::to_string(int_attr(n, "stash_type", 1)) +
                      " is not supported (float32 statistics, 1)");
        attrs.erase("stash_type");
        attrs["axis"] = axis;
        if (!attrs.count("epsilon")) attrs["epsilon"] = 1e-5;
        // Mean and InvStdDev, where used, are nodes of their own ('output' 1 and 2).
        for (size_t o = 1; o < n.outputs.size() && o < 3; ++o) {
          if (n.outputs[o].empty()) continue;
          Attrs stat = attrs;
          stat["output"] = static_cast<int64_t>(o);
          add_imported(n, kind, ins, stat, false, o);
        }
        if (n.outputs[0].empty()) return;
        break;
      }
      case OpKind::Clip:
        for (size_t i = 1; i < ins.size(); ++i) {
          if (ins[i] == graph::kNone) continue;
          const TensorData& b = constant(n, i, i == 1 ? "min" : "max");
          if (b.elements() != 1) fail(n, "min and max must be scalars");
        }
        if (x.dtype == DType::I32) fail(n, "int32 Clip is not supported");
        out_u8 = out_.uint8_values.count(ins[0]) != 0;
        if (out_u8) fail(n, "uint8 Clip is not supported");
        break;
      case OpKind::Flatten:
      case OpKind::Concat:
        out_u8 = out_.uint8_values.count(ins[0]) != 0;
        if (kind == OpKind::Concat && !attrs.count("axis")) fail(n, "attribute 'axis' is missing");
        break;
      case OpKind::Reshape: {
        const TensorData& s = constant(n, 1, "the shape");
        if (s.type != ElemType::kInt64) fail(n, "the shape must be int64");
        out_u8 = out_.uint8_values.count(ins[0]) != 0;
        break;
      }
      case OpKind::QuantizeLinear:
      case OpKind::DequantizeLinear: {
        const TensorData& s = constant(n, 1, "the scale");
        if (s.type != ElemType::kFloat32) fail(n, "the scale must be float32");
        for (double v : s.to_double())
          if (!(v > 0)) fail(n, "scale " + std::to_string(v) + " is not positive");
        if (ins.size() > 2) {
          const TensorData& z = constant(n, 2, "the zero point");
          if (s.elements() != z.elements()) fail(n, "scale and zero point differ in size");
          if (kind == OpKind::QuantizeLinear && z.type != ElemType::kInt8 &&
              z.type != ElemType::kUint8)
            fail(n, std::string("a ") + elem_type_name(z.type) +
                        " zero point is not supported (int8 or uint8)");
        }
        if (s.elements() > 1) {
          int64_t axis = int_attr(n, "axis", 1);
          if (axis < 0) axis += x.rank();
          if (axis < 0 || axis >= x.rank() || x.shape[axis] != s.elements())
            fail(n, "a per-axis scale of " + std::to_string(s.elements()) +
                        " values does not match axis " + std::to_string(int_attr(n, "axis", 1)) +
                        " of " + shape_string(x.shape));
          attrs["axis"] = axis;
        }
        if (kind == OpKind::QuantizeLinear) {
          want_f32(ins[0], "the input");
          if (ins.size() < 3) {
            // ONNX's default output type is uint8 with zero point 0: int8 with zero point -128.
            TensorData z;
            z.type = ElemType::kUint8;
            if (s.elements() != 1) z.shape = s.shape;  // one zero point per scale, none for none
            z.bytes.assign(static_cast<size_t>(z.elements()), 0);
            ins.push_back(add_constant(n.name + ".zero_point", z));
            out_u8 = true;
          } else {
            out_u8 = constant(n, 2, "the zero point").type == ElemType::kUint8;
          }
        } else if (x.dtype == DType::F32) {
          fail(n, "the input must be an integer tensor");
        }
        break;
      }
      default:
        fail(n, "operator " + n.op + " is not an ONNX operator Weft imports");
    }

    add_imported(n, kind, ins, attrs, out_u8);
  }

  // Adds node `n` as `kind` with its output types inferred (and checked against ONNX's shape
  // inference), and names its first output.
  void add_imported(const Node& n, OpKind kind, const std::vector<ValueId>& ins,
                    const Attrs& attrs, bool out_u8, size_t out = 0) {
    graph::Node probe;
    probe.kind = kind;
    probe.name = out ? n.name + "." + std::to_string(out) : n.name;
    probe.inputs = ins;
    probe.attrs = attrs;
    std::vector<TensorType> types;
    try {
      types = graph::infer_output_types(out_.graph, probe);
    } catch (const UserError& e) {
      throw UserError(m_.path + ": " + e.what());
    }
    // ONNX's shape inference and Weft's must agree.
    auto it = m_.types.find(n.outputs[out]);
    if (it != m_.types.end() && it->second.has_shape) {
      bool same = it->second.shape.size() == types[0].shape.size();
      for (size_t d = 0; same && d < types[0].shape.size(); ++d)
        same = it->second.shape[d] < 0 || it->second.shape[d] == types[0].shape[d];
      if (!same)
        fail(n, "Weft infers the output shape " + shape_string(types[0].shape) +
                    " but ONNX's shape inference gives " + shape_string(it->second.shape));
    }
    const graph::NodeId id =
        out_.graph.add_node(kind, probe.name, ins, attrs, types, {n.outputs[out]});
    const ValueId v = out_.graph.node(id).outputs.at(0);
    if (out_u8) out_.uint8_values.insert(v);
    values_[n.outputs[out]] = v;
  }

  // "NOTSET" when the string attribute `name` is absent.
  static std::string int_attr_string(const Node& n, const std::string& name) {
    auto it = n.attrs.find(name);
    return it == n.attrs.end() ? "NOTSET" : it->second.s;
  }

  // A zero Pad waiting for the Conv that reads it (the Pad adds no node).
  struct PendingPad {
    std::string input;          // the Pad's input
    std::vector<int64_t> pads;  // [top, left, bottom, right]
    std::string where;          // the Pad node, for messages
  };

  Model& m_;  // fold_node adds the initializers it folds
  Imported out_;
  std::map<std::string, ValueId> values_;
  std::map<std::string, PendingPad> pads_;
};

}  // namespace

const std::vector<std::string>& supported_operators() {
  static const std::vector<std::string> ops = {
      "Conv",    "BatchNormalization", "Relu",    "Clip",          "MaxPool",
      "AveragePool", "GlobalAveragePool", "Add", "Flatten",       "Reshape",
      "Gemm",    "MatMul",             "Concat",  "QuantizeLinear", "DequantizeLinear",
      "QLinearConv", "Identity", "Dropout", "Sigmoid", "Tanh", "Erf", "Sqrt", "HardSigmoid",
      "HardSwish", "Gelu", "Mul", "Sub", "Div", "Pow", "Transpose", "Softmax", "ReduceMean",
      "LayerNormalization", "Squeeze", "Unsqueeze", "Pad", "Split", "Slice", "Gather", "Resize"};
  return ops;
}

Imported import_model(Model model) {
  fold_constants(&model);
  Imported imp = Importer(model).run();
  gelu_from_erf(imp.graph);
  layer_norm_from_parts(imp.graph);
  return imp;
}

Imported import_onnx(const std::string& path, const LoadOptions& options) {
  return import_model(load_model(path, options));
}

}  // namespace weft::compiler::onnx_import
