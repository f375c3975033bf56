// The static token-protocol and race checker; see program_check.h.
#include "tests/support/program_check.h"

#include <algorithm>
#include <array>

#include "hardware/isa/encoding.h"
#include "hardware/isa/insn.h"

namespace weft::test {

namespace {

using isa::Insn;
using isa::MemType;
using isa::Module;
using isa::Opcode;

constexpr size_t kMaxProblems = 24;
constexpr const char* kQueueNames[4] = {"load->compute", "compute->load", "compute->store",
                                        "store->compute"};
enum Space { kUopSpace, kInpSpace, kWgtSpace, kAccSpace };
constexpr const char* kSpaceNames[4] = {"UOP", "INP", "WGT", "ACC"};

// The queue a module pushes (or pops) with its prev/next flag; -1 where it has no neighbour.
int push_q(Module m, bool prev) {
  switch (m) {
    case Module::kLoad:
      return prev ? -1 : 0;
    case Module::kCompute:
      return prev ? 1 : 2;
    case Module::kStore:
      return prev ? 3 : -1;
  }
  return -1;
}
int pop_q(Module m, bool prev) {
  switch (m) {
    case Module::kLoad:
      return prev ? -1 : 1;
    case Module::kCompute:
      return prev ? 0 : 3;
    case Module::kStore:
      return prev ? 2 : -1;
  }
  return -1;
}

struct Access {
  size_t insn;
  bool read, write;
};

struct DramRange {
  size_t insn;
  uint64_t begin, end;  // bytes
  bool write;
};

class Checker {
 public:
  explicit Checker(const Program& p) : p_(p), l_(*p.layout) {}
  ProtocolReport run();

 private:
  void problem(const std::string& s) {
    if (report_.problems.size() < kMaxProblems) report_.problems.push_back(s);
  }
  std::string name(size_t i) const {
    const char* op = isa::opcode_name(prog_[i].opcode);
    std::string s = "instruction " + std::to_string(i) + " (" + (op ? op : "?");
    if (prog_[i].op() == Opcode::kLoad || prog_[i].op() == Opcode::kStore) {
      s += std::string(" ") + isa::mem_type_name(prog_[i].memory_type);
    }
    return s + ")";
  }
  // a completes before b starts.
  bool hb(size_t a, size_t b) const { return a != b && vc_[b][int(mod_[a])] >= pos_[a] + 1; }
  bool touch(size_t i, Space s, int64_t index, bool read, bool write);
  void accesses(size_t i);
  void tokens();
  void races();
  void dram_races();

  const Program& p_;
  const isa::Layout& l_;
  ProtocolReport report_;
  std::vector<Insn> prog_;
  std::vector<Module> mod_;
  std::vector<int64_t> pos_;                // index within its module
  std::vector<std::array<int64_t, 3>> vc_;  // instructions of each module done before it starts
  std::array<std::vector<size_t>, 4> pushes_, pops_;
  std::array<std::vector<std::vector<Access>>, 4> elems_;
  std::vector<DramRange> dram_;
  std::vector<isa::Uop> uop_;
  std::vector<bool> uop_loaded_;
};

bool Checker::touch(size_t i, Space s, int64_t index, bool read, bool write) {
  auto& e = elems_[s];
  if (index < 0 || index >= static_cast<int64_t>(e.size())) {
    problem(name(i) + ": " + kSpaceNames[s] + " index " + std::to_string(index) +
            " is out of range");
    return false;
  }
  auto& list = e[static_cast<size_t>(index)];
  if (!list.empty() && list.back().insn == i) {
    list.back().read |= read;
    list.back().write |= write;
  } else {
    list.push_back({i, read, write});
  }
  return true;
}

// Records what instruction i reads and writes (on chip by element, DRAM by byte range).
void Checker::accesses(size_t i) {
  const Insn& in = prog_[i];
  if (in.op() == Opcode::kLoad || in.op() == Opcode::kStore) {
    if (in.x_size == 0) return;
    const MemType t = in.mem();
    const uint64_t eb = static_cast<uint64_t>(l_.elem_bytes(t));
    for (int64_t y = 0; y < in.y_size; ++y) {
      const uint64_t begin = static_cast<uint64_t>(in.dram_base + y * in.x_stride) * eb;
      dram_.push_back(
          {i, begin, begin + static_cast<uint64_t>(in.x_size) * eb, in.op() == Opcode::kStore});
    }
    if (in.op() == Opcode::kStore) {
      for (int64_t k = 0; k < in.y_size * in.x_size; ++k) {
        if (!touch(i, kAccSpace, in.sram_base + k, true, false)) return;
      }
      return;
    }
    const Space s = t == MemType::kUop   ? kUopSpace
                    : t == MemType::kInp ? kInpSpace
                    : t == MemType::kWgt ? kWgtSpace
                                         : kAccSpace;
    const int64_t rows = in.y_pad_0 + in.y_size + in.y_pad_1;
    const int64_t cols = in.x_pad_0 + in.x_size + in.x_pad_1;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t index = in.sram_base + r * cols + c;
        if (!touch(i, s, index, false, true)) return;
        if (s != kUopSpace) continue;
        const int64_t y = r - in.y_pad_0, x = c - in.x_pad_0;
        const bool pad = y < 0 || y >= in.y_size || x < 0 || x >= in.x_size;
        const uint64_t byte = static_cast<uint64_t>(in.dram_base + y * in.x_stride + x) * 4;
        if (!pad && byte + 4 > p_.dram.size()) {
          problem(name(i) + ": reads micro-ops beyond the image");
          return;
        }
        uop_[index] = pad ? isa::Uop{} : isa::decode_uop(l_, p_.dram.data() + byte);
        uop_loaded_[index] = true;
      }
    }
    return;
  }
  if (in.op() != Opcode::kGemm && in.op() != Opcode::kAlu) return;
  const bool gemm = in.op() == Opcode::kGemm;
  for (int64_t a = 0; a < in.iter_out; ++a) {
    for (int64_t b = 0; b < in.iter_in; ++b) {
      for (int64_t k = in.uop_bgn; k < in.uop_end; ++k) {
        if (!touch(i, kUopSpace, k, true, false)) return;
        if (!uop_loaded_[k]) continue;  // reported as an undefined read
        const isa::Uop& u = uop_[k];
        const int64_t dst = u.dst + a * in.dst_factor_out + b * in.dst_factor_in;
        const int64_t src = u.src + a * in.src_factor_out + b * in.src_factor_in;
        const int64_t wgt = u.wgt + a * in.wgt_factor_out + b * in.wgt_factor_in;
        if (gemm && in.reset_reg) {
          if (!touch(i, kAccSpace, dst, false, true)) return;
        } else if (gemm) {
          if (!touch(i, kAccSpace, dst, true, true) || !touch(i, kInpSpace, src, true, false) ||
              !touch(i, kWgtSpace, wgt, true, false)) {
            return;
          }
        } else {
          if (!touch(i, kAccSpace, dst, true, true)) return;
          if (!in.use_imm && !touch(i, kAccSpace, src, true, false)) return;
        }
      }
    }
  }
}

// Matches pops with pushes, builds the vector clocks and bounds queue occupancy.
void Checker::tokens() {
  const size_t n = prog_.size();
  for (size_t i = 0; i < n; ++i) {
    const Insn& in = prog_[i];
    const int flags[4] = {int(in.pop_prev_dep), int(in.pop_next_dep), int(in.push_prev_dep),
                          int(in.push_next_dep)};
    for (int f = 0; f < 4; ++f) {
      if (!flags[f]) continue;
      const bool prev = f % 2 == 0;
      const int q = f < 2 ? pop_q(mod_[i], prev) : push_q(mod_[i], prev);
      if (q < 0) {
        problem(name(i) + ": sets a dependency flag its module cannot honour");
        continue;
      }
      (f < 2 ? pops_ : pushes_)[q].push_back(i);
    }
  }
  std::array<size_t, 4> popped{};
  std::array<int64_t, 3> last{-1, -1, -1};
  vc_.assign(n, {0, 0, 0});
  for (size_t i = 0; i < n; ++i) {
    const int m = int(mod_[i]);
    if (last[m] >= 0) vc_[i] = vc_[static_cast<size_t>(last[m])];
    for (int q = 0; q < 4; ++q) {
      if (popped[q] >= pops_[q].size() || pops_[q][popped[q]] != i) continue;
      const size_t k = popped[q]++;
      if (k >= pushes_[q].size()) {
        problem(name(i) + ": pops a token on " + kQueueNames[q] +
                " that is never pushed (a deadlock)");
        continue;
      }
      const size_t from = pushes_[q][k];
      if (from >= i) {
        problem(name(i) + ": its token on " + kQueueNames[q] + " comes from " + name(from) +
                ", later in program order (fetch can deadlock)");
        continue;
      }
      for (int c = 0; c < 3; ++c) vc_[i][c] = std::max(vc_[i][c], vc_[from][c]);
    }
    vc_[i][m] = pos_[i] + 1;
    last[m] = static_cast<int64_t>(i);
  }
  for (int q = 0; q < 4; ++q) {
    if (pushes_[q].size() > pops_[q].size()) {
      problem(std::string("queue ") + kQueueNames[q] + ": " +
              std::to_string(pushes_[q].size() - pops_[q].size()) +
              " token(s) pushed but never popped");
    }
    // When push k happens, only the pops that happen before it are certain: at most
    // k - (those) tokens are in the queue.
    int64_t most = 0;
    for (size_t k = 0; k < pushes_[q].size(); ++k) {
      size_t before = 0;
      while (before < pops_[q].size() && hb(pops_[q][before], pushes_[q][k])) ++before;
      most = std::max<int64_t>(most, static_cast<int64_t>(k + 1 - before));
    }
    report_.max_tokens[q] = most;
  }
}

void Checker::races() {
  for (int s = 0; s < 4; ++s) {
    for (size_t e = 0; e < elems_[s].size(); ++e) {
      const std::vector<Access>& list = elems_[s][e];
      for (size_t x = 0; x < list.size(); ++x) {
        const Access& a = list[x];
        if (a.read) {
          bool defined = false;
          for (const Access& w : list) defined = defined || (w.write && hb(w.insn, a.insn));
          if (!defined) {
            problem(name(a.insn) + " reads " + kSpaceNames[s] + "[" + std::to_string(e) +
                    "] before this program surely wrote it");
          }
        }
        for (size_t y = x + 1; y < list.size(); ++y) {
          const Access& b = list[y];
          if (mod_[a.insn] == mod_[b.insn] || !(a.write || b.write)) continue;
          if (!hb(a.insn, b.insn) && !hb(b.insn, a.insn)) {
            problem("data race on " + std::string(kSpaceNames[s]) + "[" + std::to_string(e) +
                    "] between " + name(a.insn) + " and " + name(b.insn));
          }
        }
      }
    }
  }
}

void Checker::dram_races() {
  const uint64_t code_begin = p_.insn_offset;
  const uint64_t code_end = p_.insn_offset + p_.insn_count * isa::kInsnBytes;
  for (const DramRange& w : dram_) {
    if (!w.write) continue;
    if (w.begin < code_end && code_begin < w.end) {
      problem(name(w.insn) + " writes over the instructions");
    }
    for (const DramRange& o : dram_) {
      if (&o == &w || mod_[o.insn] == mod_[w.insn] || o.end <= w.begin || w.end <= o.begin) {
        continue;
      }
      if (!hb(o.insn, w.insn) && !hb(w.insn, o.insn)) {
        problem("DRAM race on bytes [" + std::to_string(std::max(o.begin, w.begin)) + ", " +
                std::to_string(std::min(o.end, w.end)) + ") between " + name(w.insn) + " and " +
                name(o.insn));
      }
    }
  }
}

ProtocolReport Checker::run() {
  if (p_.layout == nullptr || p_.insn_count == 0 ||
      p_.insn_offset + p_.insn_count * isa::kInsnBytes > p_.dram.size()) {
    problem("no instructions to check");
    return report_;
  }
  std::array<int64_t, 3> count{};
  for (uint64_t i = 0; i < p_.insn_count; ++i) {
    prog_.push_back(isa::decode_insn(l_, p_.dram.data() + p_.insn_offset + i * isa::kInsnBytes,
                                     "instruction " + std::to_string(i)));
    mod_.push_back(isa::route(prog_.back()));
    pos_.push_back(count[int(mod_.back())]++);
  }
  const size_t n = prog_.size();
  if (prog_.back().op() != Opcode::kFinish) problem("the last instruction is not FINISH");
  tokens();
  elems_[kUopSpace].resize(static_cast<size_t>(l_.uop_depth));
  elems_[kInpSpace].resize(static_cast<size_t>(l_.inp_depth));
  elems_[kWgtSpace].resize(static_cast<size_t>(l_.wgt_depth));
  elems_[kAccSpace].resize(static_cast<size_t>(l_.acc_depth));
  uop_.assign(static_cast<size_t>(l_.uop_depth), isa::Uop{});
  uop_loaded_.assign(static_cast<size_t>(l_.uop_depth), false);
  for (size_t i = 0; i < n; ++i) accesses(i);
  races();
  dram_races();
  for (size_t i = 0; i + 1 < n; ++i) {
    if (!hb(i, n - 1)) problem("FINISH can run before " + name(i) + " completes");
  }
  return report_;
}

}  // namespace

ProtocolReport check_protocol(const Program& p) { return Checker(p).run(); }

}  // namespace weft::test
