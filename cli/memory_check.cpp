#include "memory_check.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "models/results/result.hpp"
#include "models/run/memory_estimate.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

namespace {
std::string gb(double bytes) {
  return fmt::format("{:.3g} GB", bytes / 1e9);
}
}  // namespace

double memory_limit_bytes() {
  if (const char* env = std::getenv("WAITROOM_MEMORY_LIMIT")) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end != env && *end == '\0' && v > 0) return v;
    throw sim::input_error("WAITROOM_MEMORY_LIMIT", "a number of bytes above 0",
                           std::string("'") + env + "'");
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 1e18;
}

void check_run_memory(const models::scenario& s, const std::string& file) {
  const auto m = models::estimate_memory(s);
  const double limit = memory_limit_bytes();
  if (m.run_bytes <= limit) return;
  const bool backlog = m.peak_waiting <= static_cast<double>(s.arrivals.backlog_users);
  throw sim::input_error(
      file + (backlog           ? ": /arrivals/backlog_users"
              : s.run.horizon_s ? ": /run/horizon_s"
                                : ": /arrivals"),
      "a run that fits in memory (" + gb(limit) + " here)",
      fmt::format(
          "an estimated {} ({}, {:.0f} B each{})", gb(m.run_bytes), m.peak_reason, m.bytes_per_user,
          m.far_bytes > 0 ? fmt::format("; {} more for pending patiences and return visits, "
                                        "followed pollers' records, a lottery's tables",
                                        gb(m.far_bytes))
                          : ""),
      backlog ? "lower /arrivals/backlog_users"
              : "shorten /run/horizon_s or the arrivals, or raise the release rate "
                "(/release/batch, /release/interval_ms)");
}

void check_run_work(const models::scenario& s, const std::string& file, double max_events) {
  if (s.run.max_events) return;  // the scenario bounds its own work
  const auto m = models::estimate_memory(s);
  if (m.certain_samples > static_cast<double>(models::max_queue_samples))
    throw sim::input_error(
        file + ": /run/sample_interval_s",
        fmt::format("at most {} queue-length samples over the run (the series would stop there)",
                    models::max_queue_samples),
        fmt::format("{:.3g} samples: {} s apart until the last arrival at least", m.certain_samples,
                    s.run.sample_interval_s),
        "raise /run/sample_interval_s");
  if (m.events <= max_events) return;
  throw sim::input_error(
      file, fmt::format("a run of at most {:.3g} events (--max-events)", max_events),
      fmt::format("an estimated {:.3g} events (users x 3, release ticks every {} s, samples every "
                  "{} s{})",
                  m.events, s.release.interval.seconds(), s.run.sample_interval_s,
                  s.polling ? ", status polls" : ""),
      "raise /release/interval_ms or /run/sample_interval_s, shorten the run, or allow it with "
      "--max-events N");
}

void check_replications_memory(const models::scenario& s, std::uint64_t replications,
                               unsigned threads, const std::string& flag, bool streamed) {
  auto m = models::estimate_memory(s);
  // Taken in as they finish, a replication keeps its row (and the JSON's line of it).
  if (streamed) m.summary_bytes = streamed_replication_bytes;
  const double limit = memory_limit_bytes();
  const double need = models::replications_bytes(m, replications, threads);
  if (need <= limit) return;
  throw sim::input_error(
      flag + " " + std::to_string(replications),
      "replications that fit in memory (" + gb(limit) + " here)",
      fmt::format("an estimated {} ({} replications keeping up to {:.1f} KB each, {} running "
                  "at up to {:.1f} MB each)",
                  gb(need), replications, m.summary_bytes / 1e3,
                  std::min<std::uint64_t>(threads, replications), m.run_bytes / 1e6),
      "lower " + flag + ", or split the run with --shard K/N and `waitroom merge`");
}

}  // namespace waitroom::cli
