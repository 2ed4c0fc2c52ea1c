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

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const event& top() const { return heap_[0]; }
  std::uint64_t scheduled() const { return seq_; }
  void reserve(std::size_t n) { heap_.reserve(n); }
  std::size_t memory_bytes() const { return heap_.capacity() * sizeof(event); }
  // Whether any pending event satisfies f, in no particular order (off the hot path).
  template <class F>
  bool any_of(F f) const {
    for (std::size_t i = 0; i < size_; ++i)
      if (f(heap_[i])) return true;
    return false;
  }

  [[gnu::always_inline]] void push(sim_time t, std::uint8_t phase, std::uint32_t kind,
                                   std::uint32_t arg) {
    const event e{t.ns(), (std::uint64_t{phase} << 56) | (seq_++ & sequence_mask), kind, arg};
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

 private:
  static constexpr std::uint64_t sequence_mask = (std::uint64_t{1} << 56) - 1;

  // heap_[0, size_) holds the events; heap_.size() is the room made so far. It grows out of
  // line (the hot push stays small) and exactly as push_back grows a vector, so
  // memory_bytes(), which results report, is what it always was.
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
  std::uint64_t seq_ = 0;
};

}  // namespace waitroom::sim
