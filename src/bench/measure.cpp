#include "bench/measure.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace gpuvet::bench {

std::optional<double> median(std::vector<double> samples) {
  if (samples.empty()) return std::nullopt;
  std::sort(samples.begin(), samples.end());
  const size_t middle = samples.size() / 2;
  return samples.size() % 2 == 1 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2;
}

double gigabytes_per_second(double bytes, double milliseconds) {
  return milliseconds > 0 ? bytes / (milliseconds / 1000.0) / kBytesPerGB : 0.0;
}

double gemm_tflops(double m, double n, double k, double milliseconds) {
  return milliseconds > 0 ? 2.0 * m * n * k / (milliseconds / 1000.0) / 1e12 : 0.0;
}

double convolution_flops(int n, int c, int k, int r, int s, int p, int q) {
  return 2.0 * n * k * p * q * static_cast<double>(c) * r * s;
}

std::vector<std::size_t> transfer_sizes(std::size_t max_bytes) {
  std::vector<std::size_t> sizes;
  for (std::size_t size = 4096; size <= max_bytes; size *= 4)
    sizes.push_back(size);
  return sizes;
}

int repetitions_for(std::size_t bytes, bool quick) {
  const int full = bytes <= (std::size_t{1} << 20) ? 50 : bytes <= (std::size_t{64} << 20) ? 20 : 7;
  return quick ? std::max(3, full / 4) : full;
}

double memory_bandwidth_from_clocks(double memory_clock_mhz, int bus_width_bits) {
  return memory_clock_mhz * 1e6 * 2.0 * (bus_width_bits / 8.0) / kBytesPerGB;
}

std::optional<double> fraction_of(std::optional<double> value, std::optional<double> peak) {
  if (!value || !peak || *peak <= 0) return std::nullopt;
  return *value / *peak;
}

std::uint16_t float_to_half(float value) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const int exponent = static_cast<int>((f >> 23) & 0xFF) - 127 + 15;
  std::uint32_t mantissa = f & 0x7FFFFFu;
  if (((f >> 23) & 0xFF) == 0xFF) {  // inf or NaN
    return static_cast<std::uint16_t>(sign | 0x7C00u | (mantissa ? 0x200u : 0u));
  }
  if (exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);  // overflow: inf
  if (exponent <= 0) {                                                    // subnormal or zero
    if (exponent < -10) return static_cast<std::uint16_t>(sign);
    mantissa |= 0x800000u;
    const int shift = 14 - exponent;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = sign | (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into inf: right
  return static_cast<std::uint16_t>(half);
}

float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = (bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1F;
  const std::uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) {
    return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  }
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

std::uint16_t float_to_bfloat16(float value) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  if ((f & 0x7F800000u) == 0x7F800000u && (f & 0x7FFFFFu)) {
    return static_cast<std::uint16_t>((f >> 16) | 0x40u);  // keep NaN a NaN
  }
  const std::uint32_t rounding = 0x7FFFu + ((f >> 16) & 1u);
  return static_cast<std::uint16_t>((f + rounding) >> 16);
}

float bfloat16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

float gemm_input(std::size_t index, unsigned seed) {
  const std::uint64_t mixed = (index + seed) * 2654435761ull;
  return static_cast<float>(static_cast<int>((mixed >> 7) % 5) - 2) * 0.25f;
}

}  // namespace gpuvet::bench
