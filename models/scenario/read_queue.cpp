// /queue: the score policy, the lists (and which users each receives) and temporary-VIP
// compensation.
#include "models/scenario/names.hpp"
#include "models/scenario/sections.hpp"

#include <algorithm>
#include <set>

namespace waitroom::models::section {

namespace {

// Names (of classes or SKUs) to indices, for /queue/lists/i/<key>.
template <class T>
std::vector<std::uint32_t> read_names(const object_reader& l, const std::string& key,
                                      const std::vector<T>& known, const std::string& what) {
  std::vector<std::uint32_t> out;
  if (!l.has(key)) return out;
  const json& cs = l.array(key, 1);
  for (std::size_t k = 0; k < cs.size(); ++k) {
    auto it = std::find_if(known.begin(), known.end(), [&](const T& t) {
      return cs[k].is_string() && t.name == cs[k].get<std::string>();
    });
    if (it == known.end()) l.fail_item(key, k, "the name of " + what, describe(cs[k]));
    out.push_back(static_cast<std::uint32_t>(it - known.begin()));
  }
  return out;
}

std::vector<list_spec> read_lists(const object_reader& q, const std::vector<user_class>& classes,
                                  const std::vector<sku_spec>& skus) {
  std::vector<list_spec> lists;
  if (!q.has("lists")) {
    list_spec all{"all", {}, {}, std::nullopt};
    for (std::uint32_t c = 0; c < classes.size(); ++c) all.classes.push_back(c);
    return {all};
  }
  const json& arr = q.array("lists", 1);
  if (arr.size() > 32) q.fail("lists", "at most 32 lists", std::to_string(arr.size()));
  std::vector<int> owner(classes.size(), -1);  // class-only lists: which list took a class
  std::set<std::string> names;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    object_reader l(arr[i], q.file(), q.pointer("lists") + "/" + std::to_string(i),
                    {"name", "classes", "skus", "max_wait_s"});
    list_spec ls;
    ls.name = l.name("name", std::nullopt);
    if (!names.insert(ls.name).second)
      l.fail("name", "a name not used by another list", "\"" + ls.name + "\" again");
    if (l.has("skus") && skus.empty())
      l.fail("skus", "no 'skus' here unless /skus lists them", l.raw("skus").dump());
    ls.classes = read_names(l, "classes", classes, "a class in /classes");
    ls.skus = read_names(l, "skus", skus, "a SKU in /skus");
    if (!l.has("skus") && !l.has("classes"))
      l.fail("classes", "'classes' or 'skus' (who goes into this list)", "neither");
    if (ls.skus.empty())
      for (std::size_t k = 0; k < ls.classes.size(); ++k) {
        std::uint32_t c = ls.classes[k];
        if (owner[c] >= 0)
          l.fail_item("classes", k, "a class in one list only",
                      "'" + classes[c].name + "', already in list " + std::to_string(owner[c]));
        owner[c] = static_cast<int>(i);
      }
    if (l.has("max_wait_s")) {
      if (i == 0)
        l.fail("max_wait_s", "no aging on the first list (there is no list above it)",
               l.raw("max_wait_s").dump());
      ls.max_wait_s = l.number("max_wait_s", std::nullopt, {0.0, max_seconds, true});
      refuse_below_clock_step(l, "max_wait_s", *ls.max_wait_s);
    }
    lists.push_back(std::move(ls));
  }
  return lists;
}

std::optional<compensation_spec> read_compensation(const object_reader& q,
                                                   const std::vector<user_class>& classes,
                                                   ordering order) {
  auto r = q.object("compensation", {"threshold_s", "offset_ms", "classes", "in_place"}, false);
  if (!r) return std::nullopt;
  if (order != ordering::offset)
    q.fail("compensation", "the offset policy (a credit is a score offset)",
           std::string("policy '") + to_string(order) + "'");
  compensation_spec c;
  c.threshold_s = r->number("threshold_s", 120.0, {0.0, max_seconds, true});
  refuse_below_clock_step(*r, "threshold_s", c.threshold_s);
  c.offset_ms = r->number("offset_ms", std::nullopt, {0.0, max_seconds * 1e3, true});
  c.in_place = r->boolean("in_place", false);
  c.eligible.assign(classes.size(), false);
  if (r->has("classes")) {
    const json& cs = r->array("classes", 1);
    for (std::size_t k = 0; k < cs.size(); ++k) {
      auto it = std::find_if(classes.begin(), classes.end(), [&](const user_class& uc) {
        return cs[k].is_string() && uc.name == cs[k].get<std::string>();
      });
      if (it == classes.end())
        r->fail_item("classes", k, "the name of a class in /classes", describe(cs[k]));
      c.eligible[static_cast<std::size_t>(it - classes.begin())] = true;
    }
  } else {  // by default, every class with a smaller offset than the credit gives
    for (std::size_t k = 0; k < classes.size(); ++k)
      c.eligible[k] = classes[k].offset_ms < c.offset_ms;
  }
  return c;
}

}  // namespace

// Each (class, SKU) goes to the first list that names its class (or no class) and its SKU
// (or no SKU). Every combination must have a list, and every list some combination.
std::vector<std::vector<std::uint32_t>> route_users(const object_reader& top,
                                                    const std::vector<user_class>& classes,
                                                    const std::vector<sku_spec>& skus,
                                                    const std::vector<list_spec>& lists) {
  const std::size_t nsku = std::max<std::size_t>(1, skus.size());
  std::vector<std::vector<std::uint32_t>> route(classes.size(), std::vector<std::uint32_t>(nsku));
  std::vector<bool> reached(lists.size(), false);
  auto has = [](const std::vector<std::uint32_t>& v, std::uint32_t x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  for (std::uint32_t c = 0; c < classes.size(); ++c)
    for (std::uint32_t k = 0; k < nsku; ++k) {
      std::optional<std::uint32_t> found;
      for (std::uint32_t l = 0; l < lists.size() && !found; ++l)
        if (has(lists[l].classes, c) && (skus.empty() || has(lists[l].skus, k))) found = l;
      if (!found) {
        std::string who = "class '" + classes[c].name + "'";
        if (!skus.empty()) who += " buying '" + skus[k].name + "'";
        throw sim::input_error(top.file() + ": /queue/lists", "a list for every user",
                               who + " in none");
      }
      route[c][k] = *found;
      reached[*found] = true;
    }
  for (std::size_t l = 0; l < lists.size(); ++l)
    if (!reached[l])
      throw sim::input_error(
          top.file() + ": /queue/lists/" + std::to_string(l), "a list that some users reach",
          "'" + lists[l].name + "': every user it names goes to an earlier list");
  return route;
}

score_policy read_policy(const object_reader& top, const std::vector<user_class>& classes,
                         const std::vector<sku_spec>& skus, std::vector<list_spec>& lists,
                         std::optional<compensation_spec>& compensation) {
  score_policy p;
  auto r =
      top.object("queue", {"policy", "time_unit", "score_noise", "lists", "compensation"}, false);
  lists = r ? read_lists(*r, classes, skus)
            : read_lists(object_reader(json::object(), top.file(), "/queue", {}), classes, skus);
  if (r) {
    p.order = read_enum<ordering>(*r, "policy", ordering::offset);
    p.unit = read_enum<time_unit>(*r, "time_unit", time_unit::ms);
    p.noise = r->number("score_noise", 0.0, {0.0, 1e12});
  }
  double ms_per_unit = score_policy::unit_ns(p.unit) / 1e6;
  for (const auto& c : classes) {
    p.offset_units.push_back(c.offset_ms / ms_per_unit);
    p.level.push_back(c.level);
  }
  if (r) compensation = read_compensation(*r, classes, p.order);
  if (compensation) {  // a credited visit scores as an extra class with the credit's offset
    p.offset_units.push_back(compensation->offset_ms / ms_per_unit);
    p.level.push_back(0.0);
  }
  return p;
}

}  // namespace waitroom::models::section
