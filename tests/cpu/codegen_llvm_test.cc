// The LLVM code generator and JIT on small loop-IR programs: each loop kind (serial, unrolled,
// vectorized with and without masks, the serial fallback, parallel on a thread pool) gives the
// reference result; the optimized IR shows vector types and the parallel-for call; programs
// the CPU backend cannot run are user errors naming the loop; the JIT works in a fresh process.
#include "compiler/codegen/llvm/codegen_llvm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include "compiler/ir/interpreter.h"
#include "compiler/te/lower.h"
#include "compiler/te/schedule.h"
#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"
#include "runtime/cpu/thread_pool.h"

namespace weft::compiler::codegen {
namespace {

using ::testing::HasSubstr;
using namespace ir;
namespace te = compiler::te;

// C[i, j] = A[i, j] * 2 + B[j] over float32, scheduled by `sched`, run on `threads` threads.
std::vector<float> run_axpy(int64_t m, int64_t n, const std::function<void(te::Stage&)>& sched,
                            int threads, std::string* ir_out = nullptr) {
  te::Tensor a = te::placeholder({m, n}, DType::kFloat32, "A");
  te::Tensor b = te::placeholder({n}, DType::kFloat32, "B");
  te::Tensor c = te::compute(
      {m, n}, DType::kFloat32,
      [&](const std::vector<Expr>& i) { return add(mul(a(i), fimm(2.0)), b({i[1]})); }, "C");
  te::Schedule s({c});
  sched(s[c]);
  LoweredFunc f{"axpy", {a->buffer, b->buffer, c->buffer}, te::lower(s)};
  auto jit = jit_compile({f}, rt::cpu::host_symbols());
  if (ir_out) *ir_out = jit->optimized_ir();
  std::vector<float> av(static_cast<size_t>(m * n)), bv(static_cast<size_t>(n)),
      cv(static_cast<size_t>(m * n), -1.0f);
  std::iota(av.begin(), av.end(), 1.0f);
  std::iota(bv.begin(), bv.end(), 100.0f);
  void* args[] = {av.data(), bv.data(), cv.data()};
  rt::cpu::ThreadPool pool(threads);
  rt::cpu::ScopedPool scope(&pool);
  jit->kernel("axpy")(args);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      EXPECT_EQ(cv[static_cast<size_t>(i * n + j)],
                av[static_cast<size_t>(i * n + j)] * 2 + bv[static_cast<size_t>(j)])
          << "at " << i << ", " << j;
  return cv;
}

TEST(CodegenLlvm, SerialLoops) {
  run_axpy(
      3, 5, [](te::Stage&) {}, 1);
}

TEST(CodegenLlvm, VectorizedLoopUsesVectorTypes) {
  std::string ir;
  run_axpy(
      4, 32,
      [](te::Stage& st) {
        auto [o, i] = st.split(st.axes()[1], 8);
        st.set_kind(i, ForKind::kVectorized);
      },
      1, &ir);
  EXPECT_THAT(ir, HasSubstr("<8 x float>"));
}

TEST(CodegenLlvm, VectorizedLoopWithATailIsMasked) {
  std::string ir;
  run_axpy(
      3, 13,
      [](te::Stage& st) {
        auto [o, i] = st.split(st.axes()[1], 8);
        st.set_kind(i, ForKind::kVectorized);
      },
      1, &ir);
  EXPECT_THAT(ir, HasSubstr("masked.store"));
}

TEST(CodegenLlvm, UnrolledAndParallelLoops) {
  std::string ir;
  run_axpy(
      37, 11,
      [](te::Stage& st) {
        auto [o, i] = st.split(st.axes()[0], 4);
        st.set_kind(o, ForKind::kParallel);
        st.set_kind(i, ForKind::kUnrolled);
      },
      3, &ir);
  EXPECT_THAT(ir, HasSubstr("call void @weft_parallel_for"));
}

TEST(CodegenLlvm, ParallelLoopRunsOnThePoolThreads) {
  // Each task records the thread it ran on through a host function.
  static std::mutex mu;
  static std::set<std::thread::id> seen;
  seen.clear();
  te::Tensor a = te::placeholder({64}, DType::kInt32, "A");
  te::Tensor c = te::compute(
      {64}, DType::kInt32,
      [&](const std::vector<Expr>& i) { return add(a(i), imm(1, DType::kInt32)); }, "C");
  te::Schedule s({c});
  s[c].set_kind(s[c].axes()[0], ForKind::kParallel);
  LoweredFunc f{"inc", {a->buffer, c->buffer}, te::lower(s)};
  HostSymbols syms = rt::cpu::host_symbols();
  using Task = void (*)(int64_t, void*);
  struct Wrap {
    static void pf(int64_t n, Task task, void* closure) {
      struct Ctx {
        Task task;
        void* closure;
      } ctx{task, closure};
      weft_cpu_parallel_for(
          n,
          [](int64_t i, void* p) {
            auto* c = static_cast<Ctx*>(p);
            {
              std::lock_guard<std::mutex> lock(mu);
              seen.insert(std::this_thread::get_id());
            }
            // Slow tasks, so that both threads take some (iterations are handed out
            // dynamically).
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            c->task(i, c->closure);
          },
          &ctx);
    }
  };
  syms[kParallelForSymbol] = reinterpret_cast<void*>(&Wrap::pf);
  auto jit = jit_compile({f}, syms);
  std::vector<int32_t> av(64), cv(64);
  std::iota(av.begin(), av.end(), 0);
  void* args[] = {av.data(), cv.data()};
  rt::cpu::ThreadPool pool(2);
  rt::cpu::ScopedPool scope(&pool);
  jit->kernel("inc")(args);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(cv[static_cast<size_t>(i)], i + 1);
  EXPECT_EQ(seen.size(), 2u);
}

TEST(CodegenLlvm, VectorizedReductionFallsBackToASerialLoop) {
  // Vectorizing the reduction axis stores a lane-dependent value to one address: the code
  // generator runs it as a serial loop (with a vectorize hint) and the result stays right.
  te::Tensor a = te::placeholder({5, 24}, DType::kInt32, "A");
  const te::IterVar k = te::reduce_axis(24, "k");
  te::Tensor c = te::compute_reduce(
      {5}, DType::kInt32,
      [&](const std::vector<Expr>& i) {
        return te::sum(a({i[0], ir::ref(k->var)}), {k});
      },
      "C");
  te::Schedule s({c});
  s[c].set_kind(k, ForKind::kVectorized);
  LoweredFunc f{"rowsum", {a->buffer, c->buffer}, te::lower(s)};
  auto jit = jit_compile({f}, rt::cpu::host_symbols());
  std::vector<int32_t> av(5 * 24), cv(5);
  std::iota(av.begin(), av.end(), -50);
  void* args[] = {av.data(), cv.data()};
  jit->kernel("rowsum")(args);
  for (int i = 0; i < 5; ++i) {
    int32_t want = 0;
    for (int j = 0; j < 24; ++j) want += av[static_cast<size_t>(i * 24 + j)];
    EXPECT_EQ(cv[static_cast<size_t>(i)], want);
  }
}

TEST(CodegenLlvm, IntegerSemanticsMatchTheInterpreterRules) {
  // Floor division and modulo of negative values, shifts, int8 wrap-around.
  Buffer a = make_buffer("A", DType::kInt32, {4});
  Buffer c = make_buffer("C", DType::kInt32, {4, 4});
  Buffer d = make_buffer("D", DType::kInt8, {4});
  Var i = make_var("i");
  Expr x = load(a, {ir::ref(i)});
  Stmt body = seq(
      {store(c, {ir::ref(i), imm(0)}, floordiv(x, imm(3, DType::kInt32))),
       store(c, {ir::ref(i), imm(1)}, floormod(x, imm(3, DType::kInt32))),
       store(c, {ir::ref(i), imm(2)}, shr(x, imm(1, DType::kInt32))),
       store(c, {ir::ref(i), imm(3)}, min(max(x, imm(-5, DType::kInt32)), imm(5, DType::kInt32))),
       store(d, {ir::ref(i)}, cast(DType::kInt8, mul(x, imm(100, DType::kInt32))))});
  LoweredFunc f{"ints", {a, c, d}, for_loop(i, imm(0), imm(4), ForKind::kSerial, body)};
  auto jit = jit_compile({f}, {});
  std::vector<int32_t> av{-7, 7, -1, 300}, cv(16);
  std::vector<int8_t> dv(4);
  void* args[] = {av.data(), cv.data(), dv.data()};
  jit->kernel("ints")(args);
  const int32_t want[16] = {-3, 2, -4, -5, 2, 1, 3, 5, -1, 2, -1, -1, 100, 0, 150, 5};
  for (int k = 0; k < 16; ++k) EXPECT_EQ(cv[static_cast<size_t>(k)], want[k]) << k;
  EXPECT_EQ(dv[0], static_cast<int8_t>(-700));
  EXPECT_EQ(dv[3], static_cast<int8_t>(30000));
}

TEST(CodegenLlvm, Dot2OfInt16HalvesInEveryLoopKindAndTheInterpreter) {
  // dot2_i16 on lanes of 16 (pmaddwd), 8, 5 (generic IR) and a scalar loop, against the
  // interpreter and a direct computation.
  std::mt19937 rng(9);
  std::vector<int32_t> xv(48), yv(48);
  for (auto& v : xv) v = static_cast<int32_t>(rng());
  for (auto& v : yv) v = static_cast<int32_t>(rng());
  std::vector<int32_t> want(48);
  for (size_t i = 0; i < 48; ++i) {
    auto lo = [](int32_t v) { return static_cast<int32_t>(static_cast<int16_t>(v & 0xffff)); };
    auto hi = [](int32_t v) { return static_cast<int32_t>(static_cast<int16_t>(v >> 16)); };
    want[i] = static_cast<int32_t>(static_cast<int64_t>(lo(xv[i])) * lo(yv[i]) +
                                   static_cast<int64_t>(hi(xv[i])) * hi(yv[i]));
  }
  for (int64_t lanes : {16, 8, 5, 1}) {
    Buffer x = make_buffer("X", DType::kInt32, {48});
    Buffer y = make_buffer("Y", DType::kInt32, {48});
    Buffer c = make_buffer("C", DType::kInt32, {48});
    Var o = make_var("o"), i = make_var("i");
    Expr idx = add(mul(ir::ref(o), imm(lanes)), ir::ref(i));
    Stmt body = for_loop(
        o, imm(0), imm((48 + lanes - 1) / lanes), ForKind::kSerial,
        for_loop(i, imm(0), imm(lanes), lanes > 1 ? ForKind::kVectorized : ForKind::kSerial,
                 if_then_else(lt(idx, imm(48)),
                              store(c, {idx}, dot2_i16(load(x, {idx}), load(y, {idx}))))));
    auto jit = jit_compile({LoweredFunc{"dot2", {x, y, c}, body}}, {});
    std::vector<int32_t> cv(48);
    void* args[] = {xv.data(), yv.data(), cv.data()};
    jit->kernel("dot2")(args);
    EXPECT_EQ(cv, want) << lanes << " lanes";
    BufferData data;
    data[x.get()].assign(xv.begin(), xv.end());
    data[y.get()].assign(yv.begin(), yv.end());
    data[c.get()].assign(48, 0);
    interpret(body, data);
    EXPECT_EQ(std::vector<int32_t>(data[c.get()].begin(), data[c.get()].end()), want);
  }
}

// round_even rounds ties to even, scalar and vectorized (roundps / llvm.roundeven).
TEST(CodegenLlvm, RoundEvenRoundsTiesToEven) {
  const std::vector<float> in = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.4999f, -3.7f};
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    te::Tensor x = te::placeholder({8}, DType::kFloat32, "X");
    te::Tensor y = te::compute(
        {8}, DType::kInt32, [&](const std::vector<Expr>& i) { return round_even(x(i)); }, "Y");
    te::Schedule s({y});
    s[y].set_kind(s[y].axes()[0], kind);
    LoweredFunc f{"round", {x->buffer, y->buffer}, te::lower(s)};
    auto jit = jit_compile({f}, rt::cpu::host_symbols());
    std::vector<float> xv(in);
    std::vector<int32_t> yv(8, 99);
    void* args[] = {xv.data(), yv.data()};
    jit->kernel("round")(args);
    EXPECT_EQ(yv, (std::vector<int32_t>{-2, -2, 0, 0, 2, 2, 2, -4})) << for_kind_name(kind);
  }
}

TEST(CodegenLlvm, ScheduleErrorsNameTheLoop) {
  auto compile = [](const std::function<void(te::Stage&)>& sched) {
    te::Tensor a = te::placeholder({16, 200}, DType::kFloat32, "A");
    te::Tensor c = te::compute(
        {16, 200}, DType::kFloat32, [&](const std::vector<Expr>& i) { return a(i); }, "C");
    te::Schedule s({c});
    sched(s[c]);
    LoweredFunc f{"copy", {a->buffer, c->buffer}, te::lower(s)};
    jit_compile({f}, rt::cpu::host_symbols());
  };
  try {
    compile([](te::Stage& st) { st.set_kind(st.axes()[1], ForKind::kVectorized); });
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("vectorized loop 'j' has extent 200"));
    EXPECT_THAT(e.what(), HasSubstr("split it"));
  }
  try {
    compile([](te::Stage& st) {
      st.set_kind(st.fuse(st.axes()[0], st.axes()[1]), ForKind::kUnrolled);
    });
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unrolled loop 'i.j.fused' has extent 3200"));
  }
  try {
    compile([](te::Stage& st) { st.set_kind(st.axes()[0], ForKind::kVirtualThread); });
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("vthread loop 'i'"));
    EXPECT_THAT(e.what(), HasSubstr("accelerator"));
  }
}

TEST(CodegenLlvm, UnsupportedProgramsAreUserErrors) {
  Buffer a = make_buffer("A", DType::kFloat32, {4});
  Buffer c = make_buffer("C", DType::kFloat32, {4});
  Var i = make_var("i");
  auto expect_error = [&](Stmt body, std::vector<Buffer> args, const std::string& what) {
    LoweredFunc f{"bad", std::move(args), for_loop(i, imm(0), imm(4), ForKind::kSerial, body)};
    try {
      jit_compile({f}, {});
      ADD_FAILURE() << "no error for " << what;
    } catch (const UserError& e) {
      EXPECT_THAT(e.what(), HasSubstr(what));
    }
  };
  expect_error(store(c, {ir::ref(i)}, call(DType::kFloat32, ir::Intrinsic::kRcp, {fimm(2.0)})),
               {a, c}, "intrinsic 'weft.cuda.rcp'");
  expect_error(store(c, {ir::ref(i)}, floordiv(load(a, {ir::ref(i)}), fimm(2.0))), {a, c},
               "not defined on float32");
  expect_error(store(c, {ir::ref(i)}, load(a, {ir::ref(i)})), {c}, "buffer 'A'");
  Buffer big = make_buffer("T", DType::kFloat32, {1 << 20}, Scope::kLocal);
  expect_error(allocate(big, store(big, {ir::ref(i)}, fimm(1.0))), {a, c}, "buffer 'T'");
}

TEST(CodegenLlvm, EmitLlvmPrintsOptimizedIrForTheHost) {
  Buffer a = make_buffer("A", DType::kFloat32, {64});
  Var i = make_var("i");
  LoweredFunc f{"scale",
                {a},
                for_loop(i, imm(0), imm(64), ForKind::kSerial,
                         store(a, {ir::ref(i)}, mul(load(a, {ir::ref(i)}), fimm(3.0))))};
  const std::string ir = emit_llvm({f});
  EXPECT_THAT(ir, HasSubstr("define void @scale(ptr"));
  EXPECT_THAT(ir, HasSubstr("target-cpu"));
  EXPECT_THAT(ir, HasSubstr("x float>"));  // the loop vectorizer ran for the host
}

TEST(CodegenLlvm, JitInAFreshProcess) {
  // A new process (the death-test machinery re-executes the binary) initialises LLVM, JITs,
  // runs and exits with the computed value.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto child = [] {
    Buffer a = make_buffer("A", DType::kInt32, {10});
    Var i = make_var("i");
    LoweredFunc f{"fill",
                  {a},
                  for_loop(i, imm(0), imm(10), ForKind::kSerial,
                           store(a, {ir::ref(i)}, mul(ir::ref(i), ir::ref(i))))};
    auto jit = jit_compile({f}, {});
    std::vector<int32_t> v(10);
    void* args[] = {v.data()};
    jit->kernel("fill")(args);
    std::exit(std::accumulate(v.begin(), v.end(), 0) == 285 ? 0 : 1);
  };
  EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace weft::compiler::codegen
