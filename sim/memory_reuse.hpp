#pragma once
// Memory a run frees kept for the next run of the process (glibc's malloc). By default glibc
// maps each block above 128 KiB (raised to the largest block freed so far) on its own and
// hands it back to the kernel when freed, and trims the heap above twice that. A
// replication's tables (tens of MB for the concert presale) then came back from the kernel
// as fresh pages for every replication, each page faulted in and zeroed again: 8
// replications of the concert presale on one thread spent 0.2 s of 1.26 in the kernel, and
// 0.88 s in all with the blocks kept (docs/perf.md). The cost: a process holds on
// to the most memory any of its runs needed until it exits, which the memory check already
// counts (one running replication per thread).
#include <malloc.h>

#include <climits>

namespace waitroom::sim {

// glibc's largest mmap threshold on 64-bit: blocks up to this come from the heap.
inline constexpr int heap_block_limit_bytes = 32 << 20;

// Call once at the start of a program (before its threads start); harmless elsewhere.
inline void keep_freed_memory() {
#ifdef __GLIBC__
  ::mallopt(M_MMAP_THRESHOLD, heap_block_limit_bytes);  // fixes it: no dynamic raise
  ::mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

}  // namespace waitroom::sim
