#include "system/ld_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>

namespace gpuvet::sys {

namespace {

// Layouts (glibc sysdeps/generic/dl-cache.h):
//   struct cache_file      { char magic[11] "ld.so-1.7.0"; (pad to 4) uint32 nlibs; }   16 bytes
//   struct file_entry      { int32 flags; uint32 key, value; }                          12 bytes
//     key/value index the string table that starts right after the last file_entry.
//   struct cache_file_new  { char magic[17] "glibc-ld.so.cache"; char version[3] "1.1";
//                            uint32 nlibs @20; uint32 len_strings @24; uint8 flags @28;
//                            uint8 pad[3]; uint32 extension_offset @32; uint32 unused[3]; }
//                                                                                       48 bytes
//   struct file_entry_new  { int32 flags; uint32 key, value; uint32 osversion;
//                            uint64 hwcap; }                                            24 bytes
//     key/value index from the start of struct cache_file_new: the file start in a new-format
//     file, the embedded header in a compat file (elf/cache.c save_cache, elf/dl-cache.c).
// Compat: the new cache starts at ALIGN_CACHE(sizeof cache_file + nlibs * sizeof file_entry),
// aligned to 8 (the alignment of cache_file_new).
constexpr std::string_view kOldMagic = "ld.so-1.7.0";
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";
constexpr std::uint64_t kOldHeaderSize = 16;
constexpr std::uint64_t kOldEntrySize = 12;
constexpr std::uint64_t kNewHeaderSize = 48;
constexpr std::uint64_t kNewEntrySize = 24;
constexpr std::uint64_t kNewAlignment = 8;

// cache_file_new.flags & 3 (cache_file_new_flags_endian_*).
constexpr unsigned kEndianUnset = 0;
constexpr unsigned kEndianInvalid = 1;
constexpr unsigned kEndianLittle = 2;
constexpr unsigned kEndianMask = 3;

constexpr bool kHostBigEndian = std::endian::native == std::endian::big;

struct Decoder {
  std::string_view bytes;
  bool big_endian = kHostBigEndian;

  std::uint64_t load(std::uint64_t at, std::size_t width) const {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) {
      const std::size_t index = static_cast<std::size_t>(big_endian ? at + i : at + width - 1 - i);
      value = (value << 8) | static_cast<unsigned char>(bytes[index]);
    }
    return value;
  }
  std::uint32_t u32(std::uint64_t at) const { return static_cast<std::uint32_t>(load(at, 4)); }
  std::int32_t i32(std::uint64_t at) const { return static_cast<std::int32_t>(u32(at)); }
  std::uint64_t u64(std::uint64_t at) const { return load(at, 8); }
};

Error truncated() {
  return make_error("truncated loader cache");
}

// A NUL-terminated string at base + offset, inside the file.
Result<std::string> cache_string(std::string_view bytes, std::uint64_t base, std::uint32_t offset) {
  const std::uint64_t at = base + offset;  // both below 2^32 + 2^32: no overflow
  if (at >= bytes.size()) return make_error("loader cache string outside the file");
  const std::size_t room = bytes.size() - static_cast<std::size_t>(at);
  const std::size_t length = std::min(room, kMaxLdCacheStringBytes);
  const char* start = bytes.data() + at;
  const void* nul = std::memchr(start, '\0', length);
  if (!nul) {
    if (length == kMaxLdCacheStringBytes) {
      return make_error(
          fmt::format("loader cache string longer than {} bytes", kMaxLdCacheStringBytes - 1));
    }
    return make_error("loader cache string not terminated inside the file");
  }
  return std::string(start, static_cast<const char*>(nul));
}

Result<LdCache> parse_new(std::string_view bytes, std::uint64_t base) {
  const std::uint64_t size = bytes.size();
  if (size < base || size - base < kNewHeaderSize) return truncated();
  Decoder d{bytes};
  const unsigned endian = static_cast<unsigned char>(bytes[base + 28]) & kEndianMask;
  if (endian == kEndianInvalid) return make_error("loader cache marked invalid");
  if (endian != kEndianUnset) {
    d.big_endian = endian != kEndianLittle;
    if (d.big_endian != kHostBigEndian) {
      return make_error("loader cache written for the other byte order");
    }
  }
  const std::uint64_t count = d.u32(base + 20);
  const std::uint64_t strings_size = d.u32(base + 24);
  const std::uint64_t entries_at = base + kNewHeaderSize;
  if ((size - entries_at) / kNewEntrySize < count) return truncated();
  const std::uint64_t strings_at = entries_at + count * kNewEntrySize;
  if (size - strings_at < strings_size) return truncated();

  LdCache cache;
  cache.entries.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t at = entries_at + i * kNewEntrySize;
    LdCacheEntry entry;
    entry.flags = d.i32(at);
    entry.hwcap = d.u64(at + 16);
    auto name = cache_string(bytes, base, d.u32(at + 4));
    if (!name) return name.error();
    auto path = cache_string(bytes, base, d.u32(at + 8));
    if (!path) return path.error();
    entry.name = std::move(*name);
    entry.path = std::move(*path);
    cache.entries.push_back(std::move(entry));
  }
  return cache;
}

Result<LdCache> parse_old_or_compat(std::string_view bytes) {
  const std::uint64_t size = bytes.size();
  if (size < kOldHeaderSize) return truncated();
  const Decoder d{bytes};  // the old format records no byte order: this machine's
  const std::uint64_t count = d.u32(12);
  if ((size - kOldHeaderSize) / kOldEntrySize < count) return truncated();
  const std::uint64_t strings_at = kOldHeaderSize + count * kOldEntrySize;

  // A compat file hides a complete new cache at the start of the old string table.
  const std::uint64_t new_at = (strings_at + kNewAlignment - 1) / kNewAlignment * kNewAlignment;
  if (new_at <= size && size - new_at >= kNewMagic.size() &&
      bytes.substr(static_cast<std::size_t>(new_at), kNewMagic.size()) == kNewMagic) {
    return parse_new(bytes, new_at);
  }

  LdCache cache;
  cache.entries.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t at = kOldHeaderSize + i * kOldEntrySize;
    LdCacheEntry entry;
    entry.flags = d.i32(at);
    auto name = cache_string(bytes, strings_at, d.u32(at + 4));
    if (!name) return name.error();
    auto path = cache_string(bytes, strings_at, d.u32(at + 8));
    if (!path) return path.error();
    entry.name = std::move(*name);
    entry.path = std::move(*path);
    cache.entries.push_back(std::move(entry));
  }
  return cache;
}

// True when the first bytes of the file could still grow into magic.
bool is_prefix_of(std::string_view bytes, std::string_view magic) {
  return !bytes.empty() && bytes.size() < magic.size() && magic.substr(0, bytes.size()) == bytes;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// ld.so's name comparison (_dl_cache_libcmp) reduced to equality: digit runs compare by value.
bool same_library_name(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      while (i < a.size() && a[i] == '0')
        ++i;
      while (j < b.size() && b[j] == '0')
        ++j;
      const std::size_t a_start = i;
      const std::size_t b_start = j;
      while (i < a.size() && is_digit(a[i]))
        ++i;
      while (j < b.size() && is_digit(b[j]))
        ++j;
      if (a.substr(a_start, i - a_start) != b.substr(b_start, j - b_start)) return false;
    } else if (a[i] != b[j]) {
      return false;  // also a digit against a non-digit
    } else {
      ++i;
      ++j;
    }
  }
  return i == a.size() && j == b.size();
}

}  // namespace

std::optional<std::int32_t> native_ld_cache_flags() {
#if defined(__x86_64__) && !defined(__ILP32__)
  return kLdCacheX8664Flags;
#elif defined(__aarch64__) && defined(__LP64__)
  return kLdCacheAarch64Flags;
#elif defined(__i386__)
  return kLdCacheI386Flags;
#else
  return std::nullopt;
#endif
}

Result<LdCache> parse_ld_cache(std::string_view bytes) {
  try {
    if (bytes.size() >= kNewMagic.size() && bytes.substr(0, kNewMagic.size()) == kNewMagic) {
      return parse_new(bytes, 0);
    }
    if (bytes.size() >= kOldMagic.size() && bytes.substr(0, kOldMagic.size()) == kOldMagic) {
      return parse_old_or_compat(bytes);
    }
    if (bytes.size() >= kNewMagic.size() &&
        bytes.substr(0, kNewMagic.size() - 3) == kNewMagic.substr(0, kNewMagic.size() - 3)) {
      return make_error("unsupported loader cache version");
    }
    if (is_prefix_of(bytes, kNewMagic) || is_prefix_of(bytes, kOldMagic)) return truncated();
    return make_error("not a loader cache");
  } catch (const std::exception&) {
    return make_error("cannot read the loader cache: out of memory");
  }
}

std::vector<std::string> ld_cache_lookup(const LdCache& cache, std::string_view soname,
                                         std::int32_t wanted_flags) {
  std::vector<std::string> paths;
  for (const LdCacheEntry& entry : cache.entries) {
    if (entry.flags == wanted_flags && same_library_name(entry.name, soname)) {
      paths.push_back(entry.path);
    }
  }
  return paths;
}

}  // namespace gpuvet::sys
