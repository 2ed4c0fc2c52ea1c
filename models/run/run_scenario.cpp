#include "models/room/room.hpp"

namespace waitroom::models {

room_result run_scenario(
    const scenario& s, std::uint64_t seed, std::uint64_t replication,
    const std::function<void(double, std::uint64_t, std::uint64_t)>& progress) {
  if (s.run.warmup != warmup_kind::mser5) {
    room r(s, seed, replication);
    if (progress) r.set_progress(progress);
    return r.run();
  }
  // MSER-5: run once to find the truncation point, then run the same replication again
  // (same seed, same customers) dropping that many.
  room first(s, seed, replication);
  if (progress) first.set_progress(progress);
  first.run();
  const std::size_t batches = mser_truncation(first.batch_means());
  scenario truncated = s;
  truncated.run.warmup = batches ? warmup_kind::customers : warmup_kind::none;
  truncated.run.warmup_customers = 5 * batches;
  room second(truncated, seed, replication);
  if (progress) second.set_progress(progress);
  room_result out = second.run();
  out.mser_truncation = 5 * batches;
  return out;
}

}  // namespace waitroom::models
