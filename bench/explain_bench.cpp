// `gpuvet explain` on a large training log against `grep -E -i -f` with the same patterns
// (exported by the hidden `explain --export-patterns`), in the same run: MB/s of both, the ratio,
// and each one's peak resident memory.
//
//   build/release/bench/gpuvet_bench_explain [--mib N] [google-benchmark flags]   (default 1024)
//
// The log is realistic: Keras progress lines, TensorFlow I/W lines, a Python warning now and then,
// and a few real error lines deep inside. Goal: at least as fast as grep, under 64 MB peak RSS.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "child_run.hpp"
#include "median_reporter.hpp"

namespace {

namespace fs = std::filesystem;

size_t g_mib = 1024;
std::string g_gpuvet;
fs::path g_dir;
fs::path g_log;
fs::path g_patterns;
fs::path g_output;  // a regular file: to /dev/null, grep would stop at its first match

void make_log() {
  std::ofstream out(g_log, std::ios::binary);
  std::mt19937 rng(7);
  const size_t target = g_mib << 20;
  size_t written = 0;
  size_t line = 0;
  // The real errors, deep inside.
  const std::vector<std::string> errors = {
      "2023-05-06 16:19:54.078251: W tensorflow/compiler/xla/service/gpu/llvm_gpu_backend/"
      "gpu_backend_lib.cc:530] Can't find libdevice directory ${CUDA_DIR}/nvvm/libdevice.",
      "2023-05-06 16:19:55.100000: E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not "
      "create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
      "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total "
      "capacity)"};
  std::string buffer;
  while (written < target) {
    buffer.clear();
    for (int i = 0; i < 1000; ++i, ++line) {
      const unsigned r = rng() % 100;
      if (r < 80) {
        buffer += fmt::format(
            "{:4}/1875 [==============>...............] - ETA: {}s - loss: 0.{:04} - accuracy: "
            "0.{:04}\n",
            line % 1875, rng() % 90, rng() % 10000, rng() % 10000);
      } else if (r < 95) {
        buffer += fmt::format(
            "2024-03-01 10:{:02}:{:02}.{:06}: I tensorflow/core/common_runtime/gpu/"
            "gpu_device.cc:1886] Created device /job:localhost/replica:0/task:0/device:GPU:0 with "
            "21770 MB memory\n",
            rng() % 60, rng() % 60, rng() % 1000000);
      } else {
        buffer +=
            "/usr/lib/python3/dist-packages/keras/src/optimizers/base_optimizer.py:86: "
            "UserWarning: Argument `decay` is no longer supported and will be ignored.\n";
      }
    }
    if (written > target / 3 && written < target / 3 + buffer.size()) buffer += errors[0] + "\n";
    if (written > target / 2 && written < target / 2 + buffer.size()) buffer += errors[1] + "\n";
    if (written > target * 9 / 10 && written < target * 9 / 10 + buffer.size()) {
      buffer += errors[2] + "\n";
    }
    out << buffer;
    written += buffer.size();
  }
}

double g_peak_gpuvet = 0;
double g_peak_grep = 0;

void BM_GpuvetExplain(benchmark::State& state) {
  for (auto _ : state) {
    const auto run = gpuvet::bench::run_child(
        {g_gpuvet, "explain", "--no-facts", "--json", g_log.string()}, g_output.string());
    if (run.exit_code != 0) {
      state.SkipWithError("gpuvet explain failed");
      return;
    }
    g_peak_gpuvet = std::max(g_peak_gpuvet, run.max_rss_mb);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (g_mib << 20)));
  state.counters["peak_rss_MB"] = g_peak_gpuvet;
}

void BM_GrepPatterns(benchmark::State& state) {
  for (auto _ : state) {
    const auto run = gpuvet::bench::run_child(
        {"grep", "-E", "-i", "-c", "-f", g_patterns.string(), g_log.string()}, g_output.string());
    if (!run.started || run.exit_code > 1) {
      state.SkipWithError("grep failed");
      return;
    }
    g_peak_grep = std::max(g_peak_grep, run.max_rss_mb);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (g_mib << 20)));
  state.counters["peak_rss_MB"] = g_peak_grep;
}

// The ratios against the baseline, from each benchmark's median.
void summarize(const gpuvet::bench::MedianReporter& medians) {
  const double gpuvet = medians.time("BM_GpuvetExplain");
  const double grep = medians.time("BM_GrepPatterns");
  if (gpuvet <= 0 || grep <= 0) return;
  const double mb = static_cast<double>(g_mib);
  std::printf(
      "\nexplain on a %zu MiB training log:\n"
      "  gpuvet explain   %8.1f MB/s, peak RSS %6.1f MB\n"
      "  grep -E -i -f    %8.1f MB/s, peak RSS %6.1f MB (same patterns)\n"
      "  gpuvet / grep throughput = %.2f (goal >= 1.00, gpuvet peak RSS < 64 MB)\n",
      g_mib, mb / (gpuvet / 1000.0), g_peak_gpuvet, mb / (grep / 1000.0), g_peak_grep,
      grep / gpuvet);
}

}  // namespace

BENCHMARK(BM_GpuvetExplain)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_GrepPatterns)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mib") == 0 && i + 1 < argc) {
      g_mib = static_cast<size_t>(std::max(1, std::atoi(argv[++i])));
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  const fs::path self = fs::canonical("/proc/self/exe");
  g_gpuvet = (self.parent_path().parent_path() / "gpuvet").string();
  g_dir = fs::temp_directory_path() / fmt::format("gpuvet-explain-bench-{}", getpid());
  fs::create_directories(g_dir);
  g_log = g_dir / "train.log";
  g_patterns = g_dir / "patterns.txt";
  g_output = g_dir / "output.txt";
  make_log();
  const std::string export_command =
      g_gpuvet + " explain --export-patterns > " + g_patterns.string();
  if (std::system(export_command.c_str()) != 0) {
    std::fprintf(stderr, "cannot export the patterns\n");
    return 1;
  }
  gpuvet::bench::MedianReporter reporter(summarize);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::error_code ec;
  fs::remove_all(g_dir, ec);
  benchmark::Shutdown();
  return 0;
}
