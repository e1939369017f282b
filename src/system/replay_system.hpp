#pragma once
// Answers only from a snapshot: what the snapshot lacks does not exist on that machine.
#include "system/snapshot.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {

class ReplaySystem final : public System {
 public:
  explicit ReplaySystem(Snapshot snapshot);

  HostInfo host() const override { return snapshot_.host; }
  std::optional<std::string> env(std::string_view name) const override;
  std::map<std::string, std::string> environment() const override { return snapshot_.env; }
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
  std::optional<DriverAnswer> driver() const override { return snapshot_.driver; }
  std::optional<std::vector<GpuAnswer>> gpus() const override { return snapshot_.gpus; }
  std::optional<std::vector<DisplayAdapter>> display_adapters() const override {
    return snapshot_.display_adapters;
  }
  std::optional<LoadAnswer> load(const std::string& library) const override;
  std::optional<ProgramOutput> run_program(const std::string& program,
                                           const std::vector<std::string>& args) const override;

 private:
  struct IndexedFile {
    std::string path;  // as spelled in the snapshot
    const FileEntry* entry = nullptr;
  };
  // A path found in the snapshot, after following symbolic links in its directories.
  struct Located {
    std::string key;
    const FileEntry* entry = nullptr;  // null for a directory known only from its children
  };

  std::string key_of(std::string_view path) const;
  bool has_children(const std::string& key) const;
  const FileEntry* find(const std::string& key) const;
  std::optional<Located> locate(const std::string& key, int depth) const;
  std::optional<FileInfo> info_of(const Located& found, int depth) const;
  std::optional<Located> follow(const Located& found, int depth) const;
  // The path's entry when it holds the data asked for, else the entry its links lead to.
  std::optional<Located> locate_with(const std::string& path,
                                     bool (*has_data)(const FileEntry&)) const;

  Snapshot snapshot_;
  bool windows_ = false;
  std::map<std::string, IndexedFile> files_;          // by comparison key
  std::map<std::string, std::string> registry_keys_;  // lower-cased key -> snapshot key
};

}  // namespace gpuvet::sys
