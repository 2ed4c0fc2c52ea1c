#include "redis/load_stream.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <unordered_map>

#include <fmt/format.h>

#include "models/polling/polling.hpp"
#include "models/queues/queue_mirror.hpp"
#include "models/room/room.hpp"
#include "redis/scripts.hpp"
#include "sim/arrivals.hpp"
#include "sim/random.hpp"

namespace waitroom::redis {

namespace {

// The SHA1 EVALSHA names a script by (what SCRIPT LOAD returns), so the stream can carry it
// before any connection exists.
std::string sha1_hex(std::string_view s) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(s.data(), s.size(), md, &n, EVP_sha1(), nullptr) != 1)
    throw std::runtime_error("load: SHA1 of a script failed (OpenSSL)");
  std::string out;
  for (unsigned int i = 0; i < n; ++i) out += fmt::format("{:02x}", md[i]);
  return out;
}

template <class... S>
std::vector<std::string> argv(S&&... s) {
  std::vector<std::string> v;
  v.reserve(sizeof...(s));
  (v.emplace_back(std::forward<S>(s)), ...);
  return v;
}

// Thrown from the producer's hand-over once the consumer stopped: unwinds the room.
struct stopped {};

}  // namespace

const std::vector<stream_script>& stream_scripts() {
  static const std::vector<stream_script> all{
      {"release", scripts::release}, {"move", scripts::move}, {"draw", scripts::draw}};
  return all;
}

// The queue mirror the room reports to, in the producer thread: each change of the lists
// becomes its commands, with the polls due before it merged in first.
class load_stream::recorder final : public models::queue_mirror {
 public:
  explicit recorder(load_stream& s)
      : s_(s),
        lottery_(s.sc_.release.selection.kind == models::selection_kind::lottery),
        token_salt_(sim::rng(s.sc_.seed, 0, "tokens").next()),
        release_sha_(sha1_hex(scripts::release)),
        move_sha_(sha1_hex(scripts::move)),
        draw_sha_(sha1_hex(scripts::draw)) {
    const std::size_t sets = lottery_ ? s.sc_.classes.size() : s.sc_.lists.size();
    for (std::uint32_t l = 0; l < sets; ++l) {
      set_keys_.push_back(lottery_ ? s.keys_.lottery(l) : s.keys_.list(l));
      list_keys_.push_back(s.keys_.list(l));
      fields_.push_back(fmt::format("released:{}", l));
    }
    gathered_.assign(sets, 0);
    if (s.sc_.polling)
      // The room's own polling rules, salted as the room salts them (replication 0).
      counter_.emplace(*s.sc_.polling, lottery_, s.sc_.classes.size(),
                       sim::rng(s.sc_.seed, 0, "poll_phase").next());
    chunk_.reserve(chunk_ops);
  }

  void enter(std::uint32_t list, std::uint64_t token, double score, std::int64_t now) override {
    before(now, false);
    // The room numbers its users in the order they enter a list; the polls' start phase is a
    // hash of that serial. Checked against the token (a hash of the same serial).
    const std::uint32_t serial = entered_++;
    if (sim::mix64(serial ^ token_salt_) != token)
      throw std::logic_error("load: the room's entries are not in serial order");
    const std::uint32_t slot = take_slot();
    waiter& w = slots_[slot];
    w.token = token;
    w.serial = serial;
    w.list = list;
    w.released = false;
    w.polls_left = 0;
    w.signed_member = s_.signer_ ? s_.signer_->sign(token) : std::string();
    by_token_.emplace(token, slot);
    if (lottery_)
      emit(now, t_sadd, token, argv("SADD", set_keys_[list], member(w)));
    else
      emit(now, t_zadd, token, argv("ZADD", set_keys_[list], fmt::format("{}", score), member(w)));
    ++total_;
    if (counter_)
      push_poll(now + counter_->start_offset(serial) + counter_->interval_at(now), slot);
  }

  void remove(std::uint32_t list, std::uint64_t token, std::int64_t now) override {
    before(now, false);
    const std::uint32_t slot = take_token(token);
    emit(now, lottery_ ? t_srem : t_zrem, token,
         argv(lottery_ ? "SREM" : "ZREM", set_keys_[list], member(slots_[slot])));
    free_slot(slot);
    --total_;
  }

  void move(std::uint32_t from, std::uint32_t to, std::uint64_t token, double score,
            std::int64_t now) override {
    before(now, false);
    waiter& w = slots_[by_token_.at(token)];
    emit(now, t_move, token,
         argv("EVALSHA", move_sha_, "2", set_keys_[from], set_keys_[to], fmt::format("{}", score),
              member(w)));
    w.list = to;
  }

  // A ratio or probabilistic selection releases one unit at a time: the round's releases are
  // gathered per list and sent as one script call per list, as a gateway would.
  void released(std::uint32_t list, std::span<const std::uint64_t> tokens,
                std::int64_t now) override {
    before(now, true);
    if (!gathering_) {
      gathering_ = true;
      gathered_at_ = now;
    }
    if (gathered_[list] == 0) gathered_order_.push_back(list);
    gathered_[list] += tokens.size();
    for (std::uint64_t t : tokens) leave_released(take_token(t));
    total_ -= tokens.size();
  }

  void drawn(std::uint32_t set, std::uint64_t token, std::int64_t now) override {
    before(now, false);
    const std::uint32_t slot = take_token(token);
    emit(now, t_draw, token,
         argv("EVALSHA", draw_sha_, "3", set_keys_[set], s_.keys_.released(), s_.keys_.stats(),
              member(slots_[slot]), fields_[set]));
    leave_released(slot);
    --total_;
  }

  // Followed users' ranks: load mode schedules every user's lookups itself.
  void ranked(std::uint32_t, std::uint64_t, std::uint64_t, std::int64_t) override {}
  // Queue lengths: load mode sends ZCARD/SCARD with each poll (run_poll), as pages do.
  void counted(std::uint32_t, std::uint64_t, std::int64_t) override {}

  void round_end(std::int64_t) override { flush_releases(); }

  // The room stopped at end_ns: the polls of users still waiting before it, and the lookups
  // that tell released users (the model counts those even after the end); then the rest of
  // the commands are handed over.
  void finish(std::int64_t end_ns) {
    flush_releases();
    while (!heap_.empty()) {
      const poll p = pop_poll();
      const waiter& w = slots_[p.slot];
      if (w.serial != p.serial) continue;
      if (!w.released && p.t >= end_ns) continue;  // still waiting at the end
      advance_suggestions(p.t);
      run_poll(p);
    }
    if (!chunk_.empty()) s_.publish(chunk_);
  }

 private:
  struct waiter {
    std::uint64_t token = 0;
    std::string signed_member;  // empty with hex members (formatted when needed)
    std::int64_t interval = 0;  // the interval of the current lookup's polls
    std::uint32_t serial = no_serial;
    std::uint32_t list = 0;
    std::uint32_t polls_left = 0;  // without the cache: polls before the next lookup
    bool released = false;         // its next poll is the lookup that tells it
  };
  struct poll {
    std::int64_t t;
    std::uint32_t serial, slot;
    bool operator>(const poll& o) const { return t != o.t ? t > o.t : serial > o.serial; }
  };
  static constexpr std::uint32_t no_serial = 0xffffffffu;

  std::string member(const waiter& w) const {
    return s_.signer_ ? w.signed_member : hex_token(w.token);
  }
  std::uint32_t take_slot() {
    if (!free_.empty()) {
      const std::uint32_t s = free_.back();
      free_.pop_back();
      return s;
    }
    slots_.emplace_back();
    return static_cast<std::uint32_t>(slots_.size() - 1);
  }
  void free_slot(std::uint32_t slot) {
    slots_[slot].serial = no_serial;  // its poll still in the heap is stale
    slots_[slot].signed_member = {};
    free_.push_back(slot);
  }
  std::uint32_t take_token(std::uint64_t token) {
    auto it = by_token_.find(token);
    if (it == by_token_.end())
      throw std::logic_error("load: the room released or removed a user it never entered");
    const std::uint32_t slot = it->second;
    by_token_.erase(it);
    return slot;
  }
  // Released (or drawn): its next poll tells it, else it is done.
  void leave_released(std::uint32_t slot) {
    if (counter_)
      slots_[slot].released = true;
    else
      free_slot(slot);
  }

  void emit(std::int64_t t, cmd_type type, std::uint64_t route, std::vector<std::string> args) {
    chunk_.push_back(stream_op{t, type, route, std::move(args)});
    if (chunk_.size() >= chunk_ops) s_.publish(chunk_);
  }

  // Before a change at `now`: the releases gathered earlier, the server's suggestions
  // refreshed before now, and every poll due before now (polls at now see the change, as the
  // room's polls come after its releases at equal times).
  void before(std::int64_t now, bool releasing) {
    if (gathering_ && (!releasing || gathered_at_ != now)) flush_releases();
    if (!counter_) return;
    advance_suggestions(now);
    while (!heap_.empty() && heap_.front().t < now) {
      const poll p = pop_poll();
      if (slots_[p.slot].serial == p.serial) run_poll(p);
    }
  }

  // The room refreshes the suggestion at k * suggest_every_s after its list changes at that
  // time (the refresh is a sampler-phase event): here, once a later time is reached, from the
  // queue length then.
  void advance_suggestions(std::int64_t t) {
    if (!counter_->suggests()) return;
    while (next_refresh_ns_ < t) {
      counter_->refresh_suggestion(total_);
      next_refresh_ns_ = static_cast<std::int64_t>(++refreshes_) * counter_->suggest_every_ns();
    }
  }

  void push_poll(std::int64_t t, std::uint32_t slot) {
    heap_.push_back({t, slots_[slot].serial, slot});
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
  }
  poll pop_poll() {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
    const poll p = heap_.back();
    heap_.pop_back();
    return p;
  }

  // One poll, as models::poll_counter::walk counts it: a lookup answers with the interval
  // suggested now, and the next lookup comes the first poll cache_s later; the polls between
  // are answered from the cache (sent too without it). A released user's next poll (with the
  // cache its next lookup) finds the release: its rank is gone, the released set has it.
  void run_poll(const poll& p) {
    waiter& w = slots_[p.slot];
    const std::string m = member(w);
    const std::string& key = set_keys_[w.list];
    if (w.released) {
      emit(p.t, lottery_ ? t_sismember : t_zrank, w.token,
           argv(lottery_ ? "SISMEMBER" : "ZRANK", key, m));
      emit(p.t, t_sismember, w.token, argv("SISMEMBER", s_.keys_.released(), m));
      free_slot(p.slot);
      return;
    }
    if (lottery_) {
      emit(p.t, t_sismember, w.token, argv("SISMEMBER", key, m));
      emit(p.t, t_scard, w.token, argv("SCARD", key));
    } else {
      emit(p.t, t_zrank, w.token, argv("ZRANK", key, m));
      emit(p.t, t_zcard, w.token, argv("ZCARD", key));
    }
    if (w.polls_left > 0) {  // a poll the cache would answer (no status cache)
      --w.polls_left;
      push_poll(p.t + w.interval, p.slot);
      return;
    }
    w.interval = counter_->interval_at(p.t);
    const std::int64_t n = counter_->polls_per_lookup(w.interval);
    if (s_.status_cache_) {
      push_poll(p.t + n * w.interval, p.slot);
    } else {
      w.polls_left = static_cast<std::uint32_t>(n - 1);
      push_poll(p.t + w.interval, p.slot);
    }
  }

  void flush_releases() {
    if (!gathering_) return;
    gathering_ = false;
    for (std::uint32_t l : gathered_order_) {
      emit(gathered_at_, t_release, 0,
           argv("EVALSHA", release_sha_, "4", list_keys_[l], s_.keys_.released(), s_.keys_.stats(),
                s_.keys_.release_log(0), std::to_string(gathered_[l]), fields_[l], std::string(),
                std::string()));
      gathered_[l] = 0;
    }
    gathered_order_.clear();
  }

  load_stream& s_;
  bool lottery_;
  std::uint64_t token_salt_;
  std::string release_sha_, move_sha_, draw_sha_;
  std::vector<std::string> set_keys_, list_keys_, fields_;
  std::optional<models::poll_counter> counter_;
  std::vector<stream_op> chunk_;

  std::uint32_t entered_ = 0;
  std::uint64_t total_ = 0;  // users waiting, as the room's queue length
  std::vector<waiter> slots_;
  std::vector<std::uint32_t> free_;
  std::unordered_map<std::uint64_t, std::uint32_t> by_token_;
  std::vector<poll> heap_;  // each waiting (or just released) user's next poll
  std::int64_t next_refresh_ns_ = 0;
  std::uint64_t refreshes_ = 0;

  bool gathering_ = false;
  std::int64_t gathered_at_ = 0;
  std::vector<std::uint64_t> gathered_;  // per list: units released this round
  std::vector<std::uint32_t> gathered_order_;
};

load_stream::load_stream(const models::scenario& sc, const key_layout& keys, bool status_cache,
                         const token_signer* signer)
    : sc_(sc), keys_(keys), status_cache_(status_cache), signer_(signer) {
  // Followed users' polls only feed the ETA statistics: the commands do not depend on them.
  if (sc_.polling) sc_.polling->follow_share = 0;
  unbounded_ = !std::isfinite(models::make_arrival_process(sc.arrivals).expected_count()) &&
               !sc.run.horizon_s;
}

load_stream::~load_stream() {
  stop();
}

void load_stream::stop() {
  stop_requested_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (producer_.joinable()) producer_.join();
}

void load_stream::publish(std::vector<stream_op>& chunk) {
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return full_.size() < max_chunks || stopping_; });
  if (stopping_) throw stopped{};
  full_.push_back(std::move(chunk));
  if (!spare_.empty()) {
    chunk = std::move(spare_.back());
    spare_.pop_back();
  } else {
    chunk = {};
    chunk.reserve(chunk_ops);
  }
  lock.unlock();
  cv_.notify_all();
}

void load_stream::produce() {
  try {
    recorder rec(*this);
    models::room rm(sc_, sc_.seed, 0);
    rm.set_mirror(&rec);
    // A stretch where nobody queues makes no commands (no hand-over to stop at): the room's
    // sampler looks too.
    rm.set_progress([this](double, std::uint64_t, std::uint64_t) {
      if (stop_requested_.load(std::memory_order_relaxed)) throw stopped{};
    });
    const models::room_result r = rm.run();
    rec.finish(std::llround(r.end_time_s * 1e9));
  } catch (const stopped&) {
  } catch (...) {
    std::lock_guard lock(m_);
    error_ = std::current_exception();
  }
  {
    std::lock_guard lock(m_);
    finished_ = true;
  }
  cv_.notify_all();
}

bool load_stream::next(stream_op& op) {
  if (at_ == current_.size()) {
    std::unique_lock lock(m_);
    if (!started_) {
      started_ = true;
      try {
        producer_ = std::thread([this] { produce(); });
      } catch (const std::system_error& e) {
        throw std::runtime_error(
            fmt::format("load: the thread that makes the command stream could not be started "
                        "({})",
                        e.code().message()));
      }
    }
    if (!current_.empty()) {
      current_.clear();  // the commands were moved out; the capacity is kept
      spare_.push_back(std::move(current_));
    }
    if (full_.empty()) {
      ++waited_;
      cv_.wait(lock, [&] { return !full_.empty() || finished_; });
    }
    if (full_.empty()) {
      current_ = {};
      at_ = 0;
      if (error_) std::rethrow_exception(error_);
      return false;
    }
    current_ = std::move(full_.front());
    full_.pop_front();
    at_ = 0;
    lock.unlock();
    cv_.notify_all();
  }
  op = std::move(current_[at_++]);
  if (op.type == t_zadd || op.type == t_sadd) ++users_;
  now_ns_ = op.at_ns;
  return true;
}

}  // namespace waitroom::redis
