#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "models/spec/scenario.hpp"

namespace waitroom::models {

bool arrival_spec::open_ended() const {
  switch (kind) {
    case arrival_kind::poisson:
    case arrival_kind::renewal:
      return true;
    case arrival_kind::piecewise:
      return !segments.empty() && std::isinf(segments.back().duration_s);
    case arrival_kind::trace:
      return false;
  }
  return true;
}

double arrival_spec::final_rate_per_s() const {
  switch (kind) {
    case arrival_kind::poisson:
      return rate_per_s;
    case arrival_kind::renewal:
      return 1.0 / interarrival_s.mean();
    case arrival_kind::piecewise:
      return segments.empty() ? 0.0 : segments.back().rate_per_s;
    case arrival_kind::trace:
      return 0.0;
  }
  return 0.0;
}

double arrival_spec::max_rate_per_s() const {
  switch (kind) {
    case arrival_kind::poisson:
      return rate_per_s;
    case arrival_kind::renewal: {
      const double m = interarrival_s.mean();
      return m > 0 ? 1.0 / m : std::numeric_limits<double>::infinity();
    }
    case arrival_kind::piecewise: {
      double r = 0;
      for (const auto& seg : segments) r = std::max(r, seg.rate_per_s);
      return r;
    }
    case arrival_kind::trace: {
      double r = 0;
      std::size_t first = 0;  // the trace is in time order
      for (std::size_t i = 0; i < trace.size(); ++i) {
        while (first < i && trace[i].time.seconds() - trace[first].time.seconds() >= 1.0) ++first;
        r = std::max(r, static_cast<double>(i - first + 1));
      }
      return r;
    }
  }
  return std::numeric_limits<double>::infinity();
}

bool arrival_spec::poisson() const {
  switch (kind) {
    case arrival_kind::poisson:
    case arrival_kind::piecewise:
      return true;
    case arrival_kind::renewal:
    case arrival_kind::trace:
      return false;
  }
  return false;
}

bool arrival_spec::none() const {
  switch (kind) {
    case arrival_kind::poisson:
      return rate_per_s == 0;
    case arrival_kind::piecewise:
      return std::all_of(segments.begin(), segments.end(),
                         [](const sim::rate_segment& s) { return s.rate_per_s == 0; });
    case arrival_kind::trace:
      return trace.empty();
    case arrival_kind::renewal:
      return false;
  }
  return false;
}

}  // namespace waitroom::models
