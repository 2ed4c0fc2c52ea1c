#pragma once
// The bench's figures and verdicts, apart from the runs that feed them: a round too short to
// time (0 s) or a run where nobody waited gives no figure, and no figure gives no verdict
// (never a ratio of 0 counted into a median, never "0 bytes per waiting user ... met").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace waitroom::bench {

// The median (the mean of the middle two for an even count); none of an empty list.
std::optional<double> median(std::vector<double> v);
// The median of the per-round ratios a[i] / b[i] over the rounds both ran, leaving out a
// round where either is 0; none when no round is left.
std::optional<double> median_ratio(const std::vector<double>& a, const std::vector<double>& b);
// The least time `jobs` equal jobs can take on the `threads` fastest CPUs, each at its own
// speed, from the seconds one job took pinned to each CPU: jobs / sum of 1 / t_cpu. On a VM
// one vCPU can be much slower than another (the host's load), which no thread count beats.
// None with fewer timed CPUs (0 s: too short to time) than threads.
std::optional<double> parallel_ideal_seconds(std::vector<double> seconds_per_cpu, unsigned threads,
                                             double jobs);
// At most `most` of `cpus`, spread evenly from the first to the last (all of them when there
// are no more than `most`): the CPUs the bench times one at a time.
std::vector<int> spread_cpus(const std::vector<int>& cpus, std::size_t most);
// bytes / users; none when either is 0.
std::optional<double> per_user(double bytes, std::uint64_t users);
// One line of the targets: the value against the target (at least, or at most), met or NOT
// MET; without a value NOT MEASURED, followed by `why` in brackets.
std::string target_line(const std::string& what, std::optional<double> value, double target,
                        bool at_least,
                        const std::string& why = "runs too short to time: raise --scale");
// A ratio with two decimals, "-" without one.
std::string ratio_text(std::optional<double> r);

}  // namespace waitroom::bench
