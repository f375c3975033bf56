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
                            npy_int32({1, 2, 1, 2}, {0, 1, 2, 3}), npy_int8({0}, {}),
                            npy_uint8({3}, {0, 128, 255})}) {
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
  // The element type found is named, with what is read (it said only "element type").
  EXPECT_THAT(msg(f8), HasSubstr("its elements are float64 ('<f8'); int8, uint8, int32 and "
                                 "float32 (little-endian) are read"));
  auto big = good;
  big[h.find("<i4")] = '>';
  EXPECT_THAT(msg(big), HasSubstr("its elements are big-endian int32 ('>i4')"));
  auto fortran = good;
  const size_t f = h.find("False");
  fortran.erase(fortran.begin() + static_cast<ptrdiff_t>(f),
                fortran.begin() + static_cast<ptrdiff_t>(f + 5));
  const std::string t = "True ";  // the same length: the header stays aligned
  fortran.insert(fortran.begin() + static_cast<ptrdiff_t>(f), t.begin(), t.end());
  EXPECT_THAT(msg(fortran), HasSubstr("Fortran (column-major) order"));
  // An item size too long for an int is named as written (std::stoi threw; found by fuzz_npy).
  std::string dict = "{'descr': '|i15555555555555555555555', 'fortran_order': False, "
                     "'shape': (2,), }";
  dict.resize(118, ' ');
  dict.back() = '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + char(dict.size()) + '\0' + dict;
  EXPECT_THAT(msg(std::vector<uint8_t>(file.begin(), file.end())),
              HasSubstr("'|i15555555555555555555555'"));
}

// numpy writes format 2.0 (a 4-byte header length) for headers over 65535 bytes; it is read.
TEST(Npy, ReadsFormatVersionTwo) {
  const auto one = encode_npy(npy_int8({2, 3}, {1, 2, 3, 4, 5, 6}));
  std::vector<uint8_t> two(one.begin(), one.begin() + 8);
  two[6] = 2;
  two.push_back(one[8]);
  two.push_back(one[9]);
  two.push_back(0);
  two.push_back(0);
  two.insert(two.end(), one.begin() + 10, one.end());
  const NpyArray a = decode_npy(two, "v2.npy");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data, std::vector<uint8_t>({1, 2, 3, 4, 5, 6}));
}

// Found by fuzz_npy (docs/reliability.md): a shape whose element count overflows int64. Two
// dimensions of 2^32 multiply to 2^64, which wrapped to 0 and matched an empty data section,
// so the reader accepted an "array" of 2^64 elements holding no bytes.
TEST(Npy, RejectsAShapeWhoseSizeOverflows) {
  auto with_shape = [](const std::string& shape, size_t data_bytes) {
    std::string h = "{'descr': '|i1', 'fortran_order': False, 'shape': (" + shape + "), }";
    h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
    h += '\n';
    std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                              static_cast<uint8_t>(h.size() & 0xff),
                              static_cast<uint8_t>(h.size() >> 8)};
    b.insert(b.end(), h.begin(), h.end());
    b.resize(b.size() + data_bytes, 0);
    return b;
  };
  EXPECT_THAT([&] { decode_npy(with_shape("4294967296, 4294967296", 0), "big.npy"); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("the shape '4294967296, 4294967296' is too large")));
  // The fuzzer's own input: three dimensions whose product overflows.
  EXPECT_THROW(decode_npy(with_shape("922137203685, 92213, 92213, 1", 7), "f.npy"), UserError);
  // A zero dimension needs no data whatever the others are, and such an array encodes again
  // (its element count was an overflowing product before the zero was reached).
  const NpyArray empty = decode_npy(with_shape("897423413909, 120000000000, 0", 0), "z.npy");
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{897423413909, 120000000000, 0}));
  EXPECT_EQ(decode_npy(encode_npy(empty), "again.npy").shape, empty.shape);
}

}  // namespace
}  // namespace weft::rt
