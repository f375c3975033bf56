// Pass partition; see partition.h.
#include "compiler/graph/passes/partition.h"

#include <cstdio>
#include <string>

#include "compiler/ops/channel_shifts.h"
#include "compiler/ops/conv2d.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph::passes {
namespace {

std::string us(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f us", v);
  return b;
}

}  // namespace

int64_t node_macs(const Graph& g, const Node& n) {
  if (n.kind != OpKind::QConv && n.kind != OpKind::AccelConv && n.kind != OpKind::Conv &&
      n.kind != OpKind::QDense && n.kind != OpKind::AccelDense && n.kind != OpKind::Gemm &&
      n.kind != OpKind::MatMul && n.kind != OpKind::QLinearConv)
    return 0;
  if (n.facts.macs) return *n.facts.macs;  // a rewritten layer keeps its useful MACs
  const TensorType& x = g.value(n.inputs[0]).type;
  const TensorType& w = g.value(n.inputs[1]).type;
  const TensorType& o = g.value(n.outputs[0]).type;
  switch (n.kind) {
    case OpKind::QConv:
    case OpKind::AccelConv:
    case OpKind::Conv:  // each output reads its group's C/group channels
      return o.elements() * w.shape[1] * w.shape[2] * w.shape[3];
    case OpKind::QLinearConv: {
      const TensorType& qw = g.value(n.inputs.at(3)).type;
      return o.elements() * qw.shape[1] * qw.shape[2] * qw.shape[3];
    }
    case OpKind::Gemm:  // fp32 (on the CPU in an int8 network): output x the sum's length
      return o.elements() * (n.get_int("transA", 0) ? x.shape[0] : x.shape[1]);
    case OpKind::MatMul:
      return o.elements() * x.shape.back();
    case OpKind::QDense:
    case OpKind::AccelDense:
      return o.elements() * x.shape[1];
    default:
      return 0;
  }
}

int partition(Graph& g, const isa::Layout& l, const isa::Platform& pf, double cpu_gmacs) {
  int accel = 0;
  const auto& c = l.config;
  for (NodeId id : g.topo_order()) {
    Node& n = g.node(id);
    Device device = Device::kCpu;
    if (n.kind == OpKind::QConv || n.kind == OpKind::QDense) {
      const TensorType& x = g.value(n.inputs[0]).type;
      const TensorType& w = g.value(n.inputs[1]).type;
      // What the CPU kernel would execute: a rewritten layer (split_groups' block-diagonal
      // slices, the stems) runs as the node it now is, not as its useful MACs.
      Node as_is = n;
      as_is.facts.macs.reset();
      const int64_t macs = node_macs(g, as_is);
      // Padded MACs: batch, input and output channels to whole blocks.
      auto up = [](int64_t v, int64_t b) { return (v + b - 1) / b * b; };
      const int64_t spatial = n.kind == OpKind::QConv ? g.value(n.outputs[0]).type.shape[2] *
                                                            g.value(n.outputs[0]).type.shape[3] *
                                                            w.shape[2] * w.shape[3]
                                                      : 1;
      // A batched dense (facts.def: slices) pads each slice's rows; its operands' slices start
      // on whole blocks only when M and N are multiples of the batch and output blocks.
      const int64_t slices = n.facts.slices.value_or(1);
      const int64_t rows = x.shape[0] / slices, outs = w.shape[0] / slices;
      const int64_t padded = slices * up(rows, c.batch()) * up(x.shape[1], c.block_in()) *
                             up(outs, c.block_out()) * spatial;
      const double mac_per_cycle = double(c.batch()) * c.block_in() * c.block_out();
      const double accel_us = padded / mac_per_cycle / pf.clock_mhz + 2.0;
      const double cpu_us = macs / (cpu_gmacs * 1e3);
      n.facts.est_accel_us = accel_us;
      n.facts.est_cpu_us = cpu_us;
      bool ok = n.get_ints("dilations", {1, 1}) == std::vector<int64_t>{1, 1};
      if (n.get_int("group", 1) != 1) {  // split_groups makes the accelerator's dense slices
        ok = false;
        n.facts.cpu_reason = std::string("a grouped convolution that split_groups did not split");
      }
      if (slices > 1 && (rows % c.batch() || outs % c.block_out())) {
        ok = false;
        n.facts.cpu_reason = "a batched dense whose slices (" + std::to_string(rows) + " x " +
                             std::to_string(outs) + ") are not whole " +
                             std::to_string(c.batch()) + " x " + std::to_string(c.block_out()) +
                             " blocks of the accelerator's layout";
      }
      // Per-channel shifts: one register SHR applies per-lane amounts 0..15 after a common
      // immediate shift, so the channels' shifts must lie within 15 of each other.
      if (n.facts.shifts) {
        try {
          (void)compiler::ops::split_channel_shifts(l, *n.facts.shifts, n.name);
        } catch (const UserError& e) {
          ok = false;
          n.facts.cpu_reason = std::string(e.what());
        }
      }
      if (n.kind == OpKind::QConv) {
        const auto st = n.get_ints("strides", {1, 1}), pd = n.get_ints("pads", {0, 0, 0, 0});
        ok = ok && st[0] == st[1] && pd[0] == pd[1] && pd[1] == pd[2] && pd[2] == pd[3] &&
             w.shape[2] == w.shape[3];
        if (ok) {
          try {
            compiler::ops::check_conv2d_shape({x.shape[0], x.shape[2], x.shape[3], x.shape[1],
                                               w.shape[0], w.shape[2], st[0], pd[0]});
          } catch (const UserError&) {
            ok = false;
          }
        }
      }
      if (ok && accel_us < cpu_us) {
        device = Device::kAccel;
      } else if (ok) {
        n.facts.cpu_reason = "estimated faster on the CPU: " + us(cpu_us) + " against " +
                             us(accel_us) + " on the accelerator (a launch costs about 2 us)";
      } else if (!n.facts.cpu_reason) {
        n.facts.cpu_reason = std::string("a shape the accelerator's kernel does not take (dilation, "
                                         "unequal strides or pads, a non-square kernel, or "
                                         "dimensions past its limits)");
      }
    } else if (n.kind != OpKind::Dequantize && !n.outputs.empty() &&
               g.value(n.outputs[0]).type.dtype == DType::F32 && !n.facts.cpu_reason) {
      // (A reason the quantizer gave is kept.)
      if (n.kind == OpKind::MatMul || n.kind == OpKind::Gemm) {
        n.facts.cpu_reason = std::string("fp32: a ") + op_name(n.kind) +
                             " of two activations, or with a transposed or scaled operand (the "
                             "accelerator's dense layers take a constant weight)";
      } else if (n.kind == OpKind::BatchNormalization) {
        n.facts.cpu_reason = "fp32: a BatchNormalization that does not follow a convolution "
                             "(not folded into its weights; DenseNet's pre-activation)";
      } else {
        n.facts.cpu_reason = std::string("fp32: the int8 quantizer has no ") + op_name(n.kind) +
                             " (it runs on the CPU in float)";
      }
    }
    n.facts.device = device;
    if (device == Device::kAccel) ++accel;
  }
  return accel;
}

}  // namespace weft::compiler::graph::passes
