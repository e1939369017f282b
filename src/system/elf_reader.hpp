#pragma once
// Reads what the dynamic loader reads of an ELF file: its class, machine and the strings of its
// dynamic section (DT_SONAME, DT_NEEDED, DT_RUNPATH, DT_RPATH). The file is untrusted: every read
// is bounds-checked against the file size, every count is capped, errors are one-line values.
// Only the headers, the dynamic table and the strings it names are read, never the whole file,
// so a caller can hand over a pread-backed source for a multi-hundred-MB library.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {

// Whether [offset, offset + length) lies within size bytes, without overflow.
inline bool range_inside(std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
  return offset <= size && length <= size - offset;
}

// Reads byte ranges of a file; returns false when the range is outside the file or unreadable.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  virtual bool read(std::uint64_t offset, std::size_t length, void* out) const = 0;
};

// A ByteSource over an open file read at given offsets (pread, ReadFile with OVERLAPPED): the
// bounds check and the loop over short reads live here; a platform supplies read_some.
class PositionedByteSource : public ByteSource {
 public:
  explicit PositionedByteSource(std::uint64_t size) : size_(size) {}
  std::uint64_t size() const override { return size_; }
  bool read(std::uint64_t offset, std::size_t length, void* out) const override;

 protected:
  // Reads up to length bytes at offset; the count read, 0 at an error or where the file ended
  // (it shrank under us).
  virtual std::size_t read_some(std::uint64_t offset, std::size_t length, char* out) const = 0;

 private:
  std::uint64_t size_;
};

// A ByteSource over bytes already in memory; the bytes must outlive it.
class MemoryByteSource final : public ByteSource {
 public:
  explicit MemoryByteSource(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t size() const override { return bytes_.size(); }
  bool read(std::uint64_t offset, std::size_t length, void* out) const override;

 private:
  std::string_view bytes_;
};

// Limits on what an ELF file may make the reader do.
inline constexpr std::uint64_t kMaxElfProgramHeaders = 65536;
inline constexpr std::uint64_t kMaxElfSectionHeaders = 65536;
inline constexpr std::uint64_t kMaxElfDynamicEntries = std::uint64_t{1} << 20;
inline constexpr std::size_t kMaxElfNeeded = 4096;
// Longest dynamic string read, its terminating NUL included.
inline constexpr std::size_t kMaxElfStringBytes = 4096;

// ELFCLASS32/64, little or big endian. The dynamic table comes from PT_DYNAMIC and its strings
// from DT_STRTAB (+ DT_STRSZ) mapped to a file offset through the PT_LOAD segments; only a file
// without program headers falls back to the section headers (SHT_DYNAMIC and its sh_link).
// A file without a dynamic table (static executable, object file) gives bits and machine and
// empty lists. runpath and rpath are split on ':' in file order, empty entries left out.
Result<ElfInfo> read_elf_dynamic(const ByteSource& source);

// A section of an ELF file by name; a section without bytes in the file (SHT_NOBITS) has size 0.
struct ElfSection {
  std::string name;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};
// Every section with its name from e_shstrndx's table, in file order; empty when the file has no
// section headers or no section-name table.
Result<std::vector<ElfSection>> read_elf_sections(const ByteSource& source);

}  // namespace gpuvet::sys
