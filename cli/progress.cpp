#include "progress.hpp"

#include <cstdlib>

#include <fmt/format.h>
#include <unistd.h>

namespace waitroom::cli {

progress::progress(std::size_t total, bool quiet, std::string label)
    : total_(total),
      on_(!quiet && total > 0),
      terminal_(::isatty(2) == 1),
      label_(std::move(label)),
      start_(std::chrono::steady_clock::now()) {}

std::chrono::duration<double> progress::heartbeat_every() {
  // WAITROOM_PROGRESS_S: seconds between log lines (the tests shorten it).
  static const double every = [] {
    const char* env = std::getenv("WAITROOM_PROGRESS_S");
    char* end = nullptr;
    const double v = env ? std::strtod(env, &end) : 0.0;
    return env && end != env && *end == '\0' && v > 0 && v < 1e6 ? v : 10.0;
  }();
  return std::chrono::duration<double>(every);
}

bool progress::heartbeat_due(std::chrono::steady_clock::time_point now) {
  if (now - start_ < heartbeat_every()) return false;
  if (shown_ && now - last_ < heartbeat_every()) return false;
  shown_ = true;
  last_ = now;
  return true;
}

progress::~progress() {
  // A line left unfinished (an error cut the work short) still ends before other output.
  if (terminal_ && shown_ && done_ < total_) fmt::print(stderr, "\n");
}

void progress::advance() {
  std::lock_guard lock(mutex_);
  ++done_;
  if (!on_) return;
  if (!terminal_) {  // a log: a whole line every few seconds, so CI sees the work go on
    const auto now = std::chrono::steady_clock::now();
    if (done_ == total_ || !heartbeat_due(now)) return;
    const double el = std::chrono::duration<double>(now - start_).count();
    fmt::print(stderr, "waitroom: {}[{}/{}] {:.0f}% after {:.0f}s, ETA {:.0f}s\n", label_, done_,
               total_, 100.0 * static_cast<double>(done_) / static_cast<double>(total_), el,
               el / static_cast<double>(done_) * static_cast<double>(total_ - done_));
    return;
  }
  const double el =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!shown_ && el < 1.0) return;
  shown_ = true;
  const double eta = el / static_cast<double>(done_) * static_cast<double>(total_ - done_);
  fmt::print(stderr, "\r{}[{}/{}] {:.0f}% ETA {:.0f}s   ", label_, done_, total_,
             100.0 * static_cast<double>(done_) / static_cast<double>(total_), eta);
  if (done_ == total_) fmt::print(stderr, "\n");
}

void progress::status(const std::string& text) {
  std::lock_guard lock(mutex_);
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!terminal_) {
    if (heartbeat_due(now))
      fmt::print(stderr, "waitroom: {}{} after {:.0f}s\n", label_, text,
                 std::chrono::duration<double>(now - start_).count());
    return;
  }
  if (now - start_ < std::chrono::seconds(2)) return;
  if (shown_ && now - last_ < std::chrono::milliseconds(250)) return;
  shown_ = true;
  last_ = now;
  fmt::print(stderr, "\r{}{}   ", label_, text);
}

void progress::step(std::size_t done) {
  {
    std::lock_guard lock(mutex_);
    if (done <= done_) return;
    done_ = done - 1;
  }
  advance();
}

}  // namespace waitroom::cli
