// Opset 18 on a library that stops at 17. Debian 12's libonnx (1.12) has no opset-18
// schemas, so its checker and shape inference refuse such a model. Opset 18 changed few
// operators, and those mostly by turning an attribute into an input or adding an attribute
// whose default keeps opset 17's meaning; so the model is rewritten into opset 17's forms and
// declared opset 17 to the library. Weft's importer reads either form of each operator.
#pragma once

#include <cstdint>
#include <string>

namespace onnx {
class ModelProto;
}

namespace weft::compiler::onnx_import {

/// The newest default-domain opset the ONNX library checks and infers.
inline constexpr int64_t kLibraryOpset = 17;

/// Rewrites an opset-18 `proto` in place to opset 17 (kLibraryOpset) with the same meaning:
/// the Reduce operators' constant `axes` input becomes the attribute (and
/// `noop_with_empty_axes` with no axes an Identity); Split's `num_outputs` is dropped (equal
/// parts, which opset 17 gives when it is the number of outputs); Resize's `antialias`,
/// `keep_aspect_ratio_policy` and LpPool's `ceil_mode` are dropped at their defaults. UserError
/// naming `file` and the node for what has no opset-17 form: an operator new in opset 18, a
/// computed or non-int64 `axes`, Pad's `axes` input, Resize's `axes` or another non-default
/// new attribute, a `num_outputs` other than the outputs' count, Scatter's max or min reduction.
void lower_opset18(onnx::ModelProto* proto, const std::string& file);

}  // namespace weft::compiler::onnx_import
