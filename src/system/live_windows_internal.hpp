#pragma once
// What the files of the live System on Windows share (internal to src/system/, Windows only):
//   live_system_windows.cpp    the System class, the host and the environment
//   live_windows_registry.cpp  registry keys and values, always the 64-bit view
//   live_windows_files.cpp     file info, directory listings, reads, ELF and PE version
//   live_windows_adapters.cpp  the display adapters, through SetupAPI
// Read-only: nothing here writes. Every path and string crosses into the Win32 API as UTF-16
// through win32_text.hpp; only the W functions are called.
#include <windows.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "system/system.hpp"

namespace gpuvet::sys::windows {

// ---- Owned handles ---------------------------------------------------------------------------

// A Win32 handle of some kind, released when the object goes away. Traits name the type, how it is
// released and which values mean "none" (INVALID_HANDLE_VALUE for files, null for others).
template <typename Traits>
class Owned {
 public:
  using Value = typename Traits::Value;
  Owned() = default;
  explicit Owned(Value value) : value_(value) {}
  ~Owned() {
    if (valid()) Traits::release(value_);
  }
  Owned(Owned&& other) noexcept : value_(std::exchange(other.value_, Traits::none())) {}
  Owned& operator=(Owned&& other) noexcept {
    std::swap(value_, other.value_);
    return *this;
  }

  bool valid() const { return Traits::valid(value_); }
  Value get() const { return value_; }
  // For APIs that hand the handle back through an out parameter (RegOpenKeyExW).
  Value* out() { return &value_; }

 private:
  Value value_ = Traits::none();
};

struct FileTraits {
  using Value = HANDLE;
  static Value none() { return INVALID_HANDLE_VALUE; }
  static bool valid(Value h) { return h != INVALID_HANDLE_VALUE && h != nullptr; }
  static void release(Value h) { CloseHandle(h); }
};
struct FindTraits {
  using Value = HANDLE;
  static Value none() { return INVALID_HANDLE_VALUE; }
  static bool valid(Value h) { return h != INVALID_HANDLE_VALUE && h != nullptr; }
  static void release(Value h) { FindClose(h); }
};
struct KeyTraits {
  using Value = HKEY;
  static Value none() { return nullptr; }
  // SetupDiOpenDevRegKey reports failure as INVALID_HANDLE_VALUE, RegOpenKeyExW leaves null.
  static bool valid(Value k) {
    return k != nullptr && k != static_cast<HKEY>(INVALID_HANDLE_VALUE);
  }
  static void release(Value k) { RegCloseKey(k); }
};

using File = Owned<FileTraits>;
using Find = Owned<FindTraits>;
using Key = Owned<KeyTraits>;

// ---- Small helpers (live_windows_files.cpp) ----------------------------------------------------

// "<path>: <why>" for the calling thread's last Win32 error, like strerror on POSIX.
std::string last_error(const std::string& path);

// A string the API wrote into a buffer that may or may not carry its terminating NUL(s).
std::wstring up_to_nul(const wchar_t* chars, size_t count);

// ---- Registry (live_windows_registry.cpp) ------------------------------------------------------

// "HKLM/SOFTWARE/NVIDIA Corporation" opened for reading, always in the 64-bit view, so that a
// 32-bit build sees what 64-bit drivers and installers wrote; not valid() when it cannot be.
Key open_key(const std::string& key);

// All values of an open key. Strings stay unexpanded; a multi-string is joined with ';'.
RegistryValues read_values(HKEY key);

// The names of an open key's subkeys, sorted.
std::vector<std::string> read_subkeys(HKEY key);

// A string value by name; nullopt when missing or not a string.
std::optional<std::string> string_value(const RegistryValues& values, const std::string& name);

// ---- Files (live_windows_files.cpp) ------------------------------------------------------------

// What the path is, following links; nullopt when missing (a dangling link included).
std::optional<FileInfo> ask_file_info(const std::string& path);

// The entries of a directory, sorted by name; `system` says whether a path that lists as "not
// found" is an empty directory.
std::optional<std::vector<DirEntry>> ask_list_dir(const System& system, const std::string& path);

// The first `limit` bytes of a regular file.
Result<std::string> read_prefix(const std::string& path, size_t limit);

// An ELF file's dynamic section, read through positioned reads.
Result<ElfInfo> read_elf_info(const std::string& path);

// The fixed part of a PE file's version resource.
Result<PeVersion> read_pe_version(const std::string& path);
// What the file's CUDA fat binaries hold (system/gpu_code_reader.hpp).
Result<GpuCode> read_gpu_code_of(const std::string& path);

// ---- Display adapters (live_windows_adapters.cpp) ----------------------------------------------

// Every present display adapter; nullopt when SetupAPI itself could not be asked.
std::optional<std::vector<DisplayAdapter>> present_display_adapters();

}  // namespace gpuvet::sys::windows
