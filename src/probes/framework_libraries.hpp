#pragma once
// The CUDA libraries a framework build would load and from where (its LibraryFacts), and the
// libdevice its XLA compiler would find: the Python probe's last step for each build.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "facts/facts.hpp"
#include "kb/kb.hpp"
#include "resolve/platform.hpp"
#include "resolve/which.hpp"
#include "system/system.hpp"

namespace gpuvet::probes {

class FrameworkLibraries {
 public:
  // Facts must hold the OS and the environment variables (probe_os, probe_env).
  FrameworkLibraries(const sys::System& system, const kb::Kb& kb, const Facts& facts);

  // What the loader gives the build's module for each CUDA library it needs (DT_NEEDED), through
  // the module's own RPATH/RUNPATH, then LD_LIBRARY_PATH, the cache and the default directories;
  // on Windows what LoadLibrary finds for the DLLs the build loads by name.
  void resolve(FrameworkFact& f, const PythonEnvFact& env);
  // XLA's CUDA roots and the nvvm/libdevice found there, for builds that compile with XLA.
  void find_libdevice(FrameworkFact& f) const;
  // What the build's own GPU-code libraries carry in their fat binaries.
  void read_gpu_code(FrameworkFact& f) const;

 private:
  LibraryFact resolve_windows_dll(const std::string& name, const std::string& app_dir) const;
  std::optional<std::string> in_saved_path_only(const std::string& name) const;
  void resolve_windows_libraries(FrameworkFact& f, const PythonEnvFact& env) const;
  LibraryFact resolve_library(const std::string& soname,
                              const std::optional<resolve::Loader>& loader);
  std::vector<std::string> sonames_by_name(const FrameworkFact& f) const;

  const sys::System& system_;
  const Facts& facts_;
  bool windows_ = false;
  std::optional<resolve::Platform> platform_;
  std::vector<std::pair<std::string, std::string>> cudart_sonames_;  // CUDA major.minor -> soname
  std::map<std::string, std::string> cudnn_sonames_;                 // cuDNN major -> soname
  std::vector<std::pair<std::string, std::string>> cudart_dlls_;     // CUDA major.minor -> DLL
  std::map<std::string, std::string> cudnn_dlls_;                    // cuDNN major -> DLL
};

}  // namespace gpuvet::probes
