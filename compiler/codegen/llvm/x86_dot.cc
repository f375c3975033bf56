// The dot-product intrinsics as LLVM IR; see x86_dot.h.
#include "compiler/codegen/llvm/x86_dot.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/TargetParser/Triple.h>

#include <vector>

namespace weft::compiler::codegen {

namespace {

bool has(const DotTarget& t, const char* feature) {
  return t.features.find(feature) != std::string::npos;
}

unsigned width(llvm::Value* v) {
  return llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements();
}

// Elements [first, first + count) of vector `v` (all of it when that is the whole vector).
llvm::Value* slice(llvm::IRBuilderBase& b, llvm::Value* v, unsigned first, unsigned count) {
  if (first == 0 && count == width(v)) return v;
  std::vector<int> m;
  for (unsigned i = 0; i < count; ++i) m.push_back(static_cast<int>(first + i));
  return b.CreateShuffleVector(v, v, m);
}

// The pieces one after another, cut to `lanes` elements: concatenated pairwise (an odd count
// padded with undef), then the padding dropped.
llvm::Value* concat(llvm::IRBuilderBase& b, std::vector<llvm::Value*> parts, unsigned lanes) {
  while (parts.size() > 1) {
    if (parts.size() % 2 != 0) parts.push_back(llvm::UndefValue::get(parts.back()->getType()));
    std::vector<llvm::Value*> next;
    for (size_t i = 0; i + 1 < parts.size(); i += 2) {
      std::vector<int> m;
      for (unsigned q = 0; q < 2 * width(parts[i]); ++q) m.push_back(static_cast<int>(q));
      next.push_back(b.CreateShuffleVector(parts[i], parts[i + 1], m));
    }
    parts = std::move(next);
  }
  llvm::Value* r = parts[0];
  if (width(r) != lanes) {
    std::vector<int> m;
    for (unsigned q = 0; q < lanes; ++q) m.push_back(static_cast<int>(q));
    r = b.CreateShuffleVector(r, r, m);
  }
  return r;
}

}  // namespace

llvm::Value* emit_dot4_u8s8(llvm::IRBuilderBase& b, const DotTarget& t, llvm::Value* x,
                            llvm::Value* y, llvm::Value* acc, unsigned lanes) {
  const bool scalar = !x->getType()->isVectorTy();
  auto* i8 = b.getInt8Ty();
  auto* i32 = b.getInt32Ty();
  const bool x86 = llvm::Triple(t.triple).isX86();
  const bool vnni512 = has(t, "+avx512vnni") && has(t, "+avx512bw");
  const bool vnni256 = (vnni512 && has(t, "+avx512vl")) || has(t, "+avxvnni");
  const unsigned chunk = vnni512 && lanes % 16 == 0 ? 16 : (vnni256 && lanes % 8 == 0 ? 8 : 0);
  if (x86 && chunk > 0) {
    // vpdpbusd on 16 (AVX512-VNNI) or 8 (AVX-VNNI, AVX512-VNNI with VL) lanes at a time.
    const llvm::Intrinsic::ID id = chunk == 16 ? llvm::Intrinsic::x86_avx512_vpdpbusd_512
                                               : llvm::Intrinsic::x86_avx512_vpdpbusd_256;
    auto* vc = llvm::FixedVectorType::get(i32, chunk);
    std::vector<llvm::Value*> parts;
    for (unsigned c = 0; c < lanes; c += chunk) {
      llvm::Value* a0 = acc ? slice(b, acc, c, chunk) : llvm::Constant::getNullValue(vc);
      parts.push_back(
          b.CreateIntrinsic(id, {}, {a0, slice(b, x, c, chunk), slice(b, y, c, chunk)}));
    }
    return concat(b, std::move(parts), lanes);
  }
  if (acc) return nullptr;
  // Generic: bytes widened (x unsigned, y signed), multiplied, the four of a lane added.
  if (scalar) {
    x = b.CreateVectorSplat(1, x);
    y = b.CreateVectorSplat(1, y);
  }
  auto* v8 = llvm::FixedVectorType::get(i8, 4 * lanes);
  auto* v32 = llvm::FixedVectorType::get(i32, lanes);
  llvm::Value* xs = b.CreateBitCast(x, v8);
  llvm::Value* ys = b.CreateBitCast(y, v8);
  llvm::Value* r = nullptr;
  for (unsigned byte = 0; byte < 4; ++byte) {
    std::vector<int> m;
    for (unsigned i = 0; i < lanes; ++i) m.push_back(static_cast<int>(4 * i + byte));
    llvm::Value* p = b.CreateMul(b.CreateZExt(b.CreateShuffleVector(xs, xs, m), v32),
                                 b.CreateSExt(b.CreateShuffleVector(ys, ys, m), v32));
    r = r ? b.CreateAdd(r, p) : p;
  }
  return scalar ? b.CreateExtractElement(r, uint64_t{0}) : r;
}

llvm::Value* emit_dot2_i16(llvm::IRBuilderBase& b, const DotTarget& t, llvm::Value* x,
                           llvm::Value* y, unsigned lanes) {
  // Each int32 lane is two int16 halves: multiply pairwise and add (x86 pmaddwd).
  const bool scalar = !x->getType()->isVectorTy();
  auto* v16 = llvm::FixedVectorType::get(b.getInt16Ty(), 2 * lanes);
  auto* v32 = llvm::FixedVectorType::get(b.getInt32Ty(), lanes);
  if (scalar) {
    x = b.CreateVectorSplat(1, x);
    y = b.CreateVectorSplat(1, y);
  }
  llvm::Value* xs = b.CreateBitCast(x, v16);
  llvm::Value* ys = b.CreateBitCast(y, v16);
  llvm::Value* r = nullptr;
  const bool x86 = llvm::Triple(t.triple).isX86();
  const bool avx512 = has(t, "+avx512bw");
  const bool avx2 = has(t, "+avx2");
  const unsigned chunk = avx512 && lanes % 16 == 0 ? 16 : 8;
  if (x86 && (avx2 || avx512) && lanes % 8 == 0) {
    // pmaddwd on 8 (AVX2) or 16 (AVX-512BW) lanes at a time.
    const llvm::Intrinsic::ID id =
        chunk == 16 ? llvm::Intrinsic::x86_avx512_pmaddw_d_512 : llvm::Intrinsic::x86_avx2_pmadd_wd;
    std::vector<llvm::Value*> parts;
    for (unsigned c = 0; c < lanes; c += chunk) {
      parts.push_back(b.CreateIntrinsic(
          id, {}, {slice(b, xs, 2 * c, 2 * chunk), slice(b, ys, 2 * c, 2 * chunk)}));
    }
    r = concat(b, std::move(parts), lanes);
  } else {
    std::vector<int> even, odd;
    for (unsigned i = 0; i < lanes; ++i) {
      even.push_back(static_cast<int>(2 * i));
      odd.push_back(static_cast<int>(2 * i + 1));
    }
    auto half = [&](llvm::Value* v, const std::vector<int>& m) {
      return b.CreateSExt(b.CreateShuffleVector(v, v, m), v32);
    };
    r = b.CreateAdd(b.CreateMul(half(xs, even), half(ys, even)),
                    b.CreateMul(half(xs, odd), half(ys, odd)));
  }
  return scalar ? b.CreateExtractElement(r, uint64_t{0}) : r;
}

}  // namespace weft::compiler::codegen
