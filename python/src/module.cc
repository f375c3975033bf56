// The `_weft` extension module behind the `weft` Python package (python/weft/__init__.py
// re-exports it): one registration per area, each in its own bind_*.cc file.
#include "python/src/bindings.h"

PYBIND11_MODULE(_weft, m) {
  m.doc() = "Weft's C++ core: tensor expressions, schedules built for the CPU, the "
            "accelerator or a GPU, the accelerator's operators, networks, program images and "
            "schedule search (see docs/python.md)";
  using namespace weft::py_bind;
  bind_errors(m);  // first: the others' docstrings name weft.Error
  bind_te(m);
  bind_schedule(m);
  bind_build(m);
  bind_ops(m);
  bind_graph(m);
  bind_onnx(m);
  bind_network(m);
  bind_isa(m);
  bind_accel(m);
  bind_gpu(m);
  bind_image(m);
  bind_tune(m);
}
