#pragma once
// Wraps another System and remembers every answer it gave, so that the answers can be written
// as a snapshot and replayed anywhere else.
#include <mutex>

#include "system/snapshot.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {

class RecordingSystem final : public System {
 public:
  explicit RecordingSystem(const System& inner);

  // What was recorded so far. Environment values are not yet redacted: see redacted_snapshot().
  Snapshot recorded() const;
  // The recording as it may leave the machine: secrets redacted, taken_at set.
  Snapshot redacted_snapshot(std::string taken_at) const;

  HostInfo host() const override;
  std::optional<std::string> env(std::string_view name) const override;
  std::map<std::string, std::string> environment() const override;
  std::optional<FileInfo> file_info(const std::string& path) const override;
  std::optional<std::vector<DirEntry>> list_dir(const std::string& path) const override;
  Result<std::string> read_text(const std::string& path) const override;
  Result<std::string> read_head(const std::string& path, size_t max_bytes) const override;
  Result<ElfInfo> elf_info(const std::string& path) const override;
  Result<PeVersion> pe_version(const std::string& path) const override;
  Result<GpuCode> gpu_code(const std::string& path) const override;
  std::optional<RegistryValues> registry_values(const std::string& key) const override;
  std::vector<std::string> registry_subkeys(const std::string& key) const override;
  std::optional<std::vector<std::string>> ld_cache_lookup(const std::string& soname) const override;
  std::optional<DriverAnswer> driver() const override;
  std::optional<std::vector<GpuAnswer>> gpus() const override;
  std::optional<std::vector<DisplayAdapter>> display_adapters() const override;
  std::optional<LoadAnswer> load(const std::string& library) const override;
  std::optional<ProgramOutput> run_program(const std::string& program,
                                           const std::vector<std::string>& args) const override;

 private:
  void remember_file(const std::string& path, const FileEntry& entry) const;
  void remember_read(const std::string& path, const Result<std::string>& content, bool head) const;

  const System& inner_;
  mutable std::mutex mutex_;
  mutable Snapshot recorded_;
};

}  // namespace gpuvet::sys
