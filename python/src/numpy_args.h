// The checks the operator bindings apply to their NumPy arguments, shared by weft.ops on the
// accelerator (bind_ops.cc, bind_conv2d.cc) and on the CPU/GPU (bind_op_target.cc), so that one
// mistake gives one message whichever target runs it.
#pragma once

#include <pybind11/numpy.h>

#include <cstdint>
#include <string>
#include <vector>

namespace weft::py_bind {

namespace py = pybind11;

/// `h` as a NumPy array; UserError naming `where` for another type.
py::array numpy_array(py::handle h, const std::string& where);
/// The shape of `a`; UserError naming `where` for a rank other than `ndim` or an empty array.
void check_shape(const py::array& a, const std::string& where, size_t ndim,
                 std::vector<int64_t>* shape);
/// UserError unless conv2d's x (N, IC, H, W) and w (OC, IC, K, K) agree on IC and K is square.
void check_conv2d_shapes(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws);

}  // namespace weft::py_bind
