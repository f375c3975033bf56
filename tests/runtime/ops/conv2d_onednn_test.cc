// conv2d on the accelerator checked against oneDNN's int8 convolution, an implementation
// independent of Weft's own CPU reference: oneDNN computes the s8 x s8 -> s32 convolution,
// the test applies the epilogue ((sum >> shift) + bias, clip to [0, 127]) to it, and the
// accelerator's output (functional engine) must match bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <dnnl.hpp>

#include "driver/device.h"
#include "runtime/ops/conv2d.h"

namespace weft::rt {
namespace {

using compiler::ops::Conv2dShape;

std::vector<int32_t> onednn_conv_s32(const Conv2dShape& s, const Conv2dData& d) {
  using dnnl::memory;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const memory::dims src_dims = {s.n, s.ic, s.h, s.w}, wei_dims = {s.oc, s.ic, s.k, s.k},
                     dst_dims = {s.n, s.oc, s.out_h(), s.out_w()};
  const memory::desc src_md(src_dims, memory::data_type::s8, memory::format_tag::nchw);
  const memory::desc wei_md(wei_dims, memory::data_type::s8, memory::format_tag::oihw);
  const memory::desc dst_md(dst_dims, memory::data_type::s32, memory::format_tag::nchw);
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md, wei_md,
      dst_md, {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad});
  const dnnl::convolution_forward::primitive_desc pd(desc, eng);
  std::vector<int8_t> src = d.input, wei = d.weight;
  std::vector<int32_t> dst(static_cast<size_t>(s.n * s.oc * s.out_h() * s.out_w()));
  memory src_m(src_md, eng, src.data()), wei_m(wei_md, eng, wei.data()),
      dst_m(dst_md, eng, dst.data());
  dnnl::convolution_forward(pd).execute(
      strm, {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DST, dst_m}});
  strm.wait();
  return dst;
}

TEST(Conv2dAgainstOneDnn, AcceleratorMatchesOneDnnInt8Convolution) {
  const compiler::ops::Conv2dEpilogue e{6, true, true};
  for (const char* config : {"gemm8x8", "vta"}) {
    const isa::Layout& l = isa::layout_for(config);
    for (const Conv2dShape& s : {Conv2dShape{2, 12, 10, 24, 20, 3, 1, 1},
                                 Conv2dShape{1, 15, 15, 3, 16, 7, 2, 3},
                                 Conv2dShape{1, 8, 8, 32, 40, 1, 2, 0}}) {
      SCOPED_TRACE(std::string(config) + " " + s.describe());
      const auto k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), s, 2, 1)[0];
      const Conv2dBuild b = build_conv2d(l, s, k, e);
      const Conv2dData d = random_conv2d_data(s, 11);
      driver::DeviceOptions o;
      o.layout = &l;
      o.memory_bytes = b.placed.image_bytes;
      auto dev = driver::open_device("functional", o);
      const auto out = run_conv2d(*dev, b, d, std::chrono::seconds(60));
      const auto sums = onednn_conv_s32(s, d);
      const int64_t plane = s.out_h() * s.out_w();
      ASSERT_EQ(out.size(), sums.size());
      for (size_t i = 0; i < sums.size(); ++i) {
        const int64_t oc = static_cast<int64_t>(i) / plane % s.oc;
        const int32_t v = std::clamp<int32_t>((sums[i] >> e.shift) + d.bias[oc], 0, 127);
        ASSERT_EQ(out[i], v) << "element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace weft::rt
