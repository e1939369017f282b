// Mutation fuzzing of every parser that reads outside input: whatever the bytes, the result is a
// value or an error, never a crash, a hang or an exception. Deterministic seeds, so a failure
// reproduces; ASan/UBSan builds run the same cases.
#include <gtest/gtest.h>

#include <random>

#include "core/base64.hpp"
#include "core/gzip.hpp"
#include "core/hostlist.hpp"
#include "core/text.hpp"
#include "explain/pasted_forms.hpp"
#include "explain_support.hpp"
#include "fleet/collect_record.hpp"
#include "fleet/wire.hpp"
#include "kb/csv.hpp"
#include "probes/probes.hpp"
#include "python/framework_files.hpp"
#include "python/metadata.hpp"
#include "python/python_literal.hpp"
#include "system/replay_system.hpp"
#include "system/snapshot.hpp"
#include "test_support.hpp"

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
            "/dev/nvidia0": {"other": true},
            "/opt/conda/conda-meta/python-3.10.13-h0.json": {"text": "{\"channel\": \"pkgs/main\"}"},
            "/opt/conda/conda-meta/cudatoolkit-11.8.0-h0.json": {"text": "{}"},
            "/opt/conda/lib/python3.10/site-packages/torch-2.1.0.dist-info/METADATA": {"text": "Name: torch\nVersion: 2.1.0\n\n"},
            "/opt/conda/lib/python3.10/site-packages/torch/version.py": {"text": "__version__ = '2.1.0+cu121'\ncuda = '12.1'\n"},
            "/opt/conda/lib/python3.10/site-packages/nvidia_cudnn_cu12-8.9.2.26.dist-info": {"dir": true},
            "/opt/conda/lib/python3.10/site-packages/tensorflow/python/platform/build_info.py": {"text": "build_info = {'cuda_version': '64_112', 'is_cuda_build': True}"},
            "/opt/conda/lib/python3.10/site-packages/tensorflow_gpu-2.10.0.dist-info/METADATA": {"text": "Name: tensorflow-gpu\nVersion: 2.10.0\n"}},
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

TEST(Fuzz, PythonMetadataFiles) {
  const std::string seeds[] = {
      "import collections\nbuild_info = collections.OrderedDict([('cuda_compute_capabilities', "
      "['sm_35', 'compute_80']), ('cuda_version', '64_112'), ('cudnn_version', '64_8'), "
      "('is_cuda_build', True), ('msvcp_dll_names', 'msvcp140.dll,msvcp140_1.dll')])\n",
      "from typing import Optional\n__version__ = '2.4.0+cu121'\ncuda: Optional[str] = '12.1'\n"
      "hip: Optional[str] = None\nx = {'a': [1, (2, 3)], \"b\": r'\\\\'}\n\"\"\"doc\"\"\"\n",
      "full_version    = '2.5.1'\ncuda_version    = '11.2'\ncudnn_version = 'False'\n",
      "Metadata-Version: 2.1\r\nName: tensorflow-gpu\r\nVersion: 2.1.0\r\n\r\nbody\n",
      "envs_dirs:\n  - /a # c\n  - '~/b'\nchannels: [x, y]\n",
      "{\"cuda\": \"12.x\", \"cudnn\": {\"version\": \"8.8.1\"}}",
  };
  std::mt19937 rng(11);
  for (const auto& seed : seeds) {
    for (int i = 0; i < 1500; ++i) {
      const std::string input = mutate(seed, rng);
      (void)python::parse_tensorflow_build_info(input);
      (void)python::parse_torch_version(input);
      (void)python::parse_paddle_version(input);
      (void)python::parse_cupy_wheel_json(input);
      (void)python::parse_core_metadata(input);
      (void)python::condarc_envs_dirs(input);
      (void)python::parse_cfg(input);
      (void)python::patchlevel_version(input);
      (void)python::conda_channel(input);
      (void)python::parse_dist_dir_name(input);
      (void)python::parse_conda_record_name(input);
      (void)python::parse_jaxlib_label(input);
      (void)python::tensorflow_cuda_version(input);
    }
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

// What srun prints (fleet collect): a node's lines, mutated, then read as the collector reads them.
TEST(Fuzz, FleetWire) {
  const std::string snapshot = *gzip::compress(kSeedSnapshot);
  std::string seed;
  for (const auto& line : fleet::wire_lines("gpu01", "gpu[01-02]", snapshot))
    seed += line + "\n";
  seed += "srun: error: gpu02: task 1: Exited with exit code 1\n";
  std::mt19937 rng(11);
  for (int i = 0; i < 2000; ++i) {
    fleet::WireReader reader;
    for (const auto& line : text::split(mutate(seed, rng), '\n'))
      reader.feed_line(line);
    for (const auto& node : reader.nodes()) {
      // Whatever arrives as ok is exactly what was sent (checked by size and CRC-32).
      if (node.status == fleet::CollectStatus::ok && node.node == "gpu01") {
        EXPECT_EQ(node.snapshot, snapshot);
      }
    }
  }
}

TEST(Fuzz, HostlistsAndBase64AndTheCollectorsRecord) {
  std::mt19937 rng(12);
  for (int i = 0; i < 3000; ++i) {
    (void)hostlist::expand(mutate("gpu[01-04,07],rack[1-2]-n[8-9],login1", rng));
    (void)base64::decode(mutate("Zm9vYmFyIGJheg==", rng));
  }
  fleet::CollectRecord record;
  record.nodes = {{"gpu01", fleet::CollectStatus::ok, "gpu01", "gpu01.json.gz", ""},
                  {"gpu02", fleet::CollectStatus::timed_out, std::nullopt, std::nullopt, "slow"}};
  const std::string seed = fleet::serialize_collect_record(record);
  testing::TempDir dir;
  for (int i = 0; i < 500; ++i) {
    const std::string path = dir.file("collect.json", mutate(seed, rng));
    const auto read = fleet::read_collect_record(path);
    if (!read) {
      EXPECT_NE(read.error().message.find("collect.json"), std::string::npos);
    }
  }
}

// slurm.conf and gres.conf as a node has them: any bytes give a node's configuration or none, and
// what a snapshot keeps of them reads to the same.
TEST(Fuzz, SlurmAndGresConf) {
  std::mt19937 rng(13);
  const std::string slurm =
      "NodeName=DEFAULT Gres=gpu:2\nNodeName=gpu[01-04] Gres=gpu:a100:4(S:0-1),mps:400\n"
      "AccountingStoragePass=x # c\nNodeName=n1 NodeHostname=h1\n";
  const std::string gres =
      "AutoDetect=nvml\nNodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-3]\n";
  for (int i = 0; i < 3000; ++i) {
    const std::string conf = mutate(slurm, rng);
    const auto node = probes::slurm_node_config(conf, "gpu02");
    if (node.gpus) {
      EXPECT_GE(*node.gpus, 0);
    }
    const auto kept = probes::slurm_parameters_read(conf, false);
    EXPECT_EQ(probes::slurm_node_config(kept, "gpu02").gpus, node.gpus) << conf;
    (void)probes::gres_gpu_count(mutate("gpu:a100:2(S:0,1),mps:100", rng));
    const auto gres_node = probes::gres_node_config(mutate(gres, rng), "gpu01");
    EXPECT_LE(gres_node.gpu_files.size(), hostlist::kMaxNames);
  }
}

// The kernel log's Xid lines as journalctl prints them, and as a user pastes them to explain: any
// bytes give an event or none, its code at most four digits and its text bounded, and explain
// names what it reads from them without failing.
TEST(Fuzz, XidLinesOfTheKernelsLog) {
  std::mt19937 rng(17);
  const std::string line =
      "2026-12-07T03:12:44+0000 node01 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, "
      "name=python3, GPU has fallen off the bus.";
  for (int i = 0; i < 3000; ++i) {
    const std::string input = mutate(line, rng);
    if (const auto event = probes::xid_event_of(input)) {
      EXPECT_GE(event->xid, 0);
      EXPECT_LE(event->xid, 9999);
      EXPECT_LE(event->text.size(), kMaxXidText);
    }
    if (i % 10 == 0)
      (void)testing::explain_by_signatures(input + "\nXidCriticalError: Xid=" + input);
  }
}

// Wrapped lines (explain/pasted_forms.hpp): every prefix, a Docker record and entities,
// mutated; peeling never reads past the line and never grows it beyond its own bytes.
TEST(Fuzz, WrappedLogLines) {
  std::mt19937 rng(23);
  const std::vector<std::string> lines = {
      R"({"log":"[rank0]: RuntimeError: \"x\" not implemented for 'Half'\n","stream":"stderr"})",
      "2024-05-01T12:00:00.123456789Z stderr F > Oct  3 10:22:21 host a[12]: ollama-1  | "
      "&#39;x&#x27;",
      "Oct 23 10:22:21 kernel: NVRM: Xid (PCI:0000:3b:00): 79 &amp; &quot;&lt;&gt;&#128512;"};
  for (int i = 0; i < 3000; ++i) {
    const std::string input = mutate(lines[static_cast<size_t>(i) % lines.size()], rng);
    if (const auto message = explain::unwrapped_message(input)) {
      // Every reference and escape is at least as long as what it stands for.
      EXPECT_LE(message->size(), input.size());
    }
    (void)explain::first_escaped_form(input);
    // Read as explain reads (some mutations make the input one the reader refuses: an error).
    explain::Collector collector(testing::signatures(), nullptr);
    (void)explain::read_log_text(
        input, [&](size_t n, std::string_view line) { return collector.on_line(n, line); },
        [&](std::string_view text) { return collector.first_candidate(text); });
  }
}

}  // namespace
}  // namespace gpuvet
