// The loop IR of the tensor compiler: a small, closed, immutable tree of expressions and
// statements (after Halide). Node kinds are listed once in the X-macro lists below; the
// visitor and mutator (visitor.h) are generated from them. Variables and buffers are objects
// with identity: two Vars with the same name are different variables.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/intrinsics.h"

namespace weft::compiler::ir {

/// Scalar element types (float32 is used by the CPU backend; the accelerator is integer-only;
/// float16 only by the GPU backend, as tensor-core inputs).
enum class DType { kInt8, kInt32, kInt64, kFloat32, kFloat16 };
/// "int8", "int32", "int64", "float32", "float16".
const char* dtype_name(DType t);
/// Bits of a type.
int dtype_bits(DType t);
/// Whether a type is a floating-point type.
inline bool is_float(DType t) { return t == DType::kFloat32 || t == DType::kFloat16; }

// X-macro lists of every node kind: X(ClassName).
#define WEFT_IR_EXPR_NODES(X) \
  X(IntImm)                   \
  X(FloatImm)                 \
  X(VarRef)                   \
  X(Binary)                   \
  X(Cast)                     \
  X(Load)                     \
  X(Call)
#define WEFT_IR_STMT_NODES(X) \
  X(For)                      \
  X(Store)                    \
  X(Seq)                      \
  X(Allocate)                 \
  X(IfThenElse)               \
  X(Evaluate)                 \
  X(AttrStmt)

enum class NodeKind {
#define WEFT_IR_KIND(N) k##N,
  WEFT_IR_EXPR_NODES(WEFT_IR_KIND) WEFT_IR_STMT_NODES(WEFT_IR_KIND)
#undef WEFT_IR_KIND
};

/// Base of every node.
struct Node {
  explicit Node(NodeKind k) : kind(k) {}
  virtual ~Node() = default;
  const NodeKind kind;
};

struct ExprNode : Node {
  ExprNode(NodeKind k, DType t) : Node(k), dtype(t) {}
  const DType dtype;
};
struct StmtNode : Node {
  using Node::Node;
};

/// An expression handle (shared, immutable).
using Expr = std::shared_ptr<const ExprNode>;
/// A statement handle (shared, immutable).
using Stmt = std::shared_ptr<const StmtNode>;

/// A loop or index variable; identity is the object, the name is for printing.
struct VarObj {
  explicit VarObj(std::string n) : name(std::move(n)) {}
  const std::string name;
};
using Var = std::shared_ptr<const VarObj>;
/// A new variable.
Var make_var(const std::string& name);

/// Where a buffer lives: DRAM (global), an accelerator buffer, a local scratch scope (CPU
/// stack, GPU registers), or a GPU thread block's shared memory. The GPU backend maps the
/// accelerator's inp/wgt/acc scopes onto tensor-core (WMMA) fragments: matrix_a, matrix_b,
/// accumulator.
enum class Scope { kGlobal, kInp, kWgt, kAcc, kUop, kLocal, kShared };
const char* scope_name(Scope s);

/// A multi-dimensional buffer with identity.
struct BufferObj {
  BufferObj(std::string n, DType t, std::vector<int64_t> s, Scope sc)
      : name(std::move(n)), dtype(t), shape(std::move(s)), scope(sc) {}
  const std::string name;
  const DType dtype;
  const std::vector<int64_t> shape;
  const Scope scope;
  int64_t elements() const;
};
using Buffer = std::shared_ptr<const BufferObj>;
/// A new buffer.
Buffer make_buffer(const std::string& name, DType dtype, std::vector<int64_t> shape,
                   Scope scope = Scope::kGlobal);

// ---- Expressions ----

struct IntImm : ExprNode {
  IntImm(DType t, int64_t v) : ExprNode(NodeKind::kIntImm, t), value(v) {}
  const int64_t value;
};
/// A floating-point constant (held as a double, of type `dtype`).
struct FloatImm : ExprNode {
  FloatImm(DType t, double v) : ExprNode(NodeKind::kFloatImm, t), value(v) {}
  const double value;
};
struct VarRef : ExprNode {
  explicit VarRef(Var v) : ExprNode(NodeKind::kVarRef, DType::kInt64), var(std::move(v)) {}
  const Var var;
};
/// Binary operators; division and modulo round towards negative infinity.
enum class BinOp { kAdd, kSub, kMul, kFloorDiv, kFloorMod, kMin, kMax, kShr, kLt, kGe, kAnd };
const char* binop_name(BinOp op);
struct Binary : ExprNode {
  Binary(BinOp o, Expr x, Expr y, DType t)
      : ExprNode(NodeKind::kBinary, t), op(o), a(std::move(x)), b(std::move(y)) {}
  const BinOp op;
  const Expr a, b;
};
struct Cast : ExprNode {
  Cast(DType t, Expr v) : ExprNode(NodeKind::kCast, t), value(std::move(v)) {}
  const Expr value;
};
struct Load : ExprNode {
  Load(Buffer b, std::vector<Expr> idx)
      : ExprNode(NodeKind::kLoad, b->dtype), buffer(std::move(b)), indices(std::move(idx)) {}
  const Buffer buffer;
  const std::vector<Expr> indices;
};
/// A call of an intrinsic of the registry (intrinsics.h), e.g. a tensorized GEMM or a DMA
/// copy; `buffers` are the buffers it accesses (a DMA's destination and source), printed
/// before the arguments.
struct Call : ExprNode {
  Call(DType t, Intrinsic o, std::vector<Expr> a, std::vector<Buffer> b = {})
      : ExprNode(NodeKind::kCall, t), op(o), args(std::move(a)), buffers(std::move(b)) {}
  const Intrinsic op;
  const std::vector<Expr> args;
  const std::vector<Buffer> buffers;
  /// The printed name (for messages).
  std::string name() const { return intrinsic_name(op); }
};

// ---- Statements ----

/// How a loop runs.
enum class ForKind { kSerial, kUnrolled, kVectorized, kParallel, kVirtualThread };
const char* for_kind_name(ForKind k);
/// The GPU thread index a loop can be bound to (CUDA's blockIdx and threadIdx).
enum class ThreadAxis { kBlockX, kBlockY, kBlockZ, kThreadX, kThreadY, kThreadZ };
/// "blockIdx.x", ..., "threadIdx.z".
const char* thread_axis_name(ThreadAxis a);
/// Whether `a` is a threadIdx axis (threads of one block, which share its shared memory).
inline bool is_thread_index(ThreadAxis a) { return a >= ThreadAxis::kThreadX; }
/// A loop. `thread` binds it to a GPU block or thread index (te::Stage::bind): on the GPU it
/// is no loop, each block (thread) runs its own iteration; elsewhere it runs as `kind` says.
/// A bound loop prints with the line `// attr bind.<axis> = <extent>` before it.
struct For : StmtNode {
  For(Var v, Expr mn, Expr ext, ForKind k, Stmt b, std::optional<ThreadAxis> t)
      : StmtNode(NodeKind::kFor),
        var(std::move(v)),
        min(std::move(mn)),
        extent(std::move(ext)),
        kind(k),
        body(std::move(b)),
        thread(t) {}
  const Var var;
  const Expr min, extent;
  const ForKind kind;
  const Stmt body;
  const std::optional<ThreadAxis> thread;
};
struct Store : StmtNode {
  Store(Buffer b, std::vector<Expr> idx, Expr v)
      : StmtNode(NodeKind::kStore),
        buffer(std::move(b)),
        indices(std::move(idx)),
        value(std::move(v)) {}
  const Buffer buffer;
  const std::vector<Expr> indices;
  const Expr value;
};
struct Seq : StmtNode {
  explicit Seq(std::vector<Stmt> s) : StmtNode(NodeKind::kSeq), stmts(std::move(s)) {}
  const std::vector<Stmt> stmts;
};
/// Declares `buffer` (an on-chip or local scope) for the duration of `body`.
struct Allocate : StmtNode {
  Allocate(Buffer b, Stmt bd)
      : StmtNode(NodeKind::kAllocate), buffer(std::move(b)), body(std::move(bd)) {}
  const Buffer buffer;
  const Stmt body;
};
struct IfThenElse : StmtNode {
  IfThenElse(Expr c, Stmt t, Stmt e)
      : StmtNode(NodeKind::kIfThenElse),
        cond(std::move(c)),
        then_case(std::move(t)),
        else_case(std::move(e)) {}
  const Expr cond;
  const Stmt then_case, else_case;  // else_case may be null
};
struct Evaluate : StmtNode {
  explicit Evaluate(Expr v) : StmtNode(NodeKind::kEvaluate), value(std::move(v)) {}
  const Expr value;
};
/// An annotation (pragma) on a statement: key and value.
struct AttrStmt : StmtNode {
  AttrStmt(std::string k, Expr v, Stmt b)
      : StmtNode(NodeKind::kAttrStmt), key(std::move(k)), value(std::move(v)), body(std::move(b)) {}
  const std::string key;
  const Expr value;
  const Stmt body;
};

// ---- Builders (with constant folding of integer immediates) ----

Expr imm(int64_t v, DType t = DType::kInt64);
/// A float32 constant.
Expr fimm(double v, DType t = DType::kFloat32);
Expr ref(const Var& v);
Expr add(Expr a, Expr b);
Expr sub(Expr a, Expr b);
Expr mul(Expr a, Expr b);
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr shr(Expr a, Expr b);
Expr lt(Expr a, Expr b);
Expr ge(Expr a, Expr b);
Expr logical_and(Expr a, Expr b);
/// The binary operation `op` (one of the builders above, by operator).
Expr binary(BinOp op, Expr a, Expr b);
Expr cast(DType t, Expr v);
Expr load(const Buffer& b, std::vector<Expr> indices);
/// A call of `op`; InternalError when the operand counts are not the registry's.
Expr call(DType t, Intrinsic op, std::vector<Expr> args, std::vector<Buffer> buffers = {});

Stmt for_loop(const Var& v, Expr min, Expr extent, ForKind kind, Stmt body,
              std::optional<ThreadAxis> thread = std::nullopt);
/// `f` with another body (var, bounds, kind and binding kept).
Stmt with_body(const For& f, Stmt body);
Stmt store(const Buffer& b, std::vector<Expr> indices, Expr value);
Stmt seq(std::vector<Stmt> stmts);
Stmt allocate(const Buffer& b, Stmt body);
Stmt if_then_else(Expr cond, Stmt then_case, Stmt else_case = nullptr);
Stmt evaluate(Expr v);
Stmt attr(const std::string& key, Expr value, Stmt body);

// Builders of the value intrinsics (their semantics: intrinsics.h).
/// select(cond, a, b) of a's type: a where cond is non-zero, else b (both evaluated).
Expr select(Expr cond, Expr a, Expr b);
/// dot2_i16(x, y); int8 GEMMs pair their reduction steps with it.
Expr dot2_i16(Expr x, Expr y);
/// dot4_u8s8(x, y); the LLVM backend folds `acc + dot4_u8s8(x, y)` into one vpdpbusd where
/// AVX512-VNNI or AVX-VNNI exists. CPU int8 GEMMs group their reduction steps in fours with it
/// (A offset by +128).
Expr dot4_u8s8(Expr x, Expr y);
/// dot4_i8(x, y); GPU int8 GEMMs without tensor cores group their reduction steps in fours
/// with it.
Expr dot4_i8(Expr x, Expr y);
/// round_even(x) (C's nearbyint under the default rounding mode; x86's roundps with imm 8).
/// Quantization to int8 rounds with it before the (exact) conversion.
Expr round_even(Expr x);
/// A float32 math call: `op` one of kExp, kTanh, kErf, kSqrt (one operand) or kPow, kFDiv
/// (two); InternalError for another intrinsic.
Expr float_math(Intrinsic op, Expr x, Expr y = nullptr);

/// The row-major flat offset of the first `dims` indices into `b`'s dimensions:
/// ((i0*s1 + i1)*s2 + i2)... (0 when `dims` is 0). Not simplified.
Expr flat_index(const Buffer& b, const std::vector<Expr>& idx, size_t dims);

/// The value of an integer immediate, if `e` is one.
const IntImm* as_imm(const Expr& e);
/// Whether `e` is a reference to `v`.
bool is_var(const Expr& e, const Var& v);

}  // namespace weft::compiler::ir
