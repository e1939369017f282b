// Python discovery at scale: a synthetic home with 50 conda environments of 400 distributions
// each (real-looking METADATA with long descriptions, a few framework builds) and one venv of
// each other environment manager (virtualenvwrapper, Poetry, Hatch, PDM, uv, pipx), timed as
// gpuvet's probe (discovery + parsing) against the baseline `find <root> -name '*.dist-info'`,
// which lists the same directories and reads nothing. Both run in the same process, on the same
// warm tree.
//
//   build/release/bench/gpuvet_bench_python_envs [--envs N] [--dists N] [google-benchmark flags]
//
// Prints both medians and the ratio gpuvet / find (goal: under 250 ms and at most 2x).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "kb/kb.hpp"
#include "median_reporter.hpp"
#include "probes/probes.hpp"
#include "system/overlay_system.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using gpuvet::Facts;

int g_envs = 50;
int g_dists = 400;
fs::path g_root;

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string metadata(const std::string& name, const std::string& version) {
  // Real METADATA carries the README as its body: a few kB that gpuvet must not read.
  return fmt::format(
      "Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: A package\nHome-page: "
      "https://example.org/{}\nAuthor: Someone\nLicense: BSD\nRequires-Python: >=3.8\n"
      "Requires-Dist: numpy (>=1.20)\nClassifier: Programming Language :: Python :: 3\n\n{}",
      name, version, name, std::string(6000, 'd'));
}

// One environment: conda-meta (or pyvenv.cfg for a venv), the interpreter's lib directory,
// site-packages with `dists` distributions (a package directory and a *.dist-info with METADATA,
// RECORD, INSTALLER each).
void make_env(const fs::path& prefix, int index, bool venv = false) {
  if (venv) {
    write(prefix / "pyvenv.cfg", "home = /usr/bin\nversion_info = 3.11.7\n");
  } else {
    write(prefix / "conda-meta" / "python-3.11.7-h955ad1f_0.json", "{\"channel\": \"pkgs/main\"}");
    write(prefix / "conda-meta" / "history", "");
  }
  const fs::path site = prefix / "lib" / "python3.11" / "site-packages";
  for (int i = 0; i < g_dists; ++i) {
    const std::string name = fmt::format("package{}", i);
    const std::string version = fmt::format("1.{}.{}", i % 17, i % 5);
    const fs::path info = site / fmt::format("{}-{}.dist-info", name, version);
    write(info / "METADATA", metadata(name, version));
    write(info / "RECORD", fmt::format("{0}/__init__.py,,\n{0}/core.py,,\n", name));
    write(info / "INSTALLER", "pip\n");
    write(site / name / "__init__.py", "");
    write(site / name / "core.py", "");
  }
  // A few framework builds among them, as a power user's machine has.
  if (index % 5 == 0) {
    write(site / "torch-2.1.0.dist-info" / "METADATA", metadata("torch", "2.1.0"));
    write(site / "torch" / "version.py",
          "__version__ = '2.1.0+cu121'\ncuda = '12.1'\nhip = None\n");
    write(site / "nvidia_cudnn_cu12-8.9.2.26.dist-info" / "METADATA",
          metadata("nvidia-cudnn-cu12", "8.9.2.26"));
    write(site / "nvidia" / "cudnn" / "lib" / "libcudnn.so.8", "");
  }
  if (index % 7 == 0) {
    write(site / "tensorflow-2.15.0.dist-info" / "METADATA", metadata("tensorflow", "2.15.0"));
    write(site / "tensorflow" / "python" / "platform" / "build_info.py",
          "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '12.2'), "
          "('cudnn_version', '8'), ('is_cuda_build', True)])\n");
  }
}

// Venvs of other environment managers beside the conda ones, in their default directories
// (docs/python.md): virtualenvwrapper, Poetry, Hatch's nested layout, PDM, uv's tools, pipx.
const char* const kManagerVenvs[] = {
    ".virtualenvs/api",
    ".cache/pypoetry/virtualenvs/app-Xy12AbCd-py3.11",
    ".local/share/hatch/env/virtual/my-app/Ab3dE_f1/my-app",
    ".local/share/pdm/venvs/proj-Ab12Cd34-3.11",
    ".local/share/uv/tools/ruff",
    ".local/share/pipx/venvs/black",
};
constexpr int kManagerEnvs = static_cast<int>(std::size(kManagerVenvs));

void make_tree() {
  g_root = fs::temp_directory_path() /
           fmt::format("gpuvet-bench-{}-{}", getpid(), std::random_device{}());
  const fs::path home = g_root / "home";
  const fs::path conda = home / "miniconda3";
  make_env(conda, 0);
  for (int i = 1; i < g_envs; ++i)
    make_env(conda / "envs" / fmt::format("env{:02}", i), i);
  for (int i = 0; i < kManagerEnvs; ++i)
    make_env(home / kManagerVenvs[i], g_envs + i, true);
}

void BM_GpuvetPythonProbe(benchmark::State& state) {
  const auto kb = gpuvet::kb::Kb::embedded();
  const auto live = gpuvet::sys::make_live_system();
  const gpuvet::sys::EnvOverlaySystem system(
      *live, {{"HOME", (g_root / "home").string()}, {"PATH", "/nonexistent"}}, g_root.string());
  size_t frameworks = 0;
  for (auto _ : state) {
    Facts facts;
    facts.os.family = "linux";
    gpuvet::probes::probe_python_envs(system, *kb, facts);
    // The machine's own environments (Debian's /usr) come on top of the synthetic ones.
    const auto synthetic = std::count_if(
        facts.python_envs.begin(), facts.python_envs.end(),
        [](const gpuvet::PythonEnvFact& env) { return env.path.starts_with(g_root.string()); });
    if (synthetic != g_envs + kManagerEnvs) {
      state.SkipWithError("not every environment was found");
      return;
    }
    frameworks = 0;
    for (const auto& env : facts.python_envs)
      frameworks += env.frameworks.size();
    benchmark::DoNotOptimize(facts);
  }
  state.counters["environments"] = g_envs + kManagerEnvs;
  state.counters["frameworks"] = static_cast<double>(frameworks);
}

void BM_FindDistInfo(benchmark::State& state) {
  const std::string root = g_root.string();
  for (auto _ : state) {
    // find writes the listing to /dev/null: the baseline is the walk, not the terminal.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    std::vector<std::string> args = {"find", root, "-name", "*.dist-info"};
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawnp(&pid, "find", &actions, nullptr, argv.data(), environ) != 0) {
      state.SkipWithError("cannot run find");
      return;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    posix_spawn_file_actions_destroy(&actions);
  }
}

// The ratios against the baseline, from each benchmark's median.
void summarize(const gpuvet::bench::MedianReporter& medians) {
  const double gpuvet = medians.time("BM_GpuvetPythonProbe");
  const double find = medians.time("BM_FindDistInfo");
  if (gpuvet <= 0 || find <= 0) return;
  std::printf(
      "\npython discovery, %d environments x %d distributions:\n"
      "  gpuvet probe   %8.1f ms\n  find baseline  %8.1f ms  (find ROOT -name '*.dist-info')\n"
      "  ratio gpuvet/find = %.2f  (goal: <= 2.00, and gpuvet under 250 ms)\n",
      g_envs + kManagerEnvs, g_dists, gpuvet, find, gpuvet / find);
}

}  // namespace

BENCHMARK(BM_GpuvetPythonProbe)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_FindDistInfo)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--envs") == 0 && i + 1 < argc) {
      g_envs = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--dists") == 0 && i + 1 < argc) {
      g_dists = std::max(1, std::atoi(argv[++i]));
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  make_tree();
  gpuvet::bench::MedianReporter reporter(summarize);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::error_code ec;
  fs::remove_all(g_root, ec);
  benchmark::Shutdown();
  return 0;
}
