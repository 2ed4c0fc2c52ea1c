#include "sim/arrivals.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <string_view>
#include <unordered_map>

#include "sim/input_error.hpp"
#include "sim/text_file.hpp"

namespace waitroom::sim {

arrival_process arrival_process::poisson(double rate_per_s) {
  return piecewise({{std::numeric_limits<double>::infinity(), rate_per_s}});
}

arrival_process arrival_process::piecewise(std::vector<rate_segment> segments) {
  arrival_process p;
  p.kind_ = kind::piecewise;
  p.segments_ = std::move(segments);
  double end = 0.0;
  for (const auto& s : p.segments_) {
    end += s.duration_s;
    p.segment_end_.push_back(std::isinf(end) ? sim_time::max() : sim_time::from_seconds(end));
  }
  return p;
}

arrival_process arrival_process::replay(std::vector<trace_record> records) {
  arrival_process p;
  p.kind_ = kind::replay;
  p.records_ = std::move(records);
  return p;
}

arrival_process arrival_process::renewal(distribution interarrival_s) {
  arrival_process p;
  p.kind_ = kind::renewal;
  p.interarrival_s_ = std::move(interarrival_s);
  return p;
}

double surge_shape::rate_at(double t_s) const {
  if (t_s < 0 || t_s >= duration_s) return 0.0;
  return base_rate_per_s + (peak_rate_per_s - base_rate_per_s) * std::exp2(-t_s / half_life_s);
}

double surge_shape::decay_total() const {
  return (peak_rate_per_s - base_rate_per_s) * half_life_s / std::numbers::ln2;
}

double surge_shape::expected_by(double t_s) const {
  const double t = std::min(t_s, duration_s);
  if (!(t > 0)) return 0.0;
  const double base = base_rate_per_s > 0 ? base_rate_per_s * t : 0.0;  // not 0 x infinity
  return base - decay_total() * std::expm1(-t * std::numbers::ln2 / half_life_s);
}

arrival_process arrival_process::surge(surge_shape shape) {
  arrival_process p;
  p.kind_ = kind::surge;
  p.surge_end_ =
      std::isinf(shape.duration_s) ? sim_time::max() : sim_time::from_seconds(shape.duration_s);
  p.surge_ = shape;
  return p;
}

void arrival_process::draw_surge_base(rng& r) {
  base_next_s_ = surge_.base_rate_per_s > 0
                     ? base_next_s_ - std::log(r.uniform_open0()) / surge_.base_rate_per_s
                     : std::numeric_limits<double>::infinity();
}

void arrival_process::draw_surge_decay(rng& r) {
  // The decaying part's expected arrivals after t are total 2^(-t / h): the next one comes
  // when an Exp(1) draw of them has passed, or never when fewer are left.
  const double total = surge_.decay_total();
  decay_left_ = total > 0 ? decay_left_ + std::log(r.uniform_open0()) / total : 0.0;
  decay_next_s_ = decay_left_ > 0 ? -surge_.half_life_s * std::log2(decay_left_)
                                  : std::numeric_limits<double>::infinity();
}

bool arrival_process::next_surge(rng& r, arrival& out) {
  if (!surge_started_) {
    surge_started_ = true;
    base_next_s_ = 0.0;
    draw_surge_base(r);
    draw_surge_decay(r);
  }
  const bool base = base_next_s_ <= decay_next_s_;
  const double t = base ? base_next_s_ : decay_next_s_;
  if (std::isinf(t)) return false;
  const sim_time at = sim_time::from_seconds(t);
  if (!(at < surge_end_)) {
    base_next_s_ = decay_next_s_ = std::numeric_limits<double>::infinity();  // both are past it
    return false;
  }
  if (base) {
    draw_surge_base(r);
  } else {
    draw_surge_decay(r);
  }
  out = {at, -1};
  return true;
}

bool arrival_process::next_slow(rng& r, arrival& out) {
  if (kind_ == kind::renewal) {
    // Accumulated in double seconds and rounded once, as below.
    t_s_ += std::max(0.0, interarrival_s_.sample(r));
    out = {sim_time::from_seconds(t_s_), -1};
    return true;
  }
  if (kind_ == kind::replay) {
    if (next_record_ >= records_.size()) return false;
    const auto& rec = records_[next_record_++];
    out = {rec.time, static_cast<std::int32_t>(rec.user_class)};
    return true;
  }
  if (kind_ == kind::surge) return next_surge(r, out);
  // Piecewise Poisson: by memorylessness, a gap that crosses a segment boundary restarts
  // at the boundary with the next segment's rate. Time is accumulated in double seconds
  // and rounded once, so rounding never accumulates.
  while (segment_ < segments_.size()) {
    const auto& seg = segments_[segment_];
    if (seg.rate_per_s > 0.0) {
      double t = t_s_ - std::log(r.uniform_open0()) / seg.rate_per_s;
      sim_time at = sim_time::from_seconds(t);
      if (at < segment_end_[segment_]) {
        t_s_ = t;
        out = {at, -1};
        return true;
      }
    }
    next_segment();
  }
  return false;
}

void arrival_process::next_segment() {
  t_s_ = 0.0;
  for (std::size_t i = 0; i <= segment_; ++i) t_s_ += segments_[i].duration_s;
  ++segment_;
}

double arrival_process::expected_count() const {
  if (kind_ == kind::replay) return static_cast<double>(records_.size());
  if (kind_ == kind::renewal) return std::numeric_limits<double>::infinity();
  if (kind_ == kind::surge) return surge_.expected_by(std::numeric_limits<double>::infinity());
  double n = 0.0;
  for (const auto& s : segments_) n += s.rate_per_s > 0 ? s.duration_s * s.rate_per_s : 0.0;
  return n;
}

class_mix::class_mix(const std::vector<double>& shares) {
  double c = 0.0;
  for (double s : shares) {
    c += s;
    cumulative_.push_back(c);
  }
  if (!cumulative_.empty()) cumulative_.back() = std::numeric_limits<double>::infinity();
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_csv(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = line.find(',', start);
    out.push_back(
        trim(line.substr(start, comma == std::string_view::npos ? comma : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

bool is_header(const std::vector<std::string_view>& cols) {
  auto lower = [](std::string_view v) {
    std::string out(v);
    for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  return (cols.size() == 2 || cols.size() == 3) && lower(cols[0]) == "timestamp_s" &&
         lower(cols[1]) == "class" && (cols.size() == 2 || lower(cols[2]) == "user_id");
}

// `text` has passed check_text; `path` names it in errors.
std::vector<trace_record> parse_checked(std::string_view text, const std::string& path,
                                        const std::vector<std::string>& class_names) {
  std::vector<trace_record> out;
  std::unordered_map<std::uint64_t, std::size_t> id_line;  // user id -> the line that gave it
  std::size_t line_no = 0;
  double last_t = -1.0;
  bool header_seen = false;
  std::string names;
  for (const auto& n : class_names) names += (names.empty() ? "" : ", ") + n;
  // Lines as std::getline gives them: split at '\n', no empty line after a final '\n'.
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    std::string_view sv = trim(line);
    if (sv.empty() || sv.front() == '#') continue;
    auto cols = split_csv(sv);
    // Built only for an error: most lines are fine.
    const auto where = [&] { return path + ":" + std::to_string(line_no); };
    double t = 0.0;
    auto [p, ec] = std::from_chars(cols[0].data(), cols[0].data() + cols[0].size(), t);
    if (ec != std::errc{} || p != cols[0].data() + cols[0].size()) {
      // Only the documented header, and only before the first record: anything else that is
      // not a timestamp is a mistake, not a header to skip.
      if (out.empty() && !header_seen && is_header(cols)) {
        header_seen = true;
        continue;
      }
      throw input_error(where(),
                        out.empty() && !header_seen
                            ? "a timestamp in seconds in column 1, or the header "
                              "timestamp_s,class[,user_id]"
                            : "a timestamp in seconds in column 1",
                        "'" + std::string(cols[0]) + "'");
    }
    if (cols.size() < 2 || cols.size() > 3)
      throw input_error(where(), "2 or 3 columns (timestamp_s,class[,user_id])",
                        std::to_string(cols.size()) + " columns");
    if (!std::isfinite(t) || t < 0.0 || t > max_input_seconds)
      throw input_error(where(), "a timestamp between 0 and 100 years in seconds",
                        std::string(cols[0]));
    if (t < last_t)
      throw input_error(where(), "timestamps in non-decreasing order",
                        std::string(cols[0]) + " after " + std::to_string(last_t));
    last_t = t;
    std::uint32_t cls = 0;
    bool found = false;
    for (std::uint32_t i = 0; i < class_names.size(); ++i)
      if (class_names[i] == cols[1]) {
        cls = i;
        found = true;
      }
    if (!found)
      throw input_error(where(), "a class name (one of: " + names + ")",
                        "'" + std::string(cols[1]) + "'");
    std::uint64_t id = 0;
    if (cols.size() == 3) {
      auto [q, ec2] = std::from_chars(cols[2].data(), cols[2].data() + cols[2].size(), id);
      if (ec2 != std::errc{} || q != cols[2].data() + cols[2].size())
        throw input_error(where(), "a non-negative integer user id in column 3",
                          "'" + std::string(cols[2]) + "'");
      if (auto [it, fresh] = id_line.emplace(id, line_no); !fresh)
        throw input_error(
            where(), "a user id not given on another line",
            "user id " + std::to_string(id) + ", already on line " + std::to_string(it->second));
    }
    out.push_back({sim_time::from_seconds(t), cls, id});
  }
  if (out.empty())
    throw input_error(path, "at least one arrival (timestamp_s,class[,user_id])",
                      "none (an empty trace would run with 0 users)");
  return out;
}

}  // namespace

std::vector<trace_record> read_trace_csv(const std::string& path,
                                         const std::vector<std::string>& class_names) {
  return parse_checked(read_text_file(path, "a CSV trace file"), path, class_names);
}

std::vector<trace_record> parse_trace_csv(const std::string& text, const std::string& name,
                                          const std::vector<std::string>& class_names) {
  check_text(text, name);
  return parse_checked(text, name, class_names);
}

}  // namespace waitroom::sim
