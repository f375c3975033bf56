// Whole-file reads and all-or-nothing writes with errors that name the file, for the CLI and
// tools.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/io/interrupt.h"

namespace weft::rt {

/// Reads a whole file ("-" is standard input). UserError naming the path when unreadable or a
/// directory.
std::vector<uint8_t> read_file(const std::string& path);
/// UserError naming `what` and `path` unless `path` is "-" or a file that can be opened for
/// reading (not a directory); for inputs checked before a command starts its work.
void check_input_file(const std::string& path, const std::string& what);
/// UserError naming `what` and `path` unless a file can be written there: "-", an existing
/// device or pipe, or a name in an existing directory where a file can be created (checked by
/// creating and removing one, so the message is the system's real reason). For outputs
/// checked before a command starts its work.
void check_output_file(const std::string& path, const std::string& what);
/// The same for an output folder (`--save DIR`): an existing directory where a file can be
/// created, or a path whose missing folders can be created (checked by creating and removing
/// them). Nothing is left behind.
void check_output_dir(const std::string& dir, const std::string& what);
/// Reads a whole text file ("-" is standard input).
std::string read_text_file(const std::string& path);

/// Output files of one command, published together or not at all. add() writes each file to
/// a uniquely named temporary file in its destination's directory (mkstemp, so a user's file
/// and a concurrent run are never touched); commit() renames them all into place; anything
/// staged but not committed is removed when the set is destroyed. "-" stands for standard
/// output, which is written at commit(). Errors are UserErrors naming the path. A Ctrl-C from
/// the first add() until the set is destroyed stops the process only after that (interrupt.h),
/// so a file is never left half-written or staged.
class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  /// Removes every temporary file not yet committed.
  ~OutputSet();

  /// Stages `size` bytes for `path`; UserError when it cannot be written or when `path` was
  /// already staged.
  void add(const std::string& path, const void* data, size_t size);
  void add(const std::string& path, const std::vector<uint8_t>& bytes) {
    add(path, bytes.data(), bytes.size());
  }
  void add_text(const std::string& path, const std::string& text) {
    add(path, text.data(), text.size());
  }
  /// Moves every staged file into place (and writes the standard-output one). Destinations
  /// are checked first, so a failure leaves none of them changed in all but races.
  void commit();

 private:
  std::unique_ptr<OutputGuard> guard_;  // from the first add() on
  struct Staged {
    std::string path;
    std::string tmp;      // the staged file, until it is renamed into place
    std::string data;     // the bytes of a direct output
    bool direct = false;  // standard output, a device or a pipe: written at commit()
  };
  void discard() noexcept;
  std::vector<Staged> staged_;
};

/// Writes a file atomically (unique temporary file, then rename), so a failed run never leaves
/// a half-written output; "-" writes to standard output. UserError naming the path on failure.
void write_file(const std::string& path, const void* data, size_t size);
inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_file(path, bytes.data(), bytes.size());
}
inline void write_text_file(const std::string& path, const std::string& text) {
  write_file(path, text.data(), text.size());
}

/// Parses a non-negative integer (decimal, or hex after 0x; optional K/M/G binary suffix)
/// given for `what`; UserError otherwise. A leading 0 does not mean octal.
uint64_t parse_size(const std::string& text, const std::string& what);

}  // namespace weft::rt
