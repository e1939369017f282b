#pragma once
// A multi-literal prefilter: where does the first of a set of literals occur in a text, ASCII
// case ignored? Most of a training log holds none of the signatures' required literals, and the
// filter passes over it far faster than a regex automaton reading every byte. Two scans give the
// same answers: Teddy (SIMD, teddy.hpp) where the CPU has it, and otherwise Wu and Manber's skip
// scan ("A fast algorithm for multi-pattern searching", 1994).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "explain/teddy.hpp"

namespace gpuvet::explain {

class LiteralFilter {
 public:
  enum class Scan { best, teddy, wu_manber };
  // Literals shorter than 3 bytes cannot be filtered: with one, every text may match. Teddy needs
  // 4 bytes; with a 3-byte literal the scan is Wu-Manber's.
  explicit LiteralFilter(const std::vector<std::string>& literals, Scan scan = Scan::best);
  // npos when no literal occurs in the text; otherwise where an occurrence starts such that no
  // occurrence of any literal lies wholly before it. (A literal holding another one is found by
  // the one it holds: "could not " stands for "could not find cudnn".)
  size_t find(std::string_view text) const;
  bool any_in(std::string_view text) const { return find(text) != std::string_view::npos; }
  bool filters() const { return usable_; }
  Scan scan() const { return scan_; }

 private:
  static constexpr unsigned kHashBits = 12;
  struct TeddyProbe;
  static bool verify_teddy(const void* probe, size_t position, std::uint8_t buckets);
  bool literal_at(const unsigned char* data, size_t size, size_t start, std::uint32_t id) const;
  size_t find_teddy(const unsigned char* data, size_t size) const;
  size_t find_wu_manber(const unsigned char* data, size_t size) const;

  bool usable_ = false;
  Scan scan_ = Scan::wu_manber;
  bool simd_ = false;
  size_t m_ = 0;                       // the shortest literal's length
  std::vector<std::string> literals_;  // lower case; none holds another
  // Teddy: the fingerprints, each literal's first 4 bytes as one folded word, each bucket's
  // literals.
  teddy::Masks masks_;
  std::vector<std::uint32_t> first_words_;
  std::vector<std::uint64_t> first_word_bits_;  // a Bloom bit per first word: most candidates
                                                // the nibble lookups let through stop here
  std::array<std::vector<std::uint32_t>, teddy::kBuckets> bucket_literals_;
  // Wu-Manber: the shift by the hash of the 3 bytes ending the window, and the literals whose
  // m-byte prefix ends with that hash.
  std::array<std::uint8_t, 1u << kHashBits> shift_{};
  std::vector<std::vector<std::uint32_t>> by_suffix_;
};

}  // namespace gpuvet::explain
