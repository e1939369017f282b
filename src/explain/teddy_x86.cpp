// Teddy with SSSE3 (PSHUFB), chosen at run time: every x86-64 CPU since 2006 has it, but the
// x86-64 baseline does not promise it. CMake compiles this file alone with -mssse3.
#include <tmmintrin.h>

#include <bit>

#include "explain/teddy.hpp"

#if defined(_MSC_VER)
#include <intrin.h>
#endif

namespace gpuvet::explain::teddy {

bool simd_supported() {
#if defined(_MSC_VER)
  int info[4] = {};
  __cpuid(info, 1);
  return (info[2] & (1 << 9)) != 0;
#else
  return __builtin_cpu_supports("ssse3") != 0;
#endif
}

namespace {

__m128i load(const std::array<std::uint8_t, 16>& table) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(table.data()));
}

}  // namespace

size_t find(const Masks& masks, const unsigned char* data, size_t size, size_t from, Verify verify,
            const void* context) {
  const __m128i nibble = _mm_set1_epi8(0x0F);
  const __m128i fold = _mm_set1_epi8(0x20);
  __m128i low[kFingerprintBytes];
  __m128i high[kFingerprintBytes];
  for (size_t k = 0; k < kFingerprintBytes; ++k) {
    low[k] = load(masks.low[k]);
    high[k] = load(masks.high[k]);
  }
  size_t p = from;
  // 16 positions need 16 + 3 readable bytes.
  for (; p + 16 + kFingerprintBytes - 1 <= size; p += 16) {
    __m128i fit = _mm_set1_epi8(-1);
    for (size_t k = 0; k < kFingerprintBytes; ++k) {
      const __m128i bytes =
          _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + p + k)), fold);
      const __m128i by_low = _mm_shuffle_epi8(low[k], _mm_and_si128(bytes, nibble));
      const __m128i by_high =
          _mm_shuffle_epi8(high[k], _mm_and_si128(_mm_srli_epi16(bytes, 4), nibble));
      fit = _mm_and_si128(fit, _mm_and_si128(by_low, by_high));
    }
    const auto empty =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(fit, _mm_setzero_si128())));
    if (empty == 0xFFFFu) continue;
    alignas(16) std::uint8_t lanes[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), fit);
    for (unsigned left = ~empty & 0xFFFFu; left != 0; left &= left - 1) {
      const int lane = std::countr_zero(left);
      if (verify(context, p + static_cast<size_t>(lane), lanes[lane])) {
        return p + static_cast<size_t>(lane);
      }
    }
  }
  return find_scalar(masks, data, size, p, verify, context);
}

}  // namespace gpuvet::explain::teddy
