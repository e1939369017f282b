#include "explain/literal_filter.hpp"

#include <algorithm>
#include <cstring>

namespace gpuvet::explain {

namespace {

unsigned char fold(unsigned char c) {
  return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

// A hash of the 3 bytes ending at p, case folded the way Teddy folds. The table it indexes stays
// in the L1 cache: the scan is a chain of dependent loads, so their latency is its speed.
std::uint32_t block_hash(const unsigned char* p, unsigned bits) {
  const std::uint32_t v =
      (std::uint32_t{p[-2]} | (std::uint32_t{p[-1]} << 8) | (std::uint32_t{p[0]} << 16)) |
      0x202020u;
  return (v * 0x9E3779B1u) >> (32 - bits);
}

// Four bytes with bit 5 set in each, as Teddy folds them.
std::uint32_t folded_word(const unsigned char* p) {
  std::uint32_t word = 0;
  std::memcpy(&word, p, sizeof word);
  return word | 0x20202020u;
}

constexpr unsigned kWordBits = 15;  // 4 KiB of bits

std::uint32_t word_bit(std::uint32_t word) {
  return (word * 0x9E3779B1u) >> (32 - kWordBits);
}

}  // namespace

LiteralFilter::LiteralFilter(const std::vector<std::string>& literals, Scan scan) {
  for (const auto& literal : literals) {
    std::string lower;
    for (const char c : literal)
      lower.push_back(static_cast<char>(fold(static_cast<unsigned char>(c))));
    if (lower.size() < 3) return;  // cannot filter
    literals_.push_back(std::move(lower));
  }
  if (literals_.empty()) return;
  std::sort(literals_.begin(), literals_.end());
  literals_.erase(std::unique(literals_.begin(), literals_.end()), literals_.end());
  // Wherever a literal holding another occurs, the other does too: fewer literals, fewer false
  // candidates.
  const std::vector<std::string> all = literals_;
  std::erase_if(literals_, [&](const std::string& literal) {
    return std::any_of(all.begin(), all.end(), [&](const std::string& other) {
      return other != literal && literal.find(other) != std::string::npos;
    });
  });
  m_ = std::min_element(literals_.begin(), literals_.end(), [](const auto& a, const auto& b) {
         return a.size() < b.size();
       })->size();

  // Teddy: sorted literals in contiguous runs, so that a bucket's fingerprints share bytes.
  const bool teddy_fits = m_ >= teddy::kFingerprintBytes;
  first_word_bits_.assign((size_t{1} << kWordBits) / 64, 0);
  for (std::uint32_t id = 0; id < literals_.size() && teddy_fits; ++id) {
    const auto* lit = reinterpret_cast<const unsigned char*>(literals_[id].data());
    const size_t bucket = id * teddy::kBuckets / literals_.size();
    teddy::add_literal(masks_, lit, bucket);
    bucket_literals_[bucket].push_back(id);
    first_words_.push_back(folded_word(lit));
    const std::uint32_t bit = word_bit(first_words_.back());
    first_word_bits_[bit / 64] |= std::uint64_t{1} << (bit % 64);
  }

  // Wu-Manber over each literal's first m bytes: the block ending at offset q may shift m-1-q.
  const size_t max_shift = std::min<size_t>(m_ - 2, 255);
  shift_.fill(static_cast<std::uint8_t>(max_shift));
  by_suffix_.assign(shift_.size(), {});
  for (std::uint32_t id = 0; id < literals_.size(); ++id) {
    const auto* lit = reinterpret_cast<const unsigned char*>(literals_[id].data());
    for (size_t q = 2; q < m_; ++q) {
      const auto h = block_hash(lit + q, kHashBits);
      const size_t shift = m_ - 1 - q;
      if (shift < shift_[h]) shift_[h] = static_cast<std::uint8_t>(shift);
    }
    by_suffix_[block_hash(lit + m_ - 1, kHashBits)].push_back(id);
  }

  simd_ = teddy::simd_supported();
  const bool teddy = teddy_fits && (scan == Scan::teddy || (scan == Scan::best && simd_));
  scan_ = teddy ? Scan::teddy : Scan::wu_manber;
  usable_ = true;
}

bool LiteralFilter::literal_at(const unsigned char* data, size_t size, size_t start,
                               std::uint32_t id) const {
  const std::string& lit = literals_[id];
  if (start + lit.size() > size) return false;
  size_t i = 0;
  while (i < lit.size() && fold(data[start + i]) == static_cast<unsigned char>(lit[i]))
    ++i;
  return i == lit.size();
}

struct LiteralFilter::TeddyProbe {
  const LiteralFilter* filter;
  const unsigned char* data;
  size_t size;
};

// A candidate's first word rules out most false ones before a byte is compared.
bool LiteralFilter::verify_teddy(const void* context, size_t position, std::uint8_t buckets) {
  const auto& probe = *static_cast<const TeddyProbe*>(context);
  const LiteralFilter& f = *probe.filter;
  const std::uint32_t word = folded_word(probe.data + position);
  const std::uint32_t bit = word_bit(word);
  if ((f.first_word_bits_[bit / 64] >> (bit % 64) & 1u) == 0) return false;
  for (size_t bucket = 0; bucket < teddy::kBuckets; ++bucket) {
    if ((buckets >> bucket & 1u) == 0) continue;
    for (const std::uint32_t id : f.bucket_literals_[bucket]) {
      if (f.first_words_[id] == word && f.literal_at(probe.data, probe.size, position, id)) {
        return true;
      }
    }
  }
  return false;
}

size_t LiteralFilter::find_teddy(const unsigned char* data, size_t size) const {
  const TeddyProbe probe{this, data, size};
  const size_t at = simd_ ? teddy::find(masks_, data, size, 0, &verify_teddy, &probe)
                          : teddy::find_scalar(masks_, data, size, 0, &verify_teddy, &probe);
  return at >= size ? std::string_view::npos : at;
}

// Windows are verified in increasing order, so the first literal found starts leftmost.
size_t LiteralFilter::find_wu_manber(const unsigned char* data, size_t size) const {
  for (size_t pos = m_ - 1; pos < size;) {
    const auto h = block_hash(data + pos, kHashBits);
    if (const std::uint8_t shift = shift_[h]; shift != 0) {
      pos += shift;
      continue;
    }
    const size_t start = pos + 1 - m_;
    for (const std::uint32_t id : by_suffix_[h]) {
      if (literal_at(data, size, start, id)) return start;
    }
    ++pos;
  }
  return std::string_view::npos;
}

size_t LiteralFilter::find(std::string_view text) const {
  if (!usable_) return text.empty() ? std::string_view::npos : 0;
  if (text.size() < m_) return std::string_view::npos;
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  return scan_ == Scan::teddy ? find_teddy(data, text.size()) : find_wu_manber(data, text.size());
}

}  // namespace gpuvet::explain
