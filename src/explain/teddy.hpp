#pragma once
// Teddy (the SIMD multi-literal fingerprint of Intel's Hyperscan, also in Rust's aho-corasick):
// each literal's first four bytes go into one of 8 buckets; 16 text positions at a time are
// looked up by nibble with byte shuffles, and a position survives only when all four of its bytes
// fit one bucket. Survivors are verified by the caller. Bit 5 of every byte is set before the
// lookup, which folds ASCII case (and merges a few punctuation pairs: a verification, not a miss).
// The SIMD scan lives in teddy_x86.cpp; teddy_generic.cpp serves CPUs without it.
#include <array>
#include <cstddef>
#include <cstdint>

namespace gpuvet::explain::teddy {

inline constexpr size_t kBuckets = 8;
inline constexpr size_t kFingerprintBytes = 4;

// Per fingerprint byte, by low and by high nibble: the buckets that byte may belong to.
struct Masks {
  std::array<std::array<std::uint8_t, 16>, kFingerprintBytes> low{};
  std::array<std::array<std::uint8_t, 16>, kFingerprintBytes> high{};
};

inline void add_literal(Masks& masks, const unsigned char* literal, size_t bucket) {
  for (size_t k = 0; k < kFingerprintBytes; ++k) {
    const unsigned c = literal[k] | 0x20u;
    masks.low[k][c & 15u] = static_cast<std::uint8_t>(masks.low[k][c & 15u] | (1u << bucket));
    masks.high[k][c >> 4] = static_cast<std::uint8_t>(masks.high[k][c >> 4] | (1u << bucket));
  }
}

// The buckets whose fingerprint the three bytes at p fit.
inline std::uint8_t buckets_at(const Masks& masks, const unsigned char* p) {
  unsigned fit = 0xFFu;
  for (size_t k = 0; k < kFingerprintBytes; ++k) {
    const unsigned c = p[k] | 0x20u;
    fit &= masks.low[k][c & 15u] & masks.high[k][c >> 4];
  }
  return static_cast<std::uint8_t>(fit);
}

// Verifies a candidate: the position and the buckets whose fingerprint its bytes fit.
using Verify = bool (*)(const void* context, size_t position, std::uint8_t buckets);

// Whether this CPU runs the SIMD scan.
bool simd_supported();

// Offers verify every candidate in [from, size - 3), in order, until it accepts one; returns that
// position, or size when it accepts none. Only called when simd_supported().
size_t find(const Masks& masks, const unsigned char* data, size_t size, size_t from, Verify verify,
            const void* context);

// The same answer, a byte at a time.
inline size_t find_scalar(const Masks& masks, const unsigned char* data, size_t size, size_t from,
                          Verify verify, const void* context) {
  for (size_t p = from; p + kFingerprintBytes <= size; ++p) {
    if (const std::uint8_t fit = buckets_at(masks, data + p); fit != 0 && verify(context, p, fit)) {
      return p;
    }
  }
  return size;
}

}  // namespace gpuvet::explain::teddy
