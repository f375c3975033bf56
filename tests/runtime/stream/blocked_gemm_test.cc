// End to end through the runtime: a double-buffered blocked GEMM with two virtual threads,
// written with the stream builder the way VTA's runtime is driven (INP/WGT loads, a reset
// GEMM, accumulating GEMMs, an ALU SHR/MAX/MIN epilogue, STOREs, and the tokens between
// them), laid out in a DRAM image with random int8 data, run on the functional and cycle
// devices through driver::run, and compared bit for bit with plain C++. The verifier accepts
// the built stream and rejects hand-broken variants of it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "driver/device.h"
#include "driver/launch.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/stream/stream_builder.h"
#include "runtime/stream/token_verifier.h"

namespace weft::rt {
namespace {

using isa::AluOp;
using isa::Insn;
using isa::MemType;
using isa::Module;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr Module kLoad = Module::kLoad;
constexpr Module kCompute = Module::kCompute;
constexpr Module kStore = Module::kStore;
constexpr int kThreads = 2;

// C = clip((A . B^T) >> shift, 0, 127) with A: M x K, B: N x K, counted in GEMM tiles
// (M = m_tiles * BATCH, N = n_tiles * BLOCK_OUT, K = k_tiles * BLOCK_IN); each output block
// is bm x bn tiles and the reduction goes bk tiles at a time.
struct Shape {
  const char* config;
  int64_t m_tiles, n_tiles, k_tiles, bm, bn, bk;
  int shift;
};

uint64_t align(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// A built GEMM: the image to run and where the output lies.
struct BuiltGemm {
  Program program;
  std::vector<uint8_t> dram;
  uint64_t c_byte = 0;
  std::vector<int8_t> expected;  // C in tile order [mi][ni][b][o]
  int64_t uop_loads = 0;
  size_t kernels = 0;
};

class BlockedGemm {
 public:
  BlockedGemm(const Shape& s, uint64_t seed)
      : s_(s),
        l_(isa::layout_for(s.config)),
        batch_(l_.config.batch()),
        bi_(l_.config.block_in()),
        bo_(l_.config.block_out()) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> byte(-128, 127);
    a_.resize(static_cast<size_t>(m() * k()));
    b_.resize(static_cast<size_t>(n() * k()));
    for (int8_t& v : a_) v = static_cast<int8_t>(byte(rng));
    for (int8_t& v : b_) v = static_cast<int8_t>(byte(rng));
  }

  int64_t m() const { return s_.m_tiles * batch_; }
  int64_t n() const { return s_.n_tiles * bo_; }
  int64_t k() const { return s_.k_tiles * bi_; }

  BuiltGemm build() const {
    // DRAM: A tiles, B tiles, C tiles, the micro-op area, then the instructions.
    const uint64_t a_byte = 0;
    const uint64_t b_byte = align(a_byte + a_.size(), l_.wgt_elem_bytes);
    const uint64_t c_byte = align(b_byte + b_.size(), l_.out_elem_bytes);
    const uint64_t uop_byte = align(c_byte + static_cast<uint64_t>(m() * n()), 64);
    const int64_t a_base = static_cast<int64_t>(a_byte / l_.inp_elem_bytes);
    const int64_t b_base = static_cast<int64_t>(b_byte / l_.wgt_elem_bytes);
    const int64_t c_base = static_cast<int64_t>(c_byte / l_.out_elem_bytes);

    StreamBuilder sb(l_);
    emit(sb, a_base, b_base, c_base);
    const uint64_t insn_byte = align(uop_byte + sb.uop_area_bytes(), 64);
    BuiltGemm out;
    out.program = sb.build(insn_byte, uop_byte);
    out.uop_loads = sb.num_uop_loads();
    out.kernels = sb.num_kernels();
    out.dram.assign(align(insn_byte + out.program.insn_bytes.size(), 64), 0x5A);
    put_tiles(out.dram, a_byte, a_, s_.m_tiles, s_.k_tiles, batch_);
    put_tiles(out.dram, b_byte, b_, s_.n_tiles, s_.k_tiles, bo_);
    out.program.place(out.dram);
    out.c_byte = c_byte;
    out.expected = reference();
    return out;
  }

 private:
  // Writes a (rows_t * R) x (k_tiles * BLOCK_IN) matrix as tiles [row tile][k tile][R][BI].
  void put_tiles(std::vector<uint8_t>& dram, uint64_t at, const std::vector<int8_t>& mat,
                 int64_t rows_t, int64_t k_tiles, int64_t r) const {
    uint64_t p = at;
    for (int64_t rt = 0; rt < rows_t; ++rt) {
      for (int64_t kt = 0; kt < k_tiles; ++kt) {
        for (int64_t y = 0; y < r; ++y) {
          for (int64_t c = 0; c < bi_; ++c) {
            dram[p++] =
                static_cast<uint8_t>(mat[static_cast<size_t>((rt * r + y) * k() + kt * bi_ + c)]);
          }
        }
      }
    }
  }

  // Plain C++: clip((A . B^T) >> shift, 0, 127), laid out as the OUT tiles the STOREs write.
  std::vector<int8_t> reference() const {
    std::vector<int8_t> c(static_cast<size_t>(m() * n()));
    size_t p = 0;
    for (int64_t mt = 0; mt < s_.m_tiles; ++mt) {
      for (int64_t nt = 0; nt < s_.n_tiles; ++nt) {
        for (int64_t y = 0; y < batch_; ++y) {
          for (int64_t o = 0; o < bo_; ++o) {
            const int64_t row = mt * batch_ + y, col = nt * bo_ + o;
            int32_t acc = 0;
            for (int64_t x = 0; x < k(); ++x) {
              acc += int32_t{a_[static_cast<size_t>(row * k() + x)]} *
                     int32_t{b_[static_cast<size_t>(col * k() + x)]};
            }
            acc >>= s_.shift;
            c[p++] = static_cast<int8_t>(std::min(127, std::max(0, acc)));
          }
        }
      }
    }
    return c;
  }

  // The stream, VTA style: thread t owns INP [t*bm*bk, ...), WGT [t*bn*bk, ...) and ACC
  // [t*bm*bn, ...); output blocks alternate between the threads and the two threads' stages
  // are interleaved so one's loads overlap the other's GEMMs. compute->load tokens say "your
  // INP/WGT buffers are free", store->compute "your ACC buffer is free"; each queue starts
  // with one token per thread and ends by taking them back.
  void emit(StreamBuilder& sb, int64_t a_base, int64_t b_base, int64_t c_base) const {
    const int64_t blocks_m = s_.m_tiles / s_.bm, blocks_n = s_.n_tiles / s_.bn;
    const int64_t blocks = blocks_m * blocks_n, k_steps = s_.k_tiles / s_.bk;
    ASSERT_EQ(blocks % kThreads, 0) << "the shape needs an even number of output blocks";
    UopKernel reset[kThreads], mac[kThreads], epilogue[kThreads];
    for (int t = 0; t < kThreads; ++t) {
      const int64_t acc = t * s_.bm * s_.bn, inp = t * s_.bm * s_.bk, wgt = t * s_.bn * s_.bk;
      UopKernel& r = reset[t];
      r.uops = {isa::Uop{acc, 0, 0}};
      r.iter_out = s_.bm;
      r.iter_in = s_.bn;
      r.dst_factor_out = s_.bn;
      r.dst_factor_in = 1;
      epilogue[t] = r;  // the same micro-ops: one cached kernel serves both
      r.reset = true;
      UopKernel& g = mac[t];
      for (int64_t x = 0; x < s_.bk; ++x) g.uops.push_back(isa::Uop{acc, inp + x, wgt + x});
      g.iter_out = s_.bm;
      g.iter_in = s_.bn;
      g.dst_factor_out = s_.bn;
      g.dst_factor_in = 1;
      g.src_factor_out = s_.bk;
      g.wgt_factor_in = s_.bk;
    }
    for (int t = 0; t < kThreads; ++t) sb.dep_push(kCompute, kLoad);
    for (int t = 0; t < kThreads; ++t) sb.dep_push(kStore, kCompute);
    for (int64_t round = 0; round < blocks / kThreads; ++round) {
      int64_t mb[kThreads], nb[kThreads];
      for (int t = 0; t < kThreads; ++t) {
        mb[t] = (round * kThreads + t) / blocks_n;
        nb[t] = (round * kThreads + t) % blocks_n;
        sb.dep_pop(kStore, kCompute);
        sb.gemm(reset[t]);
      }
      for (int64_t ks = 0; ks < k_steps; ++ks) {
        for (int t = 0; t < kThreads; ++t) {
          sb.dep_pop(kCompute, kLoad);
          sb.load_2d(MemType::kInp, t * s_.bm * s_.bk,
                     a_base + mb[t] * s_.bm * s_.k_tiles + ks * s_.bk, s_.bm, s_.bk, s_.k_tiles);
          sb.load_2d(MemType::kWgt, t * s_.bn * s_.bk,
                     b_base + nb[t] * s_.bn * s_.k_tiles + ks * s_.bk, s_.bn, s_.bk, s_.k_tiles);
          sb.dep_push(kLoad, kCompute);
        }
        for (int t = 0; t < kThreads; ++t) {
          sb.dep_pop(kLoad, kCompute);
          sb.gemm(mac[t]);
          sb.dep_push(kCompute, kLoad);
        }
      }
      for (int t = 0; t < kThreads; ++t) {
        sb.alu(AluOp::kShr, epilogue[t], true, s_.shift);
        sb.alu(AluOp::kMax, epilogue[t], true, 0);
        sb.alu(AluOp::kMin, epilogue[t], true, 127);
        sb.dep_push(kCompute, kStore);
      }
      for (int t = 0; t < kThreads; ++t) {
        sb.dep_pop(kCompute, kStore);
        sb.store_2d(t * s_.bm * s_.bn, c_base + mb[t] * s_.bm * s_.n_tiles + nb[t] * s_.bn, s_.bm,
                    s_.bn, s_.n_tiles);
        sb.dep_push(kStore, kCompute);
      }
    }
    for (int t = 0; t < kThreads; ++t) sb.dep_pop(kCompute, kLoad);
    for (int t = 0; t < kThreads; ++t) sb.dep_pop(kStore, kCompute);
    sb.synchronize();
  }

  Shape s_;
  const isa::Layout& l_;
  int64_t batch_, bi_, bo_;
  std::vector<int8_t> a_, b_;
};

const Shape kShapes[] = {
    {"gemm8x8", 4, 4, 8, 2, 2, 4, 9},
    {"vta", 4, 4, 4, 2, 2, 2, 9},
    {"tiny", 4, 8, 8, 2, 2, 4, 8},
};

const Shape& shape_for(const std::string& config) {
  for (const Shape& s : kShapes) {
    if (config == s.config) return s;
  }
  throw InternalError("no shape for " + config);
}

// Runs an image on a device through the driver's register sequence; returns the final image.
std::vector<uint8_t> run_on(const std::string& engine, const isa::Layout& l,
                            const std::vector<uint8_t>& image, const Program& p) {
  driver::DeviceOptions opts;
  opts.layout = &l;
  opts.platform = &isa::find_platform("sim");
  opts.memory_bytes = align(image.size(), 64) + 4096;
  std::unique_ptr<driver::Device> dev = driver::open_device(engine, opts);
  dev->alloc(64);  // something else lives below: the program runs at a non-zero DRAM base
  const uint64_t base = dev->alloc(image.size());
  EXPECT_NE(base, 0u);
  dev->copy_to_device(base, image.data(), image.size());
  driver::run(*dev, p.insn_byte_offset, p.insn_count, std::chrono::seconds(60), base);
  std::vector<uint8_t> out(image.size());
  dev->copy_from_device(base, out.data(), out.size());
  return out;
}

// Parameters: configuration, engine.
class BlockedGemmTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(BlockedGemmTest, MatchesThePlainReferenceBitForBit) {
  const auto& [config, engine] = GetParam();
  const Shape& s = shape_for(config);
  const isa::Layout& l = isa::layout_for(config);
  const BuiltGemm g = BlockedGemm(s, 42).build();
  // reset/epilogue and GEMM kernels per thread, each loaded once.
  EXPECT_EQ(g.kernels, 4u);
  EXPECT_EQ(g.uop_loads, 4);
  EXPECT_TRUE(g.program.tokens.ok());
  for (isa::TokenQueue q : isa::kAllTokenQueues) {
    EXPECT_LE(g.program.tokens.max_tokens_of(q), kThreads + 1) << queue_name(q);
  }

  const std::vector<uint8_t> out = run_on(engine, l, g.dram, g.program);
  const std::vector<int8_t> got(out.begin() + static_cast<ptrdiff_t>(g.c_byte),
                                out.begin() + static_cast<ptrdiff_t>(g.c_byte + g.expected.size()));
  ASSERT_EQ(got, g.expected);
  int nonzero = 0, saturated = 0;
  for (int8_t v : got) {
    nonzero += v != 0;
    saturated += v == 127;
  }
  // The data exercise the whole epilogue: zeros from MAX, 127s from MIN and values between.
  EXPECT_GT(nonzero, static_cast<int>(got.size()) / 4);
  EXPECT_LT(saturated, static_cast<int>(got.size()) / 2);
}

INSTANTIATE_TEST_SUITE_P(Configs, BlockedGemmTest,
                         ::testing::Combine(::testing::Values("gemm8x8", "vta", "tiny"),
                                            ::testing::Values("functional", "cycle")),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

// Hand-broken variants of the tiny GEMM's stream.
class BrokenGemmTest : public ::testing::Test {
 protected:
  BrokenGemmTest() : l_(isa::layout_for("tiny")), g_(BlockedGemm(shape_for("tiny"), 7).build()) {}
  std::vector<Insn> insns() const { return g_.program.insns; }
  // The first instruction at or after `from` whose module pops load->compute.
  size_t first_compute_pop(const std::vector<Insn>& p, size_t from = 0) const {
    for (size_t i = from; i < p.size(); ++i) {
      if (isa::route(p[i]) == kCompute && p[i].pop_prev_dep) return i;
    }
    ADD_FAILURE() << "no compute pop";
    return 0;
  }
  std::string error_of(const std::vector<Insn>& p) const {
    try {
      verify_tokens_or_throw(l_, p);
    } catch (const UserError& e) {
      return e.what();
    }
    ADD_FAILURE() << "the verifier accepted the program";
    return "";
  }
  const isa::Layout& l_;
  BuiltGemm g_;
};

TEST_F(BrokenGemmTest, TheIntactStreamPasses) {
  EXPECT_NO_THROW(verify_tokens_or_throw(l_, insns()));
}

TEST_F(BrokenGemmTest, AMissingPop) {
  std::vector<Insn> p = insns();
  const size_t i = first_compute_pop(p);
  p[i].pop_prev_dep = 0;
  EXPECT_THAT(error_of(p), AllOf(HasSubstr("queue load->compute"), HasSubstr("never popped")));
}

TEST_F(BrokenGemmTest, APopBeforeItsPushInProgramOrder) {
  // Move the first compute instruction that pops load->compute in front of the load that
  // pushes its token: every module still sees its instructions in the same order, so the
  // functional model would run it, but a timed engine's fetch could deadlock.
  std::vector<Insn> p = insns();
  const size_t i = first_compute_pop(p);
  size_t pusher = 0;
  while (!(isa::route(p[pusher]) == kLoad && p[pusher].push_next_dep)) ++pusher;
  ASSERT_LT(pusher, i);
  const Insn moved = p[i];
  p.erase(p.begin() + static_cast<ptrdiff_t>(i));
  p.insert(p.begin() + static_cast<ptrdiff_t>(pusher), moved);
  EXPECT_THAT(
      error_of(p),
      AllOf(HasSubstr("instruction " + std::to_string(pusher)), HasSubstr("queue load->compute"),
            HasSubstr("instruction " + std::to_string(pusher + 1) + " (LOAD WGT)"),
            HasSubstr("later in program order")));

  // The functional model, which runs each module as far as its tokens allow, still gets the
  // right answer: the verifier is stricter than it, as timed engines need.
  std::vector<uint8_t> image = g_.dram;
  const std::vector<uint8_t> bytes = isa::encode_program(l_, p);
  std::copy(bytes.begin(), bytes.end(), image.begin() + g_.program.insn_byte_offset);
  const std::vector<uint8_t> out = run_on("functional", l_, image, g_.program);
  EXPECT_TRUE(std::equal(g_.expected.begin(), g_.expected.end(),
                         out.begin() + static_cast<ptrdiff_t>(g_.c_byte),
                         [](int8_t e, uint8_t o) { return static_cast<uint8_t>(e) == o; }));
}

TEST_F(BrokenGemmTest, OverflowOnTiny) {
  // 17 extra load->compute tokens pushed up front and popped just before FINISH: balanced,
  // in program order, but 17 can wait at once in a queue of 16.
  std::vector<Insn> p = insns();
  Insn push;  // LOAD INP no-op
  push.opcode = static_cast<int64_t>(isa::Opcode::kLoad);
  push.memory_type = static_cast<int64_t>(MemType::kInp);
  push.push_next_dep = 1;
  Insn pop;  // GEMM no-op
  pop.opcode = static_cast<int64_t>(isa::Opcode::kGemm);
  pop.iter_out = pop.iter_in = 1;
  pop.pop_prev_dep = 1;
  p.insert(p.end() - 1, 17, pop);
  p.insert(p.begin(), 17, push);
  EXPECT_THAT(error_of(p), AllOf(HasSubstr("queue load->compute"), HasSubstr("overflow")));
  EXPECT_GE(verify_tokens(l_, p).max_tokens_of(isa::TokenQueue::kLoadToCompute), 17);
}

TEST_F(BrokenGemmTest, FinishWithoutTheLastStoresToken) {
  std::vector<Insn> p = insns();
  ASSERT_TRUE(p.back().pop_next_dep);
  p.back().pop_next_dep = 0;
  EXPECT_THAT(error_of(p), HasSubstr("queue store->compute"));
}

}  // namespace
}  // namespace weft::rt
