// Co-simulation at scale (docs/reliability.md): runs the seeds [first, last] of the random
// token-correct program generator (tests/support/random_program.h) on the Verilated RTL, the
// cycle model and the functional model (tests/rtl/cosim.h: the RTL's image must equal the
// functional model's byte for byte, its cycles and accounting the cycle model's exactly).
// Prints one summary line; on the first mismatch it prints a reproducer (the seed, the
// mismatch, the program as assembly) and a shrunk program: instructions removed one at a time
// for as long as the program stays token-correct (tests/support/program_check.h) and still
// mismatches. scripts/cosim/at_scale.sh runs it on every core.
//   weft_cosim_at_scale CONFIG PLATFORM FIRST LAST [CYCLE_PLATFORM]
// CYCLE_PLATFORM (default PLATFORM) times the cycle model on another platform than the RTL: a
// self-test of the reporter and the shrinker, since then every program mismatches.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "hardware/isa/assembly.h"
#include "hardware/isa/encoding.h"
#include "simulator/common/program.h"
#include "tests/rtl/cosim.h"
#include "tests/support/program_check.h"
#include "tests/support/random_program.h"

using namespace weft;

namespace {

std::string listing(const test::Program& p) {
  std::string s;
  const auto prog = sim::fetch_program(*p.layout, p.dram, p.insn_offset, p.insn_count);
  for (size_t i = 0; i < prog.size(); ++i) {
    s += "  " + std::to_string(i) + ": " + isa::format_insn(*p.layout, prog[i]) + "\n";
  }
  return s;
}

// `p` without instruction `k` (the image keeps its size).
test::Program without(const test::Program& p, uint64_t k) {
  test::Program q = p;
  const auto at = q.dram.begin() + static_cast<ptrdiff_t>(p.insn_offset + k * isa::kInsnBytes);
  q.dram.erase(at, at + isa::kInsnBytes);
  q.dram.insert(q.dram.end(), isa::kInsnBytes, 0);
  --q.insn_count;
  return q;
}

// The mismatch of `p` on fresh models ("" when they agree; an exception counts as a mismatch).
std::string cycle_platform;

std::string mismatch(const test::Program& p, const std::string& config,
                     const std::string& platform) {
  try {
    sim::FunctionalSim f(*p.layout);
    sim::cycle::CycleSim c(*p.layout, isa::find_platform(cycle_platform));
    return test::cosimulate(p, f, c, test::rtl_engine(config, platform)).mismatch;
  } catch (const std::exception& e) {
    return std::string(" exception: ") + e.what();
  }
}

test::Program shrink(test::Program p, const std::string& config, const std::string& platform) {
  bool progress = true;
  while (progress) {
    progress = false;
    for (uint64_t k = 0; k + 1 < p.insn_count; ++k) {  // FINISH (last) stays
      test::Program q = without(p, k);
      if (!test::check_protocol(q).ok()) continue;
      if (mismatch(q, config, platform).empty()) continue;
      p = q;
      progress = true;
      break;
    }
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::cerr << "usage: " << argv[0] << " CONFIG PLATFORM FIRST_SEED LAST_SEED [CYCLE_PLATFORM]\n";
    return 2;
  }
  const std::string config = argv[1], platform = argv[2];
  const uint64_t first = std::strtoull(argv[3], nullptr, 10),
                 last = std::strtoull(argv[4], nullptr, 10);
  cycle_platform = argc == 6 ? argv[5] : platform;
  const isa::Layout& l = isa::layout_for(config);
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim c(l, isa::find_platform(cycle_platform));
  driver::rtl::RtlEngine& rtl = test::rtl_engine(config, platform);
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t programs = 0, insns = 0, cycles = 0;
  for (uint64_t seed = first; seed <= last; ++seed) {
    const test::RandomProgram rp = test::random_program(l, seed);
    std::string m;
    try {
      const test::Cosim r = test::cosimulate(rp.program, f, c, rtl);
      m = r.mismatch;
      cycles += r.cycles;
    } catch (const std::exception& e) {
      m = std::string(" exception: ") + e.what();
    }
    ++programs;
    insns += rp.program.insn_count;
    if (!m.empty()) {
      std::printf("cosim %s/%s seeds %llu..%llu: MISMATCH at seed %llu after %llu programs\n",
                  config.c_str(), platform.c_str(), (unsigned long long)first,
                  (unsigned long long)last, (unsigned long long)seed,
                  (unsigned long long)programs);
      std::printf("mismatch:%s\nprogram (%llu instructions; reproduce with random_program(%s, "
                  "%llu)):\n%s",
                  m.c_str(), (unsigned long long)rp.program.insn_count, config.c_str(),
                  (unsigned long long)seed, listing(rp.program).c_str());
      const test::Program small = shrink(rp.program, config, platform);
      std::printf("shrunk to %llu instructions (still token-correct, still mismatching:%s):\n%s",
                  (unsigned long long)small.insn_count,
                  mismatch(small, config, platform).c_str(), listing(small).c_str());
      return 1;
    }
  }
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("cosim %s/%s seeds %llu..%llu: %llu programs, %llu instructions, %llu cycles, "
              "0 mismatches, %.1f s\n",
              config.c_str(), platform.c_str(), (unsigned long long)first,
              (unsigned long long)last, (unsigned long long)programs, (unsigned long long)insns,
              (unsigned long long)cycles, s);
  return 0;
}
