#include "explain/literal_filter.hpp"

#include <algorithm>

namespace gpuvet::explain {

namespace {

unsigned char fold(unsigned char c) {
  return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

}  // namespace

// A hash of the 3-byte block ending the window: trigrams of English words collide far less
// often with a log's text than bigrams, so the window moves further.
std::uint16_t LiteralFilter::block(const unsigned char* p) {
  return static_cast<std::uint16_t>((fold(p[0]) << 10) ^ (fold(p[1]) << 5) ^ fold(p[2]));
}

LiteralFilter::LiteralFilter(const std::vector<std::string>& literals) {
  for (const auto& literal : literals) {
    std::string lower;
    for (const char c : literal)
      lower.push_back(static_cast<char>(fold(static_cast<unsigned char>(c))));
    if (lower.size() < 3) return;  // cannot filter
    literals_.push_back(std::move(lower));
  }
  if (literals_.empty()) return;
  m_ = std::min_element(literals_.begin(), literals_.end(), [](const auto& a, const auto& b) {
         return a.size() < b.size();
       })->size();
  const size_t max_shift = std::min<size_t>(m_ - 2, 255);
  shift_.assign(1 << 16, static_cast<std::uint8_t>(max_shift));
  by_suffix_.assign(1 << 16, {});
  // Over each literal's first m bytes: a block starting at offset q may shift m-3-q.
  for (std::uint32_t id = 0; id < literals_.size(); ++id) {
    const auto* lit = reinterpret_cast<const unsigned char*>(literals_[id].data());
    for (size_t q = 0; q + 2 < m_; ++q) {
      const auto h = block(lit + q);
      const size_t shift = m_ - 3 - q;
      if (shift < shift_[h]) shift_[h] = static_cast<std::uint8_t>(shift);
    }
    by_suffix_[block(lit + m_ - 3)].push_back(id);
  }
  usable_ = true;
}

bool LiteralFilter::any_in(std::string_view text) const {
  if (!usable_) return true;
  if (text.size() < m_) return false;
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  size_t pos = m_ - 1;  // the window's last byte
  while (pos < text.size()) {
    const auto h = block(data + pos - 2);
    const std::uint8_t shift = shift_[h];
    if (shift != 0) {
      pos += shift;
      continue;
    }
    const size_t start = pos + 1 - m_;
    for (const std::uint32_t id : by_suffix_[h]) {
      const std::string& lit = literals_[id];
      if (start + lit.size() > text.size()) continue;
      size_t i = 0;
      while (i < lit.size() && fold(data[start + i]) == static_cast<unsigned char>(lit[i]))
        ++i;
      if (i == lit.size()) return true;
    }
    ++pos;
  }
  return false;
}

}  // namespace gpuvet::explain
