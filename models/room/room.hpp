#pragma once
// One replication of a waiting room: wiring only. The room owns the simulator and the
// components and dispatches every event kind to one of them. Each part lives in its own
// file: entrance.hpp (who comes, to which list), users/ and queues/ (the lists: the seam for
// a live Redis), release/ (releaser.hpp: who leaves by the selection policy;
// release_modes.hpp: when and how many; the rate controller), backend/, visits/ (aging,
// abandonment, returns and credits), admission/ (stock and orders), polling/ (the waiting
// page), trace/, and ledger.hpp (the statistics the run reports).
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
#include "models/release/controller.hpp"
#include "models/release/release_modes.hpp"
#include "models/release/releaser.hpp"
#include "models/results/result.hpp"
#include "models/room/entrance.hpp"
#include "models/room/ledger.hpp"
#include "models/room/stall.hpp"
#include "models/spec/scenario.hpp"
#include "models/trace/trace.hpp"
#include "models/users/users.hpp"
#include "models/visits/abandonment.hpp"
#include "models/visits/aging.hpp"
#include "models/visits/returns.hpp"
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
  // Read-only: the release's selection state (a live Redis choosing the list itself).
  const releaser& release_state() const { return releaser_; }

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
  const std::vector<double>& batch_means() const { return ledger_.batch_means(); }

 private:
  // A visit enters (or is refused, or goes straight in when a concurrency slot is free).
  void enter(const returns::visit& v);
  void on_tick();
  void on_session_end();
  void on_sample();
  // Active-user admission: lets in as many waiting users as the gate allows now.
  void admit_waiting();
  // Serving-counter mode: releases the n waiting users the counter now serves.
  void serve(std::uint64_t n);
  // A run without a horizon that can never drain: throws stall_error saying why (stall.hpp).
  void check_stalled();
  void on_abandon(std::uint32_t user);
  // Releases up to n users by the selection policy; returns how many left the queue.
  std::uint64_t release(std::uint64_t n);
  // A user left `list` on release: statistics, then where it goes next.
  void leave_on_release(std::uint32_t user, std::uint32_t list);
  // The released user orders (stock-capped admission) and the backend starts on it.
  void reach_backend(std::uint32_t user);
  void account_queue_change() { ledger_.queue_changed(sim_.now().ns(), queues_.total()); }
  void note_peaks();  // process memory and the Redis memory estimate

  const scenario& sc_;
  sim::simulator sim_;
  // Every component draws from its own streams: the same seed gives the same customers
  // whatever the policy (common random numbers).
  entrance entrance_;

  users users_;
  queues queues_;
  tracer trace_;
  releaser releaser_;
  rate_controller controller_;
  release_modes modes_;
  aging aging_;
  abandonment abandonment_;
  returns returns_;
  std::optional<orders> orders_;
  std::optional<backend> backend_;
  std::optional<waiting_page> page_;
  redis_memory_peak redis_memory_;

  ledger ledger_;
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
