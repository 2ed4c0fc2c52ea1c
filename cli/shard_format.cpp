#include "shard_format.hpp"

#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "models/json/json_reader.hpp"
#include "output_writer.hpp"
#include "scenario_loading.hpp"
#include "sha256.hpp"
#include "sim/input_error.hpp"
#include "version.hpp"

namespace waitroom::cli {

using nlohmann::json;

shard_spec parse_shard(const std::optional<std::string>& text) {
  if (!text) return {};
  const std::string where = "--shard " + *text;
  const auto slash = text->find('/');
  auto whole = [&](const std::string& part) -> std::uint32_t {
    if (part.empty() || part.size() > 7 ||
        part.find_first_not_of("0123456789") != std::string::npos)
      throw sim::input_error(where, "K/N with 0 <= K < N <= 1000000", "'" + *text + "'");
    return static_cast<std::uint32_t>(std::stoul(part));
  };
  if (slash == std::string::npos)
    throw sim::input_error(where, "K/N with 0 <= K < N <= 1000000", "'" + *text + "'");
  const auto k = whole(text->substr(0, slash)), n = whole(text->substr(slash + 1));
  if (n < 1 || n > 1000000 || k >= n)
    throw sim::input_error(where, "K/N with 0 <= K < N <= 1000000", "'" + *text + "'");
  return {k, n};
}

std::string shard_content_hash(const json& shard) {
  // The compact dump of the object without the member, built member by member (as nlohmann
  // writes an object) so a shard of hundreds of MB is not copied to leave one key out.
  std::string text = "{";
  if (shard.is_object())
    for (const auto& [key, value] : shard.items()) {
      if (key == "content_sha256") continue;
      if (text.size() > 1) text += ',';
      text += json(key).dump();
      text += ':';
      text += value.dump();
    }
  text += '}';
  return sha256_hex(text);
}

int write_shard(const common_args& a, json shard) {
  shard.erase("content_sha256");
  const std::string hash = shard_content_hash(shard);
  shard["content_sha256"] = hash;
  return write_text(a.out, shard.dump() + "\n");
}

void check_shard_header(const std::string& path, const json& shard) {
  const std::string what = "a shard file written by waitroom run, check, sweep or plan --shard";
  if (!shard.is_object()) throw sim::input_error(path, what, models::describe(shard));
  if (!shard.contains("waitroom_shard")) {
    // Say what it is when it is another of waitroom's files.
    std::string found = "JSON without /waitroom_shard";
    if (shard.contains("schema_version") || shard.contains("kind"))
      found = "a result file (merge takes the shard files that `--shard K/N` writes)";
    else if (shard.contains("arrivals") || shard.contains("classes"))
      found = "a scenario file";
    throw sim::input_error(path, what, found);
  }
  const json& v = shard.at("waitroom_shard");
  if (!v.is_number_integer() || v.get<std::int64_t>() != shard_format) {
    const bool older =
        v.is_number_integer() && v.get<std::int64_t>() >= 1 && v.get<std::int64_t>() < shard_format;
    throw sim::input_error(
        path + ": /waitroom_shard",
        fmt::format("shard format {} (what this waitroom {} writes and merges)", shard_format,
                    version),
        older ? fmt::format("format {}, from an older waitroom: run the shards again with this one",
                            v.dump())
              : fmt::format("{} (an unknown format)", models::describe(v)));
  }
  if (!shard.contains("command") || !shard.at("command").is_string())
    throw sim::input_error(
        path + ": /command", shard_commands,
        shard.contains("command") ? models::describe(shard.at("command")) : std::string("none"));
  const auto command = shard.at("command").get<std::string>();
  if (command != "run" && command != "check" && command != "sweep" && command != "plan")
    throw sim::input_error(path + ": /command", shard_commands, "'" + command + "'");
  for (const char* key : {"content_sha256", "shard", "of", "args", "units"})
    if (!shard.contains(key))
      throw sim::input_error(path + ": /" + key, "the value waitroom writes there", "none");
}

void check_content_hashes(const std::vector<std::string>& paths, const std::vector<json>& shards) {
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const json& recorded = shards[i].at("content_sha256");
    const std::string ours = shard_content_hash(shards[i]);
    if (!recorded.is_string() || recorded.get<std::string>() != ours)
      throw sim::input_error(
          paths[i] + ": /content_sha256",
          fmt::format("the sha256 of the shard's content ({})", ours),
          fmt::format(
              "{}: the content hash does not match, so the file was edited or "
              "corrupted after waitroom wrote it; run this shard again",
              recorded.is_string() ? recorded.get<std::string>() : models::describe(recorded)));
  }
}

std::string scenario_hash(const models::scenario& s) {
  std::string content = models::to_json(s).dump();
  // A trace's arrivals come from its CSV file, which the scenario names but does not hold:
  // the records read from it count too, so shards run on different CSV contents never merge.
  if (s.arrivals.kind == models::arrival_kind::trace)
    for (const auto& r : s.arrivals.trace)
      content += fmt::format("\n{},{},{}", r.time.ns(), r.user_class, r.user_id);
  return sha256_hex(content);
}

json shard_header(const char* command, shard_spec shard, json args, json hashes) {
  return {{"waitroom_shard", shard_format}, {"command", command},
          {"shard", shard.index},           {"of", shard.count},
          {"args", std::move(args)},        {"scenario_sha256", std::move(hashes)},
          {"units", json::array()}};
}

// The scenario a shard was run on, loaded again here, must be the same content.
void check_hash(const std::string& path, const json& shard, std::size_t i,
                const models::scenario& s, const std::string& scenario_file) {
  std::string theirs;
  in_shard(path, shard, [&] {
    const auto& h = field(shard, "scenario_sha256");
    theirs = text(h.is_array() ? item(h, i) : h);
  });
  const std::string ours = scenario_hash(s);
  if (theirs != ours)
    throw sim::input_error(
        path, fmt::format("a shard of {} as it is now (scenario sha256 {})", scenario_file, ours),
        fmt::format("a shard of another scenario content (sha256 {}): the "
                    "scenario or its overrides changed since it ran",
                    theirs));
}

// Each unit of every shard exactly once: `total` units, unit u in shard u mod N.
void check_units(const std::vector<std::string>& paths, const std::vector<json>& shards,
                 std::size_t total,
                 const std::function<std::size_t(const json&, const std::string&)>& unit_of) {
  std::vector<bool> seen(total, false);
  for (std::size_t i = 0; i < shards.size(); ++i)
    in_shard(paths[i], shards[i], [&] {
      const auto k = whole<std::uint32_t>(field(shards[i], "shard"));
      const auto n = whole<std::uint32_t>(field(shards[i], "of"));
      const auto& units = field(shards[i], "units");
      std::size_t expected = 0;
      for (std::size_t u = k; u < total; u += n) ++expected;
      if (!units.is_array() || units.size() != expected)
        throw sim::input_error(paths[i] + ": /units", fmt::format("{} units", expected),
                               units.is_array() ? fmt::format("{}", units.size()) : "no array");
      for (std::size_t j = 0; j < units.size(); ++j) {
        const std::size_t u = unit_of(units[j], fmt::format("{}: /units/{}", paths[i], j));
        if (u >= total || u % n != k || seen[u])
          throw sim::input_error(fmt::format("{}: /units/{}", paths[i], j),
                                 fmt::format("a unit of shard {} of {} given once", k, n),
                                 fmt::format("unit {}", u));
        seen[u] = true;
      }
    });
}

json sources_json(const std::vector<std::string>& scenario_paths) {
  json out = json::object();
  for (const auto& p : scenario_paths) {
    const auto& src = source_of(p);
    out[p] = {{"json", src.json}, {"dir", src.dir}};
  }
  return out;
}

void adopt_sources(common_args& m, const std::vector<std::string>& paths,
                   const std::vector<json>& shards) {
  const json* first = shards.front().contains("sources") ? &shards.front().at("sources") : nullptr;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const json* mine = shards[i].contains("sources") ? &shards[i].at("sources") : nullptr;
    if ((first == nullptr) != (mine == nullptr) || (first && *first != *mine))
      throw sim::input_error(paths[i], "a shard of the same scenario files as " + paths[0],
                             "other scenario content in /sources");
  }
  if (first == nullptr) return;
  in_shard(paths[0], shards.front(), [&] {
    if (!first->is_object())
      throw shard_fault(first, {}, "an object of scenario files", models::describe(*first));
    for (const auto& [path, src] : first->items())
      m.embedded[path] = {field(src, "json"), text(field(src, "dir"))};
  });
}

std::size_t unit_index(const json& unit, const char* key, std::size_t bound,
                       const std::string& where) {
  const std::string expected = fmt::format("a whole number below {}", bound);
  if (!unit.is_object() || !unit.contains(key))
    throw sim::input_error(where, fmt::format("a unit with '{}'", key), "none");
  const json& v = unit.at(key);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    throw sim::input_error(where + "/" + key, expected, models::describe(v));
  const auto x = whole<std::uint64_t>(v);
  if (x >= bound) throw sim::input_error(where + "/" + key, expected, std::to_string(x));
  return static_cast<std::size_t>(x);
}

models::metric_table table_from_json(const json& j, std::size_t rows, const std::string& where) {
  const std::size_t metrics = models::metric_row_width();  // values, bounds, counts
  if (!j.is_array() || j.size() != rows)
    throw sim::input_error(where, fmt::format("a table of {} rows", rows), "another shape");
  models::metric_table t;
  for (const auto& row : j) {
    if (!row.is_array() || row.size() != metrics)
      throw sim::input_error(where, fmt::format("rows of {} metrics", metrics), "another shape");
    models::metric_row r;
    for (const auto& x : row)
      r.push_back(x.is_null() ? std::numeric_limits<double>::quiet_NaN() : number(x));
    t.push_back(std::move(r));
  }
  return t;
}

void check_shard_set(const std::vector<std::string>& paths, const std::vector<json>& shards) {
  const json& first = shards.front();
  std::uint32_t count = 0;
  in_shard(paths[0], first, [&] { count = whole<std::uint32_t>(field(first, "of")); });
  if (count < 1 || count > 1000000)
    throw sim::input_error(paths[0] + ": /of", "a shard count from 1 to 1000000",
                           std::to_string(count));
  std::vector<bool> seen(count, false);
  for (std::size_t i = 0; i < shards.size(); ++i)
    in_shard(paths[i], shards[i], [&] {
      const auto& sh = shards[i];
      if (sh.value("command", "sweep") != first.value("command", "sweep") ||
          field(sh, "args") != field(first, "args") ||
          whole<std::uint32_t>(field(sh, "of")) != count)
        throw sim::input_error(paths[i], "a shard of the same job as " + paths[0],
                               "a shard of another job (command, arguments or shard count differ)");
      if (sh.value("scenario_sha256", json()) != first.value("scenario_sha256", json()))
        throw sim::input_error(paths[i], "a shard of the same scenario content as " + paths[0],
                               "another scenario sha256: the scenario changed between shards");
      const auto k = whole<std::uint32_t>(field(sh, "shard"));
      if (k >= count || seen[k])
        throw sim::input_error(paths[i], fmt::format("shard K of {} given once", count),
                               fmt::format("shard {} again", k));
      seen[k] = true;
    });
  for (std::uint32_t k = 0; k < count; ++k)
    if (!seen[k])
      throw sim::input_error("waitroom merge", fmt::format("all {} shards", count),
                             fmt::format("shard {} missing", k));
}

namespace {

// Exact (bit-for-bit) round trips through JSON: nlohmann writes the shortest text that
// reads back as the same double.
json moments_json(const sim::running_moments& m) {
  const auto st = m.save();
  if (st.n == 0) return json::array({0});
  return json::array({st.n, st.mean, st.m2, st.min, st.max});
}

sim::running_moments moments_from(const json& j) {
  sim::running_moments::state st;
  st.n = whole<std::uint64_t>(item(j, 0));
  if (st.n > 0) {
    st.mean = number(item(j, 1));
    st.m2 = number(item(j, 2));
    st.min = number(item(j, 3));
    st.max = number(item(j, 4));
  }
  return sim::running_moments::restore(st);
}

// A histogram's parts, read in the file's order: a call's arguments are evaluated in no set
// order, and the first damaged value must be the one named.
struct histogram_parts {
  std::vector<std::uint64_t> lower, count;
  std::uint64_t min = 0, max = 0;
};
histogram_parts histogram_from(const json& h) {
  histogram_parts p;
  p.lower = whole_vector<std::uint64_t>(field(h, "lower"));
  p.count = whole_vector<std::uint64_t>(field(h, "count"));
  p.min = whole<std::uint64_t>(field(h, "min"));
  p.max = whole<std::uint64_t>(field(h, "max"));
  return p;
}

// Users still waiting at the end (or who gave up): their histogram, null when there were none.
json optional_histogram_json(const std::optional<sim::log_histogram>& h) {
  if (!h) return nullptr;
  std::vector<std::uint64_t> lowers, counts;
  for (const auto& b : h->nonzero_buckets()) {
    lowers.push_back(b.lower);
    counts.push_back(b.count);
  }
  return {{"lower", lowers}, {"count", counts}, {"min", h->min()}, {"max", h->max()}};
}

// An optional histogram read back: its count must be the moments' count (null for none).
void optional_histogram_from(const json& j, const char* key, std::uint64_t expected,
                             std::optional<sim::log_histogram>& out, const std::string& where,
                             const char* what) {
  const json& h = field(j, key);
  if (!h.is_null()) {
    out.emplace();
    const auto p = histogram_from(h);
    if (!out->restore(p.lower, p.count, p.min, p.max) || out->count() != expected)
      throw sim::input_error(where + "/" + key, what, "buckets that are not");
  } else if (expected != 0) {
    throw sim::input_error(where + "/" + key, what, "null");
  }
}

}  // namespace

json waits_json(const models::wait_stats& w) {
  std::vector<std::uint64_t> lowers, counts;
  for (const auto& b : w.wait_ns.nonzero_buckets()) {
    lowers.push_back(b.lower);
    counts.push_back(b.count);
  }
  return {
      {"arrived", w.arrived},
      {"refused", w.refused},
      {"abandoned", w.abandoned},
      {"paid_later", w.paid_later},
      {"released", w.released},
      {"waiting_at_end", w.waiting_at_end},
      {"refused_counted", w.refused_counted},
      {"censored_s", moments_json(w.censored_s)},
      {"censored_ns", optional_histogram_json(w.censored_ns)},
      {"abandon_s", moments_json(w.abandon_s)},
      {"abandon_ns", optional_histogram_json(w.abandon_ns)},
      {"wait_s", moments_json(w.wait_s)},
      {"wait_ns",
       {{"lower", lowers}, {"count", counts}, {"min", w.wait_ns.min()}, {"max", w.wait_ns.max()}}}};
}

models::wait_stats waits_from(const json& j, const std::string& where) {
  models::wait_stats w;
  w.arrived = whole<std::uint64_t>(field(j, "arrived"));
  w.refused = whole<std::uint64_t>(field(j, "refused"));
  w.abandoned = whole<std::uint64_t>(field(j, "abandoned"));
  w.paid_later = whole<std::uint64_t>(field(j, "paid_later"));
  w.released = whole<std::uint64_t>(field(j, "released"));
  w.waiting_at_end = whole<std::uint64_t>(field(j, "waiting_at_end"));
  w.abandon_s = moments_from(field(j, "abandon_s"));
  optional_histogram_from(j, "abandon_ns", w.abandon_s.count(), w.abandon_ns, where,
                          "the histogram of the waits in abandon_s");
  if (w.abandon_ns) w.abandon_ns->compact();  // as keep_summary_only leaves it
  w.refused_counted = whole<std::uint64_t>(field(j, "refused_counted"));
  w.censored_s = moments_from(field(j, "censored_s"));
  optional_histogram_from(j, "censored_ns", w.censored_s.count(), w.censored_ns, where,
                          "the histogram of the waits in censored_s");
  w.wait_s = moments_from(field(j, "wait_s"));
  const auto& h = field(j, "wait_ns");
  const auto p = histogram_from(h);
  if (!w.wait_ns.restore(p.lower, p.count, p.min, p.max) || w.wait_ns.count() != w.wait_s.count())
    throw sim::input_error(where + "/wait_ns", "the histogram of the waits in wait_s",
                           "buckets that are not");
  w.wait_ns.compact();  // a merged replication keeps its summary only, as a run one does
  return w;
}

}  // namespace waitroom::cli
