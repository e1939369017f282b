#pragma once
// `gpuvet which`: the file glibc's dynamic loader would load for a library name, every place it
// looks on the way, and every copy the chosen file shadows.
//
// The search order is that of glibc's _dl_map_object / _dl_map_new_object (elf/dl-load.c):
//   1. a name holding '/' is opened as it is (with its tokens expanded for a --from module);
//   2. DT_RPATH of the loading object, only when that object has no DT_RUNPATH (the RPATHs of the
//      objects that loaded it, and of the executable, would follow; gpuvet knows no executable);
//   3. LD_LIBRARY_PATH (':' and ';' separate, an empty entry is the current directory);
//   4. DT_RUNPATH of the loading object;
//   5. /etc/ld.so.cache: one path, the one ld.so picks;
//   6. the trusted default directories (Platform::default_dirs).
// In every directory ld.so first tries the glibc-hwcaps subdirectories the CPU supports.
// A file is taken when it is a regular ELF file of the loading process's class and machine; one
// of the other class or machine is skipped (open_verify), and one that is not a loadable ELF
// file at all (a linker script, an empty file, a directory) makes ld.so stop with an error.
//
// Not modelled: objects already loaded in the process (ld.so reuses one whose soname matches),
// DF_1_NODEFLIB (-z nodefaultlib: ElfInfo does not carry DT_FLAGS_1, so the cache's and the
// default directories are always searched), empty DT_RPATH/DT_RUNPATH entries (ElfInfo leaves them
// out; ld.so reads them as the current directory), glibc's legacy hwcaps subdirectories (tls,
// x86_64, haswell, ... up to glibc 2.36), e_type/byte order/OS ABI checks, and setuid programs.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "kb/messages.hpp"
#include "resolve/platform.hpp"
#include "system/system.hpp"

namespace gpuvet::resolve {

inline constexpr std::string_view kWhichSchema = "gpuvet.which/1";
// The file the live System's ld_cache_lookup reads.
inline constexpr std::string_view kLdCacheFile = "/etc/ld.so.cache";

enum class Source {
  path,
  rpath,
  ld_library_path,
  runpath,
  ld_cache,
  default_dir,
  // Windows (windows_search.cpp): LoadLibrary's search order.
  known_dlls,     // HKLM\...\Session Manager\KnownDLLs: always System32's copy
  dll_load_dir,   // the loading DLL's own folder (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)
  app_dir,        // the folder of the process's .exe
  system32,       // the system directory
  system16,       // the 16-bit system directory (Windows\System)
  windows_dir,    // the Windows directory
  current_dir,    // the current directory
  path_env,       // a PATH entry
  dll_directory,  // a folder added with AddDllDirectory / os.add_dll_directory
};

// Why a step did not load the library. The first group makes ld.so move on, the second makes
// it stop with an error, the last describes a whole source.
enum class Skip {
  none,
  no_directory,    // the directory does not exist
  no_file,         // nothing of that name there
  wrong_class,     // an ELF file of the other class (32/64-bit)
  wrong_machine,   // an ELF file for another machine
  unreadable,      // exists but cannot be opened (EACCES)
  not_regular,     // a directory or special file: ld.so stops
  not_elf,         // not a loadable ELF file: ld.so stops
  origin_unknown,  // $ORIGIN of the running program, unknown to gpuvet
  no_cache,        // no loader cache on this system
  not_in_cache,    // the cache has no entry for the name
  app_unknown,     // Windows: the application's folder, unknown without --from its .exe
};

bool stops_search(Skip skip);

struct Step {
  Source source = Source::path;
  std::string where;                  // the directory ("." = current one) or the cache file
  std::optional<std::string> object;  // whose RPATH/RUNPATH
  std::optional<std::string> entry;   // the list entry as written, when it holds tokens
  std::optional<std::string> path;    // the file tried
  std::optional<std::string> hwcaps;  // the glibc-hwcaps subdirectory tried ("x86-64-v3")
  bool found = false;                 // ld.so loads the library from here
  Skip skipped = Skip::none;
  std::optional<std::string> detail;  // what reading the file said
  std::optional<int> bits;            // of a wrong-class file
  std::optional<int> machine;         // of a wrong-machine file
};

struct Copy {
  std::string path;
  std::optional<std::string> version;
  Source source = Source::path;
  std::optional<std::string> object;
};

struct Resolution {
  std::string name;
  std::optional<std::string> resolved;   // the path ld.so opens: directory + name
  std::optional<std::string> real_path;  // the file that is, links followed
  std::optional<std::string> version;    // from the file name at the end of the link chain
  std::vector<Step> steps;
  std::vector<Copy> shadowed;  // later copies on the search path, each a different file
  // ld.so's error when nothing loads ("cannot open shared object file", "wrong ELF class:
  // ELFCLASS32", or what made it stop).
  std::optional<std::string> error;
};

// Where ELF headers come from: read from the files, or recorded in a snapshot (which holds
// them only for the files a probe read; a file without them is taken as loadable).
enum class ElfHeaders { read, from_snapshot };

// The object whose RPATH/RUNPATH apply (--from): its path as the process opened it.
struct Loader {
  std::string path;
  sys::ElfInfo elf;
};

struct WhichRequest {
  std::vector<std::string> names;
  std::optional<std::string> from;  // absolute, or relative to the current directory
  // Windows: folders added with AddDllDirectory / os.add_dll_directory (--dll-dir).
  std::vector<std::string> dll_directories;
};

struct WhichOptions {
  std::optional<Platform> platform;  // default: detect_platform for the loader's machine
  ElfHeaders elf_headers = ElfHeaders::read;
};

struct WhichReport {
  std::optional<std::string> from;
  bool windows = false;  // LoadLibrary's search, not ld.so's
  // Windows: the search the loading module gets ("standard", or "python38" for an extension
  // module of Python 3.8 and later: LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, PATH not searched).
  std::optional<std::string> windows_mode;
  Platform platform;
  std::vector<Resolution> results;
  bool all_resolved() const;
};

// Resolves every name. An error only when the --from module cannot be read as ELF.
Result<WhichReport> which(const sys::System& system, const WhichRequest& request,
                          const WhichOptions& options = {});

Resolution resolve_name(const sys::System& system, const std::string& name,
                        const std::optional<Loader>& loader, const Platform& platform,
                        ElfHeaders elf_headers = ElfHeaders::read);

// "libcudnn.so.9.19.0" -> "9.19.0"; nullopt when the name carries no version after ".so.".
std::optional<std::string> version_from_file_name(std::string_view file_name);

std::string_view to_string(Source source);
std::string_view to_string(Skip skip);
// The JSON "why": "RPATH of X", "LD_LIBRARY_PATH", "RUNPATH of X", "ld.so.cache",
// "default directory", "path".
std::string why_text(Source source, const std::optional<std::string>& object);

}  // namespace gpuvet::resolve
