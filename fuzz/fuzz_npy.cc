// Fuzz target: the .npy reader. An input either decodes into an array whose data matches its
// shape and element type, and which encodes and decodes to itself, or is a UserError.
#include <cstdint>
#include <vector>

#include "fuzz/fuzz_common.h"
#include "hardware/isa/errors.h"
#include "runtime/io/npy.h"

using namespace weft;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  rt::NpyArray a;
  try {
    a = rt::decode_npy(bytes, "fuzz.npy");
  } catch (const UserError&) {
    return 0;
  }
  uint64_t n = 1;
  for (int64_t d : a.shape) {
    fuzz::check(d >= 0, "negative dimension");
    n *= static_cast<uint64_t>(d);
  }
  fuzz::check(a.data.size() == n * static_cast<uint64_t>(rt::npy_elem_bytes(a.type)),
              "data size does not match the shape");
  const rt::NpyArray b = rt::decode_npy(rt::encode_npy(a), "again.npy");
  fuzz::check(b.type == a.type && b.shape == a.shape && b.data == a.data, "npy round trip");
  return 0;
}
