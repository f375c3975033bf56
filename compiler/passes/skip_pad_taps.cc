// Pass skip_pad_taps; see skip_pad_taps.h.
#include "compiler/passes/skip_pad_taps.h"

#include <map>
#include <set>

namespace weft::compiler::passes {

namespace {

using accel::Op;

std::vector<int64_t> key_of(const std::vector<isa::Uop>& uops) {
  std::vector<int64_t> k;
  for (const isa::Uop& u : uops) k.insert(k.end(), {u.dst, u.src, u.wgt});
  return k;
}

}  // namespace

accel::Program skip_pad_taps(const accel::Program& p, const isa::Layout& l, int64_t* dropped) {
  if (dropped) *dropped = 0;
  std::map<int64_t, bool> pad;  // INP block -> the last load wrote padding there
  accel::Program out;
  out.tensors = p.tensors;
  int64_t removed = 0;
  for (const Op& op : p.ops) {
    if (op.kind == Op::Kind::kLoad && op.mem == isa::MemType::kInp) {
      const int64_t rows = op.y_pad0 + op.y_size + op.y_pad1;
      const int64_t cols = op.x_pad0 + op.x_size + op.x_pad1;
      for (int64_t y = 0; y < rows; ++y)
        for (int64_t x = 0; x < cols; ++x)
          pad[op.sram_base + y * cols + x] = y < op.y_pad0 || y >= op.y_pad0 + op.y_size ||
                                             x < op.x_pad0 || x >= op.x_pad0 + op.x_size;
      out.ops.push_back(op);
      continue;
    }
    if (op.kind != Op::Kind::kGemm || op.reset) {
      out.ops.push_back(op);
      continue;
    }
    auto is_pad = [&](int64_t src) {
      auto it = pad.find(src);
      return it != pad.end() && it->second;
    };
    bool any = false;
    for (int64_t i = 0; i < op.iter_out && !any; ++i)
      for (int64_t j = 0; j < op.iter_in && !any; ++j)
        for (const isa::Uop& u : op.uops)
          if (is_pad(u.src + i * op.src_factor_out + j * op.src_factor_in)) {
            any = true;
            break;
          }
    if (!any) {
      out.ops.push_back(op);
      continue;
    }
    for (int64_t i = 0; i < op.iter_out; ++i)
      for (int64_t j = 0; j < op.iter_in; ++j) {
        Op g = op;
        g.uops.clear();
        g.iter_out = g.iter_in = 1;
        g.dst_factor_out = g.dst_factor_in = g.src_factor_out = g.src_factor_in = 0;
        g.wgt_factor_out = g.wgt_factor_in = 0;
        for (const isa::Uop& u : op.uops) {
          const isa::Uop v{u.dst + i * op.dst_factor_out + j * op.dst_factor_in,
                           u.src + i * op.src_factor_out + j * op.src_factor_in,
                           u.wgt + i * op.wgt_factor_out + j * op.wgt_factor_in};
          if (is_pad(v.src)) {
            ++removed;
          } else {
            g.uops.push_back(v);
          }
        }
        if (!g.uops.empty()) out.ops.push_back(g);
      }
  }
  if (removed == 0) return p;
  // Every distinct kernel resident at once, or nothing changes.
  std::set<std::vector<int64_t>> kernels;
  int64_t uops = 0;
  for (const Op& op : out.ops)
    if ((op.kind == Op::Kind::kGemm || op.kind == Op::Kind::kAlu) &&
        kernels.insert(key_of(op.uops)).second)
      uops += static_cast<int64_t>(op.uops.size());
  if (uops > l.uop_depth) return p;
  if (dropped) *dropped = removed;
  return out;
}

}  // namespace weft::compiler::passes
