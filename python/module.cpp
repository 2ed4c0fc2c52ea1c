// waitroom._waitroom: the libraries as Python sees them. Scenarios cross as JSON text (the
// package's Scenario keeps the dict), results as the CLI's own JSON and CSV text, so every
// figure is the one `waitroom run` prints. Runs release the GIL. An input_error becomes the
// package's ScenarioError with the error's place, expectation and finding.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/analytic/queueing.hpp"
#include "models/planning/grid.hpp"
#include "models/room/room.hpp"
#include "models/run/grid_run.hpp"
#include "models/run/replicate.hpp"
#include "models/run/replication_digest.hpp"
#include "models/run/series_bands.hpp"
#include "models/scenario/scenario.hpp"
#include "models/sla/sla.hpp"
#include "reports/check_report.hpp"
#include "reports/csv_report.hpp"
#include "reports/estimate_report.hpp"
#include "reports/html_report.hpp"
#include "reports/plan_report.hpp"
#include "reports/report.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"
#include "version.hpp"

namespace py = pybind11;

namespace waitroom::python {

namespace {

nlohmann::json parse(const std::string& text, const std::string& name) {
  return models::parse_json_text(text, name);
}

// Validates the scenario's JSON as `waitroom validate` would; the scenario, ready to run.
models::scenario checked(const std::string& text, const std::string& name,
                         const std::string& base_dir) {
  return models::parse_scenario(parse(text, name), name, base_dir);
}

unsigned threads_or_cores(unsigned threads) {  // 0: every core, as the CLI's --threads
  return threads ? threads : std::max(1u, std::thread::hardware_concurrency());
}

// Replications whose interval is reported (compare, estimate), as the CLI refuses fewer.
void at_least_two(std::uint32_t replications) {
  if (replications < 2)
    throw sim::input_error("replications",
                           "at least 2 here (an interval across replications needs two)",
                           std::to_string(replications));
}

std::string with_override(const std::string& text, const std::string& name,
                          const std::string& assignment) {
  nlohmann::json j = parse(text, name);
  models::apply_override(j, assignment);
  return j.dump();
}

std::string without(const std::string& text, const std::string& name, const std::string& pointer) {
  nlohmann::json j = parse(text, name);
  models::apply_unset(j, pointer);
  return j.dump();
}

// Runs `work` on a thread of its own while this one looks for Ctrl-C every 50 ms (Python sees
// signals on its main thread only): on one, `stop` becomes true, the work is waited for and
// KeyboardInterrupt raised. Called with the GIL released.
void interruptible(const std::function<void(const std::atomic<bool>& stop)>& work) {
  std::atomic<bool> stop{false};
  std::promise<void> finished;
  auto done = finished.get_future();
  std::thread worker([&] {
    try {
      work(stop);
      finished.set_value();
    } catch (...) {
      finished.set_exception(std::current_exception());
    }
  });
  bool interrupted = false;
  while (!interrupted &&
         done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    py::gil_scoped_acquire locked;
    interrupted = PyErr_CheckSignals() != 0;  // KeyboardInterrupt set: raised below
  }
  if (interrupted) stop = true;
  worker.join();  // without the GIL: other Python threads run while the work winds down
  if (interrupted) {
    py::gil_scoped_acquire locked;
    throw py::error_already_set();
  }
  done.get();  // an error of the work, rethrown here
}

// `waitroom run --format json` of the scenario: one run, or R replications on `threads`
// threads (0: every core). Returns the JSON text exactly as the CLI writes it.
// A single run stops at its next sample after Ctrl-C (KeyboardInterrupt) or an exception of
// `progress`, called there with (simulated s, users waiting, events so far) when given.
std::string run(const std::string& text, const std::string& name, const std::string& base_dir,
                std::optional<std::uint64_t> seed, std::uint32_t replications, unsigned threads,
                const std::optional<py::function>& progress) {
  models::scenario s = checked(text, name, base_dir);
  s.seed = seed.value_or(s.seed);
  if (replications < 1)
    throw sim::input_error("replications", "a whole number from 1", std::to_string(replications));
  py::gil_scoped_release unlocked;
  if (replications == 1) {
    const auto at_sample = [&progress](double t, std::uint64_t waiting, std::uint64_t events) {
      py::gil_scoped_acquire locked;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (progress) (*progress)(t, waiting, events);
    };
    return reports::result_json(s, models::run_scenario(s, s.seed, 0, at_sample), version).dump(2) +
           "\n";
  }
  models::series_bands bands(s.classes.size());
  models::replication_digest digest(s, true);
  const unsigned t = threads_or_cores(threads);
  interruptible([&](const std::atomic<bool>& stop) {
    models::replicate_each(
        s, s.seed, replications, t, [&](models::room_result&& r) { digest.add(r); }, {}, &bands,
        &stop);
  });
  return reports::replications_json(s, digest, 0.95, version, &bands).dump(2) + "\n";
}

// `waitroom check --format json` of one scenario: its sla block's replications on `threads`
// threads, each target's verdict. Returns the JSON text exactly as the CLI writes it.
std::string check(const std::string& text, const std::string& name, const std::string& base_dir,
                  std::optional<std::uint64_t> seed, unsigned threads) {
  models::scenario s = checked(text, name, base_dir);
  if (!s.sla) throw sim::input_error(name + ": /sla", "an sla block to check", "none");
  s.seed = seed.value_or(s.seed);
  py::gil_scoped_release unlocked;
  std::vector<models::metric_table> tables;
  const unsigned t = threads_or_cores(threads);
  for (const auto& r : models::replicate(s, s.seed, s.sla->replications, t))
    tables.push_back(models::tabulate(r));
  std::vector<std::pair<const models::scenario*, std::vector<models::sla_outcome>>> outcomes;
  outcomes.emplace_back(&s, models::evaluate(*s.sla, tables));
  return reports::check_json(outcomes, version).dump(2) + "\n";
}

std::string check_csv(const std::string& check_json) {
  return reports::check_csv(nlohmann::json::parse(check_json));
}

// `waitroom compare --format json`: the base and each variant (name, scenario JSON text) run
// `replications` times on the base's seed (common random numbers), paired differences.
std::string compare(const std::string& name,
                    const std::vector<std::pair<std::string, std::string>>& variants,
                    const std::string& base_dir, std::optional<std::uint64_t> seed,
                    std::uint32_t replications, unsigned threads) {
  at_least_two(replications);
  std::vector<std::string> names;
  std::vector<models::scenario> scenarios;
  for (const auto& [variant, text] : variants) {
    if (const std::string why = sim::unprintable_name(variant); !why.empty())
      throw sim::input_error("variants", "a name without control or bidirectional characters",
                             why + " in " + nlohmann::json(variant).dump(-1, ' ', true));
    names.push_back(variant);
    scenarios.push_back(checked(text, name, base_dir));
  }
  const std::uint64_t common = seed.value_or(scenarios.front().seed);
  std::vector<const models::scenario*> ptrs;
  for (auto& s : scenarios) {
    s.seed = common;
    ptrs.push_back(&s);
  }
  py::gil_scoped_release unlocked;
  const unsigned t = threads_or_cores(threads);
  std::vector<std::vector<models::room_result>> runs;
  for (const auto& s : scenarios) runs.push_back(models::replicate(s, common, replications, t));
  auto j = reports::compare_json(names, ptrs, runs, 0.95);
  j["tool"] = {{"name", "waitroom"}, {"version", version}};
  return j.dump(2) + "\n";
}

std::string compare_csv(const std::string& compare_json) {
  return reports::compare_csv(nlohmann::json::parse(compare_json));
}

// `waitroom estimate --format json`: the closed form beside `replications` runs' interval.
std::string estimate(const std::string& text, const std::string& name, const std::string& base_dir,
                     std::optional<std::uint64_t> seed, std::uint32_t replications,
                     unsigned threads) {
  models::scenario s = checked(text, name, base_dir);
  s.seed = seed.value_or(s.seed);
  at_least_two(replications);
  py::gil_scoped_release unlocked;
  const unsigned t = threads_or_cores(threads);
  const auto rs = models::replicate(s, s.seed, replications, t);
  const auto est = models::analytic_for(s);
  return reports::estimate_json(s, est, replications, reports::estimate_rows(s, rs, est));
}

// A grid's axis from Python: a pointer and a "LO:HI[:STEP]" range or the values themselves.
using axis_spec = std::pair<std::string, std::variant<std::string, std::vector<double>>>;

std::vector<models::planning::axis> grid_axes(const std::vector<axis_spec>& specs,
                                              const models::scenario& base, const char* arg) {
  std::vector<models::planning::axis> axes;
  for (const auto& [pointer, range] : specs) {
    const std::string where = std::string(arg) + " " + pointer;
    if (pointer.empty() || pointer[0] != '/')
      throw sim::input_error(where, "a JSON pointer", "'" + pointer + "'");
    if (const auto* text = std::get_if<std::string>(&range)) {
      axes.push_back(
          {pointer,
           models::planning::parse_range(*text, where, models::integer_knob(base, pointer)),
           where + "=" + *text});
      continue;
    }
    const auto& values = std::get<std::vector<double>>(range);
    if (values.empty() || values.size() > models::planning::max_axis_values)
      throw sim::input_error(where,
                             fmt::format("from 1 to {} values", models::planning::max_axis_values),
                             std::to_string(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values[i]))
        throw sim::input_error(where, "finite numbers", fmt::format("{}", values[i]));
      // Ascending, as a range's: the bisection and the plan's "from .. to" assume it.
      if (i > 0 && !(values[i] > values[i - 1]))
        throw sim::input_error(where, "values in ascending order, each once",
                               fmt::format("{} after {}", values[i], values[i - 1]));
    }
    axes.push_back({pointer, values, where});
  }
  const std::size_t total = models::planning::grid_size(axes);
  if (total > 100000)
    throw sim::input_error(arg, "at most 100,000 grid points", std::to_string(total));
  return axes;
}

// A grid point's scenario: the base's JSON with the point's assignments, validated. `stop`
// (Ctrl-C) ends the work at the next point.
models::point_loader python_loader(const std::string& text, const std::string& name,
                                   const std::string& base_dir, const std::atomic<bool>& stop) {
  return [=, &stop](const std::vector<std::string>& assignments) {
    if (stop) throw models::replications_stopped();
    nlohmann::json j = parse(text, name);
    for (const auto& a : assignments) models::apply_override(j, a);
    return models::parse_scenario(j, name, base_dir);
  };
}

// `waitroom sweep --format json`, its --csv and its table: every point of the grid of `axes`
// run `replications` times on the base's seed (or `seed`).
std::tuple<std::string, std::string, std::string> sweep(
    const std::string& text, const std::string& name, const std::string& base_dir,
    const std::vector<axis_spec>& specs, std::uint32_t replications,
    std::optional<std::uint64_t> seed, unsigned threads) {
  const models::scenario base = checked(text, name, base_dir);
  at_least_two(replications);
  if (specs.empty())
    throw sim::input_error("vary", "at least one {pointer: range or values}", "none");
  const auto axes = grid_axes(specs, base, "vary");
  std::tuple<std::string, std::string, std::string> out;
  py::gil_scoped_release unlocked;
  interruptible([&](const std::atomic<bool>& stop) {
    // A point keeps its own seed unless `seed` is given (an axis may be /seed itself).
    auto points = models::grid_points(axes, {}, python_loader(text, name, base_dir, stop), seed);
    for (auto& p : points)
      models::run_replications(p, replications, threads_or_cores(threads), &stop);
    out = {reports::sweep_json(axes, points, replications, version).dump(2) + "\n",
           reports::grid_csv(axes, points), reports::sweep_table(axes, points, replications)};
  });
  return out;
}

// `waitroom plan --format json`, its --csv and its table: one or two knobs over their ranges
// (`ties`: pointers set from the first knob, {pointer, EXPR in x}), each value run
// `replications` times (0: the sla block's), every value or with `search` the bisection's,
// and past the grid for a capacity knob that nowhere holds.
std::tuple<std::string, std::string, std::string, std::vector<double>> plan(
    const std::string& text, const std::string& name, const std::string& base_dir,
    const std::vector<axis_spec>& specs,
    const std::vector<std::pair<std::string, std::string>>& tie_specs, std::uint32_t replications,
    bool search, std::optional<std::uint64_t> seed, unsigned threads) {
  models::scenario base = checked(text, name, base_dir);
  if (!base.sla) throw sim::input_error(name + ": /sla", "an sla block to plan for", "none");
  if (specs.empty() || specs.size() > 2)
    throw sim::input_error("knobs", "one or two {pointer: range or values}",
                           std::to_string(specs.size()));
  if (replications == 1) at_least_two(replications);
  if (search && specs.size() != 1)
    throw sim::input_error("search", "one knob (the search bisects along it)",
                           std::to_string(specs.size()) + " knobs");
  auto axes = grid_axes(specs, base, "knobs");
  std::vector<models::grid_tie> ties;
  std::vector<std::string> tie_texts;
  for (const auto& [pointer, expr] : tie_specs) {
    if (pointer.empty() || pointer[0] != '/')
      throw sim::input_error("ties " + pointer, "a JSON pointer", "'" + pointer + "'");
    ties.push_back(
        {pointer, models::planning::parse_tie(expr, "ties " + pointer), "ties " + pointer});
    tie_texts.push_back(pointer + "=" + expr);
  }
  const std::uint32_t reps = replications ? replications : base.sla->replications;
  const std::uint64_t json_seed = seed.value_or(base.seed);
  std::tuple<std::string, std::string, std::string, std::vector<double>> out;
  py::gil_scoped_release unlocked;
  interruptible([&](const std::atomic<bool>& stop) {
    const auto load = python_loader(text, name, base_dir, stop);
    auto state =
        models::prepare_plan(std::move(axes), std::move(ties), std::move(base), reps, load, seed);
    models::plan_run how;
    how.threads = threads_or_cores(threads);
    how.stop = &stop;
    models::simulate_plan(state, search, load, seed, how);
    out = {reports::plan_json(state, json_seed, tie_texts, version).dump(2) + "\n",
           reports::plan_csv(state), reports::plan_text(state), models::plan_feasible(state)};
  });
  return out;
}

// The self-contained HTML report `--html` writes of a result (`source`: what it names).
std::string html(const std::string& result_json, const std::string& source) {
  return reports::html_report(nlohmann::json::parse(result_json), source, version);
}

std::string series_csv(const std::string& result_json) {
  return reports::queue_series_csv(nlohmann::json::parse(result_json));
}

std::string run_csv(const std::string& result_json) {
  return reports::run_csv(nlohmann::json::parse(result_json));
}

}  // namespace

}  // namespace waitroom::python

PYBIND11_MODULE(_waitroom, m) {
  using namespace waitroom::python;
  m.doc() = "waitroom's libraries (use the waitroom package, not this module)";
  m.attr("version") = std::string(version);
  // input_error -> waitroom.ScenarioError(message, where, expected, found), raised in Python.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const waitroom::sim::input_error& e) {
      const py::object error = py::module_::import("waitroom").attr("ScenarioError");
      PyErr_SetObject(error.ptr(), error(e.what(), e.where(), e.expected(), e.found()).ptr());
    }
  });
  m.def("validate", [](const std::string& text, const std::string& name,
                       const std::string& base_dir) { checked(text, name, base_dir); });
  m.def("parse",
        [](const std::string& text, const std::string& name) { return parse(text, name).dump(); });
  m.def("set", &with_override);
  m.def("unset", &without);
  m.def("run", &run);
  m.def("run_csv", &run_csv);
  m.def("series_csv", &series_csv);
  m.def("html", &html);
  m.def("estimate", &estimate);
  m.def("compare", &compare);
  m.def("compare_csv", &compare_csv);
  m.def("sweep", &sweep);
  m.def("plan", &plan);
  m.def("check", &check);
  m.def("check_csv", &check_csv);
}
