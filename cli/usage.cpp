// `waitroom --help`: every command, the common options, examples and exit codes.
#include <string_view>

#include "commands.hpp"

namespace waitroom::cli {

namespace {

constexpr std::string_view usage_text =
    R"(waitroom - simulate virtual waiting rooms with VIP priority

usage:
  waitroom run [SCENARIO] [--seed N] [--set /json/pointer=value ...]
               [--out FILE] [--format table|json|csv|markdown] [--series FILE] [--html FILE]
               [--replications R] [--threads T] [--quiet] [--shard K/N]
               [--trace FILE [--trace-from S] [--trace-to S] [--trace-users N,N]]
  waitroom check SCENARIO... [--junit FILE] [--format table|json|csv|markdown] [--out FILE]
               [--html FILE] [--seed N] [--threads T] [--set ...] [--quiet]
               [--shard K/N --out FILE] [--redis URL [--redis-keep]]
  waitroom compare SCENARIO --variant NAME:/pointer=value[,/pointer=value] ...
               [--replications R] [--seed N] [--format table|json|csv|markdown] [--out FILE]
               [--html FILE] [--redis URL [--redis-keep]]
  waitroom sweep SCENARIO --vary /pointer=START:STOP[:STEP] ... [--replications R]
               [--format table|json] [--out FILE] [--csv FILE] [--html FILE] [--quiet]
               [--shard K/N]
  waitroom merge SHARD_FILE... [--out FILE] [--csv FILE] [--html FILE]
               [--format table|json|csv|markdown] [--junit FILE]
  waitroom load SCENARIO --redis URL [--speed X|asap|max] [--clients K] [--threads T]
               [--duration S]
  waitroom plan SCENARIO --knob /pointer --range LO:HI[:STEP] [--knob ... --range ...]
               [--tie /pointer=EXPR] [--search] [--format table|json] [--out FILE]
               [--csv FILE] [--html FILE] [--set ...] [--seed N] [--replications R]
               [--shard K/N --out FILE]
  waitroom report RESULT.json [--out report.html]
  waitroom estimate SCENARIO [--replications R] [--seed N] [--threads T]
               [--format table|json] [--out FILE]
  waitroom validate SCENARIO [--set /json/pointer=value ...]
  waitroom import cloudflare ROOM.json --arrivals FILE [--event FILE] [--out FILE]
  waitroom fit LOG [--out SCENARIO.json] [--format table|json|markdown] [--time-unit s|ms]
  waitroom COMMAND --help     every option of one command
  waitroom --help | --version

commands:
  run        simulate SCENARIO (a JSON file; without one, the embedded concert
             presale) and print per-class wait-time distributions
  check      run each SCENARIO's "sla" block (its replications, in parallel) and
             exit 1 when a target fails: a target holds only when its whole
             confidence interval is within the limit
  compare    run SCENARIO and each variant on common random numbers (default 10
             replications) and show paired differences with intervals
  sweep      a grid over any JSON pointers; per point and class, mean, p95 and
             refused share with intervals, and whether the SLA holds (JSON, CSV)
  merge      combine the files of `run`, `check`, `sweep` or `plan --shard K/N` (K = 0..N-1,
             one process each: a job array) into exactly what the unsharded command
             writes; shards of another scenario content are refused (exit 2)
  plan       search knobs for the settings where every SLA of the scenario holds
             (on confidence bounds): for one knob the feasible range and the Pareto
             front of the first two classes' waits, for two the feasible region.
             --tie sets another pointer from the first knob x (e.g. 30-x)
  estimate   the closed form that matches SCENARIO (Erlang C, Pollaczek-Khinchine,
             Cobham, Erlang-A, tick-release chains, G/M/1) beside the simulated
             mean waits with their intervals
  report     render a saved JSON result of run, compare, sweep/merge, plan or
             check as one self-contained HTML page with charts (opens offline)
  validate   check SCENARIO and print the effective scenario as JSON
  import     a Cloudflare waiting room's JSON as a scenario (docs/products.md)
  fit        a scenario fitted to last event's log (arrivals, shares, patience with
             censoring, service, release rate), each figure with its interval
             (docs/calibration.md)

options:
  --seed N         random seed (overrides the scenario's "seed")
  --set P=V        set the value at JSON pointer P before validation; V is JSON,
                   or a plain string: --set /release/batch=500 --set /queue/policy=fifo
  --unset P        remove the key at JSON pointer P (null is not a value: --set P=null
                   is refused); --set and --unset apply in the order given
  --scale-arrivals F every arrival rate and the backlog times F ("what if 2x the
                   traffic"); CLASS=F one class's, its share following
  --out FILE       write the result to FILE (JSON unless --format table); the
                   file appears only when the run succeeded
  --format F       table (default without --out), json (default with --out), and
                   csv or markdown for run, compare and check
  --html FILE      also write the result as a self-contained HTML report with charts
  --replications R independent replications with 95% t intervals for every
                   statistic; the same for any --threads (default: one per core)
  --junit FILE     check: also write JUnit XML for CI systems
  --shard K/N      run (with --replications), check, sweep, plan: run every N-th
                   unit from K and write a shard file for `waitroom merge`
  --vary, --range  START:STOP[:STEP]; STEP defaults to (STOP - START) / 20 (a whole
                   number for an integer knob); at most 10,000 values
  --max-events N   allow a run estimated at more than N events (default 1e10)
  --quiet          no progress line (redrawn on a terminal, a line every 10 s in a
                   log, for long runs, run --replications, sweep, plan and check)
  --trace FILE     run: every state change as JSON Lines (time, user, token, class,
                   action, list, queue length), within --trace-from/--trace-to
                   seconds and for --trace-users serials when given

examples:
  waitroom run
  waitroom run scenarios/clinic.json --set /release/batch=8 --format json
  waitroom run scenarios/mmc_validation.json --seed 7 --out result.json
  waitroom run scenarios/concert_polling.json --html out/polling.html
  waitroom report result.json --out result.html
  waitroom run scenarios/clinic_ratio.json --replications 20
  waitroom check scenarios/clinic_ratio.json --junit sla.xml
  waitroom compare scenarios/clinic_ratio.json \
      --variant 15to15:/release/selection/weights=[15,15]
  waitroom plan scenarios/clinic_ratio_plan.json --knob /release/selection/weights/0 \
      --range 1:29:1 --tie /release/selection/weights/1=30-x
  waitroom validate scenarios/concert_presale.json

exit codes:
  0 success   1 an SLA failed (check)   2 bad input (arguments, scenario, trace)
  3 internal error   4 an output file could not be written
  5 Redis answered differently from the model   6 Redis failed (unreachable,
  refused, wrong password, OOM, script error, key of the wrong type); docs/redis.md
)";

}  // namespace

std::string usage() {
  return std::string(usage_text);
}

}  // namespace waitroom::cli
