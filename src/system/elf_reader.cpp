#include "system/elf_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace gpuvet::sys {

bool PositionedByteSource::read(std::uint64_t offset, std::size_t length, void* out) const {
  if (offset > size_ || length > size_ - offset) return false;
  auto* bytes = static_cast<char*>(out);
  while (length > 0) {
    const std::size_t n = read_some(offset, length, bytes);
    if (n == 0) return false;
    bytes += n;
    offset += n;
    length -= n;
  }
  return true;
}

bool MemoryByteSource::read(std::uint64_t offset, std::size_t length, void* out) const {
  if (offset > bytes_.size() || length > bytes_.size() - offset) return false;
  if (length > 0) std::memcpy(out, bytes_.data() + offset, length);
  return true;
}

namespace {

// Values from the System V ABI (gABI) "Object Files" chapter; <elf.h> is not used so that the
// reader builds wherever the project does.
constexpr unsigned char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
constexpr unsigned kIdentClass = 4;  // EI_CLASS
constexpr unsigned kIdentData = 5;   // EI_DATA
constexpr unsigned char kClass32 = 1;
constexpr unsigned char kClass64 = 2;
constexpr unsigned char kDataLsb = 1;
constexpr unsigned char kDataMsb = 2;

constexpr std::uint32_t kPtLoad = 1;
constexpr std::uint32_t kPtDynamic = 2;
constexpr std::uint32_t kShtDynamic = 6;
constexpr std::uint32_t kShtNobits = 8;
// e_shstrndx escape: the index is in section 0's sh_link.
constexpr std::uint64_t kShnXindex = 0xffff;
constexpr std::uint32_t kPnXnum = 0xffff;  // e_phnum escape: the count is in section 0's sh_info

constexpr std::int64_t kDtNull = 0;
constexpr std::int64_t kDtNeeded = 1;
constexpr std::int64_t kDtStrtab = 5;
constexpr std::int64_t kDtStrsz = 10;
constexpr std::int64_t kDtSoname = 14;
constexpr std::int64_t kDtRpath = 15;
constexpr std::int64_t kDtRunpath = 29;

// Dynamic entries read per chunk: bounded memory whatever the table claims.
constexpr std::size_t kDynamicChunk = 256;

// Integer decoding in the file's class and byte order.
struct Format {
  bool is64 = false;
  bool big_endian = false;

  std::uint64_t load(const unsigned char* p, std::size_t width) const {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) {
      const unsigned char byte = big_endian ? p[i] : p[width - 1 - i];
      value = (value << 8) | byte;
    }
    return value;
  }
  std::uint64_t u16(const unsigned char* p) const { return load(p, 2); }
  std::uint64_t u32(const unsigned char* p) const { return load(p, 4); }
  std::uint64_t u64(const unsigned char* p) const { return load(p, 8); }
  // An address-sized field: Elf32_Addr/Off/Word or Elf64_Addr/Off/Xword.
  std::uint64_t word(const unsigned char* p) const { return is64 ? u64(p) : u32(p); }
  std::int64_t sword(const unsigned char* p) const {
    if (is64) return static_cast<std::int64_t>(u64(p));
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(u32(p)));
  }

  std::size_t header_size() const { return is64 ? 64 : 52; }
  std::size_t phdr_size() const { return is64 ? 56 : 32; }
  std::size_t shdr_size() const { return is64 ? 64 : 40; }
  std::size_t dyn_size() const { return is64 ? 16 : 8; }
};

struct Header {
  Format format;
  int machine = 0;
  std::uint64_t phoff = 0;
  std::uint64_t shoff = 0;
  std::uint64_t phentsize = 0;
  std::uint64_t phnum = 0;
  std::uint64_t shentsize = 0;
  std::uint64_t shnum = 0;
  std::uint64_t shstrndx = 0;
};

struct Segment {
  std::uint32_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t vaddr = 0;
  std::uint64_t filesz = 0;
};

struct Section {
  std::uint32_t name = 0;  // sh_name: an offset into the section-name table
  std::uint32_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
};

// A byte range of the file.
struct Region {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

// What the dynamic table names; offsets are into the dynamic string table.
struct DynamicTags {
  std::optional<std::uint64_t> soname;
  std::vector<std::uint64_t> needed;
  std::optional<std::uint64_t> runpath;
  std::optional<std::uint64_t> rpath;
  std::optional<std::uint64_t> strtab;
  std::optional<std::uint64_t> strsz;
  bool has_strings() const { return soname || !needed.empty() || runpath || rpath; }
};

Error unreadable() {
  return make_error("cannot read the ELF file");
}

Result<Header> read_header(const ByteSource& source) {
  const std::uint64_t file_size = source.size();
  std::array<unsigned char, 64> raw{};
  if (file_size < sizeof kElfMagic) return make_error("not an ELF file");
  if (!source.read(0, sizeof kElfMagic, raw.data())) return unreadable();
  if (std::memcmp(raw.data(), kElfMagic, sizeof kElfMagic) != 0) {
    return make_error("not an ELF file");
  }
  if (file_size < 16) return make_error("truncated ELF header");
  if (!source.read(0, 16, raw.data())) return unreadable();

  Header header;
  const unsigned char elf_class = raw[kIdentClass];
  const unsigned char elf_data = raw[kIdentData];
  if (elf_class != kClass32 && elf_class != kClass64) {
    return make_error(fmt::format("unsupported ELF class {}", elf_class));
  }
  if (elf_data != kDataLsb && elf_data != kDataMsb) {
    return make_error(fmt::format("unsupported ELF byte order {}", elf_data));
  }
  Format& f = header.format;
  f.is64 = elf_class == kClass64;
  f.big_endian = elf_data == kDataMsb;

  if (file_size < f.header_size()) return make_error("truncated ELF header");
  if (!source.read(0, f.header_size(), raw.data())) return unreadable();
  const unsigned char* p = raw.data();
  header.machine = static_cast<int>(f.u16(p + 18));
  if (f.is64) {
    header.phoff = f.u64(p + 32);
    header.shoff = f.u64(p + 40);
    header.phentsize = f.u16(p + 54);
    header.phnum = f.u16(p + 56);
    header.shentsize = f.u16(p + 58);
    header.shnum = f.u16(p + 60);
    header.shstrndx = f.u16(p + 62);
  } else {
    header.phoff = f.u32(p + 28);
    header.shoff = f.u32(p + 32);
    header.phentsize = f.u16(p + 42);
    header.phnum = f.u16(p + 44);
    header.shentsize = f.u16(p + 46);
    header.shnum = f.u16(p + 48);
    header.shstrndx = f.u16(p + 50);
  }
  return header;
}

Section decode_section(const Format& f, const unsigned char* p) {
  Section s;
  s.name = static_cast<std::uint32_t>(f.u32(p));
  s.type = static_cast<std::uint32_t>(f.u32(p + 4));
  if (f.is64) {
    s.offset = f.u64(p + 24);
    s.size = f.u64(p + 32);
    s.link = static_cast<std::uint32_t>(f.u32(p + 40));
    s.info = static_cast<std::uint32_t>(f.u32(p + 44));
  } else {
    s.offset = f.u32(p + 16);
    s.size = f.u32(p + 20);
    s.link = static_cast<std::uint32_t>(f.u32(p + 24));
    s.info = static_cast<std::uint32_t>(f.u32(p + 28));
  }
  return s;
}

// Section header 0, which carries the real counts when e_phnum or e_shnum overflow.
Result<Section> read_section_zero(const ByteSource& source, const Header& header) {
  const Format& f = header.format;
  if (header.shentsize != f.shdr_size()) {
    return make_error(fmt::format("unexpected ELF section header size {}", header.shentsize));
  }
  if (!range_inside(header.shoff, f.shdr_size(), source.size())) {
    return make_error("ELF section headers outside the file");
  }
  std::array<unsigned char, 64> raw{};
  if (!source.read(header.shoff, f.shdr_size(), raw.data())) return unreadable();
  return decode_section(f, raw.data());
}

// Reads count fixed-size records at offset; the range is checked before anything is allocated.
Result<std::vector<unsigned char>> read_table(const ByteSource& source, std::uint64_t offset,
                                              std::uint64_t count, std::size_t entry_size,
                                              const char* what) {
  // count is capped by the callers, so count * entry_size cannot overflow.
  const std::uint64_t bytes = count * entry_size;
  if (!range_inside(offset, bytes, source.size())) {
    return make_error(fmt::format("{} outside the file", what));
  }
  std::vector<unsigned char> raw(static_cast<std::size_t>(bytes));
  if (bytes > 0 && !source.read(offset, raw.size(), raw.data())) return unreadable();
  return raw;
}

Result<std::vector<Segment>> read_segments(const ByteSource& source, const Header& header) {
  const Format& f = header.format;
  std::uint64_t count = header.phnum;
  if (count == kPnXnum) {
    auto zero = read_section_zero(source, header);
    if (!zero) return zero.error();
    count = zero->info;
  }
  if (count == 0) return std::vector<Segment>{};
  if (count > kMaxElfProgramHeaders) return make_error("too many ELF program headers");
  if (header.phentsize != f.phdr_size()) {
    return make_error(fmt::format("unexpected ELF program header size {}", header.phentsize));
  }
  auto raw = read_table(source, header.phoff, count, f.phdr_size(), "ELF program headers");
  if (!raw) return raw.error();

  std::vector<Segment> segments;
  for (std::uint64_t i = 0; i < count; ++i) {
    const unsigned char* p = raw->data() + i * f.phdr_size();
    Segment s;
    s.type = static_cast<std::uint32_t>(f.u32(p));
    if (s.type != kPtLoad && s.type != kPtDynamic) continue;
    if (f.is64) {
      s.offset = f.u64(p + 8);
      s.vaddr = f.u64(p + 16);
      s.filesz = f.u64(p + 32);
    } else {
      s.offset = f.u32(p + 4);
      s.vaddr = f.u32(p + 8);
      s.filesz = f.u32(p + 16);
    }
    segments.push_back(s);
  }
  return segments;
}

Result<std::vector<Section>> read_sections(const ByteSource& source, const Header& header) {
  const Format& f = header.format;
  if (header.shoff == 0) return std::vector<Section>{};
  std::uint64_t count = header.shnum;
  if (count == 0) {
    // e_shnum 0 with a section header table: the real count is section 0's sh_size.
    auto zero = read_section_zero(source, header);
    if (!zero) return zero.error();
    count = zero->size;
  }
  if (count == 0) return std::vector<Section>{};
  if (count > kMaxElfSectionHeaders) return make_error("too many ELF section headers");
  if (header.shentsize != f.shdr_size()) {
    return make_error(fmt::format("unexpected ELF section header size {}", header.shentsize));
  }
  auto raw = read_table(source, header.shoff, count, f.shdr_size(), "ELF section headers");
  if (!raw) return raw.error();
  std::vector<Section> sections;
  sections.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) {
    sections.push_back(decode_section(f, raw->data() + i * f.shdr_size()));
  }
  return sections;
}

// Walks the dynamic table up to DT_NULL, the end of the region or the entry cap. Single-valued
// tags keep the last occurrence, as the loader does (elf/get-dynamic-info.h).
Result<DynamicTags> read_dynamic(const ByteSource& source, const Format& f, Region region) {
  if (!range_inside(region.offset, region.size, source.size())) {
    return make_error("ELF dynamic section outside the file");
  }
  DynamicTags tags;
  const std::uint64_t total = region.size / f.dyn_size();
  std::array<unsigned char, kDynamicChunk * 16> chunk{};
  std::uint64_t index = 0;
  while (index < total) {
    if (index >= kMaxElfDynamicEntries) return make_error("too many ELF dynamic entries");
    const std::uint64_t n =
        std::min<std::uint64_t>({kDynamicChunk, total - index, kMaxElfDynamicEntries - index});
    const std::size_t bytes = static_cast<std::size_t>(n) * f.dyn_size();
    if (!source.read(region.offset + index * f.dyn_size(), bytes, chunk.data())) {
      return unreadable();
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      const unsigned char* p = chunk.data() + i * f.dyn_size();
      const std::int64_t tag = f.sword(p);
      const std::uint64_t value = f.word(p + (f.is64 ? 8 : 4));
      switch (tag) {
        case kDtNull:
          return tags;
        case kDtNeeded:
          if (tags.needed.size() >= kMaxElfNeeded)
            return make_error("too many ELF DT_NEEDED entries");
          tags.needed.push_back(value);
          break;
        case kDtStrtab:
          tags.strtab = value;
          break;
        case kDtStrsz:
          tags.strsz = value;
          break;
        case kDtSoname:
          tags.soname = value;
          break;
        case kDtRpath:
          tags.rpath = value;
          break;
        case kDtRunpath:
          tags.runpath = value;
          break;
        default:
          break;
      }
    }
    index += n;
  }
  return tags;
}

// The file range of the dynamic string table named by DT_STRTAB (+ DT_STRSZ): the virtual
// address is mapped to a file offset through the PT_LOAD segment that holds it in the file.
Result<Region> string_table_from_segments(const std::vector<Segment>& segments,
                                          const DynamicTags& tags, std::uint64_t file_size) {
  if (!tags.strtab) return make_error("ELF dynamic section has strings but no DT_STRTAB");
  const std::uint64_t address = *tags.strtab;
  for (const Segment& s : segments) {
    if (s.type != kPtLoad || address < s.vaddr) continue;
    const std::uint64_t delta = address - s.vaddr;
    if (delta >= s.filesz) continue;
    if (s.offset > std::numeric_limits<std::uint64_t>::max() - delta) continue;
    Region table{s.offset + delta, s.filesz - delta};
    if (tags.strsz) table.size = std::min(table.size, *tags.strsz);
    if (table.offset >= file_size) return make_error("ELF string table outside the file");
    table.size = std::min(table.size, file_size - table.offset);
    return table;
  }
  return make_error("ELF string table not in a loaded segment");
}

Result<std::string> read_string(const ByteSource& source, Region table, std::uint64_t offset) {
  if (offset >= table.size) return make_error("ELF dynamic string offset outside its table");
  const std::size_t length =
      static_cast<std::size_t>(std::min<std::uint64_t>(kMaxElfStringBytes, table.size - offset));
  std::array<char, kMaxElfStringBytes> buffer{};
  if (!source.read(table.offset + offset, length, buffer.data())) return unreadable();
  const char* end = static_cast<const char*>(std::memchr(buffer.data(), '\0', length));
  if (!end) {
    if (length == kMaxElfStringBytes) {
      return make_error(
          fmt::format("ELF dynamic string longer than {} bytes", kMaxElfStringBytes - 1));
    }
    return make_error("ELF dynamic string not terminated inside its table");
  }
  return std::string(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
}

std::vector<std::string> split_search_path(const std::string& value) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t colon = value.find(':', start);
    if (colon == std::string::npos) colon = value.size();
    if (colon > start) parts.push_back(value.substr(start, colon - start));
    start = colon + 1;
  }
  return parts;
}

Result<ElfInfo> read_elf(const ByteSource& source) {
  auto header = read_header(source);
  if (!header) return header.error();
  const Format& f = header->format;
  ElfInfo info;
  info.bits = f.is64 ? 64 : 32;
  info.machine = header->machine;

  auto segments = read_segments(source, *header);
  if (!segments) return segments.error();

  std::optional<Region> dynamic;
  std::optional<Region> strings;  // known up front only on the section-header path
  // e_phnum counts every program header, not only the PT_LOAD/PT_DYNAMIC ones kept here.
  const bool have_program_headers = header->phnum != 0;
  if (have_program_headers) {
    for (const Segment& s : *segments) {
      if (s.type == kPtDynamic) {
        dynamic = Region{s.offset, s.filesz};
        break;
      }
    }
  }
  if (!have_program_headers) {
    auto sections = read_sections(source, *header);
    if (!sections) return sections.error();
    for (const Section& s : *sections) {
      if (s.type != kShtDynamic) continue;
      dynamic = Region{s.offset, s.size};
      if (s.link >= sections->size()) return make_error("ELF dynamic section links no section");
      const Section& linked = (*sections)[s.link];
      if (linked.offset >= source.size()) return make_error("ELF string table outside the file");
      strings = Region{linked.offset, std::min(linked.size, source.size() - linked.offset)};
      break;
    }
  }
  if (!dynamic) return info;  // static executable or object file

  auto tags = read_dynamic(source, f, *dynamic);
  if (!tags) return tags.error();
  if (!tags->has_strings()) return info;
  if (!strings) {
    auto table = string_table_from_segments(*segments, *tags, source.size());
    if (!table) return table.error();
    strings = *table;
  }

  if (tags->soname) {
    auto soname = read_string(source, *strings, *tags->soname);
    if (!soname) return soname.error();
    info.soname = std::move(*soname);
  }
  for (const std::uint64_t offset : tags->needed) {
    auto needed = read_string(source, *strings, offset);
    if (!needed) return needed.error();
    info.needed.push_back(std::move(*needed));
  }
  if (tags->runpath) {
    auto runpath = read_string(source, *strings, *tags->runpath);
    if (!runpath) return runpath.error();
    info.runpath = split_search_path(*runpath);
  }
  if (tags->rpath) {
    auto rpath = read_string(source, *strings, *tags->rpath);
    if (!rpath) return rpath.error();
    info.rpath = split_search_path(*rpath);
  }
  return info;
}

// The name of a section from the section-name table; bounded like the dynamic strings.
Result<std::string> section_name(const ByteSource& source, Region table, std::uint32_t offset) {
  auto name = read_string(source, table, offset);
  if (!name) return make_error("ELF section name outside its table");
  return name;
}

Result<std::vector<ElfSection>> read_named_sections(const ByteSource& source) {
  auto header = read_header(source);
  if (!header) return header.error();
  auto sections = read_sections(source, *header);
  if (!sections) return sections.error();
  std::vector<ElfSection> named;
  if (sections->empty()) return named;
  std::uint64_t names_index = header->shstrndx;
  if (names_index == kShnXindex) names_index = sections->front().link;
  if (names_index == 0 || names_index >= sections->size()) return named;  // no names at all
  const Section& names = (*sections)[static_cast<std::size_t>(names_index)];
  if (names.offset >= source.size()) return make_error("ELF section names outside the file");
  const Region table{names.offset, std::min(names.size, source.size() - names.offset)};
  named.reserve(sections->size());
  for (const Section& s : *sections) {
    auto name = section_name(source, table, s.name);
    if (!name) return name.error();
    const bool in_file = s.type != kShtNobits;
    named.push_back(ElfSection{std::move(*name), in_file ? s.offset : 0, in_file ? s.size : 0});
  }
  return named;
}

}  // namespace

Result<std::vector<ElfSection>> read_elf_sections(const ByteSource& source) {
  try {
    return read_named_sections(source);
  } catch (const std::exception&) {
    return make_error("cannot read the ELF file: out of memory");
  }
}

Result<ElfInfo> read_elf_dynamic(const ByteSource& source) {
  // Nothing below throws on purpose; a failed allocation is the one way out, and it must not
  // escape a probe either.
  try {
    return read_elf(source);
  } catch (const std::exception&) {
    return make_error("cannot read the ELF file: out of memory");
  }
}

}  // namespace gpuvet::sys
