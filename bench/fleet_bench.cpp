// `gpuvet fleet report` over 1,000 snapshots, against the named baseline an HPC admin has today:
// `gpuvet check --snapshot F --json`, one process per node (timed on the first 100 nodes, per
// node). The fleet is made here from the scenario snapshots, with every tenth node a snapshot of
// this machine (some 350 KB of JSON, as real nodes give), each under its own host name.
//
//   build/release/bench/gpuvet_bench_fleet [google-benchmark flags]
//
// Goal (issue 21): 1,000 snapshots in at most 10 s on a 2-core machine, memory bounded (peak RSS
// a few workers' snapshots, not the fleet's).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "child_run.hpp"
#include "core/gzip.hpp"
#include "core/paths.hpp"
#include "median_reporter.hpp"

namespace {

namespace fs = std::filesystem;

constexpr int kNodes = 1000;
constexpr int kBaselineNodes = 100;

std::string g_gpuvet;
fs::path g_fleet;

std::string read_all(const fs::path& path) {
  return *gpuvet::paths::read_file(path.string(), size_t{64} << 20);
}

// The scenario snapshots and one of this machine, as JSON documents.
std::vector<nlohmann::json> sources(const fs::path& scenarios, const fs::path& scratch) {
  std::vector<nlohmann::json> out;
  for (const auto& entry : fs::directory_iterator(scenarios)) {
    const fs::path file = entry.path() / "snapshot.json";
    if (fs::exists(file)) out.push_back(nlohmann::json::parse(read_all(file)));
  }
  const fs::path live = scratch / "this-machine.json";
  if (gpuvet::bench::run_child({g_gpuvet, "snapshot", "-o", live.string()}).exit_code == 0)
    out.push_back(nlohmann::json::parse(read_all(live)));
  return out;
}

void make_fleet(const fs::path& scenarios) {
  g_fleet =
      fs::temp_directory_path() / ("gpuvet-bench-fleet-" + std::to_string(std::random_device{}()));
  fs::create_directories(g_fleet / "nodes");
  const auto documents = sources(scenarios, g_fleet);
  const size_t live = documents.size() - 1;
  for (int i = 0; i < kNodes; ++i) {
    nlohmann::json document = documents[i % 10 == 9 ? live : static_cast<size_t>(i) % live];
    const std::string host = "node" + std::to_string(1000 + i).substr(1);
    document["host"]["hostname"] = host;
    std::ofstream(g_fleet / "nodes" / (host + ".json.gz"), std::ios::binary)
        << *gpuvet::gzip::compress(document.dump());
  }
}

double g_peak_fleet = 0;

void BM_FleetReport1000(benchmark::State& state) {
  for (auto _ : state) {
    const auto run = gpuvet::bench::run_child(
        {g_gpuvet, "fleet", "report", (g_fleet / "nodes").string(), "--json"}, "/dev/null");
    if (run.exit_code != 0 && run.exit_code != 1) {
      state.SkipWithError("gpuvet fleet report failed");
      return;
    }
    g_peak_fleet = std::max(g_peak_fleet, run.max_rss_mb);
  }
  state.counters["peak_rss_MB"] = g_peak_fleet;
}

// The baseline: one `check --snapshot` process per node, the first 100 nodes.
void BM_CheckPerNode100(benchmark::State& state) {
  for (auto _ : state) {
    for (int i = 0; i < kBaselineNodes; ++i) {
      const std::string host = "node" + std::to_string(1000 + i).substr(1);
      const auto run =
          gpuvet::bench::run_child({g_gpuvet, "check", "--snapshot",
                                    (g_fleet / "nodes" / (host + ".json.gz")).string(), "--json"},
                                   "/dev/null");
      if (run.exit_code != 0 && run.exit_code != 1) {
        state.SkipWithError("gpuvet check --snapshot failed");
        return;
      }
    }
  }
}

// The ratios against the baseline, from each benchmark's median.
void summarize(const gpuvet::bench::MedianReporter& medians) {
  const double fleet = medians.time("BM_FleetReport1000");
  const double baseline = medians.time("BM_CheckPerNode100");
  if (fleet <= 0 || baseline <= 0) return;
  const double fleet_per_node = fleet / kNodes;
  const double baseline_per_node = baseline / kBaselineNodes;
  std::printf("\ngpuvet fleet report, %d snapshots: %.2f s (goal <= 10 s), peak RSS %.1f MB\n",
              kNodes, fleet / 1000.0, g_peak_fleet);
  std::printf("  per node: fleet report %.2f ms; baseline check --snapshot per process %.2f ms\n",
              fleet_per_node, baseline_per_node);
  std::printf("  fleet report is %.1fx faster per node than one check process per node\n",
              baseline_per_node / fleet_per_node);
}

}  // namespace

BENCHMARK(BM_FleetReport1000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_CheckPerNode100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

int main(int argc, char** argv) {
  // The gpuvet of this build: ../gpuvet beside bench/; the scenarios of this source tree.
  const fs::path self = fs::canonical("/proc/self/exe");
  g_gpuvet = (self.parent_path().parent_path() / "gpuvet").string();
  make_fleet(fs::path(GPUVET_SOURCE_DIR) / "tests" / "scenarios");
  benchmark::Initialize(&argc, argv);
  gpuvet::bench::MedianReporter reporter(summarize);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::error_code ignored;
  fs::remove_all(g_fleet, ignored);
  return 0;
}
