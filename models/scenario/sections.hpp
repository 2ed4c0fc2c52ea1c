#pragma once
// The scenario's section readers, one file each (read_<section>.cpp), called in order by
// parse_scenario (scenario.cpp); internal to models/scenario. Each throws sim::input_error
// naming the file, the JSON pointer, what was expected and what was found.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/json/distribution_json.hpp"
#include "models/json/json_reader.hpp"
#include "models/scenario/scenario.hpp"
#include "sim/time.hpp"

namespace waitroom::models::section {

inline constexpr double max_seconds = sim::max_input_seconds;
inline constexpr std::int64_t max_users = std::int64_t{1} << 31;
inline constexpr double max_samples = 1e7;  // queue-length samples a run may record

// read_classes.cpp
std::vector<user_class> read_classes(const object_reader& top);
std::vector<sku_spec> read_skus(const object_reader& top);

// read_arrivals.cpp
arrival_spec read_arrivals(const object_reader& top, const std::vector<std::string>& class_names,
                           const std::string& base_dir);

// read_queue.cpp: the policy, and into `lists` and `compensation` those parts of /queue.
score_policy read_policy(const object_reader& top, const std::vector<user_class>& classes,
                         const std::vector<sku_spec>& skus, std::vector<list_spec>& lists,
                         std::optional<compensation_spec>& compensation);
std::vector<std::vector<std::uint32_t>> route_users(const object_reader& top,
                                                    const std::vector<user_class>& classes,
                                                    const std::vector<sku_spec>& skus,
                                                    const std::vector<list_spec>& lists);

// read_release.cpp
release_spec read_release(const object_reader& top, const std::vector<user_class>& classes,
                          const std::vector<list_spec>& lists);

// read_backend.cpp
std::optional<backend_spec> read_backend(const object_reader& top, bool tick);
std::optional<admission_spec> read_admission(const object_reader& top);

// read_polling.cpp
std::optional<polling_spec> read_polling(const object_reader& top);

// read_run.cpp
run_spec read_run(const object_reader& top, const arrival_spec& arrivals);
std::optional<returns_spec> read_returns(const object_reader& top);

// read_sla.cpp
std::optional<sla_spec> read_sla(const object_reader& top, const std::vector<user_class>& classes,
                                 bool polling, bool backend);

// check_clock.cpp: release rates that cannot release the certain users within the clock's
// range (about 292 years) without a horizon, refused naming the key.
void refuse_beyond_clock(const scenario& s, const std::string& file);
// check_clock.cpp: `seconds`, read from `key` (above 0), must be at least 1 ns once rounded to
// the clock: 0 ns would make a period reschedule its event at the same instant forever.
void refuse_below_clock_step(const object_reader& r, const std::string& key, double seconds);

}  // namespace waitroom::models::section
