#pragma once
// A System that answers the environment and the working directory from given values and
// everything else from another System: tests and benchmarks point the probes at a synthetic tree
// on the real file system without touching this process's environment.
#include <map>
#include <string>
#include <utility>

#include "system/system.hpp"

namespace gpuvet::sys {

class EnvOverlaySystem final : public System {
 public:
  EnvOverlaySystem(const System& inner, std::map<std::string, std::string> env,
                   std::optional<std::string> cwd = std::nullopt)
      : inner_(inner), env_(std::move(env)), cwd_(std::move(cwd)) {}

  HostInfo host() const override {
    HostInfo h = inner_.host();
    h.cwd = cwd_;
    return h;
  }
  std::optional<std::string> env(std::string_view name) const override {
    const auto it = env_.find(std::string(name));
    if (it == env_.end()) return std::nullopt;
    return it->second;
  }
  std::map<std::string, std::string> environment() const override { return env_; }
  std::optional<FileInfo> file_info(const std::string& path) const override {
    return inner_.file_info(path);
  }
  std::optional<std::vector<DirEntry>> list_dir(const std::string& path) const override {
    return inner_.list_dir(path);
  }
  Result<std::string> read_text(const std::string& path) const override {
    return inner_.read_text(path);
  }
  Result<std::string> read_head(const std::string& path, size_t max_bytes) const override {
    return inner_.read_head(path, max_bytes);
  }
  Result<ElfInfo> elf_info(const std::string& path) const override { return inner_.elf_info(path); }
  Result<GpuCode> gpu_code(const std::string& path) const override { return inner_.gpu_code(path); }
  Result<PeVersion> pe_version(const std::string& path) const override {
    return inner_.pe_version(path);
  }
  std::optional<RegistryValues> registry_values(const std::string& key) const override {
    return inner_.registry_values(key);
  }
  std::vector<std::string> registry_subkeys(const std::string& key) const override {
    return inner_.registry_subkeys(key);
  }
  std::optional<std::vector<std::string>> ld_cache_lookup(
      const std::string& soname) const override {
    return inner_.ld_cache_lookup(soname);
  }
  std::optional<ProgramOutput> run_program(const std::string& program,
                                           const std::vector<std::string>& args) const override {
    return inner_.run_program(program, args);
  }
  std::optional<DriverAnswer> driver() const override { return inner_.driver(); }
  std::optional<std::vector<GpuAnswer>> gpus() const override { return inner_.gpus(); }
  std::optional<std::vector<DisplayAdapter>> display_adapters() const override {
    return inner_.display_adapters();
  }
  std::optional<LoadAnswer> load(const std::string& library) const override {
    return inner_.load(library);
  }

 private:
  const System& inner_;
  std::map<std::string, std::string> env_;
  std::optional<std::string> cwd_;
};

}  // namespace gpuvet::sys
