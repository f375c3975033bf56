// How the weft binary allocates memory; see allocation_policy.cc.
#pragma once

namespace weft::cli {

/// Sets glibc's malloc to keep freed memory for reuse rather than return it to the system and
/// fault it in again (blocks under 64 MiB come from the heap, which is trimmed only past
/// 256 MiB and grows 64 MiB at a time). Called first thing in main. The binary's operator new
/// (allocation_policy.cc) also advises transparent huge pages for blocks of 2 MiB and up and
/// for each stretch the heap grows by.
void tune_allocator();

}  // namespace weft::cli
