#pragma once
// Warm-up deletion: whether a released user's wait is recorded (entered after warmup_s, or
// after the first warmup_customers releases), and for MSER-5 the batch means of 5 waits in
// release order that choose the truncation point.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "models/spec/scenario.hpp"
#include "sim/time.hpp"

namespace waitroom::models {

class warmup {
 public:
  explicit warmup(const run_spec& r)
      : kind_(r.warmup),
        from_ns_(sim::sim_time::from_seconds(r.warmup_s).ns()),
        customers_(r.warmup_customers),
        counting_from_ns_(kind_ == warmup_kind::time                          ? from_ns_
                          : kind_ == warmup_kind::customers && customers_ > 0 ? not_yet
                                                                              : 0),
        partial_from_ns_(counting_from_ns_ == 0 ? not_yet : counting_from_ns_) {}

  // A user released after wait_ns: true when its wait counts.
  bool record(std::int64_t entry_ns, std::int64_t wait_ns) {
    ++released_;
    switch (kind_) {
      case warmup_kind::none:
        return true;
      case warmup_kind::mser5:  // first pass: keep everything, collect batch means
        batch_sum_ += static_cast<double>(wait_ns) * 1e-9;
        if (released_ % 5 == 0) {
          batch_means_.push_back(batch_sum_ / 5.0);
          batch_sum_ = 0;
        }
        return true;
      case warmup_kind::time:
        if (entry_ns >= from_ns_) return true;
        break;
      case warmup_kind::customers:
        if (released_ > customers_) return true;
        break;
    }
    ++dropped_;
    return false;
  }
  // The same rule for everything else (an abandonment, a refusal, a user still waiting at
  // the end): by entry time, or once the first warmup_customers releases have happened.
  bool counts(std::int64_t entry_ns) const {
    switch (kind_) {
      case warmup_kind::time:
        return entry_ns >= from_ns_;
      case warmup_kind::customers:
        return released_ >= customers_;
      default:
        return true;
    }
  }
  // When counting starts, once known: at once without a warm-up, at warmup_s, or at the
  // warmup_customers-th release (the room reports it with `ended_at` after each release).
  std::optional<std::int64_t> counted_from_ns() const {
    if (counting_from_ns_ == not_yet) return std::nullopt;
    return counting_from_ns_;
  }
  // For the area under the queue-length curve after the warm-up, on every queue change:
  // the time from which a separate partial area is needed, or the latest time when none is
  // (not known yet, or counting from 0, where the partial area equals the whole one).
  std::int64_t partial_area_from() const { return partial_from_ns_; }
  void released_at(std::int64_t now_ns) {
    if (kind_ == warmup_kind::customers && released_ == customers_) {
      counting_from_ns_ = now_ns;
      partial_from_ns_ = now_ns == 0 ? not_yet : now_ns;
    }
  }
  std::uint64_t dropped() const { return dropped_; }
  const std::vector<double>& batch_means() const { return batch_means_; }

 private:
  warmup_kind kind_;
  std::int64_t from_ns_;
  std::uint64_t customers_;
  std::uint64_t released_ = 0, dropped_ = 0;
  static constexpr std::int64_t not_yet = std::numeric_limits<std::int64_t>::max();
  std::int64_t counting_from_ns_;
  std::int64_t partial_from_ns_;
  std::vector<double> batch_means_;
  double batch_sum_ = 0;
};

// MSER-5: the number of batches of 5 to drop, minimising the squared standard error of the
// remaining batch means, searched over the first half.
std::size_t mser_truncation(const std::vector<double>& batch_means);

}  // namespace waitroom::models
