// The host interpreter of float graphs: every operator of an imported (or built-in) graph
// before quantization, on plain (logical, row-major) tensors, with the loops of
// interpret_kernels.h, templated on the floating-point element type T:
//   T = float   the quantizer's calibration (quantize.h records every value it computes) and
//               the fp32 side of the int8-vs-fp32 comparisons; with KernelOverrides, the
//               runtime's fp32 LLVM path (runtime/graph/cpu_graph.h) runs it with JIT kernels
//   T = double  the float64 reference the fp32 LLVM path is held to (1e-4 of the output's
//               largest magnitude)
// Float values are held in T; integer values (ONNX's QuantizeLinear / DequantizeLinear /
// QLinearConv, with ONNX's rounding from compiler/ops/int8_rounding.h) in int32. Weft's own
// int8 kinds (weft.QConv, ...) are the int8 reference's (reference_int8.h), not these.
//
// Operators: Conv, BatchNormalization, Relu, Clip, MaxPool, AveragePool, GlobalAveragePool,
// Add, Sub, Mul, Div, Pow, Sigmoid, Tanh, Erf, Sqrt, HardSigmoid, HardSwish, Flatten, Reshape,
// Concat, Transpose, Slice, Softmax, ReduceMean, LayerNormalization (transformer_kernels.h), Gemm, MatMul, QuantizeLinear, DequantizeLinear, QLinearConv (the element-wise
// functions are compiler/ops/float_eltwise.h's, by compiler/graph/elementwise.h).
// Anything else, or a graph value in a blocked layout (after pack_layouts), is a UserError
// naming the node.
//
// With KernelOverrides, a convolution's output may be held in channel blocks
// (HostValue::cblock) and passed on as it is to the readers that keep blocks (Conv, Relu, Clip,
// the unary functions (Sigmoid, HardSigmoid, ...), MaxPool, Add/Sub/Mul/Div/Pow of two operands
// in the same shape and blocks or of one in blocks and one value per channel) or read them
// (GlobalAveragePool); every other reader sees the logical layout (value() converts it). A Relu or an Add that only reads a
// convolution's output (or a Clip of constant bounds) may be folded into it (ConvEpilogue): the
// overrides compute them in the convolution's output pass.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/interpret_kernels.h"
#include "compiler/graph/resize.h"
#include "compiler/ops/float_eltwise.h"

namespace weft::compiler::graph {

/// A value of an interpreted graph: float values (F32) in `f`, integer values (I8, I32) in
/// `i`, in the logical layout unless `cblock` is set. With `cblock` > 0 (only KernelOverrides
/// produce it: the fp32 path's convolutions) the float values hold dimension 1 in blocks of
/// `cblock` channels, innermost: [N, ceil(C / cblock), spatial..., cblock], the lanes past C
/// unspecified. value() gives every reader but the layout-aware ones the logical layout.
template <typename T>
struct HostValue {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<T> f;
  std::vector<int32_t> i;
  int64_t cblock = 0;

  int64_t elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

/// What follows a convolution that its output pass may take on (the fp32 path's fusion): the
/// interpreter offers it where the convolution's output is read only by an Add (whose other
/// operand is already computed: `residual`) and/or only by a Relu or a Clip of constant bounds,
/// or an activation.
template <typename T>
struct ConvEpilogue {
  const HostValue<T>* residual = nullptr;  // added after the bias
  bool clip = false;                        // then min(max(., lo), hi) (a Relu: [0, +inf])
  T lo = 0, hi = 0;
  // Or, where no clip follows, an activation: a HardSwish, or a SiLU as exporters write it
  // (a Sigmoid of the value and a Mul of the two, each read by nothing else).
  std::optional<ops::Unary> act;
  bool applied = false;  // set by the taker: it did all (else those nodes run as nodes)
};

/// Kernels a caller puts in place of the interpreter's loops (the fp32 LLVM path's JIT
/// kernels). Each returns true when it computed its output, false to leave it to the loop.
template <typename T>
class KernelOverrides {
 public:
  virtual ~KernelOverrides() = default;
  /// Conv without bias (the interpreter adds it after), group 1, equal strides, no dilation.
  virtual bool conv2d(NodeId, bool weights_constant, const T* x, const T* w, T* y,
                      const Window2d& s, int64_t o) = 0;
  /// A conv with its bias (null: none) added, `x` as held (plain or in channel blocks), and
  /// `y` (shape set) left in the layout the caller chooses: it sets y.cblock and sizes y.f; it
  /// may also apply `epilogue` (and then sets epilogue.applied). Offered, before conv2d and
  /// grouped_conv2d, for group 1 with equal strides and for every grouped or depthwise conv
  /// (`group` > 1, any strides and pads: the caller declines what it has no kernel for); no
  /// dilation. False (the default) declines.
  virtual bool conv2d_blocked(NodeId, bool /*weights_constant*/, const HostValue<T>& /*x*/,
                              const T* /*w*/, const T* /*bias*/, HostValue<T>& /*y*/,
                              const Window2d&, int64_t /*o*/, int64_t /*group*/,
                              ConvEpilogue<T>& /*epilogue*/) {
    return false;
  }
  /// `x`, held in channel blocks, in its logical layout at `y`. False (the default): the
  /// interpreter's loop.
  virtual bool unblock(const HostValue<T>& /*x*/, T* /*y*/) { return false; }
  /// Grouped or depthwise conv (`group` > 1) without bias, as conv2d otherwise; false unless
  /// the caller has such a kernel.
  virtual bool grouped_conv2d(const T*, const T*, T*, const Window2d&, int64_t /*o*/,
                              int64_t /*group*/) {
    return false;
  }
  /// C[M, N] = A[M, K] W[N, K]^T (Gemm and MatMul, transposes already applied).
  virtual bool dense(const T* a, const T* w, T* c, int64_t m, int64_t n, int64_t k) = 0;
  /// C[M, N] = A[M, K] B[K, N] of node `node` (MatMul, Gemm without transB), B at element
  /// `b_offset` of the node's second input; `b_constant`: that input is a graph constant, so
  /// what the caller derives from B (its transpose) may be kept across runs, keyed by the node
  /// and the offset. False (the default): the interpreter's loops read B as it is.
  virtual bool dense_kn(NodeId /*node*/, bool /*b_constant*/, int64_t /*b_offset*/,
                        const T* /*a*/, const T* /*b*/, T* /*c*/, int64_t /*m*/, int64_t /*n*/,
                        int64_t /*k*/) {
    return false;
  }
  /// y = min(max(x, lo), hi) (Relu and float Clip).
  virtual bool clip(const T* x, T* y, int64_t count, T lo, T hi) = 0;
  /// Max or average pooling of float values; no dilation.
  virtual bool pool(bool max, const T* x, T* y, const Window2d& s, bool count_include_pad) = 0;
  virtual bool global_avg_pool(const T* x, T* y, int64_t planes, int64_t plane) = 0;
  virtual bool batch_norm(const T* x, const T* scale, const T* bias, const T* mean,
                          const T* var, double eps, T* y, int64_t n, int64_t c,
                          int64_t plane) = 0;
  /// y = u(x) over `count` float values.
  virtual bool unary(const ops::Unary& u, const T* x, T* y, int64_t count) = 0;
  /// y = f(a, b), the operands of shapes `as` and `bs` broadcast to `ys` (Add, Sub, Mul, Div,
  /// Pow on floats).
  virtual bool binary(ops::BinaryFn f, const T* a, const std::vector<int64_t>& as, const T* b,
                      const std::vector<int64_t>& bs, T* y, const std::vector<int64_t>& ys) = 0;
  /// Softmax of `x` (shape `xs`) along `axis` (opset 13). Default: declined.
  virtual bool softmax(const T* /*x*/, const std::vector<int64_t>& /*xs*/, int64_t /*axis*/,
                       T* /*y*/) {
    return false;
  }
  /// Transpose of `x` (shape `xs`) by `perm`. Default: declined.
  virtual bool transpose(const T* /*x*/, const std::vector<int64_t>& /*xs*/,
                         const std::vector<int64_t>& /*perm*/, T* /*y*/) {
    return false;
  }
  /// Elements begin, begin + step, ... (< end) of dimension `axis` of `x` (shape `xs`; step
  /// positive). Default: declined.
  virtual bool slice(const T* /*x*/, const std::vector<int64_t>& /*xs*/, size_t /*axis*/,
                     int64_t /*begin*/, int64_t /*end*/, int64_t /*step*/, T* /*y*/) {
    return false;
  }
  /// Mean of `x` (shape `xs`) over the dimensions flagged in `reduced`. Default: declined.
  virtual bool reduce_mean(const T* /*x*/, const std::vector<int64_t>& /*xs*/,
                           const std::vector<bool>& /*reduced*/, T* /*y*/) {
    return false;
  }
  /// Resize of `x` (shape `xs`) by `axes` (resize.h). Default: declined.
  virtual bool resize(const T* /*x*/, const std::vector<int64_t>& /*xs*/,
                      const std::vector<ResizeAxis>& /*axes*/, T* /*y*/) {
    return false;
  }
  /// LayerNormalization of `x` (shape `xs`) from `axis` on; scale/bias of scale_n/bias_n
  /// elements broadcast over each row (bias may be null). Default: declined.
  virtual bool layer_norm(const T* /*x*/, const std::vector<int64_t>& /*xs*/, int64_t /*axis*/,
                          double /*eps*/, const T* /*scale*/, int64_t /*scale_n*/,
                          const T* /*bias*/, int64_t /*bias_n*/, T* /*y*/) {
    return false;
  }
};

/// Sees every value computed (the graph inputs included), in dependency order.
template <typename T>
using HostValueObserver = std::function<void(ValueId, const HostValue<T>&)>;

/// The interpreter, node by node (a caller that times nodes runs them itself) or whole.
template <typename T>
class Interpreter {
 public:
  /// `overrides` (optional) must outlive the interpreter.
  explicit Interpreter(const Graph& g, KernelOverrides<T>* overrides = nullptr);

  /// Takes the graph's inputs (in g.inputs() order) and forgets earlier values. UserError
  /// naming the input when the count, a dtype, a shape or a size differs from the graph's.
  void start(std::vector<HostValue<T>> inputs);
  /// Runs node `n` (its inputs computed) and returns its output.
  const HostValue<T>& run_node(const Node& n);
  /// A computed value, or a constant (converted on first use; UserError for one in a blocked
  /// layout), in the logical layout (a value held in channel blocks is converted, once).
  const HostValue<T>& value(ValueId v);
  /// A computed value as held: possibly in channel blocks (HostValue::cblock).
  const HostValue<T>& stored(ValueId v);
  /// The epilogue convolution `conv` may take on: the Add and Relu after it that only read it
  /// (only with KernelOverrides; the loops never fold).
  ConvEpilogue<T> epilogue_for(const Node& conv) const;
  /// The overrides applied `ep` to `conv`'s output: those nodes take it over when they run.
  void fold(const Node& conv, const ConvEpilogue<T>& ep);
  /// Whether node `n` of this run was folded into the convolution before it (ConvEpilogue):
  /// running it took the convolution's output as its own.
  bool folded(NodeId n) const;
  /// Makes `h` the value of `v` (a node's input computed elsewhere: run_float_node).
  void set_value(ValueId v, HostValue<T> h);
  /// The graph's outputs, in g.outputs() order.
  std::vector<HostValue<T>> outputs();

  /// What run() keeps once a value's last reader has run.
  enum class Keep { kEveryValue, kOutputsOnly };
  /// start, every node in topological order, outputs. With Keep::kOutputsOnly each other value
  /// is freed after the last node that reads it (value() of it then throws): the peak memory
  /// is the widest cut of the graph rather than every value.
  std::vector<HostValue<T>> run(std::vector<HostValue<T>> inputs,
                                const HostValueObserver<T>& observe = {},
                                Keep keep = Keep::kEveryValue);

 private:
  // The single reader of `v` when it has exactly one, is not a graph output and is of `kind`.
  const Node* only_reader(ValueId v, OpKind kind) const;
  // The Relu, or the Clip with constant bounds, that is `v`'s only reader; its bounds.
  const Node* clip_after(ValueId v, T* lo, T* hi) const;
  // The activation that alone reads `v` (see ConvEpilogue::act) and its nodes, in order (the
  // last one's output is the activation's); no nodes when there is none.
  std::vector<const Node*> activation_after(ValueId v, ops::Unary* u) const;

  const Graph& g_;
  KernelOverrides<T>* overrides_;
  std::vector<HostValue<T>> values_;
  std::vector<char> ready_;
  std::vector<std::vector<NodeId>> readers_;  // by value
  std::vector<char> is_output_;               // by value
  std::vector<ValueId> folded_into_;          // by node: the value it takes over, this run
};

extern template class Interpreter<float>;
extern template class Interpreter<double>;

/// A graph whose inputs are all float: `inputs` holds one flat plain tensor per graph input
/// (the input's shape); returns the outputs flat (float outputs; an integer output converted
/// to T). `observe` sees every float value computed, inputs included; each value is freed after
/// its last reader (Keep::kOutputsOnly).
template <typename T>
std::vector<std::vector<T>> interpret(
    const Graph& g, const std::vector<std::vector<T>>& inputs,
    const std::function<void(ValueId, const std::vector<T>&)>& observe = {});

/// Runs float node `n` of `g` alone (an int8 network's node kept in fp32 by the quantizer, on
/// the int8 reference or the executor's plain CPU kernels): `in` holds one plain float tensor
/// per node input (null for a constant, which is read from the graph), `out` receives the
/// output (the output type's elements).
void run_float_node(const Graph& g, const Node& n, const std::vector<const float*>& in,
                    float* out);

}  // namespace weft::compiler::graph
