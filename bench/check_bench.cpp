// `gpuvet check --json` on this machine against the tools the seeds and issue templates ask
// users to run: PyTorch's environment report (`python3 -m torch.utils.collect_env`, Debian's
// python3-torch) and `numba -s` (python3-numba). Each runs as a child process; the median wall
// time and the child's peak resident memory are reported, then the ratios.
//
//   build/release/bench/gpuvet_bench_check [google-benchmark flags]
//   (scripts/bench.sh installs the baselines from Debian's packages and runs every benchmark)
//
// Goal: at least 20x faster than the fastest baseline, under 30 MB peak RSS.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "child_run.hpp"
#include "median_reporter.hpp"

namespace {

std::string g_gpuvet;

void time_command(benchmark::State& state, const std::vector<std::string>& args,
                  bool exit_one_is_ok) {
  double peak = 0;
  for (auto _ : state) {
    const auto run = gpuvet::bench::run_child(args);
    const bool ok = run.exit_code == 0 || (exit_one_is_ok && run.exit_code == 1);
    if (!ok) {
      state.SkipWithError(("cannot run " + args[0] + " (scripts/bench.sh installs it)").c_str());
      return;
    }
    peak = std::max(peak, run.max_rss_mb);
  }
  state.counters["peak_rss_MB"] = peak;
}

void BM_GpuvetCheckJson(benchmark::State& state) {
  time_command(state, {g_gpuvet, "check", "--json"}, true);
}
void BM_TorchCollectEnv(benchmark::State& state) {
  time_command(state, {"/usr/bin/python3", "-m", "torch.utils.collect_env"}, false);
}
void BM_NumbaSysinfo(benchmark::State& state) {
  time_command(state, {"numba", "-s"}, false);
}

// The ratios against the baseline, from each benchmark's median.
void summarize(const gpuvet::bench::MedianReporter& medians) {
  const double gpuvet = medians.time("BM_GpuvetCheckJson");
  if (gpuvet <= 0) return;
  std::printf("\ngpuvet check --json on this machine: %.1f ms, peak RSS %.1f MB\n", gpuvet,
              medians.counter("BM_GpuvetCheckJson", "peak_rss_MB"));
  double fastest = 0;
  for (const auto& [name, label] : std::vector<std::pair<std::string, std::string>>{
           {"BM_TorchCollectEnv", "python3 -m torch.utils.collect_env"},
           {"BM_NumbaSysinfo", "numba -s"}}) {
    const double t = medians.time(name);
    if (t <= 0) {
      std::printf("  %-36s not run (not installed)\n", label.c_str());
      continue;
    }
    std::printf("  %-36s %8.1f ms, peak RSS %6.1f MB, gpuvet is %.1fx faster\n", label.c_str(), t,
                medians.counter(name, "peak_rss_MB"), t / gpuvet);
    if (fastest == 0 || t < fastest) fastest = t;
  }
  if (fastest > 0) {
    std::printf("  speedup over the fastest baseline: %.1fx (goal >= 20x, peak RSS < 30 MB)\n",
                fastest / gpuvet);
  }
}

}  // namespace

BENCHMARK(BM_GpuvetCheckJson)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(5)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_TorchCollectEnv)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_NumbaSysinfo)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

int main(int argc, char** argv) {
  // The gpuvet of this build: ../gpuvet beside bench/.
  const std::filesystem::path self = std::filesystem::canonical("/proc/self/exe");
  g_gpuvet = (self.parent_path().parent_path() / "gpuvet").string();
  benchmark::Initialize(&argc, argv);
  gpuvet::bench::MedianReporter reporter(summarize);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
