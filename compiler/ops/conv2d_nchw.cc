// The NCHW convolution shape's checks; see conv2d_nchw.h.
#include "compiler/ops/conv2d_nchw.h"

#include <string>

#include "compiler/ops/op_args.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ops {

void check_conv2d_shape(const Conv2dNchw& sh) {
  check_positive("conv2d", "batch", sh.n);
  check_positive("conv2d", "input channels", sh.c);
  check_positive("conv2d", "input height", sh.h);
  check_positive("conv2d", "input width", sh.w);
  check_positive("conv2d", "output channels", sh.o);
  check_positive("conv2d", "kernel height", sh.kh);
  check_positive("conv2d", "kernel width", sh.kw);
  check_positive("conv2d", "stride", sh.stride);
  if (sh.pad < 0) throw UserError("conv2d: padding " + std::to_string(sh.pad) + " is negative");
  if (sh.kh > sh.h + 2 * sh.pad || sh.kw > sh.w + 2 * sh.pad) {
    throw UserError("conv2d: kernel " + std::to_string(sh.kh) + "x" + std::to_string(sh.kw) +
                    " is larger than the padded input " + std::to_string(sh.h + 2 * sh.pad) + "x" +
                    std::to_string(sh.w + 2 * sh.pad));
  }
}

}  // namespace weft::compiler::ops
