#include "models/backend/backend.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "models/events.hpp"

namespace waitroom::models {

backend::backend(const backend_spec& spec, sim::simulator& sim, rate_controller& controller,
                 tracer& trace, std::uint64_t seed, std::uint64_t replication)
    : spec_(spec),
      sim_(sim),
      controller_(controller),
      trace_(trace),
      service_rng_(seed, replication, "backend"),
      reach_rng_(seed, replication, "reach"),
      workers_(spec.workers),
      window_ns_(sim::sim_time::from_seconds(spec.window_s).ns()) {}

bool backend::send(std::uint32_t user, std::uint32_t user_class, std::int64_t told_ns) {
  const std::int64_t now = sim_.now().ns();
  const double delay = std::max(0.0, spec_.arrival_delay_s.sample(reach_rng_));
  const std::int64_t reach =
      sim::sim_time::add_ns(told_ns, sim::sim_time::from_seconds(delay).ns());
  const bool no_show =
      spec_.no_show_probability > 0 && reach_rng_.uniform01() < spec_.no_show_probability;
  const std::int64_t deadline =
      sim::sim_time::add_ns(now, sim::sim_time::from_seconds(spec_.reclaim_s).ns());
  trace_.remember(user, user_class);
  if (no_show || reach > deadline) {  // the release is held until the deadline, then taken back
    ++(no_show ? result_.no_shows : result_.late);
    trace_.line(user, user_class, no_show ? "no_show" : "late", -1);  // decided at the release
    sim_.schedule(sim::sim_time::from_ns(deadline), p_control, k_reclaim, user);
    return false;
  }
  result_.arrival_delay_s.add(static_cast<double>(reach - now) * 1e-9);
  if (reach <= now) {
    trace_.line(user, user_class, "reach", -1);  // the class stays noted until `done`
    return true;
  }
  ++reach_in_flight_;
  sim_.schedule(sim::sim_time::from_ns(reach), p_control, k_reach, user);
  return false;
}

void backend::arrive(std::uint32_t user) {
  const std::int64_t now = sim_.now().ns();
  std::uint32_t job;
  if (!free_jobs_.empty()) {
    job = free_jobs_.back();
    free_jobs_.pop_back();
    job_released_ns_[job] = now;
  } else {
    job = static_cast<std::uint32_t>(job_released_ns_.size());
    job_released_ns_.push_back(now);
  }
  if (trace_.on()) [[unlikely]] {
    if (job >= job_user_.size()) job_user_.resize(job + 1);
    job_user_[job] = user;
  }
  if (spec_.processor_sharing) {
    advance(now);
    ps_advance(now);
    const double demand = std::max(0.0, spec_.service_s.sample(service_rng_));
    ps_jobs_.emplace_back(ps_v_ + demand, job);
    std::push_heap(ps_jobs_.begin(), ps_jobs_.end(), std::greater<>{});
    ++busy_;
    // No queue in processor sharing: the peak counts jobs beyond one per worker.
    if (busy_ > workers_)
      result_.peak_queue = std::max<std::uint64_t>(result_.peak_queue, busy_ - workers_);
    ps_reschedule();
    return;
  }
  if (busy_ < workers_) {
    start(job);
  } else {
    queue_.push_back(job);
    result_.peak_queue = std::max<std::uint64_t>(result_.peak_queue, queue_.size());
  }
}

void backend::start(std::uint32_t job) {
  advance(sim_.now().ns());
  ++busy_;
  const double d = std::max(0.0, spec_.service_s.sample(service_rng_));
  sim_.schedule(sim_.now() + sim::sim_time::from_seconds(d), p_control, k_service_end, job);
}

void backend::on_service_end(std::uint32_t job) {
  advance(sim_.now().ns());
  --busy_;
  done(job);
  while (busy_ < workers_ && !queue_.empty()) {
    start(queue_.front());
    queue_.pop_front();
  }
}

void backend::on_capacity(std::uint32_t index) {
  advance(sim_.now().ns());
  if (spec_.processor_sharing) {
    ps_advance(sim_.now().ns());
    workers_ = spec_.capacity[index].workers;
    ps_reschedule();
    return;
  }
  workers_ = spec_.capacity[index].workers;
  while (busy_ < workers_ && !queue_.empty()) {
    start(queue_.front());
    queue_.pop_front();
  }
}

void backend::done(std::uint32_t job) {
  const std::int64_t now = sim_.now().ns();
  const std::int64_t rt = now - job_released_ns_[job];
  const double rt_ms = static_cast<double>(rt) * 1e-6;
  ++window_completed_;
  window_rt_ms_.push_back(rt_ms);
  if (trace_.on()) [[unlikely]]
    trace_.last_line(job_user_[job], "done");
  free_jobs_.push_back(job);
  ++result_.completed;
  result_.rt_s.add(static_cast<double>(rt) * 1e-9);
  result_.rt_ns.add(rt);
  const bool timed_out = spec_.timeout_s && rt > sim::sim_time::from_seconds(*spec_.timeout_s).ns();
  if (timed_out) {
    ++result_.timeouts;
    ++window_timeouts_;
  }
  controller_.observe(now, rt_ms, timed_out);
}

void backend::advance(std::int64_t now) {
  for (;;) {
    const std::int64_t end = sim::sim_time::add_ns(window_start_ns_, window_ns_);
    const std::int64_t upto = std::min(now, end);
    const double dt = static_cast<double>(upto - window_last_ns_) * 1e-9;
    // In processor sharing every worker is busy while there are at least as many jobs.
    window_busy_ += static_cast<double>(std::min(busy_, workers_)) * dt;
    window_capacity_ += static_cast<double>(workers_) * dt;
    window_last_ns_ = upto;
    if (now < end) return;
    close_window();
    window_start_ns_ = end;
  }
}

void backend::close_window() {
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
  // Nearest-rank percentiles of this window's response times.
  auto pct = [this](double q) {
    if (window_rt_ms_.empty()) return none;
    auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(window_rt_ms_.size())));
    auto it = window_rt_ms_.begin() + static_cast<std::ptrdiff_t>(std::max<std::size_t>(k, 1) - 1);
    std::nth_element(window_rt_ms_.begin(), it, window_rt_ms_.end());
    return *it;
  };
  const double p50 = pct(0.5), p95 = pct(0.95);
  result_.windows.push_back({static_cast<double>(window_start_ns_) * 1e-9, window_completed_,
                             window_timeouts_, p50, p95,
                             window_capacity_ > 0 ? window_busy_ / window_capacity_ : none});
  result_.busy_worker_s += window_busy_;
  result_.capacity_worker_s += window_capacity_;
  window_rt_ms_.clear();
  window_completed_ = window_timeouts_ = 0;
  window_busy_ = window_capacity_ = 0;
}

// Processor sharing: every job in the backend progresses at min(1, workers / jobs) of a
// worker. ps_v_ is the service each job has received since time 0 (a common virtual clock),
// so a job finishes when ps_v_ reaches its arrival's ps_v_ plus its service demand.
void backend::ps_advance(std::int64_t now) {
  if (busy_ > 0 && workers_ > 0)
    ps_v_ += std::min(1.0, static_cast<double>(workers_) / static_cast<double>(busy_)) *
             static_cast<double>(now - ps_last_ns_) * 1e-9;
  ps_last_ns_ = now;
}

void backend::ps_reschedule() {
  ++ps_generation_;  // the completion event scheduled before is stale from now on
  if (ps_jobs_.empty() || workers_ == 0) return;
  const double rate = std::min(1.0, static_cast<double>(workers_) / static_cast<double>(busy_));
  const double left_s = std::max(0.0, (ps_jobs_.front().first - ps_v_) / rate);
  // Rounded up to the next nanosecond, so that the job is done when the event comes.
  const auto dt = static_cast<std::int64_t>(std::ceil(left_s * 1e9));
  sim_.schedule(sim::sim_time::from_ns(sim_.now().ns() + dt), p_control, k_ps_done, ps_generation_);
}

void backend::on_ps_done(std::uint32_t generation) {
  if (generation != ps_generation_) return;
  const std::int64_t now = sim_.now().ns();
  advance(now);
  ps_advance(now);
  constexpr double one_ns = 1e-9;  // rounding in the virtual clock
  while (!ps_jobs_.empty() && ps_jobs_.front().first <= ps_v_ + one_ns) {
    const std::uint32_t job = ps_jobs_.front().second;
    std::pop_heap(ps_jobs_.begin(), ps_jobs_.end(), std::greater<>{});
    ps_jobs_.pop_back();
    --busy_;
    done(job);
  }
  ps_reschedule();
}

void backend::finish(std::int64_t end_ns) {
  advance(end_ns);
  if (window_completed_ > 0 || window_last_ns_ > window_start_ns_) close_window();
}

}  // namespace waitroom::models
