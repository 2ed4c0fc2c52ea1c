// /classes and /skus: who arrives, in what shares, and what they come to buy.
#include "models/scenario/sections.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace waitroom::models::section {

std::vector<user_class> read_classes(const object_reader& top) {
  const json& arr = top.array("classes", 1);
  std::vector<user_class> out;
  std::set<std::string> names;
  if (arr.size() > 127) top.fail("classes", "at most 127 classes", std::to_string(arr.size()));
  for (std::size_t i = 0; i < arr.size(); ++i) {
    object_reader c(arr[i], top.file(), top.pointer("classes") + "/" + std::to_string(i),
                    {"name", "share", "level", "offset_ms", "patience_s", "pay_later_probability"});
    user_class u;
    u.name = c.name("name", std::nullopt);
    if (u.name.empty() || u.name.find_first_of(",\n\r") != std::string::npos ||
        std::any_of(u.name.begin(), u.name.end(),
                    [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; }))
      c.fail("name", "a non-empty name without commas, newlines or control characters",
             describe(json(u.name)));
    if (!names.insert(u.name).second)
      c.fail("name", "a name not used by another class", "\"" + u.name + "\" again");
    // "all" is everyone in reports and SLA targets: only a lone class (which is everyone)
    // may be called that.
    if (u.name == "all" && arr.size() > 1)
      c.fail("name",
             "a name other than 'all' when there are several classes ('all' is every class in "
             "reports and sla targets)",
             "\"all\"");
    u.share =
        c.number("share", arr.size() == 1 ? std::optional<double>(1.0) : std::nullopt, {0.0, 1.0});
    u.level = c.number("level", static_cast<double>(i), {0.0, 899.0});
    u.offset_ms = c.number("offset_ms", 0.0, {0.0, max_seconds * 1e3});
    if (c.has("patience_s")) u.patience_s = read_distribution(c, "patience_s");
    u.pay_later_probability = c.number("pay_later_probability", 0.0, {0.0, 1.0});
    if (u.pay_later_probability > 0 && !u.patience_s)
      c.fail("pay_later_probability", "a patience_s (only users who give up can pay later)",
             "no patience_s");
    out.push_back(u);
  }
  double total = 0;
  for (const auto& u : out) total += u.share;
  if (std::abs(total - 1.0) > 1e-9)
    top.fail("classes", "class shares that sum to 1", fmt::format("a sum of {:.9g}", total));
  return out;
}

std::vector<sku_spec> read_skus(const object_reader& top) {
  if (!top.has("skus")) return {};
  const json& arr = top.array("skus", 1);
  std::vector<sku_spec> out;
  std::set<std::string> names;
  double total = 0;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    object_reader k(arr[i], top.file(), top.pointer("skus") + "/" + std::to_string(i),
                    {"name", "share"});
    sku_spec sk{
        k.name("name", std::nullopt),
        k.number("share", arr.size() == 1 ? std::optional<double>(1.0) : std::nullopt, {0.0, 1.0})};
    if (!names.insert(sk.name).second)
      k.fail("name", "a name not used by another SKU", "\"" + sk.name + "\" again");
    total += sk.share;
    out.push_back(sk);
  }
  if (std::abs(total - 1.0) > 1e-9)
    top.fail("skus", "SKU shares that sum to 1", fmt::format("a sum of {:.9g}", total));
  return out;
}

}  // namespace waitroom::models::section
