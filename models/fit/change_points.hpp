#pragma once
// Arrivals per bin cut into segments of constant rate: PELT (Killick, Fearnhead & Eckley,
// 2012), exact for a penalised Poisson likelihood. A segment of C arrivals over W seconds
// costs -2 (C ln(C / W) - C) (its maximised log-likelihood, constants dropped); each segment
// adds a penalty, by default BIC's 2 ln n for n bins (a rate and a start per segment).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace waitroom::models::fit {

struct rate_segment_fit {
  double start_s = 0, duration_s = 0;
  std::uint64_t arrivals = 0;
  double rate_per_s = 0;
  // Garwood's exact 95% interval of the rate, joined with the same over the segment's interior
  // (2 bins in from each change point): a change point a bin off biases the first.
  double lo = 0, hi = 0;
};

struct change_point_options {
  double penalty = -1;       // per segment; below 0: 2 ln(bins)
  std::size_t min_bins = 2;  // the shortest segment
};

// counts[i]: arrivals in [i bin_s, (i + 1) bin_s). Throws std::invalid_argument on no bins or
// bin_s not above 0.
std::vector<rate_segment_fit> fit_change_points(std::span<const std::uint64_t> counts, double bin_s,
                                                change_point_options o = {});

}  // namespace waitroom::models::fit
