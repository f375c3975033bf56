// One shipped configuration's Verilated model as a TopModel. Compiled once per built
// configuration with WEFT_RTL_MODEL (the model class, e.g. Vweft_tiny) and WEFT_RTL_FACTORY
// (the factory function's name) defined by driver/rtl/CMakeLists.txt.
#define WEFT_STR2(x) #x
#define WEFT_STR(x) WEFT_STR2(x)
#include WEFT_STR(WEFT_RTL_MODEL.h)

#include <memory>

#include "driver/rtl/top_model.h"
#include "driver/rtl/verilated_top.h"

namespace weft::driver::rtl {

namespace {

class BuiltinTop : public TopModel {
 public:
  BuiltinTop() { io_ = top_.ports(); }
  void eval() override { top_.eval(); }
  bool trace_open(const std::string& path) override { return top_.trace_open(path.c_str()); }
  void trace_dump(uint64_t time) override { top_.trace_dump(time); }
  void trace_close() override { top_.trace_close(); }

 private:
  weft_rtl_abi::VerilatedTop<WEFT_RTL_MODEL> top_;
};

}  // namespace

std::unique_ptr<TopModel> WEFT_RTL_FACTORY() { return std::make_unique<BuiltinTop>(); }

}  // namespace weft::driver::rtl
