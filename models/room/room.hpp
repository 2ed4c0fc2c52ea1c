#pragma once
// One replication of a waiting room: wiring only. The room owns the simulator and the
// components, routes each arrival to its list, dispatches every event kind to one
// component, and keeps the per-class and per-list statistics. What each part does lives in
// its own folder: users/ (per-user tables), queues/ (the lists: the seam for a live Redis),
// release/ (selection and rate controllers), backend/, visits/ (aging, returns and credits),
// admission/ (stock and orders), polling/ (the waiting page), trace/.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/admission/orders.hpp"
#include "models/backend/backend.hpp"
#include "models/events.hpp"
#include "models/polling/waiting_page.hpp"
#include "models/queues/queue_mirror.hpp"
#include "models/queues/queues.hpp"
#include "models/queues/redis_memory_peak.hpp"
#include "models/release/active_users.hpp"
#include "models/release/controller.hpp"
#include "models/release/selection.hpp"
#include "models/release/selector.hpp"
#include "models/release/serving_counter.hpp"
#include "models/room/result.hpp"
#include "models/room/stall.hpp"
#include "models/room/warmup.hpp"
#include "models/scenario/scenario.hpp"
#include "models/trace/trace.hpp"
#include "models/users/users.hpp"
#include "models/visits/aging.hpp"
#include "models/visits/returns.hpp"
#include "sim/arrivals.hpp"
#include "sim/input_error.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

class room {
 public:
  room(const scenario& s, std::uint64_t seed, std::uint64_t replication = 0);
  room_result run();
  // Follow state changes (see trace.hpp); the sink must outlive run().
  void set_trace(trace_sink* sink, trace_filter filter) { trace_.attach(sink, std::move(filter)); }
  // Mirror every change of the waiting lists to a second store; it must outlive run().
  void set_mirror(queue_mirror* mirror) { queues_.set_mirror(mirror); }

  // The engine's interface.
  void handle(const sim::event& e);
  bool done() const;
  const char* event_name(std::uint32_t k) const {  // for the engine's livelock message
    return to_string(static_cast<event_kind>(k));
  }

  // Called at every sample (simulated time, users waiting, events so far): a progress line.
  void set_progress(std::function<void(double, std::uint64_t, std::uint64_t)> f) {
    progress_ = std::move(f);
  }

  std::size_t memory_bytes() const;
  const std::vector<double>& batch_means() const { return warmup_.batch_means(); }

 private:
  // A visit enters (or is refused, or goes straight in when a concurrency slot is free).
  void enter(const returns::visit& v);
  void next_arrival();
  void on_tick();
  void on_session_end();
  void on_sample();
  // Active-user admission: lets in as many waiting users as the gate allows now.
  void admit_waiting();
  // Serving-counter mode: releases the n waiting users the counter now serves.
  void serve(std::uint64_t n);
  // max-size inlet: the counter moves up by the backend's responses since `before`.
  void exits_since(std::uint64_t before);
  // A run without a horizon that can never drain: throws stall_error saying why (stall.hpp).
  void check_stalled();
  void on_abandon(std::uint32_t user);
  // Releases up to n users by the selection policy; returns how many left the queue.
  std::uint64_t release(std::uint64_t n);
  // A user left `list` on release: statistics, then where it goes next.
  void leave_on_release(std::uint32_t user, std::uint32_t list);
  // The released user orders (stock-capped admission) and the backend starts on it.
  void reach_backend();
  void account_queue_change();
  void note_peaks();  // process memory and the Redis memory estimate
  void schedule_session_end();
  std::uint32_t draw_sku() { return sc_.skus.size() > 1 ? sku_mix_.draw(sku_rng_) : 0; }

  const scenario& sc_;
  sim::simulator sim_;
  // Streams: the same seed gives the same customers whatever the policy (common random numbers).
  sim::rng arrival_rng_, class_rng_, service_rng_, select_rng_, patience_rng_;
  std::uint64_t pay_later_salt_;
  sim::arrival_process arrivals_;
  sim::class_mix mix_;
  sim::class_mix sku_mix_;
  sim::rng sku_rng_;
  bool arrivals_open_ = true;
  bool backlog_pending_ = false;
  std::uint32_t free_slots_ = 0;  // concurrency mode

  users users_;
  queues queues_;
  tracer trace_;
  const selection_policy& selection_;
  list_selector selector_;
  rate_controller controller_;
  aging aging_;
  returns returns_;
  std::optional<orders> orders_;
  std::optional<backend> backend_;
  std::optional<waiting_page> page_;
  std::optional<active_gate> gate_;         // active_users mode
  std::optional<serving_counter> counter_;  // serving_counter mode
  bool max_size_inlet_ = false;
  warmup warmup_;
  redis_memory_peak redis_memory_;

  room_result result_;
  std::vector<std::uint64_t> waiting_by_class_;
  std::uint64_t released_since_sample_ = 0;
  std::int64_t last_change_ns_ = 0;
  std::uint64_t peak_memory_ = 0;
  std::function<void(double, std::uint64_t, std::uint64_t)> progress_;
};

// Runs one replication of a scenario (twice with MSER-5: once to find the truncation point).
// progress (optional): called at every sample with the simulated time, users waiting and
// events so far.
room_result run_scenario(
    const scenario& s, std::uint64_t seed, std::uint64_t replication = 0,
    const std::function<void(double, std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace waitroom::models
