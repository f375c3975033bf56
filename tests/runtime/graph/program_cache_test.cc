// The cache of compiled accelerator programs (runtime/graph/program_cache.h): a miss, a hit
// rebound to the finder's tensors, a corrupt and a truncated file ignored with one warning and
// rewritten, a folder that cannot be created (a run without the cache, one warning), and a
// small ResNet whose second executor takes every program from the cache and runs bit for bit
// as the first, with the same instructions, and a configuration that differs only in a hardware
// option, which compiles its own.
#include "runtime/graph/program_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "hardware/isa/config_file.h"
#include "hardware/isa/layout.h"
#include "runtime/graph/executor.h"

namespace weft::rt::graph {
namespace {

namespace cg = compiler::graph;
namespace fs = std::filesystem;
using compiler::accel::Op;

std::string fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("weft_program_cache_test_" + name + "_" +
                                                  std::to_string(::getpid()));
  fs::remove_all(d);
  return d.string();
}

std::vector<compiler::ir::Buffer> roles(const std::string& tag) {
  std::vector<compiler::ir::Buffer> r;
  for (const char* n : {"a", "w", "d"})
    r.push_back(compiler::ir::make_buffer(tag + n, compiler::ir::DType::kInt8, {4}));
  r.push_back(nullptr);  // a role this node does not have
  return r;
}

cg::StoredProgram sample(const std::vector<compiler::ir::Buffer>& r) {
  cg::StoredProgram p;
  Op load;
  load.kind = Op::Kind::kLoad;
  load.module = isa::Module::kLoad;
  load.mem = isa::MemType::kInp;
  load.tensor = r[0];
  load.sram_base = 3, load.dram_offset = 70000, load.y_size = 2, load.x_size = 5;
  load.x_stride = 9, load.y_pad0 = 1, load.x_pad1 = 2;
  Op gemm;
  gemm.kind = Op::Kind::kGemm;
  gemm.uops = {{1, 2, 3}, {4, 5, 6}};
  gemm.iter_out = 7, gemm.iter_in = 2, gemm.dst_factor_out = 16, gemm.wgt_factor_in = 1;
  Op alu;
  alu.kind = Op::Kind::kAlu;
  alu.alu_op = isa::AluOp::kShr;
  alu.use_imm = true;
  alu.imm = -9;
  alu.uops = {{0, 0, 0}};
  Op store;
  store.kind = Op::Kind::kStore;
  store.module = isa::Module::kStore;
  store.mem = isa::MemType::kOut;
  store.tensor = r[2];
  store.x_size = 1;
  Op pop;
  pop.kind = Op::Kind::kDepPop;
  pop.from = isa::Module::kStore;
  pop.to = isa::Module::kCompute;
  p.program.ops = {load, gemm, alu, store, pop};
  p.program.tensors = {r[0], r[2]};
  p.rewrites = {"residual_init", "skip_pad_taps"};
  return p;
}

void expect_same_program(const cg::StoredProgram& got, const cg::StoredProgram& want) {
  ASSERT_EQ(got.program.ops.size(), want.program.ops.size());
  EXPECT_EQ(got.rewrites, want.rewrites);
  EXPECT_EQ(got.program.tensors, want.program.tensors);
  for (size_t i = 0; i < got.program.ops.size(); ++i) {
    const Op &a = got.program.ops[i], &b = want.program.ops[i];
    EXPECT_TRUE(a.kind == b.kind && a.module == b.module && a.mem == b.mem &&
                a.tensor == b.tensor && a.sram_base == b.sram_base &&
                a.dram_offset == b.dram_offset && a.y_size == b.y_size && a.x_size == b.x_size &&
                a.x_stride == b.x_stride && a.y_pad0 == b.y_pad0 && a.x_pad1 == b.x_pad1 &&
                a.reset == b.reset && a.alu_op == b.alu_op && a.use_imm == b.use_imm &&
                a.imm == b.imm && a.uops == b.uops && a.iter_out == b.iter_out &&
                a.iter_in == b.iter_in && a.dst_factor_out == b.dst_factor_out &&
                a.wgt_factor_in == b.wgt_factor_in && a.from == b.from && a.to == b.to)
        << "op " << i;
  }
}

TEST(ProgramFileCache, MissThenHitReboundToTheFindersTensors) {
  const std::string dir = fresh_dir("hit");
  ProgramFileCache cache(dir);
  const auto r1 = roles("one."), r2 = roles("two.");
  EXPECT_FALSE(cache.find("key", r1).has_value());
  EXPECT_EQ(cache.misses(), 1);
  cache.put("key", sample(r1), r1);
  EXPECT_EQ(cache.writes(), 1);
  EXPECT_TRUE(fs::exists(cache.file_for("key")));
  const auto got = ProgramFileCache(dir).find("key", r2);  // another run, another node
  ASSERT_TRUE(got.has_value());
  expect_same_program(*got, sample(r2));
  EXPECT_FALSE(cache.find("another key", r1).has_value());
  fs::remove_all(dir);
}

TEST(ProgramFileCache, CorruptOrTruncatedFileIsIgnoredWithOneWarningAndRewritten) {
  const std::string dir = fresh_dir("corrupt");
  const auto r = roles("x.");
  ProgramFileCache(dir).put("key", sample(r), r);
  const std::string file = ProgramFileCache(dir).file_for("key");
  std::string bytes;
  {
    std::ifstream f(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  for (const std::string& bad : {bytes.substr(0, bytes.size() / 2),
                                 std::string(bytes).replace(bytes.size() / 2, 1, "\x7f"),
                                 std::string("garbage")}) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bad;
    ProgramFileCache cache(dir);
    testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.find("key", r).has_value());
    EXPECT_FALSE(cache.find("key", r).has_value());
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("ignoring the cached program"), std::string::npos) << err;
    EXPECT_EQ(err.find("ignoring", err.find("ignoring") + 1), std::string::npos) << err;
    cache.put("key", sample(r), r);
    const auto again = cache.find("key", r);
    ASSERT_TRUE(again.has_value());
    expect_same_program(*again, sample(r));
  }
  fs::remove_all(dir);
}

TEST(ProgramFileCache, UnwritableFolderRunsWithoutTheCacheAndOneWarning) {
  const std::string dir = fresh_dir("unwritable");
  fs::create_directories(dir);
  std::ofstream(dir + "/file") << "x";  // a folder below a regular file cannot be created
  ProgramFileCache cache(dir + "/file/programs");
  const auto r = roles("u.");
  testing::internal::CaptureStderr();
  cache.put("one", sample(r), r);
  cache.put("two", sample(r), r);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("not caching compiled programs"), std::string::npos) << err;
  EXPECT_EQ(err.find("not caching", err.find("not caching") + 1), std::string::npos) << err;
  EXPECT_EQ(cache.writes(), 0);
  EXPECT_FALSE(cache.find("one", r).has_value());
  fs::remove_all(dir);
}

// A small ResNet-18 (image x image, `stages` stages of width 16, 10 classes) compiled for `l`.
struct SmallNet {
  cg::Graph graph;
  cg::CompiledGraph compiled;
};
SmallNet small_resnet(const isa::Layout& l, const isa::Platform& pf, int64_t image, int stages) {
  cg::models::ResNetOptions o;
  o.image = image, o.width = 16, o.classes = 10, o.stages = stages;
  SmallNet n;
  n.graph = cg::models::resnet18(o);
  cg::GraphCompileOptions co;
  co.cpu_gmacs = 0.01;
  n.compiled = cg::compile_graph(n.graph, l, pf, co);
  return n;
}

TEST(ProgramFileCache, SecondExecutorTakesEveryProgramFromTheCacheAndRunsTheSame) {
  const std::string dir = fresh_dir("executor");
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  const SmallNet net = small_resnet(l, pf, 64, 4);
  const cg::Graph& g = net.graph;
  const cg::CompiledGraph& c = net.compiled;
  ExecutorOptions eo;
  eo.program_cache = dir;
  const auto x = cg::models::synthetic_input(g.value(g.inputs()[0]).type, 5);
  GraphExecutor cold(c, l, pf, eo);
  GraphExecutor warm(c, l, pf, eo);
  const ProgramSources a = cold.program_sources(), b = warm.program_sources();
  EXPECT_GT(a.compiled, 0);
  EXPECT_EQ(a.cached, 0);
  // ResNet-18's stages repeat layers; with four stages of a 64x64 image some repeat with equal
  // requantization shifts too (the two-stage 32x32 net did with the calibration before
  // 2026-11-27's least-squares scales, and does not since).
  EXPECT_GT(a.reused, 0);
  EXPECT_EQ(b.compiled, 0);
  EXPECT_EQ(b.cached, a.compiled);
  EXPECT_EQ(b.reused, a.reused);
  EXPECT_EQ(cold.listing(), warm.listing());
  auto d1 = open_graph_device("functional", cold, l, pf);
  auto d2 = open_graph_device("functional", warm, l, pf);
  EXPECT_EQ(cold.run(*d1, {x}).outputs, warm.run(*d2, {x}).outputs);
  fs::remove_all(dir);
}

// The key is the whole configuration: a configuration of the same name, shape and buffers with a
// hardware option on (two versions of one user's file) does not take the other's programs,
// whose STOREs do not requantize, and runs the same output bytes with its own.
TEST(ProgramFileCache, AConfigurationThatDiffersInAnOptionCompilesItsOwnPrograms) {
  const std::string dir = fresh_dir("option");
  const isa::Layout& plain = isa::layout_for("vta");
  nlohmann::json j = isa::config_to_json(plain.config);
  j["options"] = {{"store_requant", true}};
  const isa::Layout rq = isa::derive_layout(isa::config_from_json(j, "test"));
  ASSERT_EQ(rq.config.name, plain.config.name);
  const isa::Platform& pf = isa::find_platform("sim");
  const SmallNet a = small_resnet(plain, pf, 32, 2), b = small_resnet(rq, pf, 32, 2);
  ExecutorOptions eo;
  eo.program_cache = dir;
  const auto x = cg::models::synthetic_input(a.graph.value(a.graph.inputs()[0]).type, 5);
  GraphExecutor first(a.compiled, plain, pf, eo);
  GraphExecutor second(b.compiled, rq, pf, eo);
  EXPECT_GT(first.program_sources().compiled, 0);
  EXPECT_EQ(second.program_sources().cached, 0);
  EXPECT_NE(first.listing(), second.listing());
  auto d1 = open_graph_device("functional", first, plain, pf);
  auto d2 = open_graph_device("functional", second, rq, pf);
  EXPECT_EQ(first.run(*d1, {x}).outputs, second.run(*d2, {x}).outputs);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace weft::rt::graph
