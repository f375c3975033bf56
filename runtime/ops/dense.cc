// The dense operator on a device; see dense.h.
#include "runtime/ops/dense.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "hardware/isa/errors.h"


namespace weft::rt {

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

  std::vector<TensorSlot> slots = {
      {op.a->buffer, static_cast<uint64_t>(b.a_shape.elements()), l.inp_elem_bytes},
      {op.w->buffer, static_cast<uint64_t>(b.w_shape.elements()), l.wgt_elem_bytes},
      {op.d->buffer, static_cast<uint64_t>(b.d_shape.elements()), l.out_elem_bytes}};
  if (epilogue.channel_shifts)
    slots.push_back({op.shifts->buffer, static_cast<uint64_t>(op.nb * op.batch * op.block_out),
                     l.acc8_elem_bytes});
  b.placed = place_program(l, b.program, slots);
  return b;
}

std::vector<uint8_t> dense_image(const DenseBuild& b, const std::vector<int8_t>& a,
                                 const std::vector<int8_t>& w,
                                 const std::vector<int8_t>& channel_shifts) {
  std::vector<uint8_t> image = program_image(b.placed);
  const std::vector<int8_t> pa = pack_blocked(a, b.a_shape);
  const std::vector<int8_t> pw = pack_blocked(w, b.w_shape);
  std::memcpy(image.data() + b.placed.address(b.op.a->buffer), pa.data(), pa.size());
  std::memcpy(image.data() + b.placed.address(b.op.w->buffer), pw.data(), pw.size());
  // S[nb][batch][block_out]: each output channel's shift amount over the batch rows.
  if (b.op.epilogue.channel_shifts) {
    if (channel_shifts.size() != static_cast<size_t>(b.op.shape.n))
      throw UserError("dense: " + std::to_string(channel_shifts.size()) +
                      " per-channel shifts given for N = " + std::to_string(b.op.shape.n));
    auto* sh = reinterpret_cast<int8_t*>(image.data() + b.placed.address(b.op.shifts->buffer));
    const int64_t B = b.op.batch, BO = b.op.block_out;
    for (int64_t j = 0; j < b.op.shape.n; ++j)
      for (int64_t r = 0; r < B; ++r) sh[((j / BO) * B + r) * BO + j % BO] = channel_shifts[j];
  }
  return image;
}

std::vector<int8_t> dense_output(const DenseBuild& b, const std::vector<uint8_t>& image) {
  return unpack_blocked(
      reinterpret_cast<const int8_t*>(image.data() + b.placed.address(b.op.d->buffer)),
      b.d_shape);
}

std::vector<int8_t> dense_reference(const compiler::ops::DenseShape& s,
                                    const std::vector<int8_t>& a, const std::vector<int8_t>& w,
                                    const compiler::ops::DenseEpilogue& e,
                                    const std::vector<int8_t>& channel_shifts) {
  std::vector<int8_t> out(static_cast<size_t>(s.m * s.n));
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      int32_t sum = 0;
      const int8_t* x = &a[i * s.k];
      const int8_t* y = &w[j * s.k];
      for (int64_t k = 0; k < s.k; ++k) sum += int32_t{x[k]} * int32_t{y[k]};
      const int shift = e.shift + (e.channel_shifts ? channel_shifts.at(j) : 0);
      const int32_t v = std::clamp(sum >> shift, e.relu ? 0 : -128, 127);
      out[i * s.n + j] = static_cast<int8_t>(v);
    }
  }
  return out;
}

std::vector<int8_t> run_dense(driver::Device& dev, const DenseBuild& b,
                              const std::vector<int8_t>& a, const std::vector<int8_t>& w,
                              std::chrono::milliseconds timeout,
                              const std::vector<int8_t>& channel_shifts) {
  std::vector<uint8_t> image = dense_image(b, a, w, channel_shifts);
  run_image(dev, b.placed, image, timeout);
  return dense_output(b, image);
}

}  // namespace weft::rt
