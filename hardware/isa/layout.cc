// Field derivation for every configuration; see layout.h for the packing rule.
#include "hardware/isa/layout.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "hardware/isa/config_file.h"
#include "hardware/isa/errors.h"

namespace weft::isa {

const Field* Format::find(const std::string& field_name) const {
  for (const Field& f : fields) {
    if (f.name == field_name) return &f;
  }
  return nullptr;
}

int Layout::elem_bytes(MemType t) const {
  switch (t) {
    case MemType::kUop:
      return uop_elem_bytes;
    case MemType::kWgt:
      return wgt_elem_bytes;
    case MemType::kInp:
      return inp_elem_bytes;
    case MemType::kAcc:
      return acc_elem_bytes;
    case MemType::kOut:
      return out_elem_bytes;
    case MemType::kAcc8Bit:
      return acc8_elem_bytes;
  }
  throw InternalError("elem_bytes: bad memory type");
}

int64_t Layout::sram_depth(MemType t) const {
  switch (t) {
    case MemType::kUop:
      return uop_depth;
    case MemType::kWgt:
      return wgt_depth;
    case MemType::kInp:
      return inp_depth;
    case MemType::kAcc:
    case MemType::kOut:
    case MemType::kAcc8Bit:
      return acc_depth;
  }
  throw InternalError("sram_depth: bad memory type");
}

const Format* Layout::format_of(int64_t opcode) const {
  switch (opcode) {
    case 0:
    case 1:
      return &mem;
    case 2:
      return &gemm;
    case 3:
      return &finish;
    case 4:
      return &alu;
    default:
      return nullptr;
  }
}

namespace {

constexpr int64_t kMinUops = 8;
constexpr int64_t kMinAccRows = 4;

bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

int log2_exact(uint64_t v) {
  int l = 0;
  while ((uint64_t{1} << l) < v) ++l;
  return l;
}

// Lays fields out in order, moving a field that would straddle a 64-bit word boundary to the
// next word, and rejects the format when the fields run past total_bits.
class Packer {
 public:
  Packer(const std::string& config, std::string format, int total_bits) : config_(config) {
    out_.name = std::move(format);
    out_.total_bits = total_bits;
  }
  Packer& insn(const char* name, int width, int64_t Insn::*m, bool is_signed = false) {
    Field f = place(name, width, is_signed);
    f.insn_member = m;
    out_.fields.push_back(f);
    return *this;
  }
  Packer& uop(const char* name, int width, int64_t Uop::*m) {
    Field f = place(name, width, false);
    f.uop_member = m;
    out_.fields.push_back(f);
    return *this;
  }
  Format done() { return out_; }

 private:
  Field place(const char* name, int width, bool is_signed) {
    if (width <= 0 || width > 63) {
      throw UserError("configuration '" + config_ + "': " + out_.name + " field '" + name +
                      "' would be " + std::to_string(width) + " bits wide");
    }
    if (next_ / 64 != (next_ + width - 1) / 64) next_ = (next_ / 64 + 1) * 64;
    if (next_ + width > out_.total_bits) {
      throw UserError("configuration '" + config_ + "': " + out_.name + " field '" + name + "' (" +
                      std::to_string(width) + " bits) does not fit in " +
                      std::to_string(out_.total_bits) + " bits: it would end at bit " +
                      std::to_string(next_ + width - 1));
    }
    Field f;
    f.name = name;
    f.lsb = next_;
    f.width = width;
    f.is_signed = is_signed;
    next_ += width;
    return f;
  }
  std::string config_;
  Format out_;
  int next_ = 0;
};

void add_common(Packer& p) {
  p.insn("opcode", IsaConstants::kOpcodeBits, &Insn::opcode)
      .insn("pop_prev_dep", 1, &Insn::pop_prev_dep)
      .insn("pop_next_dep", 1, &Insn::pop_next_dep)
      .insn("push_prev_dep", 1, &Insn::push_prev_dep)
      .insn("push_next_dep", 1, &Insn::push_next_dep);
}

// The GEMM and ALU formats share everything up to src_factor_in.
void add_compute_common(Packer& p, const Layout& l, int src_bits) {
  add_common(p);
  p.insn("reset_reg", 1, &Insn::reset_reg)
      .insn("uop_bgn", l.log_uop_depth, &Insn::uop_bgn)
      .insn("uop_end", l.log_uop_depth + 1, &Insn::uop_end)
      .insn("iter_out", IsaConstants::kLoopIterBits, &Insn::iter_out)
      .insn("iter_in", IsaConstants::kLoopIterBits, &Insn::iter_in)
      .insn("dst_factor_out", l.log_acc_depth, &Insn::dst_factor_out)
      .insn("dst_factor_in", l.log_acc_depth, &Insn::dst_factor_in)
      .insn("src_factor_out", src_bits, &Insn::src_factor_out)
      .insn("src_factor_in", src_bits, &Insn::src_factor_in);
}

void check_param(const HwConfig& c, const char* what, uint64_t value, bool ok, const char* rule) {
  if (!ok) {
    throw UserError("configuration '" + c.name + "': " + what + " = " + std::to_string(value) +
                    " " + rule);
  }
}

}  // namespace

Layout derive_layout(const HwConfig& c) {
  check_param(c, "batch", uint64_t{1} << std::clamp(c.log_batch, 0, 63),
              c.log_batch >= 0 && c.log_batch <= 6, "must be a power of two of 1..64");
  check_param(c, "block_in", uint64_t{1} << std::clamp(c.log_block_in, 0, 63),
              c.log_block_in >= 0 && c.log_block_in <= 7, "must be a power of two of 1..128");
  check_param(c, "block_out", uint64_t{1} << std::clamp(c.log_block_out, 0, 63),
              c.log_block_out >= 0 && c.log_block_out <= 7, "must be a power of two of 1..128");
  check_param(c, "inp_bits", c.inp_bits, c.inp_bits == 8, "is not supported (must be 8)");
  check_param(c, "wgt_bits", c.wgt_bits, c.wgt_bits == 8, "is not supported (must be 8)");
  check_param(c, "acc_bits", c.acc_bits, c.acc_bits == 32, "is not supported (must be 32)");
  check_param(c, "out_bits", c.out_bits, c.out_bits == 8, "is not supported (must be 8)");
  check_param(c, "token_queue_depth", c.token_queue_depth,
              c.token_queue_depth >= 1 && c.token_queue_depth <= 65536, "must be 1..65536");

  check_param(c, "cmd_queue_depth", c.cmd_queue_depth,
              c.cmd_queue_depth >= 1 && c.cmd_queue_depth <= 1024, "must be 1..1024");
  check_param(c, "fetch_fifo_depth", c.fetch_fifo_depth,
              c.fetch_fifo_depth >= 1 && c.fetch_fifo_depth <= 4096, "must be 1..4096");
  check_param(c, "gemm_pipeline_depth", c.gemm_pipeline_depth,
              c.gemm_pipeline_depth >= 2 && c.gemm_pipeline_depth <= 16, "must be 2..16");
  check_param(c, "alu_pipeline_depth", c.alu_pipeline_depth,
              c.alu_pipeline_depth == c.gemm_pipeline_depth,
              "must equal gemm_pipeline_depth (one accumulator write port: different depths "
              "would land writes out of issue order)");

  Layout l;
  l.config = c;
  l.inp_elem_bytes = c.batch() * c.block_in() * c.inp_bits / 8;
  l.wgt_elem_bytes = c.block_out() * c.block_in() * c.wgt_bits / 8;
  l.acc_elem_bytes = c.batch() * c.block_out() * c.acc_bits / 8;
  l.out_elem_bytes = c.batch() * c.block_out() * c.out_bits / 8;
  l.acc8_elem_bytes = c.batch() * c.block_out();

  struct Buf {
    const char* name;
    uint64_t bytes;
    int elem;
    int64_t* depth;
    int* log_depth;
  };
  for (const Buf& b :
       {Buf{"uop_buf_bytes", c.uop_buf_bytes, l.uop_elem_bytes, &l.uop_depth, &l.log_uop_depth},
        Buf{"inp_buf_bytes", c.inp_buf_bytes, l.inp_elem_bytes, &l.inp_depth, &l.log_inp_depth},
        Buf{"wgt_buf_bytes", c.wgt_buf_bytes, l.wgt_elem_bytes, &l.wgt_depth, &l.log_wgt_depth},
        Buf{"acc_buf_bytes", c.acc_buf_bytes, l.acc_elem_bytes, &l.acc_depth, &l.log_acc_depth}}) {
    check_param(c, b.name, b.bytes, is_pow2(b.bytes), "is not a power of two");
    check_param(
        c, b.name, b.bytes, b.bytes >= 2 * static_cast<uint64_t>(b.elem),
        ("must hold at least two elements of " + std::to_string(b.elem) + " bytes").c_str());
    *b.depth = static_cast<int64_t>(b.bytes / b.elem);
    *b.log_depth = log2_exact(static_cast<uint64_t>(*b.depth));
  }

  // The smallest schedule the compiler emits (one block of each operand, 1x1 tiles, one
  // thread) must fit: one GEMM, a reset and six ALU micro-ops; the accumulator tile, its bias,
  // a residual tile and per-channel shifts.
  check_param(c, "uop_buf_bytes", c.uop_buf_bytes, l.uop_depth >= kMinUops,
              ("holds " + std::to_string(l.uop_depth) + " micro-ops; the smallest schedule (one "
               "GEMM, a reset and six ALU micro-ops) needs " + std::to_string(kMinUops)).c_str());
  check_param(c, "acc_buf_bytes", c.acc_buf_bytes, l.acc_depth >= kMinAccRows,
              ("holds " + std::to_string(l.acc_depth) + " accumulator blocks; the smallest "
               "schedule (output, bias, residual and per-channel shift blocks) needs " +
               std::to_string(kMinAccRows)).c_str());

  const int max_log_depth =
      std::max({l.log_uop_depth, l.log_inp_depth, l.log_wgt_depth, l.log_acc_depth});
  const int sram_bits = std::max(IsaConstants::kMinSramBaseBits, max_log_depth);
  const int src_bits = std::max(l.log_inp_depth, l.log_acc_depth);
  const int insn_bits = IsaConstants::kInsnBits;

  Packer mem(c.name, "MEM", insn_bits);
  add_common(mem);
  mem.insn("memory_type", IsaConstants::kMemTypeBits, &Insn::memory_type)
      .insn("sram_base", sram_bits, &Insn::sram_base)
      .insn("dram_base", IsaConstants::kDramBaseBits, &Insn::dram_base)
      .insn("y_size", IsaConstants::kSizeBits, &Insn::y_size)
      .insn("x_size", IsaConstants::kSizeBits, &Insn::x_size)
      .insn("x_stride", IsaConstants::kSizeBits, &Insn::x_stride)
      .insn("y_pad_0", IsaConstants::kPadBits, &Insn::y_pad_0)
      .insn("y_pad_1", IsaConstants::kPadBits, &Insn::y_pad_1)
      .insn("x_pad_0", IsaConstants::kPadBits, &Insn::x_pad_0)
      .insn("x_pad_1", IsaConstants::kPadBits, &Insn::x_pad_1);
  l.mem = mem.done();

  Packer gemm(c.name, "GEMM", insn_bits);
  add_compute_common(gemm, l, src_bits);
  gemm.insn("wgt_factor_out", l.log_wgt_depth, &Insn::wgt_factor_out)
      .insn("wgt_factor_in", l.log_wgt_depth, &Insn::wgt_factor_in);
  l.gemm = gemm.done();

  Packer alu(c.name, "ALU", insn_bits);
  add_compute_common(alu, l, src_bits);
  alu.insn("alu_opcode", IsaConstants::kAluOpcodeBits, &Insn::alu_opcode)
      .insn("use_imm", 1, &Insn::use_imm)
      .insn("imm", IsaConstants::kAluImmBits, &Insn::imm, /*is_signed=*/true);
  l.alu = alu.done();

  Packer finish(c.name, "FINISH", insn_bits);
  add_common(finish);
  l.finish = finish.done();

  Packer uop(c.name, "UOP", IsaConstants::kUopBits);
  uop.uop("dst", l.log_acc_depth, &Uop::dst)
      .uop("src", src_bits, &Uop::src)
      .uop("wgt", l.log_wgt_depth, &Uop::wgt);
  l.uop = uop.done();
  return l;
}

const Layout& layout_for(const std::string& name_or_file) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Layout>> cache;  // by argument
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name_or_file);
  if (it != cache.end()) return *it->second;
  std::unique_ptr<Layout> layout;
  if (!names_a_file(name_or_file)) {
    layout = std::make_unique<Layout>(derive_layout(find_config(name_or_file)));
  } else {
    const HwConfig c = load_config_file(name_or_file);
    // A name identifies a configuration (RTL builds, tuning records): a file may not give a
    // shipped name, or the name of another file loaded before, to different hardware.
    for (const HwConfig& s : shipped_configs()) {
      if (s.name == c.name && !same_hardware(s, c)) {
        throw UserError("configuration file '" + name_or_file + "' names its configuration '" +
                        c.name + "', a shipped configuration, but differs from it; give it "
                        "another name");
      }
    }
    for (const auto& [arg, l] : cache) {
      if (l->config.name == c.name && !same_hardware(l->config, c)) {
        throw UserError("configuration file '" + name_or_file + "' and '" + arg +
                        "' both name their configuration '" + c.name +
                        "' but differ; give them different names");
      }
    }
    try {
      layout = std::make_unique<Layout>(derive_layout(c));
    } catch (const UserError& e) {
      throw UserError("configuration file '" + name_or_file + "': " + e.what());
    }
  }
  return *cache.emplace(name_or_file, std::move(layout)).first->second;
}

}  // namespace weft::isa
