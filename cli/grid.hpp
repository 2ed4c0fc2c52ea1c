#pragma once
// What `sweep` and `plan` share: a grid's points built from the axes (each a scenario loaded
// with the point's values), their replications run on common random numbers, and the grid's
// shard files and their merge.
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/planning/grid.hpp"
#include "models/run/grid_run.hpp"
#include "models/scenario/scenario.hpp"
#include "options.hpp"
#include "shard_format.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

using models::planning::axis;
using point_result = models::planning::grid_point;
using tie_list = std::vector<models::grid_tie>;  // --tie: pointers set from the first knob

// Loads a grid point's scenario as `load` loads the command's, the point's values set after
// every --set.
models::point_loader point_loader(const common_args& a);
// Runs this shard's replications of grid point i.
void run_point(const common_args& a, point_result& p, std::size_t i, std::uint32_t replications,
               shard_spec shard);
// Builds every point of the grid (the cartesian product of the axes, first axis outermost)
// and, when `run`, runs this shard's replications of each.
std::vector<point_result> run_grid(const common_args& a, const std::vector<axis>& axes,
                                   const tie_list& ties, std::uint32_t replications,
                                   shard_spec shard, bool run);
using models::integer_knob;
// The content hash of a plan's (or sweep's) base scenario, seed applied.
std::string base_hash(const common_args& a, models::scenario base);

// A grid's shard file (sweep or plan): its (point, replication) units K, K + N, ..., numbered
// point-major, with the tables run_grid or run_point filled in; `args` rebuild the grid.
int write_grid_shard(const common_args& a, const char* command, shard_spec shard,
                     nlohmann::json args, const models::scenario& base,
                     const std::vector<point_result>& points, std::uint32_t reps);

// One of the arguments a sweep's or plan's shards recorded (check_shard_set found them equal
// in every shard, so the first one's stand for all), or input_error naming its JSON path.
class shard_args {
 public:
  shard_args(const std::string& path, const nlohmann::json& shard);
  bool has(const char* key) const { return args_->contains(key); }
  const nlohmann::json& at(const char* key) const;
  std::string text(const char* key) const;
  std::vector<std::string> texts(const char* key) const;
  template <class T>
  T number(const char* key) const {
    try {
      return whole<T>(at(key));
    } catch (const shard_fault&) {
      throw sim::input_error(where(key),
                             fmt::format("a whole number up to {}", std::numeric_limits<T>::max()),
                             at(key).dump());
    }
  }
  // The seed: a whole number, or null when --seed was not given.
  std::optional<std::uint64_t> seed() const;

 private:
  std::string where(const char* key) const { return path_ + ": /args/" + key; }
  std::string path_;
  const nlohmann::json* args_ = nullptr;
};

// `merge` of a grid's shards (`command`: "sweep" or "plan"): refuses --junit (the writer
// refuses --format csv), then gives m with the scenario, --set and --seed the shards recorded;
// `own` reads the command's other arguments (after the sets, before the seed, as the shards
// list them).
common_args grid_merge_args(const common_args& m, const std::vector<std::string>& paths,
                            const std::vector<nlohmann::json>& shards, const char* command,
                            const std::function<void(const shard_args&, common_args&)>& own);
// Every shard's hash against the base scenario as it is now.
void check_base_hash(const std::vector<std::string>& paths,
                     const std::vector<nlohmann::json>& shards, const std::string& scenario_file,
                     const std::string& ours);
// The points' tables from the shards' units (point, replication, table), each exactly once,
// then every shard's content hash.
void fill_from_shards(const std::vector<std::string>& paths,
                      const std::vector<nlohmann::json>& shards, std::vector<point_result>& points,
                      std::uint32_t reps);

}  // namespace waitroom::cli
