#pragma once
// The pending events: small PODs ordered by (time, phase, sequence), in 4-ary min-heaps. The
// sequence number makes ties deterministic: same seed, same order, on every run.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/time.hpp"

namespace waitroom::sim {

struct event {
  std::int64_t time_ns;
  std::uint64_t order;  // phase in the top 8 bits, insertion sequence below
  std::uint32_t kind;   // what the model should do
  std::uint32_t arg;    // an entity index or a small payload

  sim_time time() const { return sim_time::from_ns(time_ns); }
  std::uint8_t phase() const { return static_cast<std::uint8_t>(order >> 56); }
};

inline bool event_before(const event& a, const event& b) {
  return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.order < b.order;
}

// A 4-ary min-heap of events in a vector, grown exactly as push_back grows a vector (results
// report memory_bytes()).
class event_heap {
 public:
  static constexpr int arity = 4;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const event& top() const { return heap_[0]; }
  void reserve(std::size_t n) { heap_.reserve(n); }
  std::size_t memory_bytes() const { return heap_.capacity() * sizeof(event); }
  template <class F>
  bool any_of(F f) const {
    for (std::size_t i = 0; i < size_; ++i)
      if (f(heap_[i])) return true;
    return false;
  }

  [[gnu::always_inline]] void push(const event& e) {
    if (size_ == heap_.size()) grow();
    event* h = heap_.data();
    std::size_t i = size_++;
    while (i > 0) {  // sift up from the new hole
      std::size_t parent = (i - 1) / arity;
      if (!event_before(e, h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = e;
  }

  event pop() {
    event* h = heap_.data();
    const event out = h[0];
    if (--size_ > 0) sift_down(h, h[size_]);
    return out;
  }
  // f(e) for every event, in no order, leaving the heap empty (its room kept).
  template <class F>
  void drain(F f) {
    for (std::size_t i = 0; i < size_; ++i) f(heap_[i]);
    size_ = 0;
  }

 private:
  // heap_[0, size_) holds the events; heap_.size() is the room made so far. It grows out of
  // line (the hot push stays small).
  [[gnu::noinline]] void grow() {
    const std::size_t n = heap_.size();
    heap_.resize(heap_.capacity() > n ? heap_.capacity() : (n == 0 ? 1 : 2 * n));
  }

  // Places `e` (the former last element) starting from the root.
  void sift_down(event* h, const event e) const {
    const std::size_t n = size_;
    std::size_t i = 0;
    for (;;) {
      std::size_t first = i * arity + 1;
      if (first >= n) break;
      std::size_t best = first;
      std::size_t end = first + arity < n ? first + arity : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (event_before(h[c], h[best])) best = c;
      if (!event_before(h[best], e)) break;
      h[i] = h[best];
      i = best;
    }
    h[i] = e;
  }

  std::vector<event> heap_;
  std::size_t size_ = 0;
};

// Events scheduled in large numbers far ahead (a patience per waiting user, a return
// visit), kept as a calendar: one unsorted bucket per 2^28 ns (about 0.27 s) of a ring of
// 4,096 (about 18 minutes), a heap for the events of the buckets already opened, and one for
// those beyond the ring. An event is appended to its bucket, and sorted into the small heap
// of the open buckets only when that bucket is the earliest left: a few levels in cache,
// where one heap of all of them (200,000 returns in the temporary-VIP flash crowd) cost about
// ten levels out of cache per event. They stay one heap until more than 4,096 are pending
// (and again once the calendar empties, until twice what came back). Ordered as one heap
// orders them.
class far_events {
 public:
  // How long an emptied bucket keeps its room: until the ring comes round to it again
  // (about 1,100 s). The memory estimate counts it (models/run/memory_estimate.cpp).
  static constexpr double ring_span_s() {
    return static_cast<double>(ring_size << bucket_shift) * 1e-9;
  }
  bool empty() const { return open_.empty(); }  // open_ is refilled whenever it empties
  std::size_t size() const { return open_.size() + in_ring_ + beyond_.size(); }
  const event& top() const { return open_.top(); }
  // How many times one heap was spread into the calendar (a test's check on the work done).
  std::uint64_t spreads() const { return spreads_; }
  std::size_t memory_bytes() const {
    return open_.memory_bytes() + beyond_.memory_bytes() + ring_bytes_ +
           ring_.capacity() * sizeof(std::vector<event>) + spread_.capacity() * sizeof(event);
  }
  template <class F>
  bool any_of(F f) const {
    if (open_.any_of(f) || beyond_.any_of(f)) return true;
    for (const auto& b : ring_)
      for (const auto& e : b)
        if (f(e)) return true;
    return false;
  }

  void push(const event& e) {
    if (in_ring_ == 0 && beyond_.empty()) {  // one heap (spread() sets next_ on leaving it)
      open_.push(e);
      if (open_.size() > spread_at_) spread();
    } else if (const std::uint64_t b = bucket_of(e); b < next_) {
      open_.push(e);
    } else {
      place(e, b);
    }
  }

  event pop() {
    const event out = open_.pop();
    if (open_.empty()) refill();
    return out;
  }

 private:
  static constexpr int bucket_shift = 28;
  static constexpr std::uint64_t ring_size = 4096;
  // Up to this many pending far events the calendar is not used: a heap that small stays in
  // cache, and a few events spread over many buckets would cost a scan of empty ones each.
  static constexpr std::size_t heap_only = 4096;

  static std::uint64_t bucket_of(const event& e) {
    return e.time_ns < 0 ? 0 : static_cast<std::uint64_t>(e.time_ns) >> bucket_shift;
  }
  // A bucket not yet open: in the ring, or beyond it.
  void place(const event& e, std::uint64_t b) {
    if (b - next_ >= ring_size) {
      beyond_.push(e);
      return;
    }
    if (ring_.empty()) ring_.resize(ring_size);
    auto& v = ring_[b % ring_size];
    const std::size_t cap = v.capacity();
    v.push_back(e);
    ring_bytes_ += (v.capacity() - cap) * sizeof(event);
    ++in_ring_;
  }
  // Opens the earliest bucket still pending (open_ is empty).
  void refill() {
    if (in_ring_ == 0) {
      if (beyond_.empty()) return;
      next_ = bucket_of(beyond_.top());
      take_beyond();
    }
    // The ring holds in_ring_ > 0 events, all within its window: a full turn without one is a
    // bug, reported rather than looped on.
    for (std::uint64_t k = 0;; ++k, ++next_) {
      if (k == ring_size) throw std::logic_error("far_events: ring events outside its window");
      auto& v = ring_[next_ % ring_size];
      if (v.empty()) continue;
      for (const event& e : v) open_.push(e);
      in_ring_ -= v.size();
      v.clear();
      ++next_;
      break;
    }
    take_beyond();
    note_one_heap();
  }
  // Back to one heap (a bucket reopened alone, or a spread that left everything in one
  // bucket): the next spread waits for twice what the heap holds, or a bucket of many would
  // be spread and reopened for every earlier event.
  void note_one_heap() {
    if (in_ring_ == 0 && beyond_.empty()) spread_at_ = std::max(heap_only, 2 * open_.size());
  }
  // From one heap to the calendar: the earliest bucket stays open, the rest go to theirs.
  void spread() {
    ++spreads_;
    next_ = bucket_of(open_.top()) + 1;
    spread_.clear();
    open_.drain([&](const event& e) { spread_.push_back(e); });
    for (const event& e : spread_) {
      const std::uint64_t b = bucket_of(e);
      if (b < next_)
        open_.push(e);
      else
        place(e, b);
    }
    note_one_heap();
  }
  // The events beyond the ring whose buckets it now reaches.
  void take_beyond() {
    while (!beyond_.empty() && bucket_of(beyond_.top()) - next_ < ring_size) {
      const event e = beyond_.pop();
      place(e, bucket_of(e));
    }
  }

  event_heap open_;  // the events of buckets below next_
  // Bucket b at b % ring_size, for next_ <= b < next_ + ring_size.
  std::vector<std::vector<event>> ring_;
  std::size_t in_ring_ = 0;
  std::size_t ring_bytes_ = 0;  // the buckets' room
  event_heap beyond_;           // buckets from next_ + ring_size on
  std::uint64_t next_ = 0;      // the first bucket not open
  std::vector<event> spread_;   // spread()'s scratch
  std::size_t spread_at_ = heap_only;
  std::uint64_t spreads_ = 0;
};

// The pending events: the near ones in a heap, those a model schedules in large numbers far
// ahead apart (far_events), so the heap holds the few near ones (the next arrival, the tick)
// and each costs a few levels of a small heap (one heap of everything was 30% of the
// temporary-VIP flash crowd's time). A pop takes the earlier of the two heads by (time,
// phase, sequence), which are unique (below 2^56 events a run): the order is exactly one
// heap's.
class event_queue {
 public:
  bool empty() const { return near_.empty() && far_.empty(); }
  bool near_empty() const { return near_.empty(); }
  std::size_t size() const { return near_.size() + far_.size(); }
  const event& top() const { return top(far_first()); }
  std::uint64_t scheduled() const { return seq_; }
  void reserve(std::size_t n) { near_.reserve(n); }
  std::size_t memory_bytes() const { return near_.memory_bytes() + far_.memory_bytes(); }
  bool far_empty() const { return far_.empty(); }
  std::uint64_t far_spreads() const { return far_.spreads(); }
  // Whether any pending event satisfies f, in no particular order (off the hot path).
  template <class F>
  bool any_of(F f) const {
    return near_.any_of(f) || far_.any_of(f);
  }

  [[gnu::always_inline]] void push(sim_time t, std::uint8_t phase, std::uint32_t kind,
                                   std::uint32_t arg) {
    near_.push(make(t, phase, kind, arg));
  }
  // The same, for an event of a kind scheduled in large numbers far ahead of now.
  void push_far(sim_time t, std::uint8_t phase, std::uint32_t kind, std::uint32_t arg) {
    far_.push(make(t, phase, kind, arg));
  }

  event pop() { return pop(far_first()); }

  // Whether the next event is a far one: the run loop asks once and passes the answer to
  // top() and pop(). Without far events (most scenarios) a predictable branch.
  bool far_first() const {
    return !far_.empty() && (near_.empty() || event_before(far_.top(), near_.top()));
  }
  const event& top(bool far) const { return far ? far_.top() : near_.top(); }
  event pop(bool far) { return far ? far_.pop() : near_.pop(); }

 private:
  static constexpr std::uint64_t sequence_mask = (std::uint64_t{1} << 56) - 1;

  [[gnu::always_inline]] event make(sim_time t, std::uint8_t phase, std::uint32_t kind,
                                    std::uint32_t arg) {
    return {t.ns(), (std::uint64_t{phase} << 56) | (seq_++ & sequence_mask), kind, arg};
  }
  event_heap near_;
  far_events far_;
  std::uint64_t seq_ = 0;
};

}  // namespace waitroom::sim
