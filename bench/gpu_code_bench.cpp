// Reading which GPU architectures a CUDA library carries, against reading its fat-binary section
// whole (what a reader that loads the section to walk it pays, at the least) and, where it is on
// PATH, against `cuobjdump --list-elf --list-ptx` on the same file, in the same run: the median
// time of each, the ratio, and how many bytes gpuvet's reader asked for.
//
//   build/release/bench/gpuvet_bench_gpu_code [--file LIB] [google-benchmark flags]
//
// The default file is the largest library of the CUDA toolkit under $CUDA_HOME or
// /usr/local/cuda (libcublasLt: 540 MB, 5 400 fat-binary entries); libtorch_cuda.so is the
// same shape at 1-2 GB. Goal: at least 10 times faster than cuobjdump.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "child_run.hpp"
#include "median_reporter.hpp"
#include "system/elf_reader.hpp"
#include "system/gpu_code_reader.hpp"

namespace {

namespace fs = std::filesystem;

std::string g_file;
std::uint64_t g_section_bytes = 0;
std::uint64_t g_section_offset = 0;
std::uint64_t g_bytes_asked = 0;
std::string g_cuobjdump;
std::string g_lists;

// pread with a count of the bytes asked for.
class CountingPread final : public gpuvet::sys::PositionedByteSource {
 public:
  CountingPread(int fd, std::uint64_t size) : PositionedByteSource(size), fd_(fd) {}
  mutable std::uint64_t asked = 0;

 protected:
  std::size_t read_some(std::uint64_t offset, std::size_t length, char* out) const override {
    asked += length;
    const ssize_t n = pread(fd_, out, length, static_cast<off_t>(offset));
    return n > 0 ? static_cast<std::size_t>(n) : 0;
  }

 private:
  int fd_;
};

std::uint64_t file_size(int fd) {
  struct stat s {};
  return fstat(fd, &s) == 0 ? static_cast<std::uint64_t>(s.st_size) : 0;
}

// Drops the file's pages from the page cache (no root needed for clean pages): the first check on
// a machine finds the library cold.
void evict(benchmark::State& state) {
  state.PauseTiming();
  const int fd = open(g_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
  state.ResumeTiming();
}

void BM_GpuvetGpuCode(benchmark::State& state) {
  const bool cold = state.range(0) != 0;
  for (auto _ : state) {
    if (cold) evict(state);
    const int fd = open(g_file.c_str(), O_RDONLY | O_CLOEXEC);
    const CountingPread source(fd, file_size(fd));
    auto code = gpuvet::sys::read_gpu_code(source);
    close(fd);
    if (!code) {
      state.SkipWithError(code.error().message.c_str());
      return;
    }
    g_bytes_asked = source.asked;
    g_lists =
        fmt::format("SASS {} | PTX {}", fmt::join(code->sass, " "), fmt::join(code->ptx, " "));
    benchmark::DoNotOptimize(code);
  }
}

// The baseline every section-loading reader pays before walking a single entry.
void BM_ReadSectionWhole(benchmark::State& state) {
  const bool cold = state.range(0) != 0;
  std::vector<char> buffer(std::size_t{1} << 20);
  for (auto _ : state) {
    if (cold) evict(state);
    const int fd = open(g_file.c_str(), O_RDONLY | O_CLOEXEC);
    std::uint64_t done = 0;
    while (done < g_section_bytes) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), g_section_bytes - done));
      const ssize_t got = pread(fd, buffer.data(), n, static_cast<off_t>(g_section_offset + done));
      if (got <= 0) break;
      done += static_cast<std::uint64_t>(got);
    }
    close(fd);
    benchmark::DoNotOptimize(buffer.data());
  }
}

void BM_Cuobjdump(benchmark::State& state) {
  const bool cold = state.range(0) != 0;
  for (auto _ : state) {
    if (cold) evict(state);
    const auto run = gpuvet::bench::run_child({g_cuobjdump, "--list-elf", "--list-ptx", g_file});
    if (!run.started || run.exit_code != 0) {
      state.SkipWithError("cuobjdump failed");
      return;
    }
  }
}

// The ratios against the baseline, from each benchmark's median.
void summarize(const gpuvet::bench::MedianReporter& medians) {
  std::printf(
      "\nGPU code of %s (%.0f MB fat-binary section):\n  %s\n  gpuvet's reader asked for %.2f "
      "MB\n",
      g_file.c_str(), static_cast<double>(g_section_bytes) / 1e6, g_lists.c_str(),
      static_cast<double>(g_bytes_asked) / 1e6);
  for (const char* cache : {"1", "0"}) {
    const std::string suffix = std::string("/") + cache;
    const double gpuvet = medians.time("BM_GpuvetGpuCode" + suffix);
    const double whole = medians.time("BM_ReadSectionWhole" + suffix);
    const double cuobjdump = medians.time("BM_Cuobjdump" + suffix);
    if (gpuvet <= 0 || whole <= 0) continue;
    std::printf(
        "  %s page cache: gpuvet %.2f ms, section read whole %.2f ms (whole / gpuvet = %.1f)",
        cache[0] == '1' ? "cold" : "warm", gpuvet, whole, whole / gpuvet);
    if (cuobjdump > 0) {
      std::printf(
          ", cuobjdump --list-elf --list-ptx %.2f ms (cuobjdump / gpuvet = %.1f, goal >= 10)",
          cuobjdump, cuobjdump / gpuvet);
    }
    std::printf("\n");
  }
  if (g_cuobjdump.empty()) {
    std::printf("  cuobjdump: not on PATH, not compared (pip install nvidia-cuda-cuobjdump)\n");
  }
}

// The largest library of the toolkit that has a fat-binary section.
std::string default_file() {
  const char* home = std::getenv("CUDA_HOME");
  const fs::path lib = fs::path(home ? home : "/usr/local/cuda") / "lib64";
  std::error_code ec;
  std::string best;
  std::uintmax_t best_size = 0;
  for (const auto& entry : fs::directory_iterator(lib, ec)) {
    if (!entry.is_regular_file(ec) || entry.path().string().find(".so") == std::string::npos) {
      continue;
    }
    const auto size = entry.file_size(ec);
    if (!ec && size > best_size) {
      best = entry.path().string();
      best_size = size;
    }
  }
  return best;
}

bool find_section() {
  const int fd = open(g_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const CountingPread source(fd, file_size(fd));
  auto sections = gpuvet::sys::read_elf_sections(source);
  close(fd);
  if (!sections) return false;
  for (const auto& s : *sections) {
    if (s.name == ".nv_fatbin") {
      g_section_offset = s.offset;
      g_section_bytes = s.size;
      return true;
    }
  }
  return false;
}

}  // namespace

// Argument 1: the file's pages evicted before each run (cold page cache); 0: warm.
static void cold_and_warm(benchmark::internal::Benchmark* b, int repetitions) {
  b->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(repetitions);
  b->ReportAggregatesOnly(true);
}

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--file") == 0 && i + 1 < argc) {
      g_file = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (g_file.empty()) g_file = default_file();
  if (g_file.empty() || !find_section()) {
    std::fprintf(stderr,
                 "gpu code bench: no CUDA library with a .nv_fatbin section (--file LIB)\n");
    return 1;
  }
  if (std::system("command -v cuobjdump >/dev/null 2>&1") == 0) {
    g_cuobjdump = "cuobjdump";
    cold_and_warm(benchmark::RegisterBenchmark("BM_Cuobjdump", BM_Cuobjdump)->Iterations(1), 3);
  }
  cold_and_warm(benchmark::RegisterBenchmark("BM_GpuvetGpuCode", BM_GpuvetGpuCode), 5);
  cold_and_warm(benchmark::RegisterBenchmark("BM_ReadSectionWhole", BM_ReadSectionWhole), 5);
  gpuvet::bench::MedianReporter reporter(summarize);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
