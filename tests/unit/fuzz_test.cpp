// Mutation fuzzing of every parser that reads outside input: whatever the bytes, the result is a
// value or an error, never a crash, a hang or an exception. Deterministic seeds, so a failure
// reproduces; ASan/UBSan builds run the same cases.
#include <gtest/gtest.h>

#include <random>

#include "kb/csv.hpp"
#include "probes/probes.hpp"
#include "system/gzip.hpp"
#include "system/replay_system.hpp"
#include "system/snapshot.hpp"

namespace gpuvet {
namespace {

constexpr const char* kSeedSnapshot = R"({
  "schema": "gpuvet.snapshot/1", "taken_at": "2026-11-30T04:00:00Z",
  "host": {"os": "linux", "os_name": "Linux", "os_version": "6.1.0", "arch": "x86_64"},
  "env": {"PATH": "/usr/bin:/bin", "CUDA_VISIBLE_DEVICES": "0", "TF_CPP_MIN_LOG_LEVEL": "2"},
  "files": {"/etc/os-release": {"text": "NAME=Debian\nVERSION_ID=12\n"},
            "/usr/local/cuda": {"link": "cuda-13.0"},
            "/usr/local/cuda-13.0/lib64": {"link": "lib"},
            "/usr/local/cuda-13.0/lib/libcudart.so.13": {"size": 10, "elf": {"soname": "libcudart.so.13"}},
            "/dev/nvidia0": {"other": true}},
  "registry": {"HKLM/A/B": {"x": "y", "n": 1}},
  "ld_cache": {"libcuda.so.1": ["/usr/lib/libcuda.so.1"]},
  "driver": {"installed": true, "version": "550.54.15", "cuda_driver_version": "12.4"},
  "gpus": [{"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0", "memory_mib": 143771}],
  "display_adapters": [], "loads": {"libcuda.so.1": {"ok": false, "error": "x"}}
})";

std::string mutate(std::string input, std::mt19937& rng) {
  std::uniform_int_distribution<int> op(0, 5);
  std::uniform_int_distribution<int> byte(0, 255);
  const int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits && !input.empty(); ++e) {
    const size_t at = rng() % input.size();
    switch (op(rng)) {
      case 0:
        input[at] = static_cast<char>(byte(rng));
        break;
      case 1:
        input.erase(at, 1 + rng() % 16);
        break;
      case 2:
        input.insert(at, 1, "{}[]\",:0-/\\e."[rng() % 13]);
        break;
      case 3:
        input.resize(at);
        break;
      case 4:
        input.insert(at, input.substr(rng() % input.size(), rng() % 64));
        break;
      default:
        std::swap(input[at], input[rng() % input.size()]);
        break;
    }
  }
  return input;
}

// Parses, and when the document is still a snapshot, replays it through every probe.
void exercise(const std::string& bytes) {
  auto snapshot = sys::parse_snapshot(bytes);
  if (!snapshot) {
    EXPECT_FALSE(snapshot.error().message.empty());
    return;
  }
  const sys::ReplaySystem replay(std::move(*snapshot));
  (void)probes::collect_facts(replay);
  (void)replay.list_dir("/");
  (void)replay.list_dir("/usr/local/cuda/lib64");
  (void)replay.read_text("/usr/local/cuda/lib64/libcudart.so.13");
  (void)replay.registry_subkeys("HKLM/A");
}

TEST(Fuzz, SnapshotJson) {
  std::mt19937 rng(20261130);
  for (int i = 0; i < 4000; ++i)
    exercise(mutate(kSeedSnapshot, rng));
}

TEST(Fuzz, SnapshotGzip) {
  const std::string compressed = *gzip::compress(kSeedSnapshot);
  std::mt19937 rng(7);
  for (int i = 0; i < 1500; ++i)
    exercise(mutate(compressed, rng));
}

TEST(Fuzz, RandomBytes) {
  std::mt19937 rng(42);
  for (int i = 0; i < 1000; ++i) {
    std::string bytes(rng() % 512, '\0');
    for (auto& c : bytes)
      c = static_cast<char>(rng());
    if (i % 2 == 0 && bytes.size() >= 2) bytes[0] = '\x1f', bytes[1] = '\x8b';
    exercise(bytes);
  }
}

TEST(Fuzz, CsvTables) {
  const std::string seed =
      "# comment, with \"quotes\"\nlevel,hidden,severity,source\n0,,none,\"a, b\"\r\n"
      "1,\"x\ny\",info,\"say \"\"hi\"\"\"\n";
  std::mt19937 rng(3);
  for (int i = 0; i < 4000; ++i) {
    auto table = kb::parse_csv(mutate(seed, rng), "fuzz.csv");
    if (!table) {
      EXPECT_EQ(table.error().message.rfind("fuzz.csv", 0), 0u) << table.error().message;
      continue;
    }
    for (size_t row = 0; row < table->size(); ++row) {
      for (const auto& column : table->header())
        (void)table->cell(row, column);
    }
  }
}

}  // namespace
}  // namespace gpuvet
