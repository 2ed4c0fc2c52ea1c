#pragma once
// What the commands share: argument parsing, loading a scenario (file or the embedded
// default) with --set overrides, the thread count, and atomic output files.
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "memory_check.hpp"
#include "models/scenario/scenario.hpp"
#include "output_file.hpp"

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
  // --set /P=V and --unset /P in command-line order; an --unset is kept as unset_prefix + /P
  // (a --set value always starts with '/'), so shard files record both.
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> out;
  std::optional<std::string> format;
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

enum class command_kind { run, validate, check, compare, estimate, sweep, plan, merge };

// `waitroom COMMAND --help`: parse_args throws it with the command's usage and every option it
// accepts; main prints it and exits 0.
struct help_requested : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --threads: more than this is a typo (and more threads than the system allows).
inline constexpr std::uint64_t max_threads = 1024;

// --replications when given (at least 2: the commands that call this report intervals), else
// `fallback`.
std::uint32_t replications_or(const common_args& a, std::uint32_t fallback);

// Every argument must be UTF-8: results echo them (flags, file paths) into JSON, whose text is
// UTF-8. Throws input_error naming the flag the argument belongs to (or its position).
void check_arguments_utf8(const std::vector<std::string>& args);
common_args parse_args(const std::string& command, const std::vector<std::string>& args,
                       command_kind kind);
models::scenario load(const common_args& a, std::optional<std::string> path);
// The files a command will write (--out, --html, --series, --trace, --junit, --csv).
std::vector<named_path> outputs_of(const common_args& a);
// A scenario file as load() read it (each file is read once per process, so a shard records
// exactly what it ran).
const scenario_source& source_of(const std::string& path);
unsigned threads_or_cores(unsigned t);
// Writes to a temporary file beside the target and renames it, so a failed run never
// leaves a half-written result behind.
bool write_atomically(const std::string& path, const std::string& text);

// "[k/N] 42% ETA 12s" on stderr for long work (run --replications, sweep, plan, check), never
// with --quiet: on a terminal one line redrawn once the work has taken a second; otherwise (a
// CI log) a whole line every 10 s (WAITROOM_PROGRESS_S), so a long job shows it is alive.
// step() and advance() may be called from several threads.
class progress {
 public:
  progress(std::size_t total, bool quiet, std::string label = {});
  ~progress();
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;
  void step(std::size_t done);
  void advance();
  // A single run's line (its simulated time, users waiting), redrawn at most 4 times a
  // second once the run has taken 2 s; the destructor ends the line.
  void status(const std::string& text);

 private:
  // Whether a log line is due now (and the time it was last written, updated).
  bool heartbeat_due(std::chrono::steady_clock::time_point now);
  static std::chrono::duration<double> heartbeat_every();  // 10 s, or WAITROOM_PROGRESS_S
  std::size_t total_;
  bool on_;
  bool terminal_;
  bool shown_ = false;
  std::string label_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
  std::mutex mutex_;
};
// The result to --out (atomically) or to stdout; returns the exit code.
int write_or_print(const common_args& a, const std::string& text);

}  // namespace waitroom::cli
