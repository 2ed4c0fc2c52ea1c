#pragma once
// A uniform random sample of at most `capacity` items from a stream of unknown length
// (Vitter's Algorithm R), so a fit's memory and time stop growing with the log. Up to
// `capacity` items it holds every one, in the order added; past it, each item seen so far is
// kept with probability capacity / seen. Seeded: the same stream gives the same sample.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/random.hpp"

namespace waitroom::models::fit {

template <class T>
class reservoir {
 public:
  reservoir(std::size_t capacity, std::uint64_t seed) : capacity_(capacity), rng_(seed) {}

  void add(const T& item) {
    ++seen_;
    if (items_.size() < capacity_) {
      items_.push_back(item);
      return;
    }
    if (const std::uint64_t j = rng_.below(seen_); j < capacity_) items_[j] = item;
  }

  const std::vector<T>& items() const { return items_; }
  std::uint64_t seen() const { return seen_; }
  bool sampled() const { return seen_ > items_.size(); }

 private:
  std::size_t capacity_;
  sim::rng rng_;
  std::vector<T> items_;
  std::uint64_t seen_ = 0;
};

}  // namespace waitroom::models::fit
