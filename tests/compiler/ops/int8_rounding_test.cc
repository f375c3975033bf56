// compiler/ops/int8_rounding.h, rule by rule, on the edges where rounding rules differ: ties
// and their signs, shift 0, negative shifts, the saturation boundaries, 32-bit wrap, and the
// accelerator's epilogue with and without bias, residual and ReLU. Expected values are worked
// out by hand from the rules in the header.
#include "compiler/ops/int8_rounding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace weft::compiler::ops {
namespace {

TEST(Int8Rounding, SaturateAndClip) {
  EXPECT_EQ(saturate_int8(127), 127);
  EXPECT_EQ(saturate_int8(128), 127);
  EXPECT_EQ(saturate_int8(-128), -128);
  EXPECT_EQ(saturate_int8(-129), -128);
  EXPECT_EQ(saturate_int8(int64_t{1} << 40), 127);
  EXPECT_EQ(saturate_int8(-(int64_t{1} << 40)), -128);
  EXPECT_EQ(saturate_int8(0), 0);
  EXPECT_EQ(clip(-5, 0, 127), 0);
  EXPECT_EQ(clip(200, 0, 127), 127);
  EXPECT_EQ(clip(7, 0, 127), 7);
}

TEST(Int8Rounding, Wrap32IsTwosComplementModulo2To32) {
  EXPECT_EQ(wrap32(int64_t{std::numeric_limits<int32_t>::max()} + 1),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(wrap32(int64_t{std::numeric_limits<int32_t>::min()} - 1),
            std::numeric_limits<int32_t>::max());
  EXPECT_EQ(wrap32(int64_t{1} << 32), 0);
  EXPECT_EQ(wrap32((int64_t{1} << 32) + 5), 5);
  EXPECT_EQ(wrap32(-1), -1);
  EXPECT_EQ(wrap32(-(int64_t{1} << 33) - 7), -7);
}

TEST(Int8Rounding, ShiftRoundIsHalfUpTowardsPlusInfinity) {
  // Ties: +2.5 -> 3, -2.5 -> -2 (up, not away from zero, not to even).
  EXPECT_EQ(shift_round(5, 1), 3);
  EXPECT_EQ(shift_round(-5, 1), -2);
  EXPECT_EQ(shift_round(3, 1), 2);    // 1.5 -> 2
  EXPECT_EQ(shift_round(-3, 1), -1);  // -1.5 -> -1
  EXPECT_EQ(shift_round(-6, 1), -3);  // exact
  EXPECT_EQ(shift_round(6, 2), 2);    // 1.5 -> 2
  EXPECT_EQ(shift_round(-6, 2), -1);  // -1.5 -> -1
  EXPECT_EQ(shift_round(-7, 2), -2);  // -1.75 -> -2
  EXPECT_EQ(shift_round(-1, 3), 0);   // -0.125 -> 0
  EXPECT_EQ(shift_round(-4, 3), 0);   // -0.5 -> 0
  EXPECT_EQ(shift_round(-5, 3), -1);  // -0.625 -> -1
  EXPECT_EQ(shift_round(127, 7), 1);  // 0.99 -> 1
  EXPECT_EQ(shift_round(-128, 8), 0);  // -0.5 -> 0
  EXPECT_EQ(shift_round(-129, 8), -1);
}

TEST(Int8Rounding, ShiftRoundByZeroAndNegativeShifts) {
  for (int64_t v : {-128, -1, 0, 1, 127}) EXPECT_EQ(shift_round(v, 0), v);
  EXPECT_EQ(shift_round(-3, -1), -6);
  EXPECT_EQ(shift_round(127, -4), 2032);
  EXPECT_EQ(shift_round(-128, -24), -(int64_t{1} << 31));  // exact past int32's range
  EXPECT_EQ(shift_round(127, -30), int64_t{127} << 30);
}

TEST(Int8Rounding, RoundDivIsHalfUp) {
  EXPECT_EQ(round_div(7, 2), 4);    // 3.5
  EXPECT_EQ(round_div(-7, 2), -3);  // -3.5
  EXPECT_EQ(round_div(-5, 2), -2);  // -2.5
  EXPECT_EQ(round_div(5, 2), 3);
  EXPECT_EQ(round_div(-1, 2), 0);   // -0.5
  EXPECT_EQ(round_div(-2, 3), -1);  // -0.67
  EXPECT_EQ(round_div(-1, 3), 0);   // -0.33
  EXPECT_EQ(round_div(1, 3), 0);
  EXPECT_EQ(round_div(2, 3), 1);
  EXPECT_EQ(round_div(-9, 9), -1);
  EXPECT_EQ(round_div(0, 49), 0);
  EXPECT_EQ(round_div(-1152, 9), -128);
  // Against the definition floor(num / den + 1/2) over a range of both signs.
  for (int64_t den = 1; den <= 12; ++den)
    for (int64_t num = -200; num <= 200; ++num)
      ASSERT_EQ(round_div(num, den),
                static_cast<int64_t>(std::floor(double(num) / double(den) + 0.5)))
          << num << " / " << den;
}

TEST(Int8Rounding, QuantizeRoundsHalfToEvenAndSaturates) {
  EXPECT_EQ(quantize(0.5, 0), 0);
  EXPECT_EQ(quantize(1.5, 0), 2);
  EXPECT_EQ(quantize(2.5, 0), 2);
  EXPECT_EQ(quantize(-0.5, 0), 0);
  EXPECT_EQ(quantize(-1.5, 0), -2);
  EXPECT_EQ(quantize(-2.5, 0), -2);
  EXPECT_EQ(quantize(0.75, -2), 3);    // 0.75 * 4 = 3
  EXPECT_EQ(quantize(0.625, -2), 2);   // 2.5 -> 2
  EXPECT_EQ(quantize(0.875, -2), 4);   // 3.5 -> 4
  EXPECT_EQ(quantize(-0.875, -2), -4);
  EXPECT_EQ(quantize(12.0, 2), 3);     // 12 / 4
  EXPECT_EQ(quantize(10.0, 2), 2);     // 2.5 -> 2
  EXPECT_EQ(quantize(127.4, 0), 127);
  EXPECT_EQ(quantize(127.5, 0), 127);  // 128 after rounding, saturated
  EXPECT_EQ(quantize(-128.5, 0), -128);
  EXPECT_EQ(quantize(-129.0, 0), -128);
  EXPECT_EQ(quantize(1e30, 0), 127);
  EXPECT_EQ(quantize(-1e30, 0), -128);
  EXPECT_EQ(quantize(INFINITY, -3), 127);
  EXPECT_EQ(quantize(-INFINITY, -3), -128);
  EXPECT_EQ(quantize(std::nan(""), -3), 0);
  EXPECT_EQ(quantize(static_cast<double>(0.1f), -5), 3);  // 3.2000000477 (the float's value)
}

TEST(Int8Rounding, RoundHalfEvenKeepsThePrecision) {
  EXPECT_EQ(round_half_even(2.5f), 2.0f);
  EXPECT_EQ(round_half_even(3.5), 4.0);
  EXPECT_EQ(round_half_even(-0.5), 0.0);
  EXPECT_EQ(round_clip(-127.6, -127, 127), -127.0);  // the quantizer's symmetric weights
  EXPECT_EQ(round_clip(126.5, -127, 127), 126.0);
  EXPECT_EQ(round_clip(3e9, -1e9, 1e9), 1e9);
}

TEST(Int8Rounding, DequantizeIsExact) {
  EXPECT_EQ(dequantize(-128, -7), -1.0f);
  EXPECT_EQ(dequantize(3, 2), 12.0f);
  EXPECT_EQ(dequantize(127, -5), 3.96875f);
}

TEST(Int8Rounding, QuantizeLinearIsOnnxs) {
  // round_half_even(x / scale) + zero point, saturated; in the caller's precision.
  EXPECT_EQ(quantize_linear<float>(3.2f, 3.0f), 6.0f);    // ONNX's example: 0.1 / (1/32)
  EXPECT_EQ(quantize_linear<float>(2.5f, 0.0f), 2.0f);
  EXPECT_EQ(quantize_linear<double>(-3.5, 0.0), -4.0);
  EXPECT_EQ(quantize_linear<double>(160.0, 3.0), 127.0);
  EXPECT_EQ(quantize_linear<double>(-126.0, -3.0), -128.0);
  EXPECT_EQ(quantize_linear<double>(-125.5, -3.0), -128.0);  // -126 - 3 = -129 -> -128
}

TEST(Int8Rounding, RequantizeAndAdd) {
  EXPECT_EQ(requantize(5, 1), 3);
  EXPECT_EQ(requantize(-5, 1), -2);
  EXPECT_EQ(requantize(100, -1), 127);   // 200 saturates
  EXPECT_EQ(requantize(-100, -1), -128);
  EXPECT_EQ(requantize(-128, 0), -128);
  // Each operand rounds before the add: 3/2 -> 2 and 3/2 -> 2, so 4 (not round(3) = 3).
  EXPECT_EQ(requantize_add(3, 1, 3, 1), 4);
  EXPECT_EQ(requantize_add(-3, 1, -3, 1), -2);
  EXPECT_EQ(requantize_add(100, 0, 100, 0), 127);
  EXPECT_EQ(requantize_add(-100, 0, -100, 0), -128);
  EXPECT_EQ(requantize_add(64, -1, -1, 2), 127);  // 128 + 0 saturates
  EXPECT_EQ(requantize_add(-64, -1, -1, 0), -128);
}

TEST(Int8Rounding, RequantizeAverage) {
  EXPECT_EQ(requantize_average(7, 2, 0), 4);      // 3.5 -> 4
  EXPECT_EQ(requantize_average(-7, 2, 0), -3);    // -3.5 -> -3
  EXPECT_EQ(requantize_average(-7, 4, 1), -3);    // -14 / 4 = -3.5 -> -3
  EXPECT_EQ(requantize_average(10, 4, -1), 1);    // 10 / 8 = 1.25 -> 1
  EXPECT_EQ(requantize_average(12, 4, -1), 2);    // 1.5 -> 2
  EXPECT_EQ(requantize_average(127 * 9, 9, 1), 127);   // 254 saturates
  EXPECT_EQ(requantize_average(-128 * 9, 9, 1), -128);
  EXPECT_EQ(requantize_average(-128 * 49, 49, 0), -128);
}

TEST(Int8Rounding, AccelEpilogueShiftsAFloor) {
  // (acc + bias) >> shift is a floor: -3 >> 1 = -2, 3 >> 1 = 1.
  EXPECT_EQ(accel_epilogue(-3, 0, 1, 0, false), -2);
  EXPECT_EQ(accel_epilogue(3, 0, 1, 0, false), 1);
  // The bias carries the rounding term 2^(shift-1): then it rounds half up.
  EXPECT_EQ(accel_epilogue(3, 1, 1, 0, false), 2);
  EXPECT_EQ(accel_epilogue(-3, 1, 1, 0, false), -1);
  EXPECT_EQ(accel_epilogue(1000, 0, 0, 0, false), 127);
  EXPECT_EQ(accel_epilogue(-1000, 0, 0, 0, false), -128);
  EXPECT_EQ(accel_epilogue(-1000, 0, 0, 0, true), 0);   // ReLU clips at 0
  EXPECT_EQ(accel_epilogue(-5, 0, 0, 0, true), 0);
  EXPECT_EQ(accel_epilogue(5, 0, 0, 0, true), 5);
  EXPECT_EQ(accel_epilogue(255, 0, 1, 0, true), 127);
  // A shift past 31 (a CPU kernel's, from a file's scales) floors as 31 does: the sign.
  EXPECT_EQ(accel_epilogue(int64_t{1} << 30, 0, 42, 0, false), 0);
  EXPECT_EQ(accel_epilogue(-5, 0, 42, 0, false), -1);
  EXPECT_EQ(accel_epilogue(-5, 0, 42, 3, false), 2);
  EXPECT_EQ(accel_epilogue(40 << 4, 0, 4, 0, false), 40);
}

TEST(Int8Rounding, AccelEpilogueResidualAfterTheShift) {
  EXPECT_EQ(accel_epilogue(100, 0, 2, 7, false), 32);   // 25 + 7
  EXPECT_EQ(accel_epilogue(100, 0, 2, 120, false), 127);
  EXPECT_EQ(accel_epilogue(-100, 0, 2, -120, false), -128);
  EXPECT_EQ(accel_epilogue(-100, 0, 2, 20, true), 0);  // -25 + 20, then ReLU
  EXPECT_EQ(accel_epilogue(-100, 0, 2, 30, true), 5);
}

TEST(Int8Rounding, AccelEpilogueWrapsAt32Bits) {
  const int64_t max32 = std::numeric_limits<int32_t>::max();
  // The sum wraps before the bias: 2^31 reads as -2^31.
  EXPECT_EQ(accel_epilogue(max32 + 1, 0, 24, 0, false), -128);
  EXPECT_EQ(accel_epilogue(int64_t{1} << 32, 5, 0, 0, false), 5);
  // The ADD of the bias wraps: (2^31 - 1) + 1 = -2^31, then >> 24 = -128.
  EXPECT_EQ(accel_epilogue(max32, 1, 24, 0, false), -128);
  // The residual's ADD wraps too: (-2^31 >> 0) + (-1) = 2^31 - 1 -> 127.
  EXPECT_EQ(accel_epilogue(std::numeric_limits<int32_t>::min(), 0, 0, -1, false), 127);
  // Shift 31 of the most negative value.
  EXPECT_EQ(accel_epilogue(std::numeric_limits<int32_t>::min(), 0, 31, 0, false), -1);
}

}  // namespace
}  // namespace weft::compiler::ops
