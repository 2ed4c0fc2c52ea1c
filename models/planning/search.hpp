#pragma once
// `plan --search`: instead of simulating every value of one knob, bisect on each side of the
// closed form's first guess for the edges of the values where every SLA holds (assumed to be
// one interval). The predicate simulates a value; here it is any function, so the search is
// tested with a fake one.
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace waitroom::models::planning {

enum class search_kind {
  no_guess,     // the closed form said nothing: every value must be simulated
  guess_fails,  // the first guess failed in simulation: every value must be simulated
  bisected,     // [left, right] is where every SLA holds
};

struct search_outcome {
  search_kind kind = search_kind::no_guess;
  std::optional<std::size_t> start;  // the first guess: the middle value the closed form passes
  std::size_t left = 0, right = 0;   // bisected: the feasible interval's ends
  std::vector<bool> ran;             // which values the search simulated
  std::size_t simulated() const;
};

// `guess[i]`: the closed form's verdict on value i (none where it has none); `holds(i)`
// simulates value i and says whether every SLA holds. Each value is simulated at most once,
// and the order of calls depends only on the answers (so the search is deterministic).
search_outcome search_feasible(const std::vector<std::optional<bool>>& guess,
                               const std::function<bool(std::size_t)>& holds);

}  // namespace waitroom::models::planning
