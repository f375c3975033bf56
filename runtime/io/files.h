// Whole-file reads and atomic writes with errors that name the file, for the CLI and tools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::rt {

/// Reads a whole file ("-" is standard input). UserError naming the path when unreadable.
std::vector<uint8_t> read_file(const std::string& path);
/// Reads a whole text file ("-" is standard input).
std::string read_text_file(const std::string& path);
/// Writes a file atomically (temporary file, then rename), so a failed run never leaves a
/// half-written output; "-" writes to standard output. UserError naming the path on failure.
void write_file(const std::string& path, const void* data, size_t size);
inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_file(path, bytes.data(), bytes.size());
}
inline void write_text_file(const std::string& path, const std::string& text) {
  write_file(path, text.data(), text.size());
}

/// Parses a non-negative integer (decimal or 0x hex, optional K/M/G binary suffix) given for
/// `what`; UserError otherwise.
uint64_t parse_size(const std::string& text, const std::string& what);

}  // namespace weft::rt
