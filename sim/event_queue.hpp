#pragma once
// A 4-ary min-heap of small POD events ordered by (time, phase, sequence). The sequence
// number makes ties deterministic: same seed, same order, on every run.
#include <cstdint>
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

class event_queue {
 public:
  static constexpr int arity = 4;

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const event& top() const { return heap_.front(); }
  std::uint64_t scheduled() const { return seq_; }
  void reserve(std::size_t n) { heap_.reserve(n); }
  std::size_t memory_bytes() const { return heap_.capacity() * sizeof(event); }

  void push(sim_time t, std::uint8_t phase, std::uint32_t kind, std::uint32_t arg) {
    event e{t.ns(), (std::uint64_t{phase} << 56) | (seq_++ & sequence_mask), kind, arg};
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }

  event pop() {
    event out = heap_.front();
    event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return out;
  }

 private:
  static constexpr std::uint64_t sequence_mask = (std::uint64_t{1} << 56) - 1;

  void sift_up(std::size_t i) {
    event e = heap_[i];
    while (i > 0) {
      std::size_t parent = (i - 1) / arity;
      if (!event_before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  // Places `e` (the former last element) starting from the root.
  void sift_down(const event& e) {
    std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      std::size_t first = i * arity + 1;
      if (first >= n) break;
      std::size_t best = first;
      std::size_t end = first + arity < n ? first + arity : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (event_before(heap_[c], heap_[best])) best = c;
      if (!event_before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<event> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace waitroom::sim
