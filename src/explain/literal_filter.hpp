#pragma once
// A multi-string prefilter with skips (Wu and Manber, "A fast algorithm for multi-pattern
// searching", 1994): does any of a set of literals occur in a text, ASCII case ignored? Most of a
// training log holds none of the signatures' required literals; the filter skips it several bytes
// at a time, where a regex automaton must read every byte.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::explain {

class LiteralFilter {
 public:
  // Literals shorter than 3 bytes cannot be filtered: with one, every text may match.
  explicit LiteralFilter(const std::vector<std::string>& literals);
  bool any_in(std::string_view text) const;
  bool filters() const { return usable_; }

 private:
  static std::uint16_t block(const unsigned char* p);
  bool usable_ = false;
  size_t m_ = 0;                                       // the shortest literal's length
  std::vector<std::string> literals_;                  // lower case
  std::vector<std::uint8_t> shift_;                    // by the 3-byte block ending the window
  std::vector<std::vector<std::uint32_t>> by_suffix_;  // literals whose m-prefix ends there
};

}  // namespace gpuvet::explain
