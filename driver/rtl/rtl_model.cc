// One configuration's Verilated model behind the RtlEngine interface. Compiled once per built
// configuration with WEFT_RTL_MODEL (the model class, e.g. Vweft_tiny) and WEFT_RTL_FACTORY
// (the factory function's name) defined by driver/rtl/CMakeLists.txt.
#define WEFT_STR2(x) #x
#define WEFT_STR(x) WEFT_STR2(x)
#include WEFT_STR(WEFT_RTL_MODEL.h)
#define WEFT_ROOT2(m) WEFT_STR(m##___024root.h)
#define WEFT_ROOT(m) WEFT_ROOT2(m)
#include WEFT_ROOT(WEFT_RTL_MODEL)

#include "driver/rtl/rtl_harness.h"

namespace weft::driver::rtl {

std::unique_ptr<RtlEngine> WEFT_RTL_FACTORY(const isa::Layout& l, const isa::Platform& p) {
  return std::make_unique<Harness<WEFT_RTL_MODEL>>(l, p);
}

}  // namespace weft::driver::rtl
