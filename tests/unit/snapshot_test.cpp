#include "system/snapshot.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/gzip.hpp"
#include "core/paths.hpp"
#include "test_support.hpp"

namespace gpuvet::sys {
namespace {

using nlohmann::json;

json full_document() {
  return json::parse(R"({
    "schema": "gpuvet.snapshot/1",
    "taken_at": "2026-11-30T04:00:00Z",
    "host": {"os": "windows", "os_name": "Windows 10 Pro", "os_version": "10.0.18363",
             "os_release": "1909", "arch": "x86_64", "wsl": false, "container": null,
             "remote_session": true, "cpu": {"vendor": "GenuineIntel", "usable": ["sse2", "avx"]}},
    "env": {"PATH": "C:\\Windows\\system32", "CUDA_PATH": "C:\\CUDA\\v10.1"},
    "files": {
      "C:/CUDA/v10.1/version.txt": {"text": "CUDA Version 10.1.243\n"},
      "C:/CUDA/v10.1/bin/cudart64_101.dll": {"size": 435200},
      "C:/Windows/System32/cudnn64_7.dll": {"size": 1, "pe": {"file_version": "6.14.11.10000"}},
      "/usr/lib/libcudnn.so.8.9.7": {"elf": {"bits": 64, "machine": 62, "soname": "libcudnn.so.8", "needed": ["libc.so.6"],
                                            "runpath": ["$ORIGIN"]}},
      "/usr/local/cuda": {"link": "/usr/local/cuda-12.2", "dir": true},
      "/dev/nvidia0": {"other": true, "error": "Permission denied"},
      "/empty": {"dir": true}
    },
    "registry": {"HKLM/SOFTWARE/NVIDIA Corporation/GPU Computing Toolkit/CUDA/v10.1":
                   {"InstallDir": "C:\\CUDA\\v10.1", "Flags": 3}},
    "ld_cache": {"libcuda.so.1": ["/usr/lib/x86_64-linux-gnu/libcuda.so.1"]},
    "driver": {"installed": true, "version": "452.06", "cuda_driver_version": "11.0",
               "error": null},
    "gpus": [{"index": 0, "name": "GeForce GTX 1060 6GB", "pci_id": "10DE:1C03",
              "compute_capability": "6.1", "memory_mib": 6144, "driver_model": "WDDM"}],
    "display_adapters": [{"name": "NVIDIA GeForce GTX 1060 6GB", "provider": "NVIDIA",
                          "driver_version": "27.21.14.5206", "pnp_id": "PCI\\VEN_10DE&DEV_1C03"}],
    "loads": {"cudnn64_7.dll": {"ok": true, "path": "C:/x/cudnn64_7.dll", "version": "7.6.5"}},
    "programs": {"C:/CUDA/v10.1/bin/nvcc.exe --version":
                   {"exit": 0, "output": "Cuda compilation tools, release 10.1, V10.1.243\n"},
                 "C:/CUDA/v9.0/bin/ptxas.exe --version": {"exit": null, "output": "",
                                                         "error": "hung and was stopped"}}
  })");
}

TEST(Snapshot, ReadsEverySectionOfTheContract) {
  auto s = snapshot_from_json(full_document());
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->host.os, "windows");
  EXPECT_EQ(s->host.os_release, "1909");
  EXPECT_TRUE(s->host.remote_session);
  ASSERT_TRUE(s->host.cpu);
  EXPECT_EQ(s->host.cpu->vendor, "GenuineIntel");
  EXPECT_EQ(s->host.cpu->usable, (std::vector<std::string>{"avx", "sse2"}));  // sorted
  EXPECT_EQ(s->env.at("CUDA_PATH"), "C:\\CUDA\\v10.1");
  EXPECT_EQ(s->files.at("C:/CUDA/v10.1/bin/cudart64_101.dll").size, 435200u);
  EXPECT_EQ(s->files.at("C:/Windows/System32/cudnn64_7.dll").pe->file_version, "6.14.11.10000");
  EXPECT_EQ(s->files.at("/usr/lib/libcudnn.so.8.9.7").elf->bits, 64);
  EXPECT_EQ(s->files.at("/usr/lib/libcudnn.so.8.9.7").elf->machine, 62);
  EXPECT_EQ(s->files.at("/usr/lib/libcudnn.so.8.9.7").elf->runpath,
            std::vector<std::string>{"$ORIGIN"});
  EXPECT_EQ(std::get<std::int64_t>(
                s->registry.at("HKLM/SOFTWARE/NVIDIA Corporation/GPU Computing Toolkit/CUDA/v10.1")
                    .at("Flags")),
            3);
  ASSERT_TRUE(s->driver);
  EXPECT_EQ(s->driver->version, "452.06");
  ASSERT_TRUE(s->gpus);
  EXPECT_EQ(s->gpus->at(0).memory_mib, 6144);
  EXPECT_EQ(s->display_adapters->at(0).driver_version, "27.21.14.5206");
  EXPECT_TRUE(s->loads.at("cudnn64_7.dll").ok);
  EXPECT_EQ(s->programs.at("C:/CUDA/v10.1/bin/nvcc.exe --version").exit_code, 0);
  EXPECT_EQ(s->programs.at("C:/CUDA/v9.0/bin/ptxas.exe --version").error, "hung and was stopped");
}

TEST(Snapshot, WritesWhatItReads) {
  auto first = snapshot_from_json(full_document());
  ASSERT_TRUE(first);
  auto second = parse_snapshot(serialize_snapshot(*first));
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(*first, *second);
}

TEST(Snapshot, AbsentNativeSectionsStayAbsent) {
  auto s = parse_snapshot(R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"}})");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_FALSE(s->driver);
  EXPECT_FALSE(s->gpus);
  EXPECT_FALSE(s->display_adapters);
  auto again = parse_snapshot(serialize_snapshot(*s));
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->gpus);
}

struct BadInput {
  const char* name;
  std::string text;
  const char* message_part;
};

class SnapshotRejects : public ::testing::TestWithParam<BadInput> {};

TEST_P(SnapshotRejects, WithAClearMessage) {
  auto s = parse_snapshot(GetParam().text);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find(GetParam().message_part), std::string::npos)
      << s.error().message;
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos) << "one line";
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, SnapshotRejects,
    ::testing::Values(
        BadInput{"empty", "", "empty"}, BadInput{"blank", "  \n\t", "empty"},
        BadInput{"not_json", "hello world", "not valid JSON"},
        BadInput{"truncated", R"({"schema": "gpuvet.snapshot/1", "host": {"os": )", "truncated"},
        BadInput{"binary",
                 std::string("\x7f"
                             "ELF\x02\x01\x01\0\0\0",
                             10),
                 "binary"},
        BadInput{"array", "[1, 2, 3]", "expected an object"},
        BadInput{"no_schema", R"({"host": {"os": "linux"}})", "no \"schema\""},
        BadInput{"other_schema", R"({"schema": "gpuvet.check/1", "host": {"os": "linux"}})",
                 "unsupported schema \"gpuvet.check/1\""},
        BadInput{"future_schema", R"({"schema": "gpuvet.snapshot/2", "host": {"os": "linux"}})",
                 "unsupported schema"},
        BadInput{"no_host", R"({"schema": "gpuvet.snapshot/1"})", "missing \"host\""},
        BadInput{"bad_os", R"({"schema": "gpuvet.snapshot/1", "host": {"os": "beos"}})",
                 "host.os: must be linux or windows"},
        BadInput{"env_number",
                 R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"}, "env": {"A": 1}})",
                 "env.A: expected a string"},
        BadInput{"files_array",
                 R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"}, "files": []})",
                 "files: expected an object"},
        BadInput{"negative_size",
                 R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"},
                     "files": {"/a": {"size": -1}}})",
                 "files./a.size"},
        BadInput{
            "gpu_index",
            R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"}, "gpus": [{"name": "x"}]})",
            "gpus[0]: missing \"index\""},
        BadInput{"registry_bool",
                 R"({"schema": "gpuvet.snapshot/1", "host": {"os": "windows"},
                     "registry": {"HKLM/X": {"v": true}}})",
                 "registry.HKLM/X.v"},
        BadInput{"elf_bits",
                 R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"},
                     "files": {"/a": {"elf": {"bits": -64}}}})",
                 "files./a.elf.bits: out of range"},
        BadInput{"elf_needed",
                 R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"},
                     "files": {"/a": {"elf": {"needed": "libc"}}}})",
                 "files./a.elf.needed: expected an array"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(SnapshotFile, GzipIsDetectedByContentAndWrittenByName) {
  testing::TempDir dir;
  auto s = snapshot_from_json(full_document());
  ASSERT_TRUE(s);
  const std::string gz = dir.path() + "/machine.json.gz";
  ASSERT_TRUE(save_snapshot_file(*s, gz));
  auto bytes = paths::read_file(gz, 1 << 20);
  ASSERT_TRUE(bytes);
  EXPECT_TRUE(gzip::looks_compressed(*bytes));
  auto loaded = load_snapshot_file(gz);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(*loaded, *s);

  // A compressed file under a plain name still loads.
  const std::string renamed = dir.file("renamed.json", *bytes);
  auto again = load_snapshot_file(renamed);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, *s);
}

TEST(SnapshotFile, ErrorsNameTheFile) {
  testing::TempDir dir;
  const auto missing = load_snapshot_file(dir.path() + "/nope.json");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope.json"), std::string::npos);

  const std::string truncated_gz = [&] {
    auto full = gzip::compress(serialize_snapshot(*snapshot_from_json(full_document())));
    return dir.file("cut.json.gz", full->substr(0, full->size() / 2));
  }();
  const auto cut = load_snapshot_file(truncated_gz);
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message.find("cut.json.gz"), std::string::npos);
  EXPECT_NE(cut.error().message.find("gzip"), std::string::npos) << cut.error().message;

  const auto directory = load_snapshot_file(dir.path());
  ASSERT_FALSE(directory);
  EXPECT_NE(directory.error().message.find("directory"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet::sys

namespace gpuvet::sys {
namespace {

std::string minimal_with(const std::string& member) {
  return R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"}, )" + member + "}";
}

std::string error_of(const Result<Snapshot>& result) {
  return result ? std::string("(accepted)") : result.error().message;
}

TEST(SnapshotLimits, AStringBeyondTheLimitIsRefusedBeforeParsing) {
  const std::string big(kMaxSnapshotStringBytes + 1, 'A');
  const auto result = parse_snapshot(minimal_with(R"("env": {"PATH": ")" + big + "\"}"));
  EXPECT_NE(error_of(result).find("longer than 4 MiB"), std::string::npos) << error_of(result);
  // Escapes count too: \u0041 is one letter, but counts as three bytes.
  std::string escaped;
  for (size_t i = 0; i < kMaxSnapshotStringBytes / 3 + 1; ++i)
    escaped += "\\u0041";
  EXPECT_FALSE(parse_snapshot(minimal_with(R"("env": {"PATH": ")" + escaped + "\"}")));
  // An escaped quote does not end the string.
  EXPECT_FALSE(parse_snapshot(minimal_with(R"("env": {"PATH": "\")" + big + "\"}")));
}

TEST(SnapshotLimits, TheLongestTextAProbeWritesStillRoundTrips) {
  // A file of kMaxTextBytes control characters (\u0001 in JSON) and one of invalid UTF-8 (U+FFFD).
  for (const char byte : {'\x01', '\xff'}) {
    Snapshot s;
    s.host.os = "linux";
    FileEntry entry;
    entry.text = std::string(kMaxTextBytes, byte);
    s.files["/big"] = entry;
    const auto back = parse_snapshot(serialize_snapshot(s));
    ASSERT_TRUE(back) << error_of(back);
    EXPECT_EQ(back->files.at("/big").text->size(),
              byte == '\x01' ? kMaxTextBytes : 3 * kMaxTextBytes);
  }
}

TEST(SnapshotLimits, DepthValuesAndNumbers) {
  const std::string deep =
      std::string(kMaxSnapshotDepth, '[') + std::string(kMaxSnapshotDepth, ']');
  EXPECT_NE(error_of(parse_snapshot(minimal_with(R"("x": )" + deep))).find("nested more than 32"),
            std::string::npos);
  std::string many = "[0";
  for (size_t i = 0; i < kMaxSnapshotValues; ++i)
    many += ",0";
  EXPECT_NE(error_of(parse_snapshot(minimal_with(R"("x": )" + many + "]"))).find("more than"),
            std::string::npos);
  EXPECT_EQ(error_of(parse_snapshot(minimal_with(R"("x": 1e400)"))),
            "not valid JSON (a number out of range)");
}

TEST(SnapshotLimits, AGzipBombStopsInflatingAtTheDocumentLimit) {
  const std::string bomb = *gzip::compress(std::string(kMaxSnapshotBytes + 1, ' '));
  ASSERT_LT(bomb.size(), size_t{1} << 20);
  EXPECT_NE(error_of(parse_snapshot(bomb)).find("size limit of 64 MiB"), std::string::npos)
      << error_of(parse_snapshot(bomb));
  EXPECT_NE(error_of(parse_snapshot(std::string(kMaxSnapshotBytes + 1, ' '))).find("larger than"),
            std::string::npos);
}

TEST(SnapshotLimits, EndlessAndBinaryFilesAreRefusedAtOnce) {
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero here";
  const auto zero = load_snapshot_file("/dev/zero");
  EXPECT_EQ(error_of(zero), "/dev/zero: binary data, not a JSON snapshot");
}

}  // namespace
}  // namespace gpuvet::sys
