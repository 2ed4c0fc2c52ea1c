#pragma once
// The progress line of long work on stderr.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace waitroom::cli {

// "[k/N] 42% ETA 12s" on stderr for long work (run --replications, sweep, plan, check), never
// with --quiet: on a terminal one line redrawn once the work has taken a second; otherwise (a
// CI log) a whole line every 10 s (WAITROOM_PROGRESS_S), so a long job shows it is alive.
// step() and advance() may be called from several threads.
class progress {
 public:
  progress(std::size_t total, bool quiet, std::string label = {});
  ~progress();
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;
  void step(std::size_t done);
  void advance();
  // A single run's line (its simulated time, users waiting), redrawn at most 4 times a
  // second once the run has taken 2 s; the destructor ends the line.
  void status(const std::string& text);

 private:
  // Whether a log line is due now (and the time it was last written, updated).
  bool heartbeat_due(std::chrono::steady_clock::time_point now);
  static std::chrono::duration<double> heartbeat_every();  // 10 s, or WAITROOM_PROGRESS_S
  std::size_t total_;
  bool on_;
  bool terminal_;
  bool shown_ = false;
  std::string label_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
  std::mutex mutex_;
};

}  // namespace waitroom::cli
