#include "system/gpu_code_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpuvet::sys {

namespace {

// The container and entry layouts (docs/gpu-code.md): little-endian on every platform CUDA runs.
constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;  // fatBinaryHeader.magic
constexpr std::size_t kContainerHeaderBytes = 16;   // magic, version, headerSize, fatSize
constexpr std::size_t kEntryFieldsBytes = 48;       // kind ... flags: all this reader uses
constexpr std::uint16_t kKindPtx = 1;
constexpr std::uint16_t kKindSass = 2;  // an ELF cubin
constexpr std::uint16_t kKindLto = 8;   // LTO-IR
// Entry flags as nvcc 13.0 writes them for -gencode code=sm_90a / sm_100f (tests/gpu_code).
constexpr std::uint64_t kFlagArchSpecific = std::uint64_t{1} << 20;
constexpr std::uint64_t kFlagFamilySpecific = std::uint64_t{1} << 21;
// Architectures nvcc names run from sm_10 to sm_121; anything outside is not a fat binary.
constexpr std::uint32_t kMinArch = 10;
constexpr std::uint32_t kMaxArch = 999;

constexpr unsigned char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
constexpr const char* kElfSection = ".nv_fatbin";
constexpr const char* kPeSection = ".nv_fatb";

// Zero padding between containers is skipped a page at a time.
constexpr std::size_t kPaddingChunk = 4096;
// Headers are read through a window this large: a container header and its first entry header
// (16 + at most 120 bytes) in one read, and no more, since a payload of any size may follow.
constexpr std::size_t kHeaderWindow = 256;

struct Region {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

std::uint64_t le(const unsigned char* p, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = width; i > 0; --i)
    value = (value << 8) | p[i - 1];
  return value;
}

// The small reads of headers go through one small window: a container header and the entry
// header after it cost one read, and a header past a payload costs one read of the window, never
// the payload.
class HeaderReader {
 public:
  explicit HeaderReader(const ByteSource& source) : source_(source) {}

  bool read(std::uint64_t offset, std::size_t length, unsigned char* out) {
    if (length > window_.size()) return source_.read(offset, length, out);
    if (offset < start_ || offset - start_ > filled_ || length > filled_ - (offset - start_)) {
      const std::uint64_t left = source_.size() > offset ? source_.size() - offset : 0;
      const std::size_t fill =
          static_cast<std::size_t>(std::min<std::uint64_t>(window_.size(), left));
      if (fill < length || !source_.read(offset, fill, window_.data())) return false;
      start_ = offset;
      filled_ = fill;
    }
    std::memcpy(out, window_.data() + (offset - start_), length);
    return true;
  }

 private:
  const ByteSource& source_;
  std::array<unsigned char, kHeaderWindow> window_{};
  std::uint64_t start_ = 0;
  std::size_t filled_ = 0;
};

struct Found {
  std::set<std::pair<std::uint32_t, char>> sass, ptx, lto;
  std::uint64_t entries = 0;
};

char suffix_of(std::uint64_t flags) {
  if (flags & kFlagArchSpecific) return 'a';
  if (flags & kFlagFamilySpecific) return 'f';
  return '\0';
}

Error unreadable() {
  return make_error("cannot read the file");
}

// The entries of one container, [begin, end) past its 16-byte header.
Result<bool> read_entries(HeaderReader& reader, std::uint64_t begin, std::uint64_t end,
                          Found& found) {
  std::uint64_t at = begin;
  while (at < end) {
    if (end - at < kEntryFieldsBytes) {
      return make_error(fmt::format("truncated fat binary entry at offset {}", at));
    }
    std::array<unsigned char, kEntryFieldsBytes> raw{};
    if (!reader.read(at, raw.size(), raw.data())) return unreadable();
    const auto kind = static_cast<std::uint16_t>(le(raw.data(), 2));
    const std::uint64_t header_bytes = le(raw.data() + 4, 4);
    const std::uint64_t payload_bytes = le(raw.data() + 8, 8);
    const auto arch = static_cast<std::uint32_t>(le(raw.data() + 28, 4));
    const std::uint64_t flags = le(raw.data() + 40, 8);
    if (header_bytes < kEntryFieldsBytes) {
      return make_error(
          fmt::format("fat binary entry at offset {} has a {}-byte header", at, header_bytes));
    }
    if (!range_inside(header_bytes, payload_bytes, end - at)) {
      return make_error(fmt::format("fat binary entry at offset {} runs past its container", at));
    }
    if (++found.entries > kMaxFatbinEntries) {
      return make_error(fmt::format("more than {} fat binary entries", kMaxFatbinEntries));
    }
    if (kind == kKindSass || kind == kKindPtx || kind == kKindLto) {
      if (arch < kMinArch || arch > kMaxArch) {
        return make_error(
            fmt::format("fat binary entry at offset {} names architecture {}", at, arch));
      }
      auto& list = kind == kKindSass ? found.sass : kind == kKindPtx ? found.ptx : found.lto;
      list.emplace(arch, suffix_of(flags));
    }
    at += header_bytes + payload_bytes;
  }
  return true;
}

// The first non-zero byte at or after offset, before end; end when there is none.
Result<std::uint64_t> skip_zeros(const ByteSource& source, std::uint64_t offset,
                                 std::uint64_t end) {
  std::array<unsigned char, kPaddingChunk> chunk{};
  while (offset < end) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), end - offset));
    if (!source.read(offset, n, chunk.data())) return unreadable();
    const auto* hit =
        std::find_if(chunk.data(), chunk.data() + n, [](unsigned char b) { return b != 0; });
    if (hit != chunk.data() + n) return offset + static_cast<std::uint64_t>(hit - chunk.data());
    offset += n;
  }
  return end;
}

// Every container in a section: back to back, zero padding allowed between them.
Result<bool> read_section(const ByteSource& source, const char* name, Region section,
                          Found& found) {
  if (!range_inside(section.offset, section.size, source.size())) {
    return make_error(fmt::format("{} section outside the file", name));
  }
  HeaderReader reader(source);
  const std::uint64_t end = section.offset + section.size;
  std::uint64_t at = section.offset;
  while (at < end) {
    std::array<unsigned char, kContainerHeaderBytes> raw{};
    if (end - at < raw.size() || !reader.read(at, raw.size(), raw.data())) {
      // Fewer bytes than a header: the section's zero padding, or a truncated container.
      auto rest = skip_zeros(source, at, end);
      if (!rest) return rest.error();
      if (*rest == end) break;
      return make_error(fmt::format("no fat binary header at offset {} of {}", at, name));
    }
    if (le(raw.data(), 4) == 0) {
      auto next = skip_zeros(source, at, end);
      if (!next) return next.error();
      at = *next;
      continue;
    }
    if (le(raw.data(), 4) != kFatbinMagic) {
      return make_error(fmt::format("no fat binary header at offset {} of {}", at, name));
    }
    const std::uint64_t header_bytes = le(raw.data() + 6, 2);
    const std::uint64_t fat_bytes = le(raw.data() + 8, 8);
    if (header_bytes < kContainerHeaderBytes || !range_inside(header_bytes, fat_bytes, end - at)) {
      return make_error(fmt::format("fat binary at offset {} runs past {}", at, name));
    }
    auto entries = read_entries(reader, at + header_bytes, at + header_bytes + fat_bytes, found);
    if (!entries) return entries.error();
    at += header_bytes + fat_bytes;
  }
  return true;
}

// ---- where the fat binaries are ---------------------------------------------------------------

Result<std::vector<Region>> elf_regions(const ByteSource& source) {
  auto sections = read_elf_sections(source);
  if (!sections) return sections.error();
  std::vector<Region> regions;
  for (const auto& s : *sections) {
    if (s.name == kElfSection && s.size > 0) regions.push_back({s.offset, s.size});
  }
  return regions;
}

// The bytes up to the first NUL, at most n of them.
std::string bounded_string(const char* p, std::size_t n) {
  return std::string(p, static_cast<std::size_t>(std::find(p, p + n, '\0') - p));
}

// PE/COFF (Microsoft's "PE Format" specification): the DOS header's e_lfanew, the COFF header,
// then the section table after the optional header. A name longer than eight bytes is "/N", an
// offset into the COFF string table (MinGW's linker keeps such names; MSVC's cuts them).
Result<std::string> pe_section_name(const ByteSource& source, const unsigned char* field,
                                    std::uint64_t string_table) {
  std::string name = bounded_string(reinterpret_cast<const char*>(field), 8);
  if (name.size() < 2 || name[0] != '/' || string_table == 0) return name;
  std::uint64_t offset = 0;
  for (char c : name.substr(1)) {
    if (c < '0' || c > '9') return name;
    offset = offset * 10 + static_cast<std::uint64_t>(c - '0');
  }
  std::array<char, 64> buffer{};
  const std::uint64_t at = string_table + offset;
  if (at >= source.size()) return make_error("PE section name outside the file");
  const auto n =
      static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), source.size() - at));
  if (!source.read(at, n, buffer.data())) return unreadable();
  return bounded_string(buffer.data(), n);
}

Result<std::vector<Region>> pe_regions(const ByteSource& source) {
  std::array<unsigned char, 64> dos{};
  if (source.size() < dos.size() || !source.read(0, dos.size(), dos.data())) {
    return make_error("truncated PE file");
  }
  const std::uint64_t pe = le(dos.data() + 0x3c, 4);
  std::array<unsigned char, 24> coff{};
  if (!range_inside(pe, coff.size(), source.size()) || !source.read(pe, coff.size(), coff.data()) ||
      std::memcmp(coff.data(), "PE\0\0", 4) != 0) {
    return make_error("not a PE file: no PE signature");
  }
  const std::uint64_t count = le(coff.data() + 6, 2);
  const std::uint64_t symbols = le(coff.data() + 12, 4);
  const std::uint64_t symbol_count = le(coff.data() + 16, 4);
  const std::uint64_t optional_bytes = le(coff.data() + 20, 2);
  const std::uint64_t string_table = symbols == 0 ? 0 : symbols + symbol_count * 18;
  const std::uint64_t table = pe + coff.size() + optional_bytes;
  constexpr std::size_t kSectionBytes = 40;
  if (count > kMaxPeSections || !range_inside(table, count * kSectionBytes, source.size())) {
    return make_error("PE section table outside the file");
  }
  std::vector<unsigned char> raw(static_cast<std::size_t>(count * kSectionBytes));
  if (!raw.empty() && !source.read(table, raw.size(), raw.data())) return unreadable();
  std::vector<Region> regions;
  for (std::uint64_t i = 0; i < count; ++i) {
    const unsigned char* s = raw.data() + i * kSectionBytes;
    auto name = pe_section_name(source, s, string_table);
    if (!name) return name.error();
    if (*name != kPeSection && *name != kElfSection) continue;
    const std::uint64_t virtual_size = le(s + 8, 4);
    std::uint64_t size = le(s + 16, 4);  // SizeOfRawData: rounded up to the file alignment
    if (virtual_size > 0) size = std::min(size, virtual_size);
    if (size > 0) regions.push_back({le(s + 20, 4), size});
  }
  return regions;
}

std::string arch_name(const char* prefix, const std::pair<std::uint32_t, char>& arch) {
  std::string name = fmt::format("{}{}", prefix, arch.first);
  if (arch.second != '\0') name += arch.second;
  return name;
}

std::vector<std::string> names(const char* prefix,
                               const std::set<std::pair<std::uint32_t, char>>& archs) {
  std::vector<std::string> out;
  for (const auto& arch : archs)
    out.push_back(arch_name(prefix, arch));
  return out;
}

Result<GpuCode> read(const ByteSource& source) {
  std::array<unsigned char, 4> magic{};
  if (source.size() < magic.size() || !source.read(0, magic.size(), magic.data())) {
    return make_error("not an ELF or PE file");
  }
  const bool elf = std::memcmp(magic.data(), kElfMagic, sizeof kElfMagic) == 0;
  const bool pe = magic[0] == 'M' && magic[1] == 'Z';
  if (!elf && !pe) return make_error("not an ELF or PE file");
  auto regions = elf ? elf_regions(source) : pe_regions(source);
  if (!regions) return regions.error();
  Found found;
  for (const Region& region : *regions) {
    auto read = read_section(source, elf ? kElfSection : kPeSection, region, found);
    if (!read) return read.error();
  }
  return GpuCode{names("sm_", found.sass), names("compute_", found.ptx), names("lto_", found.lto)};
}

}  // namespace

Result<GpuCode> read_gpu_code(const ByteSource& source) {
  try {
    return read(source);
  } catch (const std::exception&) {
    return make_error("cannot read the file: out of memory");
  }
}

}  // namespace gpuvet::sys
