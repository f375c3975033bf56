// weft.from_onnx: an ONNX model imported as a weft.Graph (compiler/graph/onnx/onnx_import.h),
// the same object weft.models.resnet18() returns. A QDQ model also keeps its mapping onto the
// float network and fixed scales (compiler/graph/onnx/qdq.h), which weft.compile's accelerator
// target quantizes with, as `weft run MODEL.onnx --target accel` does. Without ONNX support in
// the build, from_onnx is a weft.Error saying how to get it.
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#if defined(WEFT_HAVE_ONNX_IMPORT)
#include "compiler/graph/onnx/onnx_import.h"
#include "compiler/graph/onnx/qdq.h"
#endif

namespace weft::py_bind {

namespace {

PyGraph from_onnx(const std::string& path) {
#if defined(WEFT_HAVE_ONNX_IMPORT)
  namespace oi = compiler::onnx_import;
  oi::Imported imported = oi::import_onnx(path);
  PyGraph g;
  g.uint8_values = imported.uint8_values;
  if (oi::has_qdq(imported.graph)) {
    // The host CPU runs what the accelerator cannot map (a nonzero zero point): the mapping's
    // error waits for weft.compile(..., target="accel").
    try {
      oi::QdqMapping q = oi::map_qdq(imported.graph);
      g.qdq_float = std::make_shared<cg::Graph>(std::move(q.graph));
      g.qdq_exponents = std::move(q.exponents);
      g.qdq_per_channel = q.per_channel_weights;
    } catch (const UserError& e) {
      g.qdq_error = "'" + path + "': " + e.what();
    }
  }
  g.g = std::make_shared<cg::Graph>(std::move(imported.graph));
  return g;
#else
  throw UserError("from_onnx('" + path + "'): this weft was built without ONNX import (install "
                  "libonnx-dev and libprotobuf-dev, then reconfigure)");
#endif
}

}  // namespace

void bind_onnx(py::module_& m) {
  m.def("from_onnx", &from_onnx, py::arg("path"),
        "Imports an ONNX model (opsets 11-18, the operators of docs/onnx.md) as a weft.Graph.");
}

}  // namespace weft::py_bind
