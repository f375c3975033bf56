// File helpers; see files.h.
#include "runtime/io/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "hardware/isa/errors.h"

namespace weft::rt {

std::vector<uint8_t> read_file(const std::string& path) {
  if (path == "-") {
    std::vector<uint8_t> v((std::istreambuf_iterator<char>(std::cin)),
                           std::istreambuf_iterator<char>());
    return v;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read '" + path + "': " + std::strerror(errno));
  std::vector<uint8_t> v((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UserError("error while reading '" + path + "'");
  return v;
}

std::string read_text_file(const std::string& path) {
  const std::vector<uint8_t> v = read_file(path);
  return std::string(v.begin(), v.end());
}

void write_file(const std::string& path, const void* data, size_t size) {
  if (path == "-") {
    std::cout.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    std::cout.flush();
    return;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw UserError("cannot write '" + path + "': " + std::strerror(errno));
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw UserError("error while writing '" + path + "'");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    std::remove(tmp.c_str());
    throw UserError("cannot write '" + path + "': " + err);
  }
}

uint64_t parse_size(const std::string& text, const std::string& what) {
  std::string t = text;
  uint64_t scale = 1;
  if (!t.empty() && (t.back() == 'K' || t.back() == 'M' || t.back() == 'G')) {
    scale = t.back() == 'K' ? 1ull << 10 : t.back() == 'M' ? 1ull << 20 : 1ull << 30;
    t.pop_back();
  }
  try {
    if (t.empty() || t[0] == '-' || t[0] == '+') throw std::invalid_argument("sign");
    size_t used = 0;
    const unsigned long long v = std::stoull(t, &used, 0);
    if (used != t.size()) throw std::invalid_argument("trailing");
    if (v > UINT64_MAX / scale) throw std::out_of_range("big");
    return v * scale;
  } catch (const std::exception&) {
    throw UserError(what + ": '" + text + "' is not a non-negative integer");
  }
}

}  // namespace weft::rt
