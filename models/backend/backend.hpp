#pragma once
// The service behind the room (tick mode): W workers, FIFO in front of them or processor
// sharing. Released users reach it after learning of their release and a delay; no-shows'
// and late users' releases are taken back after reclaim_s and given to a later tick.
// Response times feed the rate controller; per window it reports RT percentiles and
// utilisation.
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "models/release/controller.hpp"
#include "models/results/result.hpp"
#include "models/spec/scenario.hpp"
#include "models/trace/trace.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

class backend {
 public:
  backend(const backend_spec& spec, sim::simulator& sim, rate_controller& controller, tracer& trace,
          std::uint64_t seed, std::uint64_t replication);

  // A user released now learns of it at told_ns. True when it reaches the backend at once
  // (the caller then places its order and calls arrive()); otherwise a reach or reclaim
  // event follows.
  bool send(std::uint32_t user, std::uint32_t user_class, std::int64_t told_ns);
  // A user on its way reached the backend (k_reach): then arrive().
  void reached(std::uint32_t user) {
    --reach_in_flight_;
    trace_.noted_line(user, "reach");
  }
  // The user's job arrives.
  void arrive(std::uint32_t user);
  // A release nobody used is taken back (k_reclaim): the next tick releases one more.
  void reclaim(std::uint32_t user) {
    trace_.last_line(user, "reclaim");
    ++result_.reclaimed;
    ++reclaim_credit_;
  }
  // Releases taken back since the last call.
  std::uint64_t take_reclaimed() { return std::exchange(reclaim_credit_, 0); }
  std::uint64_t completed() const { return result_.completed; }  // responses so far

  void on_service_end(std::uint32_t job);
  void on_capacity(std::uint32_t index);
  void on_ps_done(std::uint32_t generation);
  // The controller's state at a sample, kept with the results.
  void record_controller(double t_s) {
    result_.t_s.push_back(t_s);
    result_.rate_per_tick.push_back(controller_.users_per_tick());
    result_.rt_ms.push_back(controller_.last_rt_ms());
  }

  // Nobody in service, queued, or on the way.
  bool idle() const { return busy_ == 0 && queue_.empty() && reach_in_flight_ == 0; }
  // Closes the last window at the end of the run.
  void finish(std::int64_t end_ns);
  backend_result take_result() { return std::move(result_); }

 private:
  void start(std::uint32_t job);
  void advance(std::int64_t now_ns);  // utilisation and per-window percentiles
  void close_window();
  void done(std::uint32_t job);  // a response: RT, timeouts, the controller
  void ps_advance(std::int64_t now_ns);
  void ps_reschedule();

  const backend_spec& spec_;
  sim::simulator& sim_;
  rate_controller& controller_;
  tracer& trace_;
  sim::rng service_rng_, reach_rng_;
  backend_result result_;

  std::vector<std::int64_t> job_released_ns_;
  std::vector<std::uint32_t> free_jobs_;
  std::vector<std::uint32_t> job_user_;  // whose job each is, kept only when tracing (`done`)
  std::deque<std::uint32_t> queue_;
  std::uint32_t workers_ = 0, busy_ = 0;
  std::uint64_t reach_in_flight_ = 0;  // released users on their way
  std::uint64_t reclaim_credit_ = 0;   // taken-back releases the next tick adds
  std::int64_t window_ns_ = 0, window_start_ns_ = 0, window_last_ns_ = 0;
  double window_busy_ = 0, window_capacity_ = 0;
  std::uint64_t window_completed_ = 0, window_timeouts_ = 0;
  std::vector<double> window_rt_ms_;
  // Processor sharing: (virtual finish, job) in a min-heap; busy_ counts the jobs.
  std::vector<std::pair<double, std::uint32_t>> ps_jobs_;
  double ps_v_ = 0;
  std::int64_t ps_last_ns_ = 0;
  std::uint32_t ps_generation_ = 0;
};

}  // namespace waitroom::models
