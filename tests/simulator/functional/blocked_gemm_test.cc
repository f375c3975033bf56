// Functional model: a blocked GEMM with a hand-written token schedule, after VTA's
// blocked_gemm_test, for one virtual thread and for two. C = A * W^T is computed in blocks of
// bn output tiles, reducing over blocks of bk input tiles; with two virtual threads,
// consecutive blocks use alternate halves of the INP and WGT buffers and the load module runs
// one block ahead, ping-ponging with the compute module through push/pop tokens.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/support/functional_fixture.h"
#include "tests/support/program_builder.h"
#include "tests/support/reference.h"

namespace weft::test {
namespace {

using isa::MemType;
using isa::Uop;

class BlockedGemmTest : public FunctionalSimTest {
 protected:
  // Tile counts of A (mt x kt), W (nt x kt) and C (mt x nt), and the block sizes.
  static constexpr int64_t kMt = 2, kNt = 4, kKt = 4, kBn = 2, kBk = 2;
  static constexpr int64_t kNb = kNt / kBn, kKb = kKt / kBk, kIters = kNb * kKb;

  void run_blocked(int64_t threads) {
    const Int8Matrix a = random_matrix(kMt * batch(), kKt * block_in(), 10 + threads);
    const Int8Matrix w = random_matrix(kNt * block_out(), kKt * block_in(), 20 + threads);

    // On-chip layout: thread h owns INP [h*mt*bk, +mt*bk) holding A[m][k] at m*bk + k and
    // WGT [h*bn*bk, +bn*bk) holding W[j][k] at j*bk + k; output block nb is the dense
    // mt x bn accumulator tile at nb*mt*bn, so one STORE writes it out.
    auto inp_half = [](int64_t h) { return h * kMt * kBk; };
    auto wgt_half = [](int64_t h) { return h * kBn * kBk; };
    auto acc_block = [](int64_t nb) { return nb * kMt * kBn; };
    // Micro-ops: 0 resets; then bk micro-ops per (output block, thread).
    auto uop_base = [threads](int64_t nb, int64_t h) { return 1 + (nb * threads + h) * kBk; };
    std::vector<Uop> uops = {Uop{0, 0, 0}};
    for (int64_t nb = 0; nb < kNb; ++nb) {
      for (int64_t h = 0; h < threads; ++h) {
        for (int64_t k = 0; k < kBk; ++k) {
          uops.push_back(Uop{acc_block(nb), inp_half(h) + k, wgt_half(h) + k});
        }
      }
    }

    ProgramBuilder b = builder();
    const int64_t a_dram = b.add_int8(MemType::kInp, to_inp_tiles(layout(), a));
    const int64_t w_dram = b.add_int8(MemType::kWgt, to_wgt_tiles(layout(), w));
    const int64_t uop_dram = b.add_uops(uops);
    const int64_t c_dram = b.alloc(MemType::kOut, kMt * kNt);

    b.load_1d(MemType::kUop, 0, uop_dram, static_cast<int64_t>(uops.size()));
    b.gemm_reset(0, 1, Loops{kNb * kMt * kBn, 1, 1});
    for (int64_t nb = 0; nb < kNb; ++nb) {
      for (int64_t kb = 0; kb < kKb; ++kb) {
        const int64_t it = nb * kKb + kb, h = it % threads;
        // The load module refills a half only after the compute module released it.
        const Deps wait_free = it >= threads ? kPopNext : Deps{};
        b.load(MemType::kWgt, wgt_half(h), w_dram + nb * kBn * kKt + kb * kBk, kBn, kBk, kKt,
               Pads{}, wait_free);
        b.load(MemType::kInp, inp_half(h), a_dram + kb * kBk, kMt, kBk, kKt, Pads{}, kPushNext);
        // i walks rows of A, j the bn weight rows of the block, the micro-ops walk k.
        Deps deps = kPopPrev;
        if (it + threads < kIters) deps = deps | kPushPrev;  // release the half
        if (kb == kKb - 1) deps = deps | kPushNext;          // the block is complete
        b.gemm(uop_base(nb, h), uop_base(nb, h) + kBk,
               Loops{kMt, kBn, /*dst*/ kBn, 1, /*src*/ kBk, 0, /*wgt*/ 0, kBk}, deps);
      }
      b.store(acc_block(nb), c_dram + nb * kBn, kMt, kBn, kNt,
              nb == kNb - 1 ? kPopPrev | kPushPrev : kPopPrev);
    }
    b.finish(kPopNext);
    Program p = b.build();
    const sim::VtaCounters c = run(p);

    const Int32Matrix expected = ref_matmul(a, w);
    EXPECT_EQ(from_out_tiles(layout(), p.int8s(MemType::kOut, c_dram, kMt * kNt), kMt, kNt),
              narrow8(expected));
    // All 32 bits, block by block: accumulator tile (m, j) of block nb is C tile (m, nb*bn+j).
    const Int32Matrix acc =
        from_acc_tiles(layout(), acc_buffer(0, kNb * kMt * kBn), kNb * kMt, kBn);
    for (int64_t nb = 0; nb < kNb; ++nb) {
      for (int64_t r = 0; r < kMt * batch(); ++r) {
        for (int64_t col = 0; col < kBn * block_out(); ++col) {
          ASSERT_EQ(acc.at(nb * kMt * batch() + r, col),
                    expected.at(r, nb * kBn * block_out() + col))
              << "block " << nb << " row " << r << " column " << col;
        }
      }
    }
    sim::VtaCounters want;
    want.inp_load_nbytes = static_cast<uint64_t>(kIters * kMt * kBk * batch() * block_in());
    want.wgt_load_nbytes = static_cast<uint64_t>(kIters * kBn * kBk * block_out() * block_in());
    want.uop_load_nbytes = uops.size() * 4;
    want.out_store_nbytes = static_cast<uint64_t>(kMt * kNt * batch() * block_out());
    want.gemm_counter = static_cast<uint64_t>(kIters * kMt * kBn * kBk);
    want.insn_count = p.insn_count;
    EXPECT_EQ(c, want);
  }
};

TEST_P(BlockedGemmTest, OneVirtualThread) { run_blocked(1); }

TEST_P(BlockedGemmTest, TwoVirtualThreads) { run_blocked(2); }

WEFT_INSTANTIATE_FOR_ALL_CONFIGS(BlockedGemmTest);

}  // namespace
}  // namespace weft::test
