// .npy round trips and the header NumPy expects, and clear errors for files weft cannot read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hardware/isa/errors.h"
#include "runtime/io/npy.h"

namespace weft::rt {
namespace {

using ::testing::HasSubstr;

TEST(Npy, HeaderIsAlignedAndReadable) {
  const auto bytes = encode_npy(npy_int8({2, 3}, {1, -2, 3, -4, 5, -6}));
  const std::string header(bytes.begin() + 10, bytes.end() - 6);
  EXPECT_EQ((10 + header.size()) % 64, 0u);
  EXPECT_THAT(header, HasSubstr("{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }"));
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(static_cast<int8_t>(bytes.back()), -6);
}

TEST(Npy, RoundTripsEveryTypeAndRank) {
  for (const NpyArray& a : {npy_int8({5}, {1, 2, 3, 4, -5}), npy_int32({2, 2}, {1, -1, 1 << 30, 7}),
                            npy_int32({1, 2, 1, 2}, {0, 1, 2, 3}), npy_int8({0}, {})}) {
    const NpyArray b = decode_npy(encode_npy(a), "t.npy");
    EXPECT_EQ(b.type, a.type);
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_EQ(b.data, a.data);
  }
  const auto one_d = encode_npy(npy_int8({5}, {1, 2, 3, 4, 5}));
  EXPECT_THAT(std::string(one_d.begin() + 10, one_d.end()), HasSubstr("'shape': (5,)"));
}

TEST(Npy, RejectsWhatItCannotRead) {
  auto msg = [](std::vector<uint8_t> b) {
    try {
      decode_npy(b, "x.npy");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(msg({1, 2, 3}), HasSubstr("'x.npy' is not a supported .npy file: no NUMPY magic"));
  auto good = encode_npy(npy_int32({2}, {1, 2}));
  auto truncated = good;
  truncated.pop_back();
  EXPECT_THAT(msg(truncated), HasSubstr("holds 7 data bytes, the shape needs 8"));
  auto f8 = good;
  const std::string h(f8.begin(), f8.end());
  f8[h.find("<i4") + 1] = 'f';
  f8[h.find("<i4") + 2] = '8';
  EXPECT_THAT(msg(f8), HasSubstr("element type"));
}

}  // namespace
}  // namespace weft::rt
