#pragma once
// The command line the commands share (run, validate, check, compare, estimate, sweep, plan,
// merge): every option with its --help text, read into common_args and checked before any work.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memory_check.hpp"
#include "output_file.hpp"
#include "reports/output_format.hpp"

namespace waitroom::cli {

// A scenario file's JSON as read (before --set) and the directory it was in (absolute).
struct scenario_source {
  nlohmann::json json;
  std::string dir;
};

struct common_args {
  std::optional<std::string> scenario_path;
  std::vector<std::string> scenario_paths;  // check takes several
  std::uint32_t replications = 1;
  bool replications_given = false;  // --replications was on the command line
  unsigned threads = 0;             // 0: one per core
  std::optional<std::string> junit;
  std::vector<std::string> variants;  // compare: NAME:/pointer=value[,/pointer=value...]
  // --set /P=V, --unset /P and --scale-arrivals in command-line order; an --unset is kept as
  // unset_prefix + /P (a --set value always starts with '/'), a scale likewise.
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> out;
  std::optional<reports::output_format> format;
  std::optional<std::string> html;    // a self-contained HTML report of the result
  std::optional<std::string> series;  // run: the queue-length samples as CSV
  std::vector<std::string> vary;      // sweep: /pointer=START:STOP:STEP
  std::vector<std::string> knobs;     // plan: /pointer
  std::vector<std::string> ranges;    // plan: LO:HI[:STEP], one per knob
  std::vector<std::string> ties;      // plan: /pointer=EXPR in x (the first knob)
  std::optional<std::string> csv;
  bool quiet = false;
  bool search = false;                     // plan: bisect from the closed form's first guess
  std::optional<std::string> shard;        // run, check, sweep: K/N
  std::optional<std::string> trace;        // run: JSON Lines file
  double max_events = default_max_events;  // --max-events: the most a run may be estimated at
  std::optional<double> trace_from, trace_to;
  std::optional<std::string> trace_users;
  // merge: the scenario files' JSON as the shards recorded it, by path, with the directory
  // a relative trace file is read from; load() takes a scenario from here before the disk.
  std::map<std::string, scenario_source> embedded;
};

inline constexpr std::string_view unset_prefix = "--unset ";
// --scale-arrivals F or CLASS=F, kept in `sets` in order (so shard files record it) after this.
inline constexpr std::string_view scale_prefix = "--scale-arrivals ";

enum class command_kind { run, validate, check, compare, estimate, sweep, plan, merge };

// `waitroom COMMAND --help`: parse_args throws it with the command's usage and every option it
// accepts; main prints it and exits 0.
struct help_requested : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --threads: more than this is a typo (and more threads than the system allows).
inline constexpr std::uint64_t max_threads = 1024;
// A flag's whole number from min to max (digits only: "-1" is refused, not wrapped around),
// else input_error naming the flag.
std::uint64_t whole_number(const std::string& text, const std::string& flag, std::uint64_t min,
                           std::uint64_t max);

// --replications when given (at least 2: the commands that call this report intervals), else
// `fallback`.
std::uint32_t replications_or(const common_args& a, std::uint32_t fallback);

// Every argument must be UTF-8: results echo them (flags, file paths) into JSON, whose text is
// UTF-8. Throws input_error naming the flag the argument belongs to (or its position).
void check_arguments_utf8(const std::vector<std::string>& args);
common_args parse_args(const std::string& command, const std::vector<std::string>& args,
                       command_kind kind);
// The files a command will write (--out, --html, --series, --trace, --junit, --csv).
std::vector<named_path> outputs_of(const common_args& a);
unsigned threads_or_cores(unsigned t);

}  // namespace waitroom::cli
