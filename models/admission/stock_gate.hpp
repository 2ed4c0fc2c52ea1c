#pragma once
// Admission capped by stock (the flash-sale article): the available queue length starts at the
// stock count; an entering user takes a slot, a user finding none is refused at once ("sold out");
// an order failure or a cancellation gives the slot back and reopens the queue. Everyone admitted
// can buy, so orders can never exceed stock.
#include <cstdint>
#include <optional>
#include <stdexcept>

namespace waitroom::models {

class stock_gate {
 public:
  explicit stock_gate(std::uint64_t stock) : stock_(stock), available_(stock) {}

  // A user arrives: true when a slot is taken, false when refused.
  bool try_enter(std::int64_t now_ns) {
    if (available_ == 0) {
      ++refused_;
      return false;
    }
    if (--available_ == 0 && !sold_out_at_ns_) sold_out_at_ns_ = now_ns;
    return true;
  }
  // A slot comes back (order failure, cancellation).
  void give_back() {
    if (available_ == 0) ++reopenings_;
    ++available_;
    if (available_ + outstanding_orders_ > stock_)
      throw std::logic_error("stock_gate: slots exceed stock");
  }
  void order_placed() {
    ++orders_;
    ++outstanding_orders_;
    max_outstanding_ =
        outstanding_orders_ > max_outstanding_ ? outstanding_orders_ : max_outstanding_;
    if (outstanding_orders_ > stock_) throw std::logic_error("stock_gate: orders exceed stock");
  }
  void order_cancelled() {
    --outstanding_orders_;
    ++cancellations_;
    give_back();
  }
  void order_failed() {
    ++failures_;
    give_back();
  }

  std::uint64_t stock() const { return stock_; }
  std::uint64_t available() const { return available_; }
  std::uint64_t refused() const { return refused_; }
  std::uint64_t orders() const { return orders_; }
  std::uint64_t outstanding_orders() const { return outstanding_orders_; }
  std::uint64_t max_outstanding_orders() const { return max_outstanding_; }
  std::uint64_t failures() const { return failures_; }
  std::uint64_t cancellations() const { return cancellations_; }
  std::uint64_t reopenings() const { return reopenings_; }
  std::optional<std::int64_t> sold_out_at_ns() const { return sold_out_at_ns_; }

 private:
  std::uint64_t stock_;
  std::uint64_t available_;
  std::uint64_t refused_ = 0, orders_ = 0, outstanding_orders_ = 0, max_outstanding_ = 0;
  std::uint64_t failures_ = 0, cancellations_ = 0, reopenings_ = 0;
  std::optional<std::int64_t> sold_out_at_ns_;
};

}  // namespace waitroom::models
