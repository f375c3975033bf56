// One configuration's Verilated kernel top behind the KernelTop interface. Compiled once per
// configuration in WEFT_KERNEL_CONFIGS with WEFT_KERNEL_MODEL (the model class, e.g.
// Vweft_kernel_tiny) and WEFT_KERNEL_FACTORY defined by driver/rtl/CMakeLists.txt.
#define WEFT_STR2(x) #x
#define WEFT_STR(x) WEFT_STR2(x)
#include WEFT_STR(WEFT_KERNEL_MODEL.h)
#define WEFT_ROOT2(m) WEFT_STR(m##___024root.h)
#define WEFT_ROOT(m) WEFT_ROOT2(m)
#include WEFT_ROOT(WEFT_KERNEL_MODEL)

#include "driver/rtl/kernel_harness.h"

namespace weft::driver::rtl {

std::unique_ptr<KernelTop> WEFT_KERNEL_FACTORY(const isa::Platform& p) {
  return std::make_unique<KernelHarness<WEFT_KERNEL_MODEL>>(p);
}

}  // namespace weft::driver::rtl
