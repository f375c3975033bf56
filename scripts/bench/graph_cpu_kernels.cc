// The graph executor's CPU nodes with and without the LLVM kernels (runtime/graph/
// llvm_kernels.h): builds the built-in ResNet-18 (vta, batch 1 unless told), compiles it once,
// then runs it on the functional engine alternately with the plain C++ loops and with the JIT
// kernels, `--repeats` times each, and prints per CPU node the median host time of both as a
// markdown table, plus the JIT compile time. Both runs' outputs must be equal (bit-exact).
// Run by scripts/bench/graph_cpu_kernels.sh; one thread (the executor runs CPU nodes serially).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "runtime/graph/executor.h"
#include "runtime/graph/llvm_kernels.h"

namespace cg = weft::compiler::graph;
namespace rg = weft::rt::graph;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int main(int argc, char** argv) {
  CLI::App app{"ResNet-18's CPU nodes: plain C++ loops against the LLVM kernels"};
  std::string config = "vta";
  int64_t batch = 1;
  int repeats = 9;
  bool per_channel = false;
  app.add_option("--config", config)->capture_default_str();
  app.add_option("--batch", batch)->capture_default_str();
  app.add_option("--repeats", repeats)->capture_default_str();
  app.add_flag("--per-channel", per_channel,
               "per-channel weights: every conv and the fc run as CPU QConv/QDense nodes");
  CLI11_PARSE(app, argc, argv);
  cg::models::ResNetOptions o;
  o.batch = batch;
  cg::Graph g = cg::models::resnet18(o);
  const auto& l = weft::isa::layout_for(config);
  const auto& pf = weft::isa::find_platform("sim");
  cg::GraphCompileOptions co;
  co.quantize.per_channel = per_channel;
  cg::CompiledGraph c = cg::compile_graph(g, l, pf, co);
  rg::ExecutorOptions plain_opts, llvm_opts;
  plain_opts.llvm_kernels = false;
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  // The executor with the plain loops (its construction: the accelerator kernels' schedules).
  auto t0 = std::chrono::steady_clock::now();
  rg::GraphExecutor plain(c, l, pf, plain_opts);
  const double plain_compile = since(t0);
  // The LLVM kernels alone, on this thread (the executor overlaps them with the above).
  t0 = std::chrono::steady_clock::now();
  for (const auto& n : c.graph.nodes())
    if (!n.dead && n.kind != cg::OpKind::AccelConv && n.kind != cg::OpKind::AccelDense &&
        n.kind != cg::OpKind::Pack && n.kind != cg::OpKind::Unpack)
      if (!rg::make_llvm_node_kernel(c.graph, n)) rg::make_llvm_packed_kernel(c.graph, n);
  const double jit_only = since(t0);
  const rg::LlvmKernelStats st = rg::llvm_kernel_stats();
  rg::GraphExecutor jit(c, l, pf, llvm_opts);  // its kernels now come from the cache
  auto x = cg::models::synthetic_input(g.value(g.inputs()[0]).type, 1);
  auto dp = rg::open_graph_device("functional", plain, l, pf);
  auto dj = rg::open_graph_device("functional", jit, l, pf);
  std::map<std::string, std::vector<double>> tp, tj;
  std::vector<std::pair<std::string, std::string>> order;  // node, op
  std::map<std::string, std::string> engine;
  for (int r = 0; r < repeats; ++r) {
    const rg::RunResult a = plain.run(*dp, {x});
    const rg::RunResult b = jit.run(*dj, {x});
    if (a.outputs != b.outputs) {
      std::fprintf(stderr, "the LLVM kernels' output differs from the plain loops'\n");
      return 1;
    }
    for (size_t i = 0; i < a.report.steps.size(); ++i) {
      const auto& s = a.report.steps[i];
      if (s.engine == "accel") continue;
      if (r == 0) order.push_back({s.node, s.op});
      tp[s.node].push_back(s.seconds);
      tj[s.node].push_back(b.report.steps[i].seconds);
      engine[s.node] = b.report.steps[i].engine;
    }
  }
  std::printf("| node | op | engine | plain C++ us | LLVM us | speed-up |\n|---|---|---|---|---|---|\n");
  double sp = 0, sj = 0, lp = 0, lj = 0;
  for (const auto& [node, op] : order) {
    const double p = median(tp[node]) * 1e6, j = median(tj[node]) * 1e6;
    sp += p, sj += j;
    if (engine[node] == "llvm") lp += p, lj += j;
    std::printf("| %s | %s | %s | %.1f | %.1f | %.2fx |\n", node.c_str(), op.c_str(),
                engine[node].c_str(), p, j, j > 0 ? p / j : 0.0);
  }
  std::printf("| **all CPU nodes** | | | %.1f | %.1f | %.2fx |\n", sp, sj, sj > 0 ? sp / sj : 0.0);
  std::printf("| **the nodes on llvm** | | | %.1f | %.1f | %.2fx |\n", lp, lj, lj > 0 ? lp / lj : 0.0);
  std::printf("\nexecutor construction with the plain loops: %.3f s; the LLVM kernels alone: %d "
              "kernels JIT-compiled in %.3f s on one thread; medians of %d runs\n",
              plain_compile, st.compiled, jit_only, repeats);
  return 0;
}
