// A user's accelerator schedule as a placed program; see schedule_program.h.
#include "runtime/ops/schedule_program.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "hardware/isa/errors.h"

namespace weft::rt {

namespace {

using compiler::accel::Op;

// The memory type each DRAM tensor is moved as (a store writes the narrowed OUT elements).
std::map<const compiler::ir::BufferObj*, std::vector<isa::MemType>> memory_types(
    const compiler::accel::Program& p) {
  std::map<const compiler::ir::BufferObj*, std::vector<isa::MemType>> m;
  for (const Op& op : p.ops) {
    if (op.kind != Op::Kind::kLoad && op.kind != Op::Kind::kStore) continue;
    m[op.tensor.get()].push_back(op.kind == Op::Kind::kStore ? isa::MemType::kOut : op.mem);
  }
  return m;
}

// The element type a memory type moves between DRAM and the buffers: int32 accumulators for
// ACC, int8 for the rest (a STORE narrows the accumulator to int8).
compiler::ir::DType dram_dtype(isa::MemType m) {
  return m == isa::MemType::kAcc ? compiler::ir::DType::kInt32 : compiler::ir::DType::kInt8;
}

const char* mem_name(isa::MemType m) {
  switch (m) {
    case isa::MemType::kInp: return "INP";
    case isa::MemType::kWgt: return "WGT";
    case isa::MemType::kAcc: return "ACC";
    case isa::MemType::kOut: return "OUT";
    case isa::MemType::kAcc8Bit: return "ACC_8BIT";
    case isa::MemType::kUop: return "UOP";
  }
  return "?";
}

}  // namespace

uint64_t tensor_bytes(const compiler::te::Tensor& t) {
  return static_cast<uint64_t>(t->buffer->elements()) *
         static_cast<uint64_t>(std::max(1, compiler::ir::dtype_bits(t->dtype) / 8));
}

ScheduleProgram build_schedule_program(const isa::Layout& l, compiler::te::Schedule& s,
                                       const std::vector<compiler::te::Tensor>& args,
                                       const compiler::PassObserver& after_pass) {
  ScheduleProgram r;
  r.args = args;
  r.program = compiler::compile_accel(s, l, after_pass);
  const auto mems = memory_types(r.program);
  std::map<const compiler::ir::BufferObj*, const compiler::te::Tensor*> by_buffer;
  for (const auto& t : args) by_buffer[t->buffer.get()] = &t;
  for (const auto& b : r.program.tensors)
    if (!by_buffer.count(b.get()))
      throw UserError("accelerator build: tensor '" + b->name +
                      "' is read or written in DRAM by the program but is not an argument");
  std::vector<TensorSlot> slots;
  for (const auto& t : args) {
    auto it = mems.find(t->buffer.get());
    if (it == mems.end())
      throw UserError("accelerator build: argument '" + t->name +
                      "' is never loaded or stored by the program (a tensor the accelerator "
                      "reads must be copied on chip by a dma_copy stage)");
    const int eb = l.elem_bytes(it->second.front());
    for (isa::MemType m : it->second) {
      if (l.elem_bytes(m) != eb)
        throw UserError("accelerator build: tensor '" + t->name + "' is moved as memory types of " +
                        std::to_string(eb) + "- and " + std::to_string(l.elem_bytes(m)) +
                        "-byte elements; one tensor has one DRAM layout");
      // The bytes in DRAM are the argument's: its dtype must be what the transfer moves.
      if (t->dtype != dram_dtype(m))
        throw UserError("accelerator build: tensor '" + t->name + "' is " +
                        compiler::ir::dtype_name(t->dtype) + " but the program moves it as " +
                        mem_name(m) + " (" + compiler::ir::dtype_name(dram_dtype(m)) +
                        " elements); declare it " + compiler::ir::dtype_name(dram_dtype(m)) +
                        (m == isa::MemType::kOut ? " (e.g. .astype(\"int8\"))" : ""));
    }
    slots.push_back({t->buffer, tensor_bytes(t), eb});
  }
  r.placed = place_program(l, r.program, slots);
  return r;
}

std::vector<uint8_t> schedule_image(const ScheduleProgram& p, const std::vector<const void*>& data) {
  if (data.size() != p.args.size())
    throw InternalError("schedule_image: " + std::to_string(data.size()) + " arrays for " +
                        std::to_string(p.args.size()) + " arguments");
  std::vector<uint8_t> image = program_image(p.placed);
  for (size_t i = 0; i < data.size(); ++i)
    if (data[i])
      std::memcpy(image.data() + p.placed.address(p.args[i]->buffer), data[i],
                  tensor_bytes(p.args[i]));
  return image;
}

void read_argument(const ScheduleProgram& p, const std::vector<uint8_t>& image, size_t arg,
                   void* out) {
  std::memcpy(out, image.data() + p.placed.address(p.args.at(arg)->buffer),
              tensor_bytes(p.args[arg]));
}

}  // namespace weft::rt
