// The token planning pass; see plan_tokens.h.
#include "compiler/passes/plan_tokens.h"

#include <array>
#include <map>
#include <vector>

#include "hardware/isa/errors.h"
#include "hardware/isa/tokens.h"

namespace weft::compiler::passes {

namespace {

using accel::Op;
using isa::Module;

struct Last {
  int64_t op = -1;
  Module module = Module::kLoad;
};

// The last operation that touched each block, per on-chip buffer: indexed by block (blocks
// are small indices into buffers of bounded depth), grown as blocks are seen.
class BlockTable {
 public:
  Last& operator[](const std::pair<accel::Space, int64_t>& key) {
    std::vector<Last>& v = spaces_[static_cast<size_t>(key.first)];
    if (key.second < 0) throw InternalError("plan_tokens: negative block index");
    const size_t i = static_cast<size_t>(key.second);
    if (i >= v.size()) v.resize(std::max(i + 1, 2 * v.size()));
    return v[i];
  }

 private:
  std::array<std::vector<Last>, 3> spaces_;
};

Op token(Op::Kind kind, Module from, Module to) {
  Op t;
  t.kind = kind;
  t.from = from;
  t.to = to;
  return t;
}

}  // namespace

accel::Program plan_tokens(accel::Program program) {
  std::vector<std::vector<Op>> pops_before(program.ops.size());
  std::map<int64_t, std::vector<std::pair<Module, Module>>> push_after;
  BlockTable writer, reader;
  // waited[p][m]: the latest op of module p that module m has already waited for.
  std::array<std::array<int64_t, 3>, 3> waited{{{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}}};

  for (size_t index = 0; index < program.ops.size(); ++index) {
    const Op& op = program.ops[index];
    if (op.kind == Op::Kind::kDepPush || op.kind == Op::Kind::kDepPop) {
      throw UserError("plan_tokens: the program already has tokens");
    }
    const Module m = op.module;
    const accel::Access acc = accel::accesses(op);
    std::array<int64_t, 3> need{-1, -1, -1};  // per producer module: latest op index needed
    auto depend = [&](const Last& last) {
      if (last.op >= 0 && last.module != m) {
        need[int(last.module)] = std::max(need[int(last.module)], last.op);
      }
    };
    for (const auto& key : acc.reads) depend(writer[key]);
    for (const auto& key : acc.writes) {
      depend(writer[key]);
      depend(reader[key]);
    }
    for (int p = 0; p < 3; ++p) {
      if (need[p] < 0 || need[p] <= waited[p][int(m)]) continue;
      const Module from = static_cast<Module>(p);
      if (!isa::queue_between(from, m)) {
        throw UserError("plan_tokens: an operation on the " + std::string(isa::module_name(m)) +
                        " module depends on the " + isa::module_name(from) +
                        " module, which it cannot exchange tokens with");
      }
      push_after[need[p]].push_back({from, m});
      pops_before[index].push_back(token(Op::Kind::kDepPop, from, m));
      waited[p][int(m)] = need[p];
    }
    const int64_t i = static_cast<int64_t>(index);
    for (const auto& key : acc.reads) reader[key] = {i, m};
    for (const auto& key : acc.writes) writer[key] = {i, m};
  }

  // Program order: each op's pops, the op, then the pushes that later ops asked of it.
  accel::Program out;
  out.tensors = program.tensors;
  size_t count = program.ops.size();
  for (size_t i = 0; i < program.ops.size(); ++i) count += pops_before[i].size();
  for (const auto& [at, pushes] : push_after) count += pushes.size();
  out.ops.reserve(count);  // growing a vector of operations copies their micro-ops
  for (size_t i = 0; i < program.ops.size(); ++i) {
    for (const Op& p : pops_before[i]) out.ops.push_back(p);
    out.ops.push_back(std::move(program.ops[i]));
    auto it = push_after.find(static_cast<int64_t>(i));
    if (it == push_after.end()) continue;
    for (const auto& [from, to] : it->second) {
      out.ops.push_back(token(Op::Kind::kDepPush, from, to));
    }
  }
  return out;
}

}  // namespace weft::compiler::passes
