#pragma once
// The glibc dynamic loader's cache, /etc/ld.so.cache, as ldconfig writes it. Layouts follow
// glibc's sysdeps/generic/dl-cache.h (struct cache_file, file_entry, cache_file_new,
// file_entry_new) and elf/cache.c (save_cache); this is an independent reader, not glibc code.
// The file is untrusted: counts are capped by the file size, every offset is checked and every
// string must end with a NUL inside the file. Errors are one-line values.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace gpuvet::sys {

struct LdCacheEntry {
  std::string name;  // the soname the entry answers for
  std::string path;  // where ldconfig found it
  std::int32_t flags = 0;
  std::uint64_t hwcap = 0;  // 0 in the old format
  bool operator==(const LdCacheEntry&) const = default;
};

struct LdCache {
  std::vector<LdCacheEntry> entries;  // in file order
  bool operator==(const LdCache&) const = default;
};

// Flag values from glibc's sysdeps/generic/ldconfig.h: the low byte is the library type, the
// high byte the architecture variant ldconfig saw in the ELF header.
inline constexpr std::int32_t kLdCacheFlagElf = 0x0001;           // FLAG_ELF
inline constexpr std::int32_t kLdCacheFlagElfLibc6 = 0x0003;      // FLAG_ELF_LIBC6
inline constexpr std::int32_t kLdCacheFlagX8664Lib64 = 0x0300;    // FLAG_X8664_LIB64
inline constexpr std::int32_t kLdCacheFlagAarch64Lib64 = 0x0a00;  // FLAG_AARCH64_LIB64

// What a loader accepts (_DL_CACHE_DEFAULT_ID with _dl_cache_check_flags):
//  - x86-64: 0x0303, sysdeps/unix/sysv/linux/x86_64/dl-cache.h defines it as 0x303;
//  - AArch64 (LP64): 0x0a03, sysdeps/unix/sysv/linux/aarch64/dl-cache.h defines it as
//    FLAG_AARCH64_LIB64 | FLAG_ELF_LIBC6;
//  - i386: 0x0003, the generic default of sysdeps/generic/dl-cache.h (i386 has no override).
//    The generic check also accepts 0x0001 (FLAG_ELF); a one-value lookup cannot say that.
inline constexpr std::int32_t kLdCacheX8664Flags = kLdCacheFlagElfLibc6 | kLdCacheFlagX8664Lib64;
inline constexpr std::int32_t kLdCacheAarch64Flags =
    kLdCacheFlagElfLibc6 | kLdCacheFlagAarch64Lib64;
inline constexpr std::int32_t kLdCacheI386Flags = kLdCacheFlagElfLibc6;

// The flags the loader of this build's architecture accepts; nullopt for an architecture whose
// value was not checked against glibc (x32, 32-bit Arm, POWER, s390x, RISC-V, ...).
std::optional<std::int32_t> native_ld_cache_flags();

// Largest string (name or path, NUL included) the reader accepts.
inline constexpr std::size_t kMaxLdCacheStringBytes = 4096;

// Reads the new format ("glibc-ld.so.cache1.1"), the old one ("ld.so-1.7.0") and the compat
// layout (old header and entries, then a complete new cache 8-byte aligned after them); of a
// compat file the new part is read, as ld.so does. A new-format cache marked with the other byte
// order, or marked invalid, is rejected as ld.so rejects it; the old format is read in this
// machine's byte order.
Result<LdCache> parse_ld_cache(std::string_view bytes);

// Paths the cache holds for a soname, in cache order, keeping only entries whose flags equal
// wanted_flags (kLdCacheX8664Flags, 0x0303, for an x86-64 process). Names compare the way
// ld.so compares them (_dl_cache_libcmp): runs of digits by value, so "libx.so.01" answers for
// "libx.so.1". Entries for glibc-hwcaps subdirectories are kept: whether ld.so takes them depends
// on the CPU, and their hwcap field says which they are.
std::vector<std::string> ld_cache_lookup(const LdCache& cache, std::string_view soname,
                                         std::int32_t wanted_flags);

}  // namespace gpuvet::sys
