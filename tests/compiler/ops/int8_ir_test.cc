// The int8 requantization IR builders (compiler/ops/int8_ir.h) against scalar versions of the
// same rules over many values: the builders' IR run by the loop-IR interpreter (integers), and
// the CPU kernels built from them JIT-compiled by LLVM (integers and the float32 quantize, with
// ties at every rounding point). The scalar versions below are the rules as int8_ir.h states
// them, written on plain integers and doubles.
#include "compiler/ops/int8_ir.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "compiler/codegen/lowered_func.h"
#include "compiler/ir/interpreter.h"
#include "compiler/te/schedule.h"
#ifdef WEFT_HAVE_CPU_BACKEND
#include "compiler/ops/cpu/elementwise.h"
#include "runtime/cpu/executor.h"
#endif

namespace weft::compiler::ops {
namespace {

using ir::DType;
using ir::Expr;

// ---- the rules on scalars ----

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t scalar_shift_round(int64_t v, int s) {
  if (s > 0) return (v + (int64_t{1} << (s - 1))) >> s;
  return v * (int64_t{1} << -s);
}
int64_t scalar_round_div(int64_t n, int64_t d) { return floor_div(2 * n + d, 2 * d); }
int64_t scalar_sat8(int64_t v) { return std::min<int64_t>(std::max<int64_t>(v, -128), 127); }
int64_t scalar_quantize(float x, int e) {
  const double v = std::min(std::max(double(x) * std::ldexp(1.0, -e), -128.0), 127.0);
  return static_cast<int64_t>(std::nearbyint(v));  // half to even (the default rounding)
}

// ---- the builders' IR on the interpreter ----

// y[i] = f(x[i]) (and of z[i] when given) over int values of `in`, computed as `out`.
std::vector<int64_t> interpret(DType in, DType out, const std::vector<int64_t>& xs,
                               const std::vector<int64_t>& zs,
                               const std::function<Expr(const Expr&, const Expr&)>& f) {
  const int64_t n = static_cast<int64_t>(xs.size());
  te::Tensor x = te::placeholder({n}, in, "X"), z = te::placeholder({n}, in, "Z");
  te::Tensor y = te::compute(
      {n}, out, [&](const std::vector<Expr>& i) { return f(x(i), z(i)); }, "Y");
  te::Schedule s({y});
  const codegen::LoweredFunc fn = codegen::lower_func("f", s, {x, z}, {y});
  ir::BufferData data;
  data[x->buffer.get()] = xs;
  data[z->buffer.get()] = zs.empty() ? xs : zs;
  data[y->buffer.get()] = std::vector<int64_t>(xs.size());
  ir::interpret(fn.body, data);
  return data[y->buffer.get()];
}

std::vector<int64_t> all_int8() {
  std::vector<int64_t> v;
  for (int64_t x = -128; x <= 127; ++x) v.push_back(x);
  return v;
}

TEST(Int8Ir, ShiftRoundAndSat8MatchTheScalarRules) {
  const std::vector<int64_t> xs = all_int8();
  for (int s = -24; s <= 31; ++s) {
    const DType t = int_for_left_shift(-s);
    const auto got = interpret(DType::kInt8, DType::kInt8, xs, {}, [&](const Expr& x, const Expr&) {
      return sat8(shift_round(ir::cast(t, x), s));
    });
    for (size_t i = 0; i < xs.size(); ++i)
      ASSERT_EQ(got[i], scalar_sat8(scalar_shift_round(xs[i], s))) << "x " << xs[i] << " s " << s;
  }
  // Wide values (accumulators), every right shift, ties included (v = k * 2^s + 2^(s-1)).
  std::mt19937 rng(5);
  std::uniform_int_distribution<int64_t> d(-(int64_t{1} << 30), int64_t{1} << 30);
  for (int s = 1; s <= 30; ++s) {
    std::vector<int64_t> vs;
    for (int i = 0; i < 200; ++i) vs.push_back(d(rng));
    for (int64_t k = -3; k <= 3; ++k) vs.push_back(k * (int64_t{1} << s) + (int64_t{1} << (s - 1)));
    const auto got = interpret(DType::kInt64, DType::kInt64, vs, {},
                               [&](const Expr& x, const Expr&) { return shift_round(x, s); });
    for (size_t i = 0; i < vs.size(); ++i)
      ASSERT_EQ(got[i], scalar_shift_round(vs[i], s)) << "v " << vs[i] << " s " << s;
  }
}

TEST(Int8Ir, RoundDivRoundsHalfUp) {
  std::mt19937 rng(6);
  std::uniform_int_distribution<int64_t> dn(-100000, 100000), dd(1, 1000);
  std::vector<int64_t> ns, ds;
  for (int i = 0; i < 2000; ++i) ns.push_back(dn(rng)), ds.push_back(dd(rng));
  for (int64_t d = 1; d <= 9; ++d)  // exact halves: n = k*d + d/2 for even d
    for (int64_t k = -4; k <= 4; ++k) ns.push_back(k * d + d / 2), ds.push_back(d);
  for (DType t : {DType::kInt32, DType::kInt64}) {
    const auto got =
        interpret(t, t, ns, ds, [&](const Expr& n, const Expr& d) { return round_div(n, d); });
    for (size_t i = 0; i < ns.size(); ++i)
      ASSERT_EQ(got[i], scalar_round_div(ns[i], ds[i])) << ns[i] << " / " << ds[i];
  }
}

#ifdef WEFT_HAVE_CPU_BACKEND
// ---- the CPU kernels built from them, JIT-compiled ----

template <typename In, typename Out>
std::vector<Out> run_jit(const LoweredOp& op, const std::vector<std::vector<In>>& ins) {
  rt::cpu::CpuKernel k(op);
  std::vector<Out> y(ins[0].size());
  std::vector<void*> bufs;
  for (const auto& v : ins) bufs.push_back(const_cast<In*>(v.data()));
  bufs.push_back(y.data());
  k.run(bufs);
  return y;
}

TEST(Int8Ir, JitRequantizeAndAddMatchTheScalarRules) {
  std::vector<int8_t> xs, zs;
  for (int a = -128; a <= 127; ++a)
    for (int b = -128; b <= 127; b += 5) xs.push_back(int8_t(a)), zs.push_back(int8_t(b));
  const int64_t n = static_cast<int64_t>(xs.size());
  for (int s : {-7, -3, -1, 0, 1, 2, 5, 8, 12}) {
    const auto got = run_jit<int8_t, int8_t>(cpu::requantize_i8(n, s), {xs});
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], scalar_sat8(scalar_shift_round(xs[i], s))) << int(xs[i]) << " s " << s;
  }
  for (auto [sa, sb] : std::vector<std::pair<int, int>>{{0, 0}, {1, -2}, {-3, 4}, {6, 6}}) {
    const auto got = run_jit<int8_t, int8_t>(cpu::add_i8(n, sa, sb), {xs, zs});
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], scalar_sat8(scalar_shift_round(xs[i], sa) + scalar_shift_round(zs[i], sb)))
          << int(xs[i]) << " + " << int(zs[i]);
  }
}

TEST(Int8Ir, JitQuantizeRoundsHalfToEvenAndSaturates) {
  std::vector<float> xs;
  for (int q = -1200; q <= 1200; ++q) xs.push_back(float(q) * 0.25f);  // ties at every .5
  for (float f : {1e6f, -1e6f, 127.5f, -128.5f, 126.5f, -0.5f, 0.5f, 1.5f}) xs.push_back(f);
  const int64_t n = static_cast<int64_t>(xs.size());
  for (int e : {-5, -3, 0, 2}) {
    const auto got = run_jit<float, int8_t>(cpu::quantize_f32(n, e), {xs});
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], scalar_quantize(xs[i], e)) << xs[i] << " e " << e;
  }
}
#endif

}  // namespace
}  // namespace weft::compiler::ops
