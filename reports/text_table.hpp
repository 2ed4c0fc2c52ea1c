#pragma once
// A report for people as rows of cells and lines of text, laid out afterwards: fixed-width
// for the terminal (fixed_width below), or another layout from the same cells, so every
// layout shows the same figures.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace waitroom::reports {

struct text_column {
  std::string head;
  std::size_t width = 0;  // on the terminal; a longer cell widens its line only
  bool left = false;      // names to the left, figures to the right
};

struct text_table {
  std::vector<text_column> columns;
  std::vector<std::vector<std::string>> rows;  // a cell per column
  std::string note;  // what the table shows, beside its head ("  (share of released users)")
};

// Lines of text (verbatim on the terminal: they carry their own line breaks), then a table.
struct report_part {
  std::string text;
  std::optional<text_table> table;
};
using report_parts = std::vector<report_part>;

// The terminal's layout: every cell padded to its column's width, one space apart, the head's
// line (and the note) first.
std::string fixed_width(const text_table& t);
std::string fixed_width(const report_parts& parts);

}  // namespace waitroom::reports
