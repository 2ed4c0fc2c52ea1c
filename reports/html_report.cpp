#include "html_report.hpp"

#include <string_view>

#include "reports/markup_escape.hpp"
#include "sim/input_error.hpp"

namespace waitroom::reports {

namespace assets {
extern const std::string_view uplot_js, uplot_css, report_js, report_css, uplot_version;
}  // namespace assets

namespace {

using nlohmann::json;

bool has(const json& j, const char* key) {
  return j.is_object() && j.contains(key);
}

// JSON inside <script type="application/json">: a '<' could end the element ("</script>"), so
// every one is written as the JSON escape \u003c, which JSON.parse reads back as '<'.
std::string script_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

std::string html_escape(std::string_view text) {
  return markup_escape(text);
}

std::string scenario_name(const json& result) {
  for (const json* s :
       {&result, result.is_object() && result.contains("variants") &&
                         result["variants"].is_array() && !result["variants"].empty()
                     ? &result["variants"][0]
                     : &result}) {
    if (has(*s, "scenario") && has((*s)["scenario"], "name") &&
        (*s)["scenario"]["name"].is_string())
      return (*s)["scenario"]["name"].get<std::string>();
  }
  if (has(result, "scenario_name") && result["scenario_name"].is_string())
    return result["scenario_name"].get<std::string>();
  return "";
}

}  // namespace

std::string_view chart_library_version() {
  std::string_view v = assets::uplot_version;
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
  return v;
}

std::string result_kind(const json& r, const std::string& source) {
  if (has(r, "kind") && r["kind"].is_string()) {
    std::string k = r["kind"].get<std::string>();
    if (k == "plan" || k == "check" || k == "sweep" || k == "fit") return k;
  }
  if (has(r, "variants") && r["variants"].is_array()) return "compare";
  if (has(r, "points") && r["points"].is_array()) return "sweep";
  if (has(r, "per_replication") && has(r, "classes")) return "replications";
  if (has(r, "run") && has(r, "classes") && has(r, "overall")) return "run";
  if (has(r, "waitroom_shard"))
    throw sim::input_error(
        source, "a complete result (merge the shard files first)",
        "a shard file of " + (has(r, "command") && r["command"].is_string()
                                  ? "`waitroom " + r["command"].get<std::string>() + " --shard K/N`"
                                  : std::string("a sharded command")));
  throw sim::input_error(source,
                         "the JSON result of waitroom run, run --replications, compare, sweep, "
                         "merge, plan, check or fit",
                         "JSON of another shape");
}

std::string html_report(const json& result, const std::string& source,
                        std::string_view tool_version) {
  const std::string kind = result_kind(result, source);
  json data{{"kind", kind},
            {"source", source},
            {"report_tool_version", tool_version},
            {"chart_library", "uPlot " + std::string(chart_library_version())},
            {"result", result}};
  std::string name = scenario_name(result);
  std::string title = "waitroom " + kind + (name.empty() ? "" : ": " + name);
  std::string page;
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Everything is inline: the policy stops any request (fonts, images, scripts) leaving the page.
  page +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += "<title>" + html_escape(title) + "</title>\n<style>\n";
  page += assets::uplot_css;
  page += "\n";
  page += assets::report_css;
  page += "</style>\n</head>\n<body>\n<main id=\"report\"><h1>" + html_escape(title) +
          "</h1><noscript>This report draws its charts with JavaScript.</noscript></main>\n";
  page += "<script type=\"application/json\" id=\"waitroom-data\">";
  page += script_safe(data.dump());
  page += "</script>\n<script>\n";
  page += assets::uplot_js;
  page += "\n</script>\n<script>\n";
  page += assets::report_js;
  page += "\n</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace waitroom::reports
