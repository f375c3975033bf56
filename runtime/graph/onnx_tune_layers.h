// The layers of an ONNX model that `weft tune MODEL.onnx` tunes: its convolutions and dense
// layers as the operators the target runs, with how often each shape occurs (a network's task
// scheduler weights a shape by its work times its count).
//   accel: the model is imported and compiled through the graph pipeline (quantize, fusion,
//          partition; a QDQ model mapped first, as `weft run` does); every accelerator kernel
//          (weft.AccelConv, weft.AccelDense) is a conv2d workload in the executor's form (a
//          dense layer is a 1x1 conv2d on a 1x1 image, batch = the GEMM batch).
//   llvm:  the imported float graph's Conv nodes (conv2d) and Gemm/MatMul nodes (dense), the
//          shapes `weft run MODEL.onnx --target llvm` runs.
// onnx_tune_tasks turns them into the tuner's tasks, for the CLI and the Python package alike.
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "compiler/ops/dense.h"
#include "runtime/tune/task.h"

namespace weft::rt::graph {

struct OnnxTuneLayer {
  std::string name;   // the first node with this shape
  std::string op;     // "conv2d" or "dense"
  compiler::ops::Conv2dShape conv;
  compiler::ops::DenseShape dense;
  int count = 1;      // nodes with this shape
};

/// UserError when the model cannot be read or compiled, or has no such layer.
std::vector<OnnxTuneLayer> onnx_tune_layers(const std::string& model, const std::string& target,
                                            const std::string& config,
                                            const std::string& platform);

/// The tuning tasks of the model's layers: one per distinct shape, named after its first node
/// (with " (xN)" for N nodes) and weighted by its work times its count; on llvm, workloads of
/// element type `dtype` (float32 or int8, checked by the caller).
std::vector<tune::Task> onnx_tune_tasks(const std::string& model, const std::string& target,
                                        const std::string& config, const std::string& platform,
                                        const std::string& dtype);

}  // namespace weft::rt::graph
