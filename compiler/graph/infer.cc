// Type inference, one case per operator kind.
#include "compiler/graph/infer.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "compiler/graph/resize.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

namespace {

[[noreturn]] void fail(const Node& n, const std::string& what) {
  throw UserError(std::string("node '") + n.name + "' (" + op_name(n.kind) + "): " + what);
}

const TensorType& in_type(const Graph& g, const Node& n, size_t i) {
  if (i >= n.inputs.size() || n.inputs[i] == kNone) fail(n, "input " + std::to_string(i) + " is missing");
  return g.value(n.inputs[i]).type;
}

bool has_input(const Node& n, size_t i) { return i < n.inputs.size() && n.inputs[i] != kNone; }

void want_rank(const Node& n, const TensorType& t, int64_t r, const char* what) {
  if (t.rank() != r)
    fail(n, std::string(what) + " must have rank " + std::to_string(r) + ", not " +
                shape_str(t.shape));
}

QuantParams out_quant(const Node& n) {
  QuantParams q;
  if (n.has("out_scale")) q.scale = {static_cast<float>(n.get_float("out_scale", 1.0))};
  return q;
}

// Conv-like spatial output: X [N,C,H,W], kernel kh x kw.
std::vector<int64_t> conv_shape(const Node& n, const std::vector<int64_t>& x, int64_t oc,
                                int64_t kh, int64_t kw) {
  auto strides = n.get_ints("strides", {1, 1});
  auto pads = n.get_ints("pads", {0, 0, 0, 0});
  auto dil = n.get_ints("dilations", {1, 1});
  if (strides.size() != 2 || pads.size() != 4 || dil.size() != 2)
    fail(n, "only 2D windows are supported (strides, dilations of 2 and pads of 4 values)");
  // Bounded before any arithmetic: a model file may hold any int64 (fuzz_onnx: a pad of
  // 2^63 - 1 overflowed the output size). No network has a window attribute near the bound.
  auto within = [&](const char* what, const std::vector<int64_t>& v, int64_t lo) {
    for (int64_t e : v)
      if (e < lo || e > kMaxWindowAttribute)
        fail(n, std::string(what) + " " + shape_str(v) + " must lie in " + std::to_string(lo) +
                    ".." + std::to_string(kMaxWindowAttribute));
  };
  within("strides", strides, 1);
  within("dilations", dil, 1);
  within("pads", pads, 0);
  within("the kernel", {kh, kw}, 1);
  std::string ap = n.get_string("auto_pad", "NOTSET");
  if (ap != "NOTSET" && ap != "VALID")
    fail(n, "auto_pad '" + ap + "' is not supported (give explicit pads)");
  bool ceil_mode = n.get_int("ceil_mode", 0) != 0;
  int64_t oh = window_out(x[2], kh, strides[0], pads[0], pads[2], dil[0], ceil_mode);
  int64_t ow = window_out(x[3], kw, strides[1], pads[1], pads[3], dil[1], ceil_mode);
  if (oh <= 0 || ow <= 0) fail(n, "the window is larger than the padded input " + shape_str(x));
  return {x[0], oc, oh, ow};
}

std::vector<int64_t> broadcast(const Node& n, const std::vector<int64_t>& a,
                               const std::vector<int64_t>& b) {
  size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(n, "shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

void want_f32(const Node& n, const TensorType& t) {
  if (t.dtype != DType::F32)
    fail(n, std::string("an input is ") + dtype_name(t.dtype) + "; the operator takes f32");
}

// `axis` must be a dimension of a rank-`rank` tensor (the importer has made it non-negative).
void want_axis(const Node& n, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    fail(n, "axis " + std::to_string(axis) + " is outside 0.." + std::to_string(rank - 1));
}

}  // namespace

int64_t window_out(int64_t in, int64_t k, int64_t stride, int64_t pad_a, int64_t pad_b,
                   int64_t dilation, bool ceil_mode) {
  // In 128 bits: `in` is a shape's dimension, which may be large.
  const __int128 span = static_cast<__int128>(in) + pad_a + pad_b -
                        static_cast<__int128>(dilation) * (k - 1) - 1;
  if (span < 0 || stride <= 0) return 0;
  const __int128 out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  return out > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max()
                                                   : static_cast<int64_t>(out);
}

std::vector<TensorType> infer_output_types(const Graph& g, const Node& n) {
  int nin = static_cast<int>(n.inputs.size());
  if (nin < op_min_inputs(n.kind) || (op_max_inputs(n.kind) >= 0 && nin > op_max_inputs(n.kind)))
    fail(n, "has " + std::to_string(nin) + " inputs, the operator takes " +
                std::to_string(op_min_inputs(n.kind)) +
                (op_max_inputs(n.kind) < 0 ? " or more" : " to " + std::to_string(op_max_inputs(n.kind))));
  const TensorType& x = in_type(g, n, 0);
  TensorType out = x;
  switch (n.kind) {
    case OpKind::Conv:
    case OpKind::QConv:
    case OpKind::AccelConv:
    case OpKind::QLinearConv: {
      const TensorType& w = in_type(g, n, n.kind == OpKind::QLinearConv ? 3 : 1);
      want_rank(n, x, 4, "the input");
      want_rank(n, w, 4, "the weight");
      // Grouped and depthwise convolutions: `group` divides both channel counts and the
      // weight is [O, C/group, KH, KW].
      const int64_t group = n.get_int("group", 1);
      const std::string gs = "group " + std::to_string(group);
      if (group < 1) fail(n, gs + " is not a positive count");
      if (x.shape[1] % group != 0)
        fail(n, gs + " does not divide the input's " + std::to_string(x.shape[1]) + " channels");
      if (w.shape[0] % group != 0)
        fail(n, gs + " does not divide the weight's " + std::to_string(w.shape[0]) +
                    " output channels " + shape_str(w.shape));
      if (x.shape[1] != w.shape[1] * group)
        fail(n, "weight " + shape_str(w.shape) + " does not fit input channels " +
                    std::to_string(x.shape[1]) + " with " + gs + " (expected [O, " +
                    std::to_string(x.shape[1] / group) + ", KH, KW])");
      if (n.has("kernel_shape")) {
        auto ks = n.get_ints("kernel_shape");
        if (ks.size() != 2 || ks[0] != w.shape[2] || ks[1] != w.shape[3])
          fail(n, "kernel_shape " + shape_str(ks) + " does not match the weight " + shape_str(w.shape));
      }
      out.shape = conv_shape(n, x.shape, w.shape[0], w.shape[2], w.shape[3]);
      if (n.kind == OpKind::Conv) {
        out.quant = {};
        if (has_input(n, 2) && in_type(g, n, 2).elements() != w.shape[0])
          fail(n, "the bias has " + std::to_string(in_type(g, n, 2).elements()) +
                      " elements for " + std::to_string(w.shape[0]) + " output channels");
      } else if (n.kind == OpKind::QLinearConv) {
        out.dtype = in_type(g, n, 7).dtype == DType::I32 ? DType::I8 : DType::I8;
        out.quant = {};
      } else {
        out.dtype = DType::I8;
        out.quant = out_quant(n);
        if (n.kind == OpKind::AccelConv && n.facts.layout_c)
          out.layout = Layout::blocked(n.facts.layout_n.value_or(1), *n.facts.layout_c);
      }
      break;
    }
    case OpKind::BatchNormalization:
      if (x.rank() < 2) fail(n, "the input must have rank 2 or more");
      for (int i = 1; i < 5; ++i)
        if (in_type(g, n, i).elements() != x.shape[1])
          fail(n, "parameter " + std::to_string(i) + " has " +
                      std::to_string(in_type(g, n, i).elements()) + " elements for " +
                      std::to_string(x.shape[1]) + " channels");
      break;
    case OpKind::Relu:
    case OpKind::Clip:
      break;
    case OpKind::Sigmoid:
    case OpKind::Tanh:
    case OpKind::Erf:
    case OpKind::Sqrt:
    case OpKind::HardSigmoid:
    case OpKind::HardSwish:
    case OpKind::Gelu:
      if (x.dtype != DType::F32)
        fail(n, std::string("the input is ") + dtype_name(x.dtype) + "; the operator takes f32");
      break;
    case OpKind::MaxPool:
    case OpKind::AveragePool: {
      want_rank(n, x, 4, "the input");
      auto k = n.get_ints("kernel_shape");
      if (k.size() != 2) fail(n, "kernel_shape must have 2 values");
      if (n.get_ints("dilations", {1, 1}) != std::vector<int64_t>{1, 1} && n.kind == OpKind::AveragePool)
        fail(n, "dilations are not supported");
      out.shape = conv_shape(n, x.shape, x.shape[1], k[0], k[1]);
      if (x.dtype == DType::I8 && n.kind == OpKind::AveragePool && n.has("out_scale"))
        out.quant = out_quant(n);
      break;
    }
    case OpKind::GlobalAveragePool:
      if (x.rank() < 3) fail(n, "the input must have rank 3 or more");
      for (size_t i = 2; i < out.shape.size(); ++i) out.shape[i] = 1;
      if (x.dtype == DType::I8 && n.has("out_scale")) out.quant = out_quant(n);
      break;
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Pow: {
      const TensorType& y = in_type(g, n, 1);
      if (x.dtype != y.dtype)
        fail(n, std::string("inputs are ") + dtype_name(x.dtype) + " and " + dtype_name(y.dtype));
      if (n.kind != OpKind::Add && x.dtype != DType::F32)
        fail(n, std::string("the inputs are ") + dtype_name(x.dtype) + "; the operator takes f32");
      out.shape = broadcast(n, x.shape, y.shape);
      if (x.dtype == DType::I8) out.quant = out_quant(n);
      break;
    }
    case OpKind::Transpose: {
      want_f32(n, x);
      const auto perm = n.get_ints("perm");
      std::vector<bool> seen(static_cast<size_t>(x.rank()), false);
      bool ok = static_cast<int64_t>(perm.size()) == x.rank();
      for (size_t d = 0; ok && d < perm.size(); ++d) {
        ok = perm[d] >= 0 && perm[d] < x.rank() && !seen[static_cast<size_t>(perm[d])];
        if (ok) seen[static_cast<size_t>(perm[d])] = true;
      }
      if (!ok)
        fail(n, "perm " + shape_str(perm) + " is not a permutation of the " +
                    std::to_string(x.rank()) + " axes of " + shape_str(x.shape));
      for (size_t d = 0; d < perm.size(); ++d) out.shape[d] = x.shape[static_cast<size_t>(perm[d])];
      break;
    }
    case OpKind::Resize: {  // resize.h
      want_f32(n, x);
      const auto sizes = n.get_ints("sizes");
      if (static_cast<int64_t>(sizes.size()) != x.rank() ||
          static_cast<int64_t>(n.get_floats("scales").size()) != x.rank())
        fail(n, "sizes " + shape_str(sizes) + " and scales do not give each of the " +
                    std::to_string(x.rank()) + " axes of " + shape_str(x.shape));
      for (int64_t d : sizes)
        if (d < 1) fail(n, "sizes " + shape_str(sizes) + " has an empty axis");
      int64_t total = 0;
      if (!count_elements(sizes, &total))
        fail(n, "sizes " + shape_str(sizes) + " make more than 2^40 elements");
      // The modes only: the axes' tables are as long as the output (found by fuzz_onnx: a
      // scale of 1e12 made import build tables of 10^12 entries).
      check_resize(n, x.shape, sizes);
      out.shape = sizes;
      break;
    }
    case OpKind::Slice: {
      if (x.dtype != DType::I8) want_f32(n, x);  // int8: split_groups' channel slices
      const int64_t axis = n.get_int("axis", -1), b = n.get_int("start", -1), e = n.get_int("end", -1);
      const int64_t step = n.get_int("step", 1);
      want_axis(n, axis, x.rank());
      if (b < 0 || e <= b || e > x.shape[static_cast<size_t>(axis)])
        fail(n, "elements [" + std::to_string(b) + ", " + std::to_string(e) + ") are not inside axis " +
                    std::to_string(axis) + " of " + shape_str(x.shape));
      if (step < 1) fail(n, "step " + std::to_string(step) + " is below 1");
      out.shape[static_cast<size_t>(axis)] = (e - b + step - 1) / step;
      break;
    }
    case OpKind::Softmax:
      want_f32(n, x);
      want_axis(n, n.get_int("axis", -1), x.rank());
      break;
    case OpKind::ReduceMean: {
      want_f32(n, x);
      const auto axes = n.get_ints("axes");
      std::vector<bool> red(static_cast<size_t>(x.rank()), false);
      for (int64_t a : axes) {
        want_axis(n, a, x.rank());
        if (red[static_cast<size_t>(a)]) fail(n, "axis " + std::to_string(a) + " is repeated");
        red[static_cast<size_t>(a)] = true;
      }
      const bool keep = n.get_int("keepdims", 1) != 0;
      out.shape.clear();
      for (size_t d = 0; d < red.size(); ++d)
        if (!red[d] || keep) out.shape.push_back(red[d] ? 1 : x.shape[d]);
      break;
    }
    case OpKind::LayerNormalization: {
      want_f32(n, x);
      const int64_t axis = n.get_int("axis", -1);
      want_axis(n, axis, x.rank());
      const std::vector<int64_t> row(x.shape.begin() + axis, x.shape.end());
      for (size_t i = 1; i < n.inputs.size(); ++i) {
        if (!has_input(n, i)) continue;
        const TensorType& p = in_type(g, n, i);
        want_f32(n, p);
        // A trailing part of the normalized shape (leading 1s dropped): it broadcasts over
        // the row as the kernel reads it.
        std::vector<int64_t> ps = p.shape;
        while (!ps.empty() && ps.front() == 1 && ps.size() > 1) ps.erase(ps.begin());
        const bool ok = ps.size() <= row.size() &&
                        std::equal(ps.begin(), ps.end(), row.end() - static_cast<long>(ps.size()));
        if (!ok && !(p.elements() == 1))
          fail(n, std::string(i == 1 ? "the scale " : "the bias ") + shape_str(p.shape) +
                      " does not broadcast to the normalized shape " + shape_str(row));
      }
      const int64_t which = n.get_int("output", 0);  // Y, or the row's Mean or InvStdDev
      if (which < 0 || which > 2) fail(n, "output " + std::to_string(which) + " is not 0, 1 or 2");
      if (which) std::fill(out.shape.begin() + axis, out.shape.end(), 1);
      break;
    }
    case OpKind::Flatten: {
      int64_t axis = n.get_int("axis", 1);
      if (axis < 0) axis += x.rank();
      if (axis < 0 || axis > x.rank()) fail(n, "axis " + std::to_string(axis) + " is out of range");
      int64_t a = 1, b = 1;
      const std::vector<int64_t> head(x.shape.begin(), x.shape.begin() + axis),
          tail(x.shape.begin() + axis, x.shape.end());
      if (!count_elements(head, &a) || !count_elements(tail, &b))
        fail(n, "the input " + shape_str(x.shape) + " has more than 2^40 elements");
      out.shape = {a, b};
      out.layout = Layout::plain();
      break;
    }
    case OpKind::Reshape: {
      const Value& sv = g.value(n.inputs.at(1));
      if (!sv.is_constant() || sv.type.dtype != DType::I32)
        fail(n, "the shape must be a constant (int64 in ONNX, stored as i32)");
      std::vector<int64_t> shape(sv.data->i32(), sv.data->i32() + sv.type.elements());
      int64_t infer_at = -1;
      std::vector<int64_t> given;  // every dimension but the one to infer
      for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 0 && !n.get_int("allowzero", 0)) shape[i] = i < x.shape.size() ? x.shape[i] : 0;
        if (shape[i] == -1) {
          if (infer_at >= 0) fail(n, "more than one -1 in the shape");
          infer_at = static_cast<int64_t>(i);
        } else {
          given.push_back(shape[i]);
        }
      }
      int64_t known = 0, total = 0;
      if (!count_elements(given, &known))
        fail(n, "the shape " + shape_str(shape) + " has a negative dimension or more than 2^40 "
                "elements");
      if (infer_at >= 0) shape[infer_at] = known ? x.elements() / known : 0;
      if (!count_elements(shape, &total) || total != x.elements())
        fail(n, "cannot reshape " + shape_str(x.shape) + " to " + shape_str(shape));
      out.shape = shape;
      out.layout = Layout::plain();
      break;
    }
    case OpKind::Gemm: {
      const TensorType& b = in_type(g, n, 1);
      want_rank(n, x, 2, "A");
      want_rank(n, b, 2, "B");
      bool ta = n.get_int("transA", 0), tb = n.get_int("transB", 0);
      int64_t m = ta ? x.shape[1] : x.shape[0], k = ta ? x.shape[0] : x.shape[1];
      int64_t kb = tb ? b.shape[1] : b.shape[0], nn = tb ? b.shape[0] : b.shape[1];
      if (k != kb) fail(n, "A " + shape_str(x.shape) + " and B " + shape_str(b.shape) + " do not multiply");
      out.shape = {m, nn};
      break;
    }
    case OpKind::MatMul: {
      const TensorType& b = in_type(g, n, 1);
      if (x.rank() < 1 || b.rank() < 1) fail(n, "inputs must have rank 1 or more");
      auto a = x.shape, bs = b.shape;
      bool a1 = a.size() == 1, b1 = bs.size() == 1;
      if (a1) a.insert(a.begin(), 1);
      if (b1) bs.push_back(1);
      if (a.back() != bs[bs.size() - 2])
        fail(n, "A " + shape_str(x.shape) + " and B " + shape_str(b.shape) + " do not multiply");
      std::vector<int64_t> ab(a.begin(), a.end() - 2), bb(bs.begin(), bs.end() - 2);
      out.shape = broadcast(n, ab, bb);
      if (!a1) out.shape.push_back(a[a.size() - 2]);
      if (!b1) out.shape.push_back(bs.back());
      out.layout = Layout::plain();
      break;
    }
    case OpKind::Concat: {
      int64_t axis = n.get_int("axis", 0);
      if (axis < 0) axis += x.rank();
      if (axis < 0 || axis >= x.rank()) fail(n, "axis is out of range");
      for (size_t i = 1; i < n.inputs.size(); ++i) {
        const TensorType& y = in_type(g, n, i);
        if (y.rank() != x.rank() || y.dtype != x.dtype) fail(n, "inputs differ in rank or type");
        for (int64_t d = 0; d < x.rank(); ++d)
          if (d != axis && y.shape[d] != x.shape[d])
            fail(n, "input " + std::to_string(i) + " " + shape_str(y.shape) + " does not match " +
                        shape_str(x.shape) + " off axis " + std::to_string(axis));
        out.shape[axis] += y.shape[axis];
      }
      break;
    }
    case OpKind::QuantizeLinear: {
      out.dtype = has_input(n, 2) ? in_type(g, n, 2).dtype : DType::I8;
      if (out.dtype == DType::F32) fail(n, "the zero point must be an integer type");
      out.quant = {};
      break;
    }
    case OpKind::DequantizeLinear:
      out.dtype = DType::F32;
      out.quant = {};
      break;
    case OpKind::Quantize:
      if (x.dtype != DType::F32) fail(n, "the input must be f32");
      out.dtype = DType::I8;
      out.quant = out_quant(n);
      break;
    case OpKind::Dequantize:
      if (!x.quant.present()) fail(n, "the input has no quantization parameters");
      out.dtype = DType::F32;
      out.quant = {};
      break;
    case OpKind::Requantize:
      if (x.dtype != DType::I8) fail(n, "the input must be i8");
      out.quant = out_quant(n);
      break;
    case OpKind::QDense:
    case OpKind::AccelDense: {
      const TensorType& w = in_type(g, n, 1);
      want_rank(n, x, 2, "the input");
      want_rank(n, w, 2, "the weight");
      if (x.shape[1] != w.shape[1])
        fail(n, "input " + shape_str(x.shape) + " and weight " + shape_str(w.shape) +
                    " differ in K");
      const int64_t slices = n.facts.slices.value_or(1);
      if (slices < 1 || x.shape[0] % slices || w.shape[0] % slices)
        fail(n, "input " + shape_str(x.shape) + " and weight " + shape_str(w.shape) +
                    " do not hold " + std::to_string(slices) + " slices of rows");
      out.shape = {x.shape[0], w.shape[0] / slices};
      out.dtype = DType::I8;
      out.quant = out_quant(n);
      if (n.kind == OpKind::AccelDense && n.facts.layout_c)
        out.layout = Layout::blocked(n.facts.layout_n.value_or(1), *n.facts.layout_c);
      break;
    }
    case OpKind::SpaceToDepth: {
      want_rank(n, x, 4, "the input");
      const int64_t b = n.facts.block.value_or(2);
      out.shape = {x.shape[0], x.shape[1] * b * b, n.facts.out_h.value_or(1),
                   n.facts.out_w.value_or(1)};
      break;
    }
    case OpKind::Im2Col: {
      want_rank(n, x, 4, "the input");
      const int64_t k = n.facts.kernel.value_or(1);
      const int64_t extra = static_cast<int64_t>(n.facts.consts ? n.facts.consts->size() : 0);
      out.shape = {x.shape[0], x.shape[1] * k * k + extra, n.facts.out_h.value_or(1),
                   n.facts.out_w.value_or(1)};
      if (x.dtype == DType::F32) {  // quantizes as it gathers (fold_packs)
        if (!n.has("out_scale")) fail(n, "an f32 input needs out_scale");
        out.dtype = DType::I8;
        out.quant = out_quant(n);
      }
      break;
    }
    case OpKind::Pack:
      if (x.rank() != 4 && x.rank() != 2) fail(n, "only rank 2 and 4 tensors can be packed");
      out.layout = Layout::blocked(n.facts.pack_n.value_or(1), n.facts.pack_c.value_or(1));
      break;
    case OpKind::Unpack:
      out.layout = Layout::plain();
      if (n.facts.out_h) {  // a window of rows
        want_rank(n, x, 4, "the input");
        const int64_t y0 = n.facts.y0.value_or(0), h = *n.facts.out_h;
        if (y0 < 0 || h < 1 || y0 + h > x.shape[2])
          fail(n, "rows [" + std::to_string(y0) + ", " + std::to_string(y0 + h) + ") are outside " +
                      shape_str(x.shape));
        out.shape[2] = h;
      }
      break;
  }
  // A CPU node that writes the accelerator's packed layout itself (fold_packs).
  if ((n.kind == OpKind::Im2Col || n.kind == OpKind::MaxPool || n.kind == OpKind::AveragePool) &&
      n.facts.layout_c) {
    if (x.layout.kind != Layout::Plain || out.dtype != DType::I8 || out.rank() != 4)
      fail(n, "only an int8 rank-4 output from a plain input can be written packed");
    out.layout = Layout::blocked(n.facts.layout_n.value_or(1), *n.facts.layout_c);
  }
  return {out};
}

}  // namespace weft::compiler::graph
