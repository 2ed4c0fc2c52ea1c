#include "reports/text_table.hpp"

#include <fmt/format.h>

namespace waitroom::reports {

namespace {

std::string line(const std::vector<text_column>& columns, const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ' ';
    const std::string& cell = i < cells.size() ? cells[i] : std::string();
    out += columns[i].left ? fmt::format("{:<{}}", cell, columns[i].width)
                           : fmt::format("{:>{}}", cell, columns[i].width);
  }
  return out;
}

}  // namespace

std::string fixed_width(const text_table& t) {
  std::vector<std::string> heads;
  for (const auto& c : t.columns) heads.push_back(c.head);
  std::string out = line(t.columns, heads) + t.note + "\n";
  for (const auto& row : t.rows) {
    std::string l = line(t.columns, row);
    l.erase(l.find_last_not_of(' ') + 1);  // a blank last cell leaves no trailing spaces
    out += l + "\n";
  }
  return out;
}

std::string fixed_width(const report_parts& parts) {
  std::string out;
  for (const auto& p : parts) {
    out += p.text;
    if (p.table) out += fixed_width(*p.table);
  }
  return out;
}

}  // namespace waitroom::reports
