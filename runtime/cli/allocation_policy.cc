// The weft binary's allocation policy: fewer page faults for the blocks of megabytes that a
// network's import, calibration and simulation allocate and write once.
//
// Measured on ResNet-50 (`weft run resnet50.onnx --config vta --engine cycle --program-cache
// off`, three runs each way on the 2-core AMD EPYC virtual machine, docs/networks.md): import
// spent a third of its time in the kernel's page-fault handler, as every copy of the weights
// landed on fresh 4 KiB pages; glibc's default returns freed blocks of 128 KiB and up to the
// system and faults them in again on the next allocation. With the heap kept (tune_allocator)
// and large blocks on transparent huge pages (operator new below), the whole command took
// 10-16% less CPU time (import 40% less, calibration 20% less).
#include "runtime/cli/allocation_policy.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace weft::cli {

void tune_allocator() {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
}

}  // namespace weft::cli

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEFT_SANITIZED_NEW 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define WEFT_SANITIZED_NEW 1
#endif

// A block of kHugeBlock bytes or more is advised MADV_HUGEPAGE before anything touches it: with
// the kernel's usual transparent_hugepage=madvise, glibc asks for huge pages only when told at
// start-up (GLIBC_TUNABLES), which a program cannot do for itself. Blocks still come from
// malloc, so every operator delete (which frees) stays as it is. Sanitizer builds keep their
// own operator new, which checks that news and deletes pair.
#ifndef WEFT_SANITIZED_NEW
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHugeBlock = std::size_t{2} << 20;

void advise_huge(std::uintptr_t begin, std::uintptr_t end) {
  begin = (begin + kHugePage - 1) & ~(kHugePage - 1);
  end &= ~(kHugePage - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// The heap as it grows (64 MiB at a time, tune_allocator) is advised too, as glibc's own
// glibc.malloc.hugetlb=1 would: the many small blocks of the program passes and the executor
// otherwise fault in one 4 KiB page at a time once calibration no longer leaves a large heap
// behind to reuse. sbrk(0) reads glibc's cached break, no system call.
std::atomic<std::uintptr_t> advised_break{0};

void advise_heap_growth() {
  const auto now = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  std::uintptr_t was = advised_break.load(std::memory_order_relaxed);
  if (now <= was || !advised_break.compare_exchange_strong(was, now)) return;
  if (was) advise_huge(was, now);  // the first call only notes where the heap ends
}

void* allocate(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  while (!p) {  // as the standard's operator new: the new-handler may free memory, or throw
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
    p = std::malloc(size == 0 ? 1 : size);
  }
  if (size >= kHugeBlock) {  // the whole huge pages inside the block
    advise_huge(reinterpret_cast<std::uintptr_t>(p), reinterpret_cast<std::uintptr_t>(p) + size);
  }
  advise_heap_growth();
  return p;
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
#endif
