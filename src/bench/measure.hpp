#pragma once
// The arithmetic of the benchmarks, apart from any GPU so that it is tested everywhere: medians,
// rates, FLOP counts, transfer sizes, half and bfloat16 encodings, peaks from clocks.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gpuvet::bench {

inline constexpr double kBytesPerGB = 1e9;  // GB/s as NVIDIA's datasheets count them

// The median of the samples (the mean of the middle two for an even count); nullopt for none.
std::optional<double> median(std::vector<double> samples);

// Bytes moved in `milliseconds` as GB/s (1e9 bytes per second).
double gigabytes_per_second(double bytes, double milliseconds);

// 2·m·n·k floating-point operations in `milliseconds`, as TFLOP/s.
double gemm_tflops(double m, double n, double k, double milliseconds);

// A direct convolution's multiply-adds, counted as 2 FLOPs each: N·K·P·Q·C·R·S·2.
double convolution_flops(int n, int c, int k, int r, int s, int p, int q);

// Transfer sizes from 4 KiB up to max_bytes, each 4 times the last (4 KiB, 16 KiB, ... 1 GiB).
std::vector<std::size_t> transfer_sizes(std::size_t max_bytes);

// Timed repetitions for a transfer of this size: many for small ones (their times are short and
// noisy), few for large ones.
int repetitions_for(std::size_t bytes, bool quick);

// The theoretical DRAM bandwidth from the memory clock and bus width, as NVIDIA computes it
// ("How to Implement Performance Metrics in CUDA C/C++"): clock × 2 (double data rate) × bus bytes.
double memory_bandwidth_from_clocks(double memory_clock_mhz, int bus_width_bits);

// value / peak when both are known and the peak is positive.
std::optional<double> fraction_of(std::optional<double> value, std::optional<double> peak);

// IEEE 754 binary16 and bfloat16 encodings, round to nearest even.
std::uint16_t float_to_half(float value);
float half_to_float(std::uint16_t bits);
std::uint16_t float_to_bfloat16(float value);
float bfloat16_to_float(std::uint16_t bits);

// The GEMM inputs: small multiples of 1/4 (exact in FP16, BF16 and TF32), so that every
// precision's product is exact and a spot check can demand equality with the double result.
float gemm_input(std::size_t index, unsigned seed);

}  // namespace gpuvet::bench
