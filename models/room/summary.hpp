#pragma once
// What a replication keeps once it has run: the summary that replications' reports, `check`
// and shard files read (per-class and whole-room statistics, histograms reduced to their
// non-empty buckets), without the time series of a single run. A 25-user replication kept
// ~200 KB (three dense 64 KiB histograms); its summary keeps a few KB.
#include <cstddef>

#include "models/room/result.hpp"

namespace waitroom::models {

void keep_summary_only(room_result& r);

// Bytes a summary holds beyond sizeof(room_result): for the up-front memory estimate of
// replications (an upper bound given the number of non-empty histogram buckets).
std::size_t summary_heap_bytes(const room_result& r);

}  // namespace waitroom::models
