#include "models/room/room.hpp"

#include <algorithm>

namespace waitroom::models {

void wait_stats::merge(const wait_stats& o) {
  arrived += o.arrived;
  released += o.released;
  waiting_at_end += o.waiting_at_end;
  wait_s.merge(o.wait_s);
  wait_ns.merge(o.wait_ns);
}

namespace {
constexpr std::size_t max_samples = 10'000'000;

sim::arrival_process make_arrivals(const arrival_spec& a) {
  switch (a.kind) {
    case arrival_kind::poisson:
      return sim::arrival_process::poisson(a.rate_per_s);
    case arrival_kind::piecewise:
      return sim::arrival_process::piecewise(a.segments);
    case arrival_kind::trace:
      return sim::arrival_process::replay(a.trace);
  }
  return sim::arrival_process::poisson(1.0);
}

std::vector<double> shares_of(const scenario& s) {
  std::vector<double> out;
  for (const auto& c : s.classes) out.push_back(c.share);
  return out;
}
}  // namespace

room::room(const scenario& s, std::uint64_t seed, std::uint64_t replication)
    : sc_(s),
      arrival_rng_(seed, replication, "arrivals"),
      class_rng_(seed, replication, "class"),
      service_rng_(seed, replication, "service"),
      token_salt_(sim::rng(seed, replication, "tokens").next()),
      noise_salt_(sim::rng(seed, replication, "score_noise").next()),
      arrivals_(make_arrivals(s.arrivals)),
      mix_(shares_of(s)),
      queue_(this),
      waiting_by_class_(s.classes.size(), 0) {
  result_.seed = seed;
  result_.replication = replication;
  result_.class_names = s.class_names();
  result_.by_class.resize(s.classes.size());
  free_servers_ = s.release.mode == release_mode::concurrency ? s.release.slots : 0;
}

std::size_t room::memory_bytes() const {
  return queue_.memory_bytes() + entry_ns_.memory_bytes() + class_of_.memory_bytes() +
         queued_.memory_bytes() + sim_.queue().memory_bytes();
}

room_result room::run() {
  using sim::sim_time;
  if (sc_.arrivals.backlog_users > 0) {
    backlog_pending_ = true;
    sim_.schedule(sim_time{}, p_arrival, k_backlog);
  }
  sim::arrival a{};
  if (arrivals_.next(arrival_rng_, a))
    sim_.schedule(a.time, p_arrival, k_arrival, static_cast<std::uint32_t>(a.user_class));
  else
    arrivals_open_ = false;
  if (sc_.release.mode == release_mode::tick)
    sim_.schedule(sc_.release.interval, p_release, k_tick);
  sim_.schedule(sim_time{}, p_sample, k_sample);

  sim::stop_conditions stop;
  if (sc_.run.horizon_s) stop.horizon = sim_time::from_seconds(*sc_.run.horizon_s);
  if (sc_.run.max_events) stop.max_events = sc_.run.max_events;
  sim::stop_reason why = sim_.run(*this, stop);

  account_queue_change();
  peak_memory_ = std::max<std::uint64_t>(peak_memory_, memory_bytes());
  result_.stop_reason = sim::to_string(why);
  result_.end_time_s = sim_.now().seconds();
  result_.events = sim_.events_executed();
  result_.peak_memory_bytes = peak_memory_;
  for (std::size_t c = 0; c < waiting_by_class_.size(); ++c) {
    result_.by_class[c].waiting_at_end = waiting_by_class_[c];
    result_.overall.merge(result_.by_class[c]);
  }
  // With the waits of users still queued, the area under the queue-length curve is exactly
  // accounted for: area = sum of completed waits + censored waits (Little's law, sample path).
  const std::int64_t end_ns = sim_.now().ns();
  queue_.tree().for_range(0, queue_.zcard(), [&](zentry e) {
    result_.censored_wait_s += static_cast<double>(end_ns - entry_ns_[e.id]) * 1e-9;
  });
  // A final sample at the end time, unless the sampler just took one.
  if (result_.samples.empty() || result_.samples.back().t_s < result_.end_time_s) on_sample();
  return std::move(result_);
}

bool room::done() const {
  return !arrivals_open_ && !backlog_pending_ && queue_.zcard() == 0;
}

void room::handle(const sim::event& e) {
  switch (e.kind) {
    case k_arrival: {
      std::uint32_t c = e.arg == 0xffffffffu ? mix_.draw(class_rng_) : e.arg;
      enter(c);
      on_arrival();
      break;
    }
    case k_backlog:
      for (std::uint64_t i = 0; i < sc_.arrivals.backlog_users; ++i) enter(mix_.draw(class_rng_));
      backlog_pending_ = false;
      break;
    case k_tick:
      on_tick();
      break;
    case k_session_end:
      on_session_end();
      break;
    case k_sample:
      on_sample();
      break;
  }
}

void room::on_arrival() {
  sim::arrival a{};
  if (arrivals_.next(arrival_rng_, a))
    sim_.schedule(a.time, p_arrival, k_arrival, static_cast<std::uint32_t>(a.user_class));
  else
    arrivals_open_ = false;
}

void room::account_queue_change() {
  std::int64_t now = sim_.now().ns();
  result_.queue_length_area +=
      static_cast<double>(queue_.zcard()) * static_cast<double>(now - last_change_ns_) * 1e-9;
  last_change_ns_ = now;
}

void room::enter(std::uint32_t user_class) {
  const sim::sim_time now = sim_.now();
  ++result_.by_class[user_class].arrived;
  if (free_servers_ > 0) {  // concurrency mode with a free slot: straight through
    --free_servers_;
    result_.by_class[user_class].wait_s.add(0.0);
    result_.by_class[user_class].wait_ns.add(0);
    ++result_.by_class[user_class].released;
    ++released_since_sample_;
    sim_.schedule(
        now + sim::sim_time::from_seconds(std::max(0.0, sc_.release.session.sample(service_rng_))),
        p_release, k_session_end);
    return;
  }
  account_queue_change();
  const std::uint32_t user = next_user_++;
  entry_ns_.push(user, now.ns());
  class_of_.push(user, static_cast<std::uint8_t>(user_class));
  queued_.push(user, false);
  std::size_t empty = 0;
  if (liveness_.born(user, empty)) free_block(empty);
  queue_.zadd(score_of(user), user);
  ++waiting_by_class_[user_class];
  result_.peak_queue_length = std::max<std::uint64_t>(result_.peak_queue_length, queue_.zcard());
}

void room::free_block(std::size_t b) {
  entry_ns_.free_block(b);
  class_of_.free_block(b);
  queued_.free_block(b);
}

void room::admit(std::uint32_t user) {
  const std::int64_t wait = sim_.now().ns() - entry_ns_[user];
  const std::uint32_t c = class_of_[user];
  auto& st = result_.by_class[c];
  st.wait_s.add(static_cast<double>(wait) * 1e-9);
  st.wait_ns.add(wait);
  ++st.released;
  --waiting_by_class_[c];
  ++released_since_sample_;
  if (liveness_.died(user)) free_block(user >> sim::serial_block_bits);
}

void room::on_tick() {
  if (queue_.zcard() > 0) {
    account_queue_change();
    peak_memory_ = std::max<std::uint64_t>(peak_memory_, memory_bytes());
    queue_.pop_min(sc_.release.batch, [this](std::uint32_t user, double) { admit(user); });
  }
  sim_.schedule(sim_.now() + sc_.release.interval, p_release, k_tick);
}

void room::on_session_end() {
  if (queue_.zcard() == 0) {
    ++free_servers_;
    return;
  }
  account_queue_change();
  queue_.pop_min(1, [this](std::uint32_t user, double) { admit(user); });
  sim_.schedule(sim_.now() + sim::sim_time::from_seconds(
                                 std::max(0.0, sc_.release.session.sample(service_rng_))),
                p_release, k_session_end);
}

void room::on_sample() {
  queue_sample s{sim_.now().seconds(), queue_.zcard(), waiting_by_class_, released_since_sample_};
  released_since_sample_ = 0;
  result_.samples.push_back(std::move(s));
  peak_memory_ = std::max<std::uint64_t>(peak_memory_, memory_bytes());
  // A run without a horizon could sample without end; the cap keeps memory bounded.
  if (!done() && result_.samples.size() < max_samples)
    sim_.schedule(sim_.now() + sim::sim_time::from_seconds(sc_.run.sample_interval_s), p_sample,
                  k_sample);
}

room_result run_scenario(const scenario& s, std::uint64_t seed, std::uint64_t replication) {
  room r(s, seed, replication);
  return r.run();
}

}  // namespace waitroom::models
