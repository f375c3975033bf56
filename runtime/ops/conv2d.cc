// The conv2d operator on a device; see conv2d.h.
#include "runtime/ops/conv2d.h"

#include <algorithm>
#include <random>

#include "hardware/isa/errors.h"

namespace weft::rt {

namespace {

using compiler::ops::Conv2dShape;

}  // namespace

Conv2dBuild build_conv2d(const isa::Layout& l, const Conv2dShape& shape,
                         const compiler::ops::Conv2dKnobs& knobs,
                         const compiler::ops::Conv2dEpilogue& epilogue,
                         const compiler::PassObserver& after_pass,
                         const compiler::PipelineOptions& rewrites,
                         std::vector<std::pair<TensorSlot, std::vector<uint8_t>>> constants) {
  return build_conv2d(l, compiler::ops::make_conv2d(l, shape, knobs, epilogue), after_pass,
                      rewrites, std::move(constants));
}

Conv2dBuild build_conv2d(const isa::Layout& l, compiler::ops::Conv2d conv,
                         const compiler::PassObserver& after_pass,
                         const compiler::PipelineOptions& rewrites,
                         std::vector<std::pair<TensorSlot, std::vector<uint8_t>>> constants) {
  Conv2dBuild b;
  b.constants = std::move(constants);
  b.op = std::move(conv);
  const auto& op = b.op;
  const compiler::ops::Conv2dEpilogue& epilogue = op.epilogue;
  b.program = compiler::compile_accel(*op.schedule, l, rewrites, after_pass);
  auto bytes = [](const compiler::te::Tensor& t) {
    return static_cast<uint64_t>(t->buffer->elements()) *
           static_cast<uint64_t>(compiler::ir::dtype_bits(t->dtype) / 8);
  };
  std::vector<TensorSlot> slots = {{op.a->buffer, bytes(op.a), l.inp_elem_bytes},
                                   {op.w->buffer, bytes(op.w), l.wgt_elem_bytes},
                                   {op.d->buffer, bytes(op.d), l.out_elem_bytes}};
  if (epilogue.bias) slots.push_back({op.bias->buffer, bytes(op.bias), l.acc_elem_bytes});
  if (epilogue.residual)
    slots.push_back({op.residual->buffer, bytes(op.residual), l.acc8_elem_bytes});
  if (epilogue.channel_shifts)
    slots.push_back({op.shifts->buffer, bytes(op.shifts), l.acc8_elem_bytes});
  for (const auto& [slot, data] : b.constants) slots.push_back(slot);
  b.placed = place_program(l, b.program, slots);
  return b;
}

Conv2dData random_conv2d_data(const Conv2dShape& s, uint32_t seed) {
  std::mt19937 rng(seed);
  Conv2dData d;
  d.input.resize(static_cast<size_t>(s.n * s.ic * s.h * s.w));
  d.weight.resize(static_cast<size_t>(s.oc * s.ic * s.k * s.k));
  d.bias.resize(static_cast<size_t>(s.oc));
  for (int8_t& v : d.input) v = static_cast<int8_t>(rng());
  for (int8_t& v : d.weight) v = static_cast<int8_t>(rng());
  for (int32_t& v : d.bias) v = static_cast<int32_t>(rng() % 256) - 128;
  d.residual.resize(static_cast<size_t>(s.n * s.oc * s.out_h() * s.out_w()));
  for (int8_t& v : d.residual) v = static_cast<int8_t>(rng());
  d.channel_shifts.resize(static_cast<size_t>(s.oc));
  for (int8_t& v : d.channel_shifts) v = static_cast<int8_t>(rng() % 16);
  return d;
}

std::vector<uint8_t> conv2d_image(const Conv2dBuild& b, const Conv2dData& d) {
  const auto& op = b.op;
  const Conv2dShape& s = op.shape;
  if (d.input.size() != static_cast<size_t>(s.n * s.ic * s.h * s.w) ||
      d.weight.size() != static_cast<size_t>(s.oc * s.ic * s.k * s.k) ||
      d.bias.size() != static_cast<size_t>(s.oc)) {
    throw UserError("conv2d: the data does not match the shape " + s.describe());
  }
  std::vector<uint8_t> image = program_image(b.placed);
  for (const auto& [slot, data] : b.constants)
    std::copy(data.begin(), data.end(), image.begin() + static_cast<std::ptrdiff_t>(b.placed.address(slot.buffer)));
  const int64_t B = op.batch, BI = op.block_in, BO = op.block_out;
  // A[nb][icb][H][W][B][BI]
  auto* a = reinterpret_cast<int8_t*>(image.data() + b.placed.address(op.a->buffer));
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t c = 0; c < s.ic; ++c) {
      for (int64_t y = 0; y < s.h; ++y) {
        for (int64_t x = 0; x < s.w; ++x) {
          a[((((n / B) * op.icb + c / BI) * s.h + y) * s.w + x) * B * BI + (n % B) * BI + c % BI] =
              d.input[((n * s.ic + c) * s.h + y) * s.w + x];
        }
      }
    }
  }
  // W[ocb][icb][K][K][BO][BI]
  auto* w = reinterpret_cast<int8_t*>(image.data() + b.placed.address(op.w->buffer));
  for (int64_t o = 0; o < s.oc; ++o) {
    for (int64_t c = 0; c < s.ic; ++c) {
      for (int64_t ky = 0; ky < s.k; ++ky) {
        for (int64_t kx = 0; kx < s.k; ++kx) {
          w[((((o / BO) * op.icb + c / BI) * s.k + ky) * s.k + kx) * BO * BI + (o % BO) * BI +
            c % BI] = d.weight[((o * s.ic + c) * s.k + ky) * s.k + kx];
        }
      }
    }
  }
  // B[ocb][B][BO], each channel's bias repeated over the batch rows.
  if (op.epilogue.bias) {
    auto* bias = reinterpret_cast<int32_t*>(image.data() + b.placed.address(op.bias->buffer));
    for (int64_t o = 0; o < s.oc; ++o) {
      for (int64_t r = 0; r < B; ++r) bias[((o / BO) * B + r) * BO + o % BO] = d.bias[o];
    }
  }
  // S[ocb][B][BO], each channel's shift amount repeated over the batch rows (int8).
  if (op.epilogue.channel_shifts) {
    if (d.channel_shifts.size() != static_cast<size_t>(s.oc))
      throw UserError("conv2d: the per-channel shifts do not match OC of " + s.describe());
    auto* sh = reinterpret_cast<int8_t*>(image.data() + b.placed.address(op.shifts->buffer));
    for (int64_t o = 0; o < s.oc; ++o)
      for (int64_t r = 0; r < B; ++r) sh[((o / BO) * B + r) * BO + o % BO] = d.channel_shifts[o];
  }
  // R[nb][ocb][OH'][OW'][B][BO], like the output.
  if (op.epilogue.residual) {
    const int64_t oh = s.out_h(), ow = s.out_w();
    if (d.residual.size() != static_cast<size_t>(s.n * s.oc * oh * ow))
      throw UserError("conv2d: the residual does not match the output of " + s.describe());
    auto* r = reinterpret_cast<int8_t*>(image.data() + b.placed.address(op.residual->buffer));
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t o = 0; o < s.oc; ++o)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t x = 0; x < ow; ++x)
            r[((((n / B) * op.ocb + o / BO) * op.oh + y) * op.ow + x) * B * BO + (n % B) * BO +
              o % BO] = d.residual[((n * s.oc + o) * oh + y) * ow + x];
  }
  return image;
}

std::vector<int8_t> conv2d_output(const Conv2dBuild& b, const std::vector<uint8_t>& image) {
  const auto& op = b.op;
  const Conv2dShape& s = op.shape;
  const int64_t oh = s.out_h(), ow = s.out_w(), B = op.batch, BO = op.block_out;
  const auto* d = reinterpret_cast<const int8_t*>(image.data() + b.placed.address(op.d->buffer));
  std::vector<int8_t> out(static_cast<size_t>(s.n * s.oc * oh * ow));
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t o = 0; o < s.oc; ++o) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          out[((n * s.oc + o) * oh + y) * ow + x] =
              d[((((n / B) * op.ocb + o / BO) * op.oh + y) * op.ow + x) * B * BO + (n % B) * BO +
                o % BO];
        }
      }
    }
  }
  return out;
}

std::vector<int8_t> conv2d_reference(const Conv2dShape& s, const Conv2dData& d,
                                     const compiler::ops::Conv2dEpilogue& e) {
  const int64_t oh = s.out_h(), ow = s.out_w();
  std::vector<int8_t> out(static_cast<size_t>(s.n * s.oc * oh * ow));
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t o = 0; o < s.oc; ++o) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          int32_t sum = 0;
          for (int64_t c = 0; c < s.ic; ++c) {
            for (int64_t ky = 0; ky < s.k; ++ky) {
              const int64_t iy = y * s.stride + ky - s.pad;
              if (iy < 0 || iy >= s.h) continue;
              for (int64_t kx = 0; kx < s.k; ++kx) {
                const int64_t ix = x * s.stride + kx - s.pad;
                if (ix < 0 || ix >= s.w) continue;
                sum += int32_t{d.input[((n * s.ic + c) * s.h + iy) * s.w + ix]} *
                       int32_t{d.weight[((o * s.ic + c) * s.k + ky) * s.k + kx]};
              }
            }
          }
          // The ALU's ADD wraps at 32 bits.
          auto wrap_add = [](int32_t a, int32_t b) {
            return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
          };
          if (e.bias && e.bias_first) sum = wrap_add(sum, d.bias[o]);
          int32_t v = sum >> (e.shift + (e.channel_shifts ? d.channel_shifts[o] : 0));
          if (e.bias && !e.bias_first) v = wrap_add(v, d.bias[o]);
          if (e.residual) v = wrap_add(v, d.residual[((n * s.oc + o) * oh + y) * ow + x]);
          out[((n * s.oc + o) * oh + y) * ow + x] =
              static_cast<int8_t>(std::clamp(v, e.relu ? 0 : -128, 127));
        }
      }
    }
  }
  return out;
}

std::vector<int8_t> run_conv2d(driver::Device& dev, const Conv2dBuild& b, const Conv2dData& data,
                               std::chrono::milliseconds timeout) {
  std::vector<uint8_t> image = conv2d_image(b, data);
  run_image(dev, b.placed, image, timeout);
  return conv2d_output(b, image);
}

LayerRun run_layer(const isa::Layout& l, const isa::Platform& p, const std::string& engine,
                   const Conv2dShape& s, const compiler::ops::Conv2dKnobs& k,
                   const compiler::ops::Conv2dEpilogue& e, const Conv2dData& data,
                   const std::vector<int8_t>* expect, driver::Timeline* trace) {
  const Conv2dBuild b = build_conv2d(l, s, k, e);
  driver::DeviceOptions o;
  o.layout = &l;
  o.platform = &p;
  o.memory_bytes = b.placed.image_bytes;
  o.trace = trace;
  auto dev = driver::open_device(engine, o);
  const auto out = run_conv2d(*dev, b, data, std::chrono::hours(1));
  LayerRun r;
  r.knobs = k;
  r.instructions = b.placed.stream.insn_count;
  r.details = dev->run_details();
  if (r.details.contains("cycles")) {
    r.cycles = r.details["cycles"].get<uint64_t>();
    r.utilization = r.details["utilization"].get<double>();
    r.gops = 2.0 * double(s.macs()) / (double(r.cycles) / (p.clock_mhz * 1e6)) / 1e9;
  }
  if (expect) {
    r.checked = true;
    for (size_t i = 0; i < out.size(); ++i) r.mismatches += out[i] != (*expect)[i];
    r.correct = r.mismatches == 0;
  }
  return r;
}

}  // namespace weft::rt
