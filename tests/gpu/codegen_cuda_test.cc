// The CUDA code generator without a GPU or the toolkit: the generated source of a small dense
// has the structure its schedule asks for (shared tiles and their barriers, vector loads,
// bounds checks only where the shape needs them, the launch configuration), the tensor-core and
// dp4a paths use their instructions, and schedules a GPU cannot run are user errors naming the
// loop or buffer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/codegen/cuda/double_buffer.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/gpu/conv2d.h"
#include "compiler/ops/gpu/dense.h"
#include "compiler/te/lower.h"
#include "compiler/te/schedule.h"
#include "hardware/isa/errors.h"

namespace weft {
namespace {

namespace ir = compiler::ir;
namespace te = compiler::te;
namespace cg = compiler::codegen;
using ::testing::HasSubstr;
using ::testing::Not;
using te::ThreadAxis;

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(CudaCodegen, SmallDenseHasSharedTilesBarriersAndVectorLoads) {
  const auto op = compiler::ops::gpu::dense(64, 64, 64, ir::DType::kFloat32);
  const cg::CudaModule m = cg::codegen_cuda(op.func);
  ASSERT_EQ(m.kernels.size(), 1u);
  const cg::LaunchConfig& l = m.kernels[0].launch;
  EXPECT_EQ(l.grid, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(l.block, (std::array<int64_t, 3>{16, 16, 1}));  // 64x64 tile, 4x4 per thread
  EXPECT_EQ(l.shared_bytes, 2 * 2 * 64 * 16 * 4);          // A and W tiles, double-buffered
  const std::string& s = m.source;
  EXPECT_THAT(s, HasSubstr("extern \"C\" __global__ void __launch_bounds__(256) dense_k0("
                           "const float* __restrict__ A, const float* __restrict__ W, "
                           "float* __restrict__ dense)"));
  EXPECT_THAT(s, HasSubstr("__shared__ __align__(32) float A_view_shared[2048];"));
  EXPECT_THAT(s, HasSubstr("__shared__ __align__(32) float B_view_shared[2048];"));
  EXPECT_THAT(s, HasSubstr("const int i_outer = blockIdx.y;"));
  EXPECT_THAT(s, HasSubstr("const int j_inner_outer = threadIdx.x;"));
  EXPECT_THAT(s, HasSubstr("float C_tile_local[16];"));  // the register tile
  // Double buffering: one barrier after the first tiles, one at the end of each k step (not
  // two per step), and the next step's tiles are loaded ahead.
  EXPECT_EQ(count(s, "__syncthreads();"), 2);
  EXPECT_THAT(s, HasSubstr("if (((k_outer + 1) < 4)) {"));
  EXPECT_THAT(s, HasSubstr("weft_floormod((k_outer + 1), 2)"));
  // 16-byte vector loads of contiguous rows (4 prologue + ahead copies).
  EXPECT_EQ(count(s, "*reinterpret_cast<uint4*>(&"), 4);
  // A multiple of the tiles: no bounds checks on the output.
  EXPECT_THAT(s, Not(HasSubstr("< 64)) {")));
}

TEST(CudaCodegen, AwkwardDenseChecksBoundsAndPadsTiles) {
  const auto op = compiler::ops::gpu::dense(129, 257, 65, ir::DType::kFloat32);
  const cg::CudaModule m = cg::codegen_cuda(op.func);
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].launch.grid, (std::array<int64_t, 3>{5, 3, 1}));
  const std::string& s = m.source;
  // The stores to C are guarded by the real extents; the tiles read zero past them.
  EXPECT_THAT(s, HasSubstr("< 129)"));
  EXPECT_THAT(s, HasSubstr("< 257)"));
  EXPECT_THAT(s, HasSubstr("< 65)"));
  EXPECT_THAT(s, HasSubstr(" ? "));           // the zero padding select
  EXPECT_THAT(s, Not(HasSubstr("uint4")));    // padded tiles are copied element by element
  EXPECT_EQ(count(s, "__syncthreads();"), 2);
}

TEST(CudaCodegen, TensorCoreAndDp4aPaths) {
  for (ir::DType t : {ir::DType::kFloat16, ir::DType::kInt8}) {
    const auto op = compiler::ops::gpu::dense(129, 257, 65, t);
    EXPECT_EQ(op.path, "tensor-core");
    const cg::CudaModule m = cg::codegen_cuda(op.func);
    EXPECT_TRUE(m.uses_wmma);
    ASSERT_EQ(m.kernels.size(), 2u);  // blocked GEMM, then the plain output
    EXPECT_EQ(m.kernels[0].launch.block, (std::array<int64_t, 3>{32, 2, 2}));
    const std::string& s = m.source;
    EXPECT_THAT(s, HasSubstr("#include <mma.h>"));
    const std::string in = t == ir::DType::kFloat16 ? "half" : "signed char";
    const std::string acc = t == ir::DType::kFloat16 ? "float" : "int";
    EXPECT_THAT(s, HasSubstr("fragment<nvcuda::wmma::matrix_a, 16, 16, 16, " + in +
                             ", nvcuda::wmma::row_major> A_blocks_shared_inp[2];"));
    EXPECT_THAT(s, HasSubstr("fragment<nvcuda::wmma::matrix_b, 16, 16, 16, " + in +
                             ", nvcuda::wmma::col_major>"));
    EXPECT_THAT(s, HasSubstr("fragment<nvcuda::wmma::accumulator, 16, 16, 16, " + acc +
                             "> C_blocks_acc[4];"));
    EXPECT_THAT(s, HasSubstr("nvcuda::wmma::fill_fragment(C_blocks_acc["));
    EXPECT_THAT(s, HasSubstr("nvcuda::wmma::load_matrix_sync(A_blocks_shared_inp["));
    EXPECT_THAT(s, HasSubstr("nvcuda::wmma::mma_sync(C_blocks_acc["));
    EXPECT_THAT(s, HasSubstr("nvcuda::wmma::store_matrix_sync(&C_blocks["));
  }
  compiler::ops::gpu::GemmSchedule s;
  s.path = compiler::ops::gpu::GemmPath::kDp4a;
  const auto op = compiler::ops::gpu::dense(33, 47, 37, ir::DType::kInt8, s);
  const std::string src = cg::codegen_cuda(op.func).source;
  EXPECT_THAT(src, HasSubstr("__dp4a("));
  EXPECT_THAT(src, Not(HasSubstr("wmma")));
  EXPECT_THAT([&] { compiler::ops::gpu::dense(8, 8, 8, ir::DType::kFloat32, [] {
                 compiler::ops::gpu::GemmSchedule t;
                 t.path = compiler::ops::gpu::GemmPath::kTensorCore;
                 return t;
               }()); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("tensor-core path computes float16")));
}

// Stores into the half of a double-buffered tile that the same loop step reads: inside loop
// `ko`, a store to a doubled buffer whose half index is `ko % 2`. Such a fill races with the
// tile's readers (no barrier between them), which only a GPU shows (found on an H100).
class FillsOfTheHalfBeingRead : public ir::Visitor {
 public:
  std::vector<std::string> found;

 protected:
  void visit_AttrStmt(const ir::AttrStmt& n) override {
    if (n.key == te::kDoubleBufferAttr && n.body->kind == ir::NodeKind::kAllocate)
      doubled_.insert(static_cast<const ir::Allocate&>(*n.body).buffer.get());
    ir::Visitor::visit_AttrStmt(n);
  }
  void visit_For(const ir::For& n) override {
    loops_.push_back(n.var.get());
    ir::Visitor::visit_For(n);
    loops_.pop_back();
  }
  void visit_Store(const ir::Store& n) override {
    if (doubled_.count(n.buffer.get()) && !n.indices.empty() &&
        n.indices[0]->kind == ir::NodeKind::kBinary) {
      const auto& b = static_cast<const ir::Binary&>(*n.indices[0]);
      if (b.op == ir::BinOp::kFloorMod && b.a->kind == ir::NodeKind::kVarRef) {
        const auto* v = static_cast<const ir::VarRef&>(*b.a).var.get();
        for (const ir::VarObj* l : loops_)
          if (l == v) found.push_back(n.buffer->name + " in loop " + v->name);
      }
    }
    ir::Visitor::visit_Store(n);
  }

 private:
  std::set<const ir::BufferObj*> doubled_;
  std::vector<const ir::VarObj*> loops_;
};

std::vector<std::string> racy_fills(const compiler::ops::LoweredOp& op) {
  std::vector<ir::Stmt> kernels{op.func.body};
  if (op.func.body->kind == ir::NodeKind::kSeq)
    kernels = static_cast<const ir::Seq&>(*op.func.body).stmts;
  FillsOfTheHalfBeingRead v;
  for (const ir::Stmt& k : kernels) v.visit(cg::double_buffer(k));
  return v.found;
}

TEST(CudaCodegen, EveryDoubleBufferedTileIsFilledAStepAhead) {
  // The tensor-core schedules fill A's tile, read A's fragments, then fill B's tile: B's fill
  // moves up beside A's, into the step-ahead prefetch.
  for (ir::DType t : {ir::DType::kFloat16, ir::DType::kInt8}) {
    SCOPED_TRACE(ir::dtype_name(t));
    for (const auto& op : {compiler::ops::gpu::dense(64, 64, 64, t), compiler::ops::gpu::dense(129, 257, 65, t),
                           compiler::ops::gpu::conv2d({2, 5, 15, 13, 33, 3, 3, 2, 1}, t)}) {
      EXPECT_EQ(op.path, "tensor-core");
      EXPECT_THAT(racy_fills(op), ::testing::IsEmpty());
    }
    const std::string s = cg::codegen_cuda(compiler::ops::gpu::dense(64, 64, 64, t).func).source;
    EXPECT_EQ(count(s, "&A_blocks_shared[((((((weft_floormod((kb + 1), 2)"), 1) << s;
    EXPECT_EQ(count(s, "&B_blocks_shared[((((((weft_floormod((kb + 1), 2)"), 1) << s;
    EXPECT_EQ(count(s, "__syncthreads();"), 2);  // after the first tiles, at the end of a step
  }
  EXPECT_THAT(racy_fills(compiler::ops::gpu::dense(129, 257, 65, ir::DType::kFloat32)), ::testing::IsEmpty());
}

// Hand-made loop IR for double_buffer: for (ko, 0, 4) { allocate L (local) { double-buffered
// allocate S (shared) { body } } }, with `body` built from the buffers.
struct DoubleBufferLoop {
  ir::Var ko = ir::make_var("ko");
  ir::Buffer in = ir::make_buffer("In", ir::DType::kInt32, {4, 8});
  ir::Buffer out = ir::make_buffer("Out", ir::DType::kInt32, {4});
  ir::Buffer s = ir::make_buffer("S", ir::DType::kInt32, {8}, ir::Scope::kShared);
  ir::Buffer l = ir::make_buffer("L", ir::DType::kInt32, {1}, ir::Scope::kLocal);
  ir::Stmt fill_s() const {  // S[0] = In[ko, 0]
    return ir::store(s, {ir::imm(0)}, ir::load(in, {ir::ref(ko), ir::imm(0)}));
  }
  ir::Stmt kernel(std::vector<ir::Stmt> body) const {
    return ir::for_loop(ko, ir::imm(0), ir::imm(4), ir::ForKind::kSerial,
                        ir::allocate(l, ir::attr(te::kDoubleBufferAttr, ir::imm(1),
                                                 ir::allocate(s, ir::seq(std::move(body))))));
  }
};

TEST(CudaCodegen, DoubleBufferMovesALateFillAheadOrRefusesIt) {
  DoubleBufferLoop d;
  // A statement that neither touches S nor feeds its fill, then the fill, then S's use: the
  // fill moves up, and no store into the half being read is left in the loop.
  const ir::Stmt use = ir::store(d.out, {ir::ref(d.ko)}, ir::load(d.s, {ir::imm(0)}));
  const ir::Stmt other = ir::store(d.l, {ir::imm(0)}, ir::imm(7));
  const ir::Stmt ok = cg::double_buffer(d.kernel({other, d.fill_s(), use}));
  FillsOfTheHalfBeingRead v;
  v.visit(ok);
  EXPECT_THAT(v.found, ::testing::IsEmpty());
  // The fill reads L, which the statement before it writes: it cannot move, so it is refused.
  const ir::Stmt dep_fill = ir::store(d.s, {ir::imm(0)}, ir::load(d.l, {ir::imm(0)}));
  EXPECT_THAT([&] { cg::double_buffer(d.kernel({other, dep_fill, use})); },
              ::testing::ThrowsMessage<UserError>(HasSubstr(
                  "double_buffer of 'S': in loop 'ko' it is filled after statements that the "
                  "fill depends on, so it cannot be filled one step ahead")));
  // A statement before the fill that reads S (last step's tile) is a dependency too.
  const ir::Stmt reads_s = ir::store(d.l, {ir::imm(0)}, ir::load(d.s, {ir::imm(0)}));
  EXPECT_THAT([&] { cg::double_buffer(d.kernel({reads_s, d.fill_s(), use})); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("double_buffer of 'S'")));
}

// y = x + 1 over [rows, cols], for hand-made schedules.
struct Elementwise {
  te::Tensor x, y;
  Elementwise(int64_t rows, int64_t cols) {
    x = te::placeholder({rows, cols}, ir::DType::kFloat32, "X");
    y = te::compute(
        {rows, cols}, ir::DType::kFloat32,
        [&](const std::vector<ir::Expr>& i) { return ir::add(x(i), ir::fimm(1)); }, "Y");
  }
  cg::LoweredFunc func(te::Schedule& s) { return {"k", {x->buffer, y->buffer}, te::lower(s)}; }
};

TEST(CudaCodegen, IllegalSchedulesNameTheLoopOrBuffer) {
  {  // Too many threads per block.
    Elementwise e(4, 2048);
    te::Schedule s({e.y});
    s[e.y].bind(s[e.y].axes()[0], ThreadAxis::kBlockX);
    s[e.y].bind(s[e.y].axes()[1], ThreadAxis::kThreadX);
    EXPECT_THAT([&] { cg::codegen_cuda(e.func(s)); },
                ::testing::ThrowsMessage<UserError>(
                    HasSubstr("a thread block of 2048 threads (loop 'j' on threadIdx.x (2048)) "
                              "is more than the 1024")));
  }
  {  // No loop bound: it would run whole in one thread.
    Elementwise e(4, 8);
    te::Schedule s({e.y});
    EXPECT_THAT([&] { cg::codegen_cuda(e.func(s)); },
                ::testing::ThrowsMessage<UserError>(
                    HasSubstr("no loop is bound to blockIdx or threadIdx, so loop 'i' (storing 'Y')")));
  }
  {  // A loop outside every threadIdx binding in a block of several threads.
    Elementwise e(4, 8);
    te::Schedule s({e.y});
    te::Stage& st = s[e.y];
    st.bind(st.axes()[0], ThreadAxis::kBlockX);
    auto [o, i] = st.split(st.axes()[1], 4);
    st.reorder({st.axes()[0], o, i});
    // Only another stage binds threadIdx here: simulate by binding i of a second tensor.
    te::Tensor z = te::compute(
        {4, 8}, ir::DType::kFloat32, [&](const std::vector<ir::Expr>& ix) { return e.y(ix); },
        "Z");
    te::Schedule s2({z});
    s2[e.y].bind(s2[e.y].axes()[0], ThreadAxis::kBlockX);
    s2[z].bind(s2[z].axes()[0], ThreadAxis::kBlockX);
    s2[z].bind(s2[z].axes()[1], ThreadAxis::kThreadX);
    s2.set_scope(e.y, ir::Scope::kShared);
    s2[e.y].compute_at(s2[z], s2[z].axes()[0]);
    cg::LoweredFunc f{"k", {e.x->buffer, z->buffer}, te::lower(s2)};
    EXPECT_THAT([&] { cg::codegen_cuda(f); },
                ::testing::ThrowsMessage<UserError>(
                    HasSubstr("shared buffer 'Y.shared' is filled by loop 'j' bound to no "
                              "threadIdx inside it")));
    (void)s;
  }
  {  // Too much shared memory.
    Elementwise e(64, 512);
    te::Tensor z = te::compute(
        {64, 512}, ir::DType::kFloat32, [&](const std::vector<ir::Expr>& ix) { return e.y(ix); },
        "Z");
    te::Schedule s({z});
    s.set_scope(e.y, ir::Scope::kShared);
    te::Stage& sz = s[z];
    sz.bind(sz.axes()[0], ThreadAxis::kBlockX);
    sz.bind(sz.axes()[1], ThreadAxis::kThreadY);
    te::Stage& sy = s[e.y];
    sy.compute_at(sz, sz.axes()[0]);
    sy.bind(sy.axes()[1], ThreadAxis::kThreadY);
    cg::LoweredFunc f{"k", {e.x->buffer, z->buffer}, te::lower(s)};
    // Y.shared holds one row of 512 floats: 2 KiB fits, a limit of 1 KiB does not.
    cg::GpuLimits small;
    small.max_shared_bytes = 1024;
    EXPECT_NO_THROW(cg::codegen_cuda(f));
    EXPECT_THAT([&] { cg::codegen_cuda(f, small); },
                ::testing::ThrowsMessage<UserError>(HasSubstr(
                    "its shared buffers ('Y.shared' 2048 bytes) need 2048 bytes, more than the "
                    "1024 bytes of shared memory per block")));
  }
  {  // A parallel loop.
    Elementwise e(4, 8);
    te::Schedule s({e.y});
    s[e.y].bind(s[e.y].axes()[0], ThreadAxis::kThreadX);
    s[e.y].set_kind(s[e.y].axes()[1], ir::ForKind::kParallel);
    EXPECT_THAT([&] { cg::codegen_cuda(e.func(s)); },
                ::testing::ThrowsMessage<UserError>(HasSubstr("loop 'j' is parallel")));
  }
  {  // Binding a reduction loop.
    const te::Tensor a = te::placeholder({8}, ir::DType::kFloat32, "A");
    const te::IterVar r = te::reduce_axis(8, "r");
    const te::Tensor sum = te::compute_reduce(
        {1}, ir::DType::kFloat32,
        [&](const std::vector<ir::Expr>&) { return te::sum(a({ir::ref(r->var)}), {r}); }, "S");
    te::Schedule s({sum});
    EXPECT_THAT([&] { s[sum].bind(s[sum].reduce_axes()[0], ThreadAxis::kThreadX); },
                ::testing::ThrowsMessage<UserError>(HasSubstr("bind of reduction loop 'r'")));
  }
  {  // A register tile too big for registers (the SIMT dense with a 32x32 thread tile).
    compiler::ops::gpu::GemmSchedule big;
    big.thread_m = big.thread_n = 32;
    big.block_m = big.block_n = 64;
    const auto op = compiler::ops::gpu::dense(64, 64, 64, ir::DType::kFloat32, big);
    EXPECT_THAT([&] { cg::codegen_cuda(op.func); },
                ::testing::ThrowsMessage<UserError>(
                    HasSubstr("local buffer 'C.tile.local' has 1024 elements per thread")));
  }
}

}  // namespace
}  // namespace weft
