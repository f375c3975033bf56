// The graph lowering's cache of compiled accelerator programs across runs
// (compiler/graph/lower/program_cache.h), as files: one per program key under a folder, by
// default $XDG_CACHE_HOME/weft/programs (else ~/.cache/weft/programs). A file holds a magic,
// the format version, the identity of the build that wrote it (the size and modification time
// of the binary holding this code: another build may compile differently, so it never reads
// a program it did not write), the full key (a hash collision reads as a miss), the program
// and a checksum. Writes go to a temporary file renamed into place, so concurrent runs see a
// whole file or none. A file that is truncated, corrupt or from another build is ignored with
// one warning on stderr and rewritten; a folder that cannot be created or written leaves the
// run uncached, with one warning.
//
//   ProgramFileCache cache(default_program_cache_dir());
//   AccelLowering lowering(layout, platform, {}, chooser, &cache);
#pragma once

#include <cstdint>
#include <string>

#include "compiler/graph/lower/program_cache.h"

namespace weft::rt::graph {

/// $XDG_CACHE_HOME/weft/programs, else $HOME/.cache/weft/programs; "" when neither is set.
std::string default_program_cache_dir();

class ProgramFileCache : public compiler::graph::ProgramCache {
 public:
  /// `dir` "" caches nothing.
  explicit ProgramFileCache(std::string dir);
  std::optional<compiler::graph::StoredProgram> find(
      const std::string& key, const std::vector<compiler::ir::Buffer>& roles) override;
  void put(const std::string& key, const compiler::graph::StoredProgram& p,
           const std::vector<compiler::ir::Buffer>& roles) override;

  /// The file that holds `key`'s program.
  std::string file_for(const std::string& key) const;
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  int64_t writes() const { return writes_; }

 private:
  std::string dir_;
  bool write_failed_ = false, read_warned_ = false;
  int64_t hits_ = 0, misses_ = 0, writes_ = 0;
};

}  // namespace weft::rt::graph
