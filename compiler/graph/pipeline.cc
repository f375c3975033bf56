// The graph pipeline; see pipeline.h.
#include "compiler/graph/pipeline.h"

#include <time.h>

#include <chrono>

#include "compiler/graph/passes/band_pool.h"
#include "compiler/graph/passes/fold_batch_norm.h"
#include "compiler/graph/passes/fold_packs.h"
#include "compiler/graph/passes/fuse_epilogues.h"
#include "compiler/graph/passes/pack_layouts.h"
#include "compiler/graph/passes/partition.h"
#include "compiler/graph/passes/split_groups.h"
#include "compiler/graph/passes/stem_im2col.h"
#include "compiler/graph/passes/stem_space_to_depth.h"
#include "compiler/graph/verify.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

const std::vector<std::string>& graph_pass_names() {
  static const std::vector<std::string> names = {"import",         "fold_batch_norm", "quantize",
                                                 "fuse_epilogues", "split_groups", "stem_im2col", "stem_space_to_depth", "partition", "pack_layouts",
                                                 "band_pool", "fold_packs", "plan_memory"};
  return names;
}

bool is_quantized(const Graph& g) {
  for (const Node& n : g.nodes())
    if (!n.dead && (n.kind == OpKind::Quantize || n.kind == OpKind::QConv || n.kind == OpKind::QDense))
      return true;
  return false;
}

CompiledGraph compile_graph(const Graph& input, const isa::Layout& layout,
                            const isa::Platform& platform, const GraphCompileOptions& o,
                            const GraphObserver& after_pass) {
  // Checked before any pass: pack_layouts keeps one blocked layout from a layer's output
  // channels to the next layer's input channels.
  if (o.accelerator && layout.config.block_in() != layout.config.block_out())
    throw UserError("configuration '" + layout.config.name + "' has block_in " +
                    std::to_string(layout.config.block_in()) + " and block_out " +
                    std::to_string(layout.config.block_out()) +
                    ": networks run only where they are equal (a layer's output channel blocks "
                    "are the next layer's input channel blocks)");
  CompiledGraph c;
  Graph g = input;
  auto cpu_now = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  auto t = std::chrono::steady_clock::now();
  double cpu = cpu_now();
  auto done = [&](const std::string& pass) {
    verify(g, pass);
    const auto now = std::chrono::steady_clock::now();
    c.pass_seconds.push_back({pass, std::chrono::duration<double>(now - t).count()});
    c.pass_cpu_seconds.push_back({pass, cpu_now() - cpu});
    if (after_pass) after_pass(pass, g);
    t = std::chrono::steady_clock::now();
    cpu = cpu_now();
  };
  done("import");
  if (!is_quantized(g)) {
    // Folding first: calibration then sees the convolutions the accelerator will run.
    passes::fold_batch_norm(g);
    done("fold_batch_norm");
    c.folded_f32 = g;
    g = quantize(g, o.quantize);
    done("quantize");
  }
  // Fusion before partitioning: the partition weighs whole kernels.
  passes::fuse_epilogues(g);
  done("fuse_epilogues");
  // Before partitioning (the slices are what it places) and the stem rewrites (they take
  // only dense convolutions).
  if (o.accelerator) passes::split_groups(g, layout);
  done("split_groups");
  // Before partitioning: the rewritten stem is cheap enough for the accelerator.
  // Bands of at most 512 KiB of gathered input: the stem then needs no more arena than stage 1.
  if (o.accelerator) passes::stem_im2col(g, layout, int64_t{512} << 10);
  done("stem_im2col");
  if (o.accelerator) passes::stem_space_to_depth(g, layout);
  done("stem_space_to_depth");
  passes::partition(g, layout, platform, o.accelerator ? o.cpu_gmacs : 1e30);
  done("partition");
  // Packing after partitioning: region edges are known only then.
  passes::pack_layouts(g, layout);
  done("pack_layouts");
  // After packing (it works on the Unpacks and the Pack around the pool): the max pool after
  // the stem's row bands runs in the same bands.
  passes::band_pool(g);
  done("band_pool");
  // After packing: the Packs at the region edges are known; the CPU nodes before them write
  // the packed layout into the device arena themselves.
  passes::fold_packs(g);
  done("fold_packs");
  c.plan = passes::plan_memory(g);
  done("plan_memory");
  c.graph = std::move(g);
  return c;
}

}  // namespace weft::compiler::graph
