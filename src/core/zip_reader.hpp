#pragma once
// Reading the files of a ZIP archive (the cuDNN archives NVIDIA ships for Windows): its central
// directory, and one entry at a time, stored or deflated, checked against its CRC-32. ZIP64 is
// read; encrypted entries and other methods are refused. A damaged archive is an error naming
// the archive, never a crash.
#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuvet::zip {

struct Entry {
  std::string name;  // as stored: '/'-separated, relative
  std::uint64_t compressed_size = 0;
  std::uint64_t size = 0;
  std::uint32_t crc32 = 0;
  std::uint16_t method = 0;  // 0 stored, 8 deflated
  std::uint16_t flags = 0;
  std::uint64_t local_offset = 0;
  bool directory() const { return !name.empty() && name.back() == '/'; }
};

class Archive {
 public:
  static Result<Archive> open(const std::string& path);
  const std::vector<Entry>& entries() const { return entries_; }
  // The entry's bytes; an error past max_bytes, for a damaged entry or a CRC that differs.
  Result<std::string> read(const Entry& entry, std::uint64_t max_bytes) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<Entry> entries_;
};

}  // namespace gpuvet::zip
