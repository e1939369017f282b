#pragma once
// The System door: the only way probes see a machine. Three implementations share it:
// the live OS (live_system_<platform>.cpp), a recorder that wraps live and remembers every
// answer (recording_system.hpp), and a replayer that answers from a snapshot (replay_system.hpp).
// Paths are UTF-8 with '/' separators; on Windows they compare case-insensitively.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/result.hpp"
#include "facts/facts.hpp"

namespace gpuvet::sys {

// Largest file read_text() returns: probes read small metadata files, never payloads.
inline constexpr size_t kMaxTextBytes = 1 << 20;

enum class FileKind { regular, directory, other };

struct FileInfo {
  FileKind kind = FileKind::regular;       // of the link's target when the path is a symlink
  std::optional<std::uint64_t> size;       // bytes, regular files only
  std::optional<std::string> link_target;  // set when the path itself is a symlink
  // For device nodes: whether this process may open it for reading and writing.
  std::optional<bool> read_write;
  bool operator==(const FileInfo&) const = default;
};

struct DirEntry {
  std::string name;
  FileKind kind = FileKind::regular;
  bool is_link = false;
  bool operator==(const DirEntry&) const = default;
};

// What the dynamic loader reads of an ELF file: its class and machine (ld.so skips a library
// built for another one) and its dynamic section.
struct ElfInfo {
  std::optional<int> bits;     // 32 or 64 (EI_CLASS)
  std::optional<int> machine;  // e_machine: 62 x86-64, 183 AArch64, 3 i386 ...
  std::optional<std::string> soname;
  std::vector<std::string> needed;
  std::vector<std::string> runpath;
  std::vector<std::string> rpath;
  bool operator==(const ElfInfo&) const = default;
};

// The GPU code a CUDA-built library carries in its fat binaries (system/gpu_code_reader.hpp):
// the architectures of its SASS (cubins the driver loads as they are) and of its PTX (which the
// driver JIT-compiles for newer GPUs). A file without fat binaries has empty lists.
struct GpuCode {
  std::vector<std::string> sass;  // "sm_75", "sm_90a", "sm_100f": by number, each once
  std::vector<std::string> ptx;   // "compute_90"
  std::vector<std::string> lto;   // "lto_86": LTO-IR, linked at load time by nvJitLink
  bool operator==(const GpuCode&) const = default;
};

// The version resource of a Windows PE file.
struct PeVersion {
  std::optional<std::string> file_version;
  std::optional<std::string> product_version;
  bool operator==(const PeVersion&) const = default;
};

using RegistryValue = std::variant<std::string, std::int64_t>;
using RegistryValues = std::map<std::string, RegistryValue>;

// What the processor lets user space run (system/cpu_features.hpp): x86 CPUID features.
struct CpuFeatures {
  std::string vendor;               // CPUID's vendor string: "GenuineIntel", "AuthenticAMD"
  std::vector<std::string> usable;  // sorted; /proc/cpuinfo's spelling ("avx2", "pni", "abm")
  bool operator==(const CpuFeatures&) const = default;
};

// What the operating system says about itself through its APIs (uname, RtlGetVersion, ...).
struct HostInfo {
  std::string os;  // "linux" | "windows"
  std::optional<std::string> os_name;
  std::optional<std::string> os_version;
  std::optional<std::string> os_release;
  std::optional<std::string> arch;
  bool wsl = false;
  std::optional<std::string> container;
  bool remote_session = false;
  // The machine's name (gethostname, the DNS host name on Windows): a fleet report's row.
  std::optional<std::string> hostname;
  // The working directory gpuvet ran in: a `.venv` or `.python-version` there applies.
  std::optional<std::string> cwd;
  // x86 only: the CPU features as CPUID and XGETBV report them (nullopt elsewhere, and in
  // snapshots older than this field).
  std::optional<CpuFeatures> cpu;
  bool operator==(const HostInfo&) const = default;
};

// Native GPU/driver answers (NVML, the CUDA driver API, SetupAPI, LoadLibrary/dlopen).
struct DriverAnswer {
  bool installed = false;
  std::optional<std::string> version;
  std::optional<std::string> cuda_driver_version;
  std::optional<std::string> error;
  bool operator==(const DriverAnswer&) const = default;
};

// What NVML, the CUDA driver or nvidia-smi says of a GPU is the GPU fact itself.
using GpuAnswer = GpuFact;

struct DisplayAdapter {
  std::optional<std::string> name;
  std::optional<std::string> provider;
  std::optional<std::string> driver_version;
  std::optional<std::string> pnp_id;
  bool operator==(const DisplayAdapter&) const = default;
};

// What a program printed when gpuvet ran it to ask its version (nvcc --version, ptxas --version).
struct ProgramOutput {
  std::optional<int> exit_code;      // null when it did not exit by itself
  std::string output;                // standard output
  std::optional<std::string> error;  // why it gave nothing: could not start, crashed, hung
  bool operator==(const ProgramOutput&) const = default;
};

struct LoadAnswer {
  bool ok = false;
  std::optional<std::string> path;
  std::optional<std::string> version;
  std::optional<std::string> error;
  // What the library's own initialisation returned, where it has one gpuvet calls:
  // cuInit (a CUresult) for the CUDA driver, nvmlInit_v2 (an nvmlReturn_t) for NVML.
  std::optional<int> init_code;
  bool operator==(const LoadAnswer&) const = default;
};

class System {
 public:
  virtual ~System() = default;

  virtual HostInfo host() const = 0;

  // Environment variables. Windows names compare case-insensitively.
  virtual std::optional<std::string> env(std::string_view name) const = 0;
  virtual std::map<std::string, std::string> environment() const = 0;

  // Files. nullopt / an Error means the path does not exist or cannot be read.
  virtual std::optional<FileInfo> file_info(const std::string& path) const = 0;
  virtual std::optional<std::vector<DirEntry>> list_dir(const std::string& path) const = 0;
  virtual Result<std::string> read_text(const std::string& path) const = 0;
  // The first max_bytes of a file (all of it when shorter): for headers such as METADATA,
  // whose long descriptions are never needed.
  virtual Result<std::string> read_head(const std::string& path, size_t max_bytes) const = 0;
  virtual Result<ElfInfo> elf_info(const std::string& path) const = 0;
  virtual Result<PeVersion> pe_version(const std::string& path) const = 0;
  // What the file's CUDA fat binaries hold (ELF .nv_fatbin, PE .nv_fatb), read from the headers
  // without loading the library or reading its code.
  virtual Result<GpuCode> gpu_code(const std::string& path) const = 0;

  // Windows registry, keys as "HKLM/SOFTWARE/..." (64-bit view). Empty where there is none.
  virtual std::optional<RegistryValues> registry_values(const std::string& key) const = 0;
  virtual std::vector<std::string> registry_subkeys(const std::string& key) const = 0;

  // The dynamic loader's cache (/etc/ld.so.cache): the paths it holds for a soname, in the
  // loader's order. nullopt when this system has no loader cache.
  virtual std::optional<std::vector<std::string>> ld_cache_lookup(
      const std::string& soname) const = 0;

  // Runs a program that only reports about itself (a --version query) with a deadline.
  // nullopt: not run (no such program, or a snapshot that did not record it).
  virtual std::optional<ProgramOutput> run_program(const std::string& program,
                                                   const std::vector<std::string>& args) const = 0;

  // Native GPU answers. nullopt means not asked or not available on this system.
  virtual std::optional<DriverAnswer> driver() const = 0;
  virtual std::optional<std::vector<GpuAnswer>> gpus() const = 0;
  virtual std::optional<std::vector<DisplayAdapter>> display_adapters() const = 0;
  virtual std::optional<LoadAnswer> load(const std::string& library) const = 0;

  // Convenience built on the primitives above.
  bool exists(const std::string& path) const { return file_info(path).has_value(); }
  bool is_directory(const std::string& path) const {
    const auto info = file_info(path);
    return info && info->kind == FileKind::directory;
  }
};

struct LiveOptions {
  // The gpuvet executable that answers the hidden native-query verb in a child process. Without
  // it the native answers (driver, gpus, load) are "not asked": gpuvet never calls into a driver
  // in its own process.
  std::optional<std::string> native_helper;
  std::chrono::milliseconds native_timeout{10000};
  // One child for every native question, started when the System is made, so that the driver
  // query runs while the probes read files (check, snapshot). Off: a child per question, started
  // when it is asked (which, where it may never be).
  bool native_session = false;
};

// The live system of the platform this binary was built for (live_system_<platform>.cpp).
std::unique_ptr<System> make_live_system(const LiveOptions& options = {});

}  // namespace gpuvet::sys
