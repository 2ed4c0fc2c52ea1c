#pragma once
// A problem with what the user gave us: names where (file, JSON pointer or line), what was
// expected and what was found. The CLI turns it into exit code 2.
#include <stdexcept>
#include <string>

namespace waitroom::sim {

class input_error : public std::runtime_error {
 public:
  input_error(std::string where, std::string expected, std::string found, std::string hint = {})
      : std::runtime_error(compose(where, expected, found, hint)),
        where_(std::move(where)),
        expected_(std::move(expected)),
        found_(std::move(found)) {}

  const std::string& where() const { return where_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }

 private:
  static std::string compose(const std::string& where, const std::string& expected,
                             const std::string& found, const std::string& hint) {
    std::string s = where + ": expected " + expected + ", found " + found;
    if (!hint.empty()) s += " (" + hint + ")";
    return s;
  }
  std::string where_, expected_, found_;
};

}  // namespace waitroom::sim
