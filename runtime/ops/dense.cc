// The dense operator on a device; see dense.h.
#include "runtime/ops/dense.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "driver/launch.h"
#include "runtime/stream/compiled_program.h"

namespace weft::rt {

namespace {

uint64_t align(uint64_t v) { return (v + 4095) / 4096 * 4096; }

}  // namespace

DenseBuild build_dense(const isa::Layout& l, const compiler::ops::DenseShape& shape,
                       const compiler::ops::DenseKnobs& knobs,
                       const compiler::ops::DenseEpilogue& epilogue,
                       const compiler::PassObserver& after_pass) {
  DenseBuild b;
  b.op = compiler::ops::make_dense(l, shape, knobs, epilogue);
  const auto& op = b.op;
  b.program = compiler::compile_accel(*op.schedule, l, after_pass);
  b.a_shape = {shape.m, shape.k, op.batch, op.block_in, op.mb, op.kb};
  b.w_shape = {shape.n, shape.k, op.block_out, op.block_in, op.nb, op.kb};
  b.d_shape = {shape.m, shape.n, op.batch, op.block_out, op.mb, op.nb};

  // Build once to learn the stream's size, then lay the image out behind it: instructions at
  // 0, then A, W, D and the micro-op area, each 4 KiB aligned.
  auto stream = [&](uint64_t a_at, uint64_t w_at, uint64_t d_at) {
    auto sb = std::make_unique<StreamBuilder>(l);
    append(*sb, b.program,
           {{op.a->buffer.get(), static_cast<int64_t>(a_at / l.inp_elem_bytes)},
            {op.w->buffer.get(), static_cast<int64_t>(w_at / l.wgt_elem_bytes)},
            {op.d->buffer.get(), static_cast<int64_t>(d_at / l.out_elem_bytes)}});
    sb->synchronize();
    return sb;
  };
  const uint64_t a_bytes = static_cast<uint64_t>(b.a_shape.elements());
  const uint64_t w_bytes = static_cast<uint64_t>(b.w_shape.elements());
  const uint64_t d_bytes = static_cast<uint64_t>(b.d_shape.elements());
  const uint64_t insns = stream(0, 0, 0)->insns().size();
  b.a_at = align(insns * 16);
  b.w_at = align(b.a_at + a_bytes);
  b.d_at = align(b.w_at + w_bytes);
  b.uop_at = align(b.d_at + d_bytes);
  b.stream = stream(b.a_at, b.w_at, b.d_at)->build(0, b.uop_at);
  if (b.stream.insn_count != insns) {
    throw InternalError("build_dense: the stream changed size with its placement");
  }
  b.image_bytes = align(b.uop_at + b.stream.uop_bytes.size());
  return b;
}

std::vector<uint8_t> dense_image(const DenseBuild& b, const std::vector<int8_t>& a,
                                 const std::vector<int8_t>& w) {
  std::vector<uint8_t> image(b.image_bytes, 0);
  b.stream.place(image);
  const std::vector<int8_t> pa = pack_blocked(a, b.a_shape);
  const std::vector<int8_t> pw = pack_blocked(w, b.w_shape);
  std::memcpy(image.data() + b.a_at, pa.data(), pa.size());
  std::memcpy(image.data() + b.w_at, pw.data(), pw.size());
  return image;
}

std::vector<int8_t> dense_output(const DenseBuild& b, const std::vector<uint8_t>& image) {
  return unpack_blocked(reinterpret_cast<const int8_t*>(image.data() + b.d_at), b.d_shape);
}

std::vector<int8_t> dense_reference(const compiler::ops::DenseShape& s,
                                    const std::vector<int8_t>& a, const std::vector<int8_t>& w,
                                    const compiler::ops::DenseEpilogue& e) {
  std::vector<int8_t> out(static_cast<size_t>(s.m * s.n));
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      int32_t sum = 0;
      const int8_t* x = &a[i * s.k];
      const int8_t* y = &w[j * s.k];
      for (int64_t k = 0; k < s.k; ++k) sum += int32_t{x[k]} * int32_t{y[k]};
      const int32_t v = std::clamp(sum >> e.shift, e.relu ? 0 : -128, 127);
      out[i * s.n + j] = static_cast<int8_t>(v);
    }
  }
  return out;
}

std::vector<int8_t> run_dense(driver::Device& dev, const DenseBuild& b,
                              const std::vector<int8_t>& a, const std::vector<int8_t>& w,
                              std::chrono::milliseconds timeout) {
  std::vector<uint8_t> image = dense_image(b, a, w);
  const uint64_t base = dev.alloc(image.size());
  if (base != 0) throw InternalError("run_dense: the device's first allocation is not at 0");
  dev.copy_to_device(0, image.data(), image.size());
  driver::run(dev, 0, b.stream.insn_count, timeout);
  dev.copy_from_device(0, image.data(), image.size());
  dev.free(base);
  return dense_output(b, image);
}

}  // namespace weft::rt
