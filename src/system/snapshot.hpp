#pragma once
// The snapshot file (gpuvet.snapshot/1, CONTRACTS.md): everything the probes read from a machine.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {

inline constexpr const char* kSnapshotSchema = "gpuvet.snapshot/1";

// Limits on a snapshot document, checked while it is read, before it is parsed, so that a crafted
// or wrong file is refused in milliseconds and bounded memory. A real snapshot is a few hundred
// KiB (this project's own machines: 350 KiB, 10 000 values, 6 deep); each limit is far above that.
// The document as parsed (after gzip): 64 MiB, some 200 times a real one.
inline constexpr size_t kMaxSnapshotBytes = size_t{64} << 20;
// The file itself: a gzip of incompressible data is 0.03 % larger than the data, never 1 MiB.
inline constexpr size_t kMaxSnapshotFileBytes = kMaxSnapshotBytes + (size_t{1} << 20);
// One string, decoded (an upper estimate: \uXXXX counts 3 bytes). The longest a probe writes is a
// file's text, at most kMaxTextBytes; invalid UTF-8 in it is written as U+FFFD (3 bytes each).
inline constexpr size_t kMaxSnapshotStringBytes = 4 * kMaxTextBytes;
// Nesting: files -> path -> elf -> needed -> [i] is the deepest a snapshot goes.
inline constexpr size_t kMaxSnapshotDepth = 32;
// Values (objects, arrays, strings, numbers ...): one million, 100 times a real snapshot, keeps the
// parsed document within a few hundred MB whatever it holds.
inline constexpr size_t kMaxSnapshotValues = 1'000'000;

// One key of the snapshot's "files" section. Fields are merged as probes learn more.
struct FileEntry {
  bool dir = false;
  bool other = false;  // a device node, socket or pipe
  std::optional<std::uint64_t> size;
  std::optional<std::string> link;
  std::optional<std::string> text;
  bool head = false;                 // text holds only the beginning of the file (read_head)
  std::optional<std::string> error;  // why reading it failed (permission denied, too large ...)
  std::optional<bool> read_write;    // device nodes: may this process open it read-write
  std::optional<PeVersion> pe;
  std::optional<ElfInfo> elf;
  // What its fat binaries hold, or why they could not be read (a damaged file).
  std::optional<GpuCode> gpu_code;
  std::optional<std::string> gpu_code_error;
  bool operator==(const FileEntry&) const = default;

  void merge(const FileEntry& other);
};

struct Snapshot {
  std::string taken_at;
  HostInfo host;
  std::map<std::string, std::string> env;
  std::map<std::string, FileEntry> files;
  std::map<std::string, RegistryValues> registry;
  std::map<std::string, std::vector<std::string>> ld_cache;
  std::optional<DriverAnswer> driver;
  std::optional<std::vector<GpuAnswer>> gpus;
  std::optional<std::vector<DisplayAdapter>> display_adapters;
  std::map<std::string, LoadAnswer> loads;
  std::map<std::string, ProgramOutput> programs;  // "program arg arg" -> what it printed
  bool operator==(const Snapshot&) const = default;
};

// The key under which a program run is recorded: the program and its arguments, space-separated.
std::string program_key(const std::string& program, const std::vector<std::string>& args);

nlohmann::json snapshot_to_json(const Snapshot& snapshot);
// Validates the document; the error names the JSON location and what is wrong with it.
Result<Snapshot> snapshot_from_json(const nlohmann::json& document);

// Text <-> Snapshot. Input may be gzip-compressed (detected by its magic bytes).
Result<Snapshot> parse_snapshot(std::string_view bytes);
std::string serialize_snapshot(const Snapshot& snapshot);

// Files. Errors name the file. Writing compresses when the name ends in ".gz".
Result<Snapshot> load_snapshot_file(const std::string& path);
Result<bool> save_snapshot_file(const Snapshot& snapshot, const std::string& path);

}  // namespace gpuvet::sys
