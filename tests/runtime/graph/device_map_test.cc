// The executor's device memory map (runtime/graph/device_map.h) of a small ResNet on `vta`:
// the weights from address 0, every kernel's constants after them at their alignments without
// overlap, the activation arena, then every kernel's instructions and micro-ops; values at
// their plan's offsets; what upload() writes is what the kernels and the plan hold.
#include "runtime/graph/device_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "compiler/graph/lower/accel_kernel.h"
#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "driver/device.h"

namespace weft::rt::graph {
namespace {

namespace cg = compiler::graph;

TEST(DeviceMap, RegionsInOrderAlignedAndDisjoint) {
  cg::models::ResNetOptions net;
  net.image = 32;
  net.width = 16;
  net.stages = 2;
  net.classes = 10;
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  cg::GraphCompileOptions co;
  co.cpu_gmacs = 0.01;  // every conv and the fc on the accelerator
  const cg::CompiledGraph c = cg::compile_graph(cg::models::resnet18(net), l, pf, co);
  cg::KnobChooser knobs(l, pf, 1, nullptr);
  cg::AccelLowering lower(l, pf, {}, knobs);
  std::vector<cg::AccelKernel> kernels;
  for (cg::NodeId id : c.graph.schedule_order())
    if (c.graph.node(id).kind == cg::OpKind::AccelConv ||
        c.graph.node(id).kind == cg::OpKind::AccelDense)
      kernels.push_back(lower.lower(c.graph, id));
  ASSERT_GT(kernels.size(), 5u);
  const DeviceMap map(c.graph, c.plan, kernels, l);

  EXPECT_EQ(map.constants_base() % 4096, 0u);
  EXPECT_GE(map.constants_base(), static_cast<uint64_t>(c.plan.weight_bytes));
  std::vector<std::pair<uint64_t, uint64_t>> used;  // [begin, end) of constants and programs
  for (size_t i = 0; i < kernels.size(); ++i) {
    const PlacedKernel& p = map.kernel(i);
    ASSERT_EQ(p.constant_addrs.size(), kernels[i].constants.size());
    for (size_t k = 0; k < p.constant_addrs.size(); ++k) {
      const uint64_t at = p.constant_addrs[k];
      EXPECT_EQ(at % kernels[i].constants[k].alignment, 0u);
      EXPECT_GE(at, map.constants_base());
      EXPECT_LE(at + kernels[i].constants[k].bytes.size(), map.arena_base());
      if (!kernels[i].constants[k].bytes.empty())
        used.push_back({at, at + kernels[i].constants[k].bytes.size()});
    }
    EXPECT_EQ(p.insn_addr, p.stream.insn_byte_offset);
    EXPECT_EQ(p.insn_count, p.stream.insn_count);
    EXPECT_GE(p.insn_addr, map.program_base());
    EXPECT_LE(p.stream.uop_byte_offset + p.stream.uop_bytes.size(), map.total());
    used.push_back({p.insn_addr, p.insn_addr + p.stream.insn_bytes.size()});
    used.push_back(
        {p.stream.uop_byte_offset, p.stream.uop_byte_offset + p.stream.uop_bytes.size()});
  }
  std::sort(used.begin(), used.end());
  for (size_t i = 1; i < used.size(); ++i) EXPECT_LE(used[i - 1].second, used[i].first) << i;
  EXPECT_GE(map.program_base(), map.arena_base() + static_cast<uint64_t>(c.plan.device_arena));
  EXPECT_TRUE(
      std::regex_match(map.describe(), std::regex("device memory: weights @0x0, biases "
                                                  "@0x[0-9a-f]+, arena @0x[0-9a-f]+, "
                                                  "programs @0x[0-9a-f]+, end 0x[0-9a-f]+")))
      << map.describe();

  // Values: weights at their plan offsets, activations in the arena.
  for (const auto& [v, off] : c.plan.weights) EXPECT_EQ(map.addr(v), static_cast<uint64_t>(off));
  for (const auto& [v, pl] : c.plan.values) {
    if (pl.device) {
      EXPECT_EQ(map.addr(v), map.arena_base() + static_cast<uint64_t>(pl.offset));
    }
  }

  // upload() writes the weights, the constants and the programs where the map says.
  driver::DeviceOptions o;
  o.layout = &l;
  o.platform = &pf;
  o.memory_bytes = (map.total() + (1 << 20)) / (1 << 20) * (1 << 20);
  auto dev = driver::open_device("functional", o);
  map.upload(*dev);
  auto read = [&](uint64_t at, size_t n) {
    std::vector<uint8_t> b(n);
    dev->copy_from_device(at, b.data(), n);
    return b;
  };
  const auto& [w, woff] = *c.plan.weights.begin();
  const cg::Bytes& wb = c.graph.value(w).data->bytes;
  EXPECT_EQ(read(static_cast<uint64_t>(woff), wb.size()),
            std::vector<uint8_t>(wb.begin(), wb.end()));
  const cg::AccelKernel& last = kernels.back();
  const PlacedKernel& lp = map.kernel(kernels.size() - 1);
  EXPECT_EQ(read(lp.constant_addrs[0], last.constants[0].bytes.size()), last.constants[0].bytes);
  EXPECT_EQ(read(lp.insn_addr, lp.stream.insn_bytes.size()), lp.stream.insn_bytes);
}

}  // namespace
}  // namespace weft::rt::graph
