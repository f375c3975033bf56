// Accelerator features from the lowered program (see accel_features.h).
#include "compiler/tune/accel_features.h"

#include <algorithm>
#include <cmath>

namespace weft::compiler::tune {

using accel::Op;

namespace {

struct Counts {
  double load_ops[6] = {0}, load_bytes[6] = {0}, load_rows[6] = {0}, pad_elems = 0;
  double store_ops = 0, store_bytes = 0, store_rows = 0;
  double gemm_ops = 0, gemm_uops = 0, reset_uops = 0, gemm_kernel_uops = 0;
  double alu_ops = 0, alu_uops = 0;
  double pushes = 0, pops = 0;
  double max_sram[6] = {0};
};

Counts count(const AccelBody& b, const isa::Layout& l) {
  Counts c;
  for (const Op& op : b.program.ops) {
    switch (op.kind) {
      case Op::Kind::kLoad: {
        int m = static_cast<int>(op.mem);
        if (m < 0 || m > 5) m = 0;
        const double elems = double(op.y_size) * double(op.x_size);
        c.load_ops[m] += 1;
        c.load_bytes[m] += elems * l.elem_bytes(op.mem);
        c.load_rows[m] += double(op.y_size);
        const double padded = double(op.y_pad0 + op.y_size + op.y_pad1) *
                              double(op.x_pad0 + op.x_size + op.x_pad1);
        c.pad_elems += padded - elems;
        c.max_sram[m] = std::max(c.max_sram[m], double(op.sram_base) + padded);
        break;
      }
      case Op::Kind::kStore:
        c.store_ops += 1;
        c.store_bytes += double(op.y_size) * double(op.x_size) * l.out_elem_bytes;
        c.store_rows += double(op.y_size);
        break;
      case Op::Kind::kGemm: {
        const double n = double(op.uops.size()) * double(op.iter_out) * double(op.iter_in);
        c.gemm_ops += 1;
        c.gemm_kernel_uops += double(op.uops.size());
        (op.reset ? c.reset_uops : c.gemm_uops) += n;
        break;
      }
      case Op::Kind::kAlu:
        c.alu_ops += 1;
        c.alu_uops += double(op.uops.size()) * double(op.iter_out) * double(op.iter_in);
        break;
      case Op::Kind::kDepPush: c.pushes += 1; break;
      case Op::Kind::kDepPop: c.pops += 1; break;
    }
  }
  return c;
}

float lg(double x) { return static_cast<float>(std::log2(1.0 + std::max(0.0, x))); }

}  // namespace

std::vector<std::string> AccelFeatures::names() const {
  return {"gemm_uops", "reset_uops", "alu_uops", "gemm_ops", "alu_ops", "uops_per_gemm",
          "inp_load_bytes", "wgt_load_bytes", "acc_load_bytes", "uop_load_bytes",
          "inp_loads", "wgt_loads", "inp_rows", "wgt_rows", "pad_elems",
          "store_bytes", "stores", "store_rows", "bytes_per_row", "dram_bytes",
          "tokens", "tokens_per_gemm", "inp_occupancy", "wgt_occupancy", "acc_occupancy",
          "macs_per_byte", "compute_cycles", "memory_cycles", "bound_cycles",
          "compute_over_memory", "load_latency_cycles", "vthreads", "ops",
          "gemm_per_load", "alu_per_gemm", "padding_waste"};
}

std::vector<float> AccelFeatures::extract(const Candidate& cand) const {
  std::vector<float> f(names().size(), 0.f);
  const AccelBody* b = cand.as<AccelBody>();
  if (!cand.ok() || !b) return f;
  const isa::Layout& l = *layout_;
  const Counts c = count(*b, l);
  const int inp = static_cast<int>(isa::MemType::kInp), wgt = static_cast<int>(isa::MemType::kWgt),
            acc = static_cast<int>(isa::MemType::kAcc), uop = static_cast<int>(isa::MemType::kUop);
  const double bus = platform_->axi_data_bits / 8.0;
  double dram = c.store_bytes;
  for (double x : c.load_bytes) dram += x;
  double rows = c.store_rows;
  for (double x : c.load_rows) rows += x;
  const double compute = c.gemm_uops + c.reset_uops + c.alu_uops;
  const double memory = dram / bus;
  const double latency = rows * platform_->read_latency / std::max(1, platform_->max_outstanding_reads);
  const double ideal = double(b->macs) / double(l.config.batch() * l.config.block_in() *
                                                 l.config.block_out());
  size_t i = 0;
  for (double v : {c.gemm_uops, c.reset_uops, c.alu_uops, c.gemm_ops, c.alu_ops})
    f[i++] = lg(v);
  f[i++] = static_cast<float>(c.gemm_ops ? c.gemm_uops / c.gemm_ops : 0);
  for (double v : {c.load_bytes[inp], c.load_bytes[wgt], c.load_bytes[acc], c.load_bytes[uop],
                   c.load_ops[inp], c.load_ops[wgt], c.load_rows[inp], c.load_rows[wgt],
                   c.pad_elems, c.store_bytes, c.store_ops, c.store_rows})
    f[i++] = lg(v);
  f[i++] = static_cast<float>(rows ? dram / rows : 0);
  f[i++] = lg(dram);
  f[i++] = lg(c.pushes + c.pops);
  f[i++] = static_cast<float>(c.gemm_ops ? (c.pushes + c.pops) / c.gemm_ops : 0);
  f[i++] = static_cast<float>(c.max_sram[inp] / double(l.inp_depth));
  f[i++] = static_cast<float>(c.max_sram[wgt] / double(l.wgt_depth));
  f[i++] = static_cast<float>(c.max_sram[acc] / double(l.acc_depth));
  f[i++] = static_cast<float>(dram ? double(b->macs) / dram : 0);
  f[i++] = lg(compute);
  f[i++] = lg(memory);
  f[i++] = lg(std::max(compute, memory));
  f[i++] = static_cast<float>(memory ? compute / memory : 0);
  f[i++] = lg(latency);
  f[i++] = static_cast<float>(b->vthreads);
  f[i++] = lg(double(b->program.ops.size()));
  f[i++] = static_cast<float>(c.load_ops[inp] + c.load_ops[wgt]
                                  ? c.gemm_ops / (c.load_ops[inp] + c.load_ops[wgt]) : 0);
  f[i++] = static_cast<float>(c.gemm_uops ? c.alu_uops / c.gemm_uops : 0);
  f[i++] = static_cast<float>(ideal > 0 ? c.gemm_uops / ideal : 0);
  return f;
}

double accel_lower_bound(const AccelBody& b, const isa::Layout& l, const isa::Platform& p) {
  const Counts c = count(b, l);
  double dram = c.store_bytes;
  for (double x : c.load_bytes) dram += x;
  return std::max(c.gemm_uops + c.reset_uops + c.alu_uops, dram / (p.axi_data_bits / 8.0));
}

}  // namespace weft::compiler::tune
