#include "reports/markdown_report.hpp"

#include <algorithm>

namespace waitroom::reports {

namespace {

// A cell's text: '|' would end the cell, a line break the row.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string row(const std::vector<std::string>& cells) {
  // Appended piece by piece: gcc 12's -Wrestrict misfires on char* + string&&.
  std::string out = "|";
  for (const auto& c : cells) {
    out += ' ';
    out += cell(c);
    out += " |";
  }
  out += '\n';
  return out;
}

// Text without the blank lines around it that spaced it on the terminal.
std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of('\n');
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of('\n') - first + 1);
}

}  // namespace

std::string markdown(const text_table& t) {
  std::vector<std::string> heads, rule;
  for (const auto& c : t.columns) {
    heads.push_back(c.head);
    rule.push_back(c.left ? ":---" : "---:");
  }
  std::string out;
  if (const auto note = trimmed(t.note); !note.empty())
    out += note.substr(note.find_first_not_of(' ')) + "\n\n";
  out += row(heads);
  std::string delimiter = "|";
  for (const auto& r : rule) {
    delimiter += ' ';
    delimiter += r;
    delimiter += " |";
  }
  out += delimiter + "\n";
  for (const auto& r : t.rows) out += row(r);
  return out;
}

std::string markdown(const report_parts& parts) {
  std::vector<std::string> blocks;
  for (const auto& p : parts) {
    if (auto text = trimmed(p.text); !text.empty()) blocks.push_back(text + "\n");
    if (p.table) blocks.push_back(markdown(*p.table));
  }
  std::string out;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (i > 0) out += '\n';
    out += blocks[i];
  }
  return out;
}

std::string result_markdown(const models::scenario& s, const models::room_result& r) {
  return markdown(result_parts(s, r));
}

std::string replications_markdown(const models::scenario& s, const models::replication_digest& d,
                                  double level) {
  return markdown(replications_parts(s, d, level));
}

std::string replications_markdown(const models::scenario& s,
                                  const std::vector<replication_summary>& rs, double level) {
  return markdown(replications_parts(s, rs, level));
}

std::string compare_markdown(const nlohmann::json& comparison) {
  return markdown(compare_parts(comparison));
}

std::string sla_markdown(const models::scenario& s,
                         const std::vector<models::sla_outcome>& outcomes, double level) {
  const sla_rows rows = sla_table_rows(s, outcomes, level);
  const bool reasons = std::any_of(rows.rows.begin(), rows.rows.end(),
                                   [](const sla_row& r) { return !r.reason.empty(); });
  text_table t{{{"verdict", 0, true}, {"target", 0, true}, {"measured", 0, false}}, {}, {}};
  if (reasons) t.columns.push_back({"why", 0, true});
  for (const auto& r : rows.rows) {
    std::vector<std::string> cells{r.verdict, r.target,
                                   r.measured.empty() ? "no data" : r.measured};
    if (reasons) cells.push_back(r.reason);
    t.rows.push_back(std::move(cells));
  }
  return markdown(report_parts{{rows.title + "\n", std::move(t)}});
}

}  // namespace waitroom::reports
