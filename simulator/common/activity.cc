// Counting what each instruction does to the hardware; see activity.h. The accesses follow the
// compute module's pipeline (docs/microarchitecture.md): every micro-op iteration reads its
// micro-op, a GEMM reads one INP and one WGT element and reads and writes one accumulator row
// (a reset only writes it), an ALU reads its destination row (and its source row unless the
// operand is an immediate) and writes the destination; stage 2 latches the operands and stage
// 3 the result.
#include "simulator/common/activity.h"

#include "hardware/isa/errors.h"

namespace weft::sim {

namespace {

constexpr uint64_t kInsnBytes = 16;

BufferTraffic& buffer_of(Activity& a, isa::MemType t) {
  switch (t) {
    case isa::MemType::kUop:
      return a.uop;
    case isa::MemType::kInp:
      return a.inp;
    case isa::MemType::kWgt:
      return a.wgt;
    default:
      return a.acc;  // ACC, ACC_8BIT (and OUT, which a LOAD may not name) land in the accumulator
  }
}

uint64_t u64(int64_t v) { return v > 0 ? static_cast<uint64_t>(v) : 0; }

}  // namespace

void Activity::add(const isa::Layout& l, const isa::Insn& in) {
  dram_read_bytes += kInsnBytes;
  queue_bytes += 4 * kInsnBytes;  // fetch FIFO and command queue: each written once, read once
  token_ops += u64(in.pop_prev_dep + in.pop_next_dep + in.push_prev_dep + in.push_next_dep);
  const uint64_t acc_row = u64(l.acc_elem_bytes);
  switch (in.op()) {
    case isa::Opcode::kLoad: {
      if (in.x_size <= 0) return;
      const uint64_t data = u64(in.y_size) * u64(in.x_size);
      const uint64_t written = u64(in.y_pad_0 + in.y_size + in.y_pad_1) *
                               u64(in.x_pad_0 + in.x_size + in.x_pad_1);
      dram_read_bytes += data * u64(l.elem_bytes(in.mem()));
      const bool acc8 = in.mem() == isa::MemType::kAcc8Bit;
      buffer_of(*this, in.mem()).write_bytes +=
          written * (acc8 ? acc_row : u64(l.elem_bytes(in.mem())));
      return;
    }
    case isa::Opcode::kStore: {
      if (in.x_size <= 0) return;
      const uint64_t n = u64(in.y_size) * u64(in.x_size);
      acc.read_bytes += n * acc_row;
      dram_write_bytes += n * u64(l.out_elem_bytes);
      return;
    }
    case isa::Opcode::kGemm:
    case isa::Opcode::kAlu: {
      const uint64_t it =
          u64(in.iter_out) * u64(in.iter_in) * u64(in.uop_end - in.uop_bgn);
      const uint64_t lanes = u64(l.config.batch()) * u64(l.config.block_out());
      uop.read_bytes += it * u64(l.uop_elem_bytes);
      acc.write_bytes += it * acc_row;
      if (in.op() == isa::Opcode::kGemm) {
        if (in.reset_reg) {
          pipeline_bytes += it * acc_row;
          return;
        }
        macs += it * u64(l.macs_per_uop());
        acc_adds += it * lanes;
        inp.read_bytes += it * u64(l.inp_elem_bytes);
        wgt.read_bytes += it * u64(l.wgt_elem_bytes);
        acc.read_bytes += it * acc_row;
        pipeline_bytes += it * (u64(l.inp_elem_bytes) + u64(l.wgt_elem_bytes) + 2 * acc_row);
      } else {
        (in.alu() == isa::AluOp::kMul ? alu_muls : alu_ops) += it * lanes;
        acc.read_bytes += it * acc_row * (in.use_imm ? 1 : 2);
        pipeline_bytes += it * 3 * acc_row;
      }
      return;
    }
    case isa::Opcode::kFinish:
      return;
  }
}

Activity& Activity::operator+=(const Activity& o) {
  macs += o.macs;
  acc_adds += o.acc_adds;
  alu_ops += o.alu_ops;
  alu_muls += o.alu_muls;
  for (auto [mine, theirs] : {std::pair{&uop, &o.uop}, {&inp, &o.inp}, {&wgt, &o.wgt},
                              {&acc, &o.acc}}) {
    mine->read_bytes += theirs->read_bytes;
    mine->write_bytes += theirs->write_bytes;
  }
  dram_read_bytes += o.dram_read_bytes;
  dram_write_bytes += o.dram_write_bytes;
  queue_bytes += o.queue_bytes;
  token_ops += o.token_ops;
  pipeline_bytes += o.pipeline_bytes;
  return *this;
}

bool Activity::operator==(const Activity& o) const {
  return macs == o.macs && acc_adds == o.acc_adds && alu_ops == o.alu_ops &&
         alu_muls == o.alu_muls && uop == o.uop && inp == o.inp && wgt == o.wgt &&
         acc == o.acc && dram_read_bytes == o.dram_read_bytes &&
         dram_write_bytes == o.dram_write_bytes && queue_bytes == o.queue_bytes &&
         token_ops == o.token_ops && pipeline_bytes == o.pipeline_bytes;
}

namespace {

// The one list of the JSON names, read and written from it.
template <typename A, typename F>
void for_each_count(A& a, F f) {
  f("macs", a.macs);
  f("acc_adds", a.acc_adds);
  f("alu_ops", a.alu_ops);
  f("alu_muls", a.alu_muls);
  f("uop_read_bytes", a.uop.read_bytes);
  f("uop_write_bytes", a.uop.write_bytes);
  f("inp_read_bytes", a.inp.read_bytes);
  f("inp_write_bytes", a.inp.write_bytes);
  f("wgt_read_bytes", a.wgt.read_bytes);
  f("wgt_write_bytes", a.wgt.write_bytes);
  f("acc_read_bytes", a.acc.read_bytes);
  f("acc_write_bytes", a.acc.write_bytes);
  f("dram_read_bytes", a.dram_read_bytes);
  f("dram_write_bytes", a.dram_write_bytes);
  f("queue_bytes", a.queue_bytes);
  f("token_ops", a.token_ops);
  f("pipeline_bytes", a.pipeline_bytes);
}

}  // namespace

nlohmann::ordered_json to_json(const Activity& a) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for_each_count(a, [&](const char* k, uint64_t v) { j[k] = v; });
  return j;
}

Activity activity_from_json(const nlohmann::json& j) {
  Activity a;
  for_each_count(a, [&](const char* k, uint64_t& v) {
    if (!j.is_object() || !j.contains(k) || !j.at(k).is_number_unsigned())
      throw InternalError(std::string("activity JSON: missing count '") + k + "'");
    v = j.at(k).get<uint64_t>();
  });
  return a;
}

}  // namespace weft::sim
