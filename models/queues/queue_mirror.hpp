#pragma once
// The seam for a second store that mirrors the room's waiting lists (a live Redis running the
// same commands). The room reports every change to its lists here; the in-memory run has no
// mirror, and the room only tests a null pointer (no virtual call per event).
// This class is the one list of the operations the room reports. A new one is declared here
// and forwarded in forwarding_mirror below; the compiler then names every store that must
// implement it (redis/mirror.hpp, redis/load_stream.cpp and the tests' recorders), while
// wrappers that only watch (sampling, fault injection) derive from forwarding_mirror and
// need no change (docs/ARCHITECTURE.md, "Adding a mirror command").
#include <cstdint>
#include <span>

namespace waitroom::models {

class queue_mirror {
 public:
  virtual ~queue_mirror() = default;

  // Members are users' queue tokens: as Redis member bytes, 16 lowercase hex digits, whose
  // byte order is the numeric order the model breaks score ties by. Lists are numbered as in
  // the scenario; a lottery's sets are numbered by class. Times are simulated nanoseconds.

  // ZADD: a user entered `list` with `score`.
  virtual void enter(std::uint32_t list, std::uint64_t token, double score,
                     std::int64_t now_ns) = 0;
  // ZREM (or SREM for a lottery): a waiting user gave up.
  virtual void remove(std::uint32_t list, std::uint64_t token, std::int64_t now_ns) = 0;
  // ZREM from one list, ZADD to another (aging), or to the same list with a new score
  // (temporary-VIP credit applied in place).
  virtual void move(std::uint32_t from, std::uint32_t to, std::uint64_t token, double score,
                    std::int64_t now_ns) = 0;
  // The release took these users from the head of `list`, in this order (the atomic release
  // script's result must be exactly this).
  virtual void released(std::uint32_t list, std::span<const std::uint64_t> tokens,
                        std::int64_t now_ns) = 0;
  // Lottery: the model drew exactly this member from its class's set.
  virtual void drawn(std::uint32_t set, std::uint64_t token, std::int64_t now_ns) = 0;
  // ZRANK of a followed user, as the model computed it.
  virtual void ranked(std::uint32_t list, std::uint64_t token, std::uint64_t rank,
                      std::int64_t now_ns) = 0;
  // ZCARD (SCARD for a lottery's class set) of `list` at a queue-length sample, as the model
  // counts it: the length the room's results report is the length Redis holds.
  virtual void counted(std::uint32_t list, std::uint64_t size, std::int64_t now_ns) = 0;
  // The end of a release round (a tick or a session end): a place to flush a pipeline.
  virtual void round_end(std::int64_t now_ns) = 0;
};

// Passes every operation on to `inner`; a wrapper overrides what it watches and calls the
// base to pass it on.
class forwarding_mirror : public queue_mirror {
 public:
  explicit forwarding_mirror(queue_mirror& inner) : inner_(inner) {}
  void enter(std::uint32_t list, std::uint64_t token, double score, std::int64_t now_ns) override {
    inner_.enter(list, token, score, now_ns);
  }
  void remove(std::uint32_t list, std::uint64_t token, std::int64_t now_ns) override {
    inner_.remove(list, token, now_ns);
  }
  void move(std::uint32_t from, std::uint32_t to, std::uint64_t token, double score,
            std::int64_t now_ns) override {
    inner_.move(from, to, token, score, now_ns);
  }
  void released(std::uint32_t list, std::span<const std::uint64_t> tokens,
                std::int64_t now_ns) override {
    inner_.released(list, tokens, now_ns);
  }
  void drawn(std::uint32_t set, std::uint64_t token, std::int64_t now_ns) override {
    inner_.drawn(set, token, now_ns);
  }
  void ranked(std::uint32_t list, std::uint64_t token, std::uint64_t rank,
              std::int64_t now_ns) override {
    inner_.ranked(list, token, rank, now_ns);
  }
  void counted(std::uint32_t list, std::uint64_t size, std::int64_t now_ns) override {
    inner_.counted(list, size, now_ns);
  }
  void round_end(std::int64_t now_ns) override { inner_.round_end(now_ns); }

 private:
  queue_mirror& inner_;
};

}  // namespace waitroom::models
