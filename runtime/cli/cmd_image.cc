// `weft image`: composes a flat DRAM image from files and pseudo-random data, so that a
// program, its micro-ops and its tensors can be laid out for `weft sim`.
#include <iostream>
#include <memory>
#include <random>

#include "hardware/isa/errors.h"
#include "runtime/cli/commands.h"
#include "runtime/io/files.h"

namespace weft::cli {

namespace {

// Splits "A:B[:C]" into its parts.
std::vector<std::string> split_colon(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t pos; (pos = s.find(':', start)) != std::string::npos; start = pos + 1) {
    parts.push_back(s.substr(start, pos - start));
  }
  parts.push_back(s.substr(start));
  return parts;
}

void check_fits(uint64_t offset, uint64_t n, uint64_t size, const std::string& what) {
  if (offset > size || n > size - offset) {
    throw UserError(what + ": bytes [" + std::to_string(offset) + ", " +
                    std::to_string(offset + n) + ") do not fit in the " + std::to_string(size) +
                    "-byte image (raise --size)");
  }
}

}  // namespace

void add_image_command(CLI::App& app) {
  struct Opts {
    std::string output, size;
    std::vector<std::string> at, random;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd =
      app.add_subcommand("image",
                         "Build a zero-filled DRAM image and place data in it, e.g.\n"
                         "  weft image -o img.bin --size 64K --at 0:prog.bin --at 4096:uops.bin "
                         "--random 8192:1024:7\n"
                         "Offsets and sizes take decimal, 0x hex, or a K/M/G suffix.");
  cmd->add_option("-o,--output", o->output, "image file to write")->required();
  cmd->add_option("--size", o->size, "image size in bytes")->required();
  cmd->add_option("--at", o->at, "OFFSET:FILE copies FILE's bytes to OFFSET (repeatable)");
  cmd->add_option("--random", o->random,
                  "OFFSET:NBYTES[:SEED] fills NBYTES pseudo-random bytes (repeatable)");
  cmd->callback([o] {
    const uint64_t size = rt::parse_size(o->size, "--size");
    if (size > (uint64_t{1} << 34)) throw UserError("--size " + o->size + " is above 16 GiB");
    std::vector<uint8_t> image(size, 0);
    for (const std::string& spec : o->at) {
      const auto parts = split_colon(spec);
      if (parts.size() != 2) throw UserError("--at '" + spec + "' is not OFFSET:FILE");
      const uint64_t offset = rt::parse_size(parts[0], "--at offset");
      const std::vector<uint8_t> data = rt::read_file(parts[1]);
      check_fits(offset, data.size(), size, "--at " + spec);
      std::copy(data.begin(), data.end(), image.begin() + static_cast<ptrdiff_t>(offset));
    }
    for (const std::string& spec : o->random) {
      const auto parts = split_colon(spec);
      if (parts.size() < 2 || parts.size() > 3) {
        throw UserError("--random '" + spec + "' is not OFFSET:NBYTES[:SEED]");
      }
      const uint64_t offset = rt::parse_size(parts[0], "--random offset");
      const uint64_t n = rt::parse_size(parts[1], "--random size");
      const uint64_t seed = parts.size() == 3 ? rt::parse_size(parts[2], "--random seed") : 1;
      check_fits(offset, n, size, "--random " + spec);
      std::mt19937_64 rng(seed);
      for (uint64_t i = 0; i < n; ++i) image[offset + i] = static_cast<uint8_t>(rng() >> 56);
    }
    rt::write_file(o->output, image);
    std::cerr << "weft image: " << size << " bytes -> " << o->output << "\n";
  });
}

}  // namespace weft::cli
