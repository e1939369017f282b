// The loader-cache reader against the real machine (/etc/ld.so.cache compared with
// `ldconfig -p`), against caches the real ldconfig builds in each format (new, old, compat) over
// the fixture libraries, against caches built byte by byte here, and against broken input:
// truncations and a deterministic mutation fuzz loop.
#include "system/ld_cache.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "system/system.hpp"
#include "test_support.hpp"

namespace gpuvet::sys {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

LdCache parse_ok(std::string_view bytes) {
  auto cache = parse_ld_cache(bytes);
  EXPECT_TRUE(cache.ok()) << (cache.ok() ? "" : cache.error().message);
  return cache.ok() ? *cache : LdCache{};
}

std::string parse_error(std::string_view bytes) {
  auto cache = parse_ld_cache(bytes);
  EXPECT_FALSE(cache.ok()) << "expected an error";
  return cache.ok() ? "" : cache.error().message;
}

void expect_one_line_error(const Result<LdCache>& result) {
  if (result.ok()) return;
  EXPECT_FALSE(result.error().message.empty());
  EXPECT_EQ(result.error().message.find('\n'), std::string::npos) << result.error().message;
}

gpuvet::testing::CommandOutput run(const std::string& command) {
  return gpuvet::testing::run_command(command);
}

// ldconfig lives in /sbin on many systems, outside an ordinary user's PATH.
std::optional<std::string> find_ldconfig() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    std::string dir;
    while (std::getline(in, dir, ':')) {
      if (!dir.empty()) dirs.push_back(dir);
    }
  }
  dirs.insert(dirs.end(), {"/sbin", "/usr/sbin"});
  for (const auto& dir : dirs) {
    const std::string candidate = dir + "/ldconfig";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

// `ldconfig -p` lines: "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1".
struct PrintedEntry {
  std::string name;
  std::string descriptor;
  std::string path;
};

std::optional<std::vector<PrintedEntry>> ldconfig_print(const std::string& ldconfig,
                                                        const std::string& cache_file) {
  const auto result = run("LC_ALL=C '" + ldconfig + "' -p -C '" + cache_file + "' 2>&1");
  if (result.status != 0) {
    ADD_FAILURE() << "ldconfig -p failed: " << result.output;
    return std::nullopt;
  }
  std::vector<PrintedEntry> entries;
  std::istringstream lines(result.output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '\t') continue;
    const size_t open = line.find(" (");
    const size_t arrow = line.rfind(") => ");
    if (open == std::string::npos || arrow == std::string::npos || arrow < open) {
      ADD_FAILURE() << "unexpected ldconfig -p line: " << line;
      continue;
    }
    entries.push_back({line.substr(1, open - 1), line.substr(open + 2, arrow - open - 2),
                       line.substr(arrow + 5)});
  }
  return entries;
}

// How `ldconfig -p` spells the native flags (elf/cache.c print_entry).
std::optional<std::string> native_descriptor() {
  const auto flags = native_ld_cache_flags();
  if (!flags) return std::nullopt;
  if (*flags == kLdCacheX8664Flags) return "libc6,x86-64";
  if (*flags == kLdCacheAarch64Flags) return "libc6,AArch64";
  if (*flags == kLdCacheI386Flags) return "libc6";
  return std::nullopt;
}

// The descriptor says the native flags, possibly followed by ", hwcap: ..." or ", OS ABI: ...".
bool descriptor_is_native(const std::string& descriptor, const std::string& native) {
  return descriptor == native ||
         (descriptor.rfind(native + ",", 0) == 0 && descriptor.size() > native.size() + 1 &&
          descriptor[native.size() + 1] == ' ');
}

// Compares a parsed cache with ldconfig's own print of the same file: every entry in order, and
// for every name, the native lookup against the lines that carry the native descriptor.
void expect_matches_ldconfig(const LdCache& cache, const std::vector<PrintedEntry>& printed) {
  ASSERT_EQ(cache.entries.size(), printed.size());
  for (size_t i = 0; i < printed.size(); ++i) {
    EXPECT_EQ(cache.entries[i].name, printed[i].name) << "entry " << i;
    EXPECT_EQ(cache.entries[i].path, printed[i].path) << "entry " << i;
  }
  const auto native = native_descriptor();
  if (!native) {
    std::printf("[ SKIPPED  ] lookup comparison: no known ldconfig flags for this architecture\n");
    return;
  }
  std::map<std::string, std::vector<std::string>> expected;
  for (const auto& p : printed) {
    auto& paths = expected[p.name];
    if (descriptor_is_native(p.descriptor, *native)) paths.push_back(p.path);
  }
  for (size_t i = 0; i < printed.size(); ++i) {
    EXPECT_EQ(cache.entries[i].flags == *native_ld_cache_flags(),
              descriptor_is_native(printed[i].descriptor, *native))
        << printed[i].name << " (" << printed[i].descriptor << ") flags " << cache.entries[i].flags;
  }
  for (const auto& [name, paths] : expected) {
    EXPECT_EQ(ld_cache_lookup(cache, name, *native_ld_cache_flags()), paths) << name;
  }
}

// --- caches built byte by byte -------------------------------------------------------------

struct Spec {
  std::string name;
  std::string path;
  std::int32_t flags = kLdCacheX8664Flags;
  std::uint64_t hwcap = 0;
};

constexpr bool kHostBig = std::endian::native == std::endian::big;

class Writer {
 public:
  explicit Writer(bool big_endian = kHostBig) : big_(big_endian) {}
  std::string bytes;
  void put(size_t at, std::uint64_t value, size_t width) {
    if (bytes.size() < at + width) bytes.resize(at + width, '\0');
    for (size_t i = 0; i < width; ++i) {
      const size_t shift = 8 * (big_ ? width - 1 - i : i);
      bytes[at + i] = static_cast<char>((value >> shift) & 0xff);
    }
  }
  void put_bytes(size_t at, std::string_view data) {
    if (bytes.size() < at + data.size()) bytes.resize(at + data.size(), '\0');
    bytes.replace(at, data.size(), data);
  }

 private:
  bool big_;
};

// Strings as ldconfig lays them out: one table, each entry's name then path.
struct Strings {
  std::string table;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> offsets;  // name, path
  explicit Strings(const std::vector<Spec>& specs) {
    for (const auto& s : specs) {
      const auto name = static_cast<std::uint32_t>(table.size());
      table += s.name + '\0';
      const auto path = static_cast<std::uint32_t>(table.size());
      table += s.path + '\0';
      offsets.emplace_back(name, path);
    }
  }
};

// A new-format cache at `at` in w (string offsets relative to its header); returns its size.
size_t write_new(Writer& w, size_t at, const std::vector<Spec>& specs, int endian_flag,
                 std::uint32_t string_bias = 0) {
  const Strings strings(specs);
  const size_t header_and_entries = 48 + 24 * specs.size();
  w.put_bytes(at, "glibc-ld.so.cache1.1");
  w.put(at + 20, specs.size(), 4);
  w.put(at + 24, strings.table.size(), 4);
  w.put(at + 28, static_cast<std::uint64_t>(endian_flag), 1);
  for (size_t i = 0; i < specs.size(); ++i) {
    const size_t e = at + 48 + 24 * i;
    w.put(e, static_cast<std::uint32_t>(specs[i].flags), 4);
    w.put(e + 4, header_and_entries + string_bias + strings.offsets[i].first, 4);
    w.put(e + 8, header_and_entries + string_bias + strings.offsets[i].second, 4);
    w.put(e + 16, specs[i].hwcap, 8);
  }
  w.put_bytes(at + header_and_entries + string_bias, strings.table);
  return header_and_entries + string_bias + strings.table.size();
}

int host_endian_flag() {
  return kHostBig ? 3 : 2;
}

std::string build_new(const std::vector<Spec>& specs, int endian_flag = host_endian_flag()) {
  Writer w;
  write_new(w, 0, specs, endian_flag);
  return w.bytes;
}

std::string build_old(const std::vector<Spec>& specs) {
  Writer w;
  const Strings strings(specs);
  w.put_bytes(0, "ld.so-1.7.0");
  w.put(12, specs.size(), 4);
  for (size_t i = 0; i < specs.size(); ++i) {
    const size_t e = 16 + 12 * i;
    w.put(e, static_cast<std::uint32_t>(specs[i].flags), 4);
    w.put(e + 4, strings.offsets[i].first, 4);
    w.put(e + 8, strings.offsets[i].second, 4);
  }
  w.put_bytes(16 + 12 * specs.size(), strings.table);
  return w.bytes;
}

// Compat: an old header and entries describing `old_specs`, then a complete new cache
// describing `new_specs`, 8-byte aligned; the old strings follow the new ones.
std::string build_compat(const std::vector<Spec>& old_specs, const std::vector<Spec>& new_specs) {
  Writer w;
  const size_t old_end = 16 + 12 * old_specs.size();
  const size_t new_at = (old_end + 7) / 8 * 8;
  const size_t new_size = write_new(w, new_at, new_specs, host_endian_flag());
  const Strings old_strings(old_specs);
  const size_t old_strings_at = new_at + new_size;
  w.put_bytes(0, "ld.so-1.7.0");
  w.put(12, old_specs.size(), 4);
  for (size_t i = 0; i < old_specs.size(); ++i) {
    const size_t e = 16 + 12 * i;
    w.put(e, static_cast<std::uint32_t>(old_specs[i].flags), 4);
    w.put(e + 4, old_strings_at - old_end + old_strings.offsets[i].first, 4);
    w.put(e + 8, old_strings_at - old_end + old_strings.offsets[i].second, 4);
  }
  w.put_bytes(old_strings_at, old_strings.table);
  return w.bytes;
}

// glibc-hwcaps subdirectory entry: DL_CACHE_HWCAP_EXTENSION (1 << 62) | index.
constexpr std::uint64_t kHwcapExtension = std::uint64_t{1} << 62;

const std::vector<Spec>& sample() {
  static const std::vector<Spec> specs = {
      {"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libcuda.so.1",
       kLdCacheX8664Flags, kHwcapExtension | 0},
      {"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", kLdCacheX8664Flags, 0},
      {"libcuda.so.1", "/usr/lib/i386-linux-gnu/libcuda.so.1", kLdCacheI386Flags, 0},
      {"libcuda.so.1", "/usr/lib/aarch64-linux-gnu/libcuda.so.1", kLdCacheAarch64Flags, 0},
      {"libz.so.01", "/opt/old/libz.so.01", kLdCacheX8664Flags, 0},
      {"libz.so", "/lib/libz.so", kLdCacheX8664Flags, 0},
  };
  return specs;
}

std::vector<LdCacheEntry> entries_of(const std::vector<Spec>& specs, bool keep_hwcap) {
  std::vector<LdCacheEntry> entries;
  for (const auto& s : specs)
    entries.push_back({s.name, s.path, s.flags, keep_hwcap ? s.hwcap : 0});
  return entries;
}

void expect_sample_lookups(const LdCache& cache) {
  EXPECT_EQ(
      ld_cache_lookup(cache, "libcuda.so.1", kLdCacheX8664Flags),
      (std::vector<std::string>{"/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libcuda.so.1",
                                "/usr/lib/x86_64-linux-gnu/libcuda.so.1"}));
  EXPECT_EQ(ld_cache_lookup(cache, "libcuda.so.1", kLdCacheI386Flags),
            (std::vector<std::string>{"/usr/lib/i386-linux-gnu/libcuda.so.1"}));
  EXPECT_EQ(ld_cache_lookup(cache, "libcuda.so.1", kLdCacheAarch64Flags),
            (std::vector<std::string>{"/usr/lib/aarch64-linux-gnu/libcuda.so.1"}));
  EXPECT_TRUE(ld_cache_lookup(cache, "libcuda.so.1", 0x0301).empty());
  EXPECT_TRUE(ld_cache_lookup(cache, "libcuda.so", kLdCacheX8664Flags).empty());
  EXPECT_TRUE(ld_cache_lookup(cache, "libcuda.so.1.0", kLdCacheX8664Flags).empty());
  EXPECT_TRUE(ld_cache_lookup(cache, "libcuda.so.", kLdCacheX8664Flags).empty());
  EXPECT_TRUE(ld_cache_lookup(cache, "", kLdCacheX8664Flags).empty());
  // Digit runs compare by value, as in ld.so's _dl_cache_libcmp.
  EXPECT_EQ(ld_cache_lookup(cache, "libz.so.1", kLdCacheX8664Flags),
            (std::vector<std::string>{"/opt/old/libz.so.01"}));
  EXPECT_EQ(ld_cache_lookup(cache, "libz.so.001", kLdCacheX8664Flags),
            (std::vector<std::string>{"/opt/old/libz.so.01"}));
  EXPECT_TRUE(ld_cache_lookup(cache, "libz.so.10", kLdCacheX8664Flags).empty());
  EXPECT_TRUE(ld_cache_lookup(cache, "libz.so.1a", kLdCacheX8664Flags).empty());
  EXPECT_EQ(ld_cache_lookup(cache, "libz.so", kLdCacheX8664Flags),
            (std::vector<std::string>{"/lib/libz.so"}));
}

TEST(LdCache, NativeFlagsMatchGlibc) {
  EXPECT_EQ(kLdCacheX8664Flags, 0x0303);
  EXPECT_EQ(kLdCacheAarch64Flags, 0x0a03);
  EXPECT_EQ(kLdCacheI386Flags, 0x0003);
#if defined(__x86_64__) && !defined(__ILP32__)
  EXPECT_EQ(native_ld_cache_flags(), 0x0303);
#elif defined(__aarch64__)
  EXPECT_EQ(native_ld_cache_flags(), 0x0a03);
#elif defined(__i386__)
  EXPECT_EQ(native_ld_cache_flags(), 0x0003);
#endif
}

TEST(LdCache, HandBuiltNewFormat) {
  const LdCache cache = parse_ok(build_new(sample()));
  EXPECT_EQ(cache.entries, entries_of(sample(), true));
  expect_sample_lookups(cache);
  // A cache from an ldconfig that recorded no byte order is read in this machine's.
  EXPECT_EQ(parse_ok(build_new(sample(), 0)).entries, entries_of(sample(), true));
  EXPECT_TRUE(parse_ok(build_new({})).entries.empty());
}

TEST(LdCache, HandBuiltOldFormat) {
  const LdCache cache = parse_ok(build_old(sample()));
  EXPECT_EQ(cache.entries, entries_of(sample(), false));
  expect_sample_lookups(cache);
  EXPECT_TRUE(parse_ok(build_old({})).entries.empty());
}

TEST(LdCache, CompatReadsTheNewPart) {
  const std::vector<Spec> old_part = {{"libold.so.1", "/old/libold.so.1"},
                                      {"libold.so.1", "/old/libold.so.1"}};
  const LdCache cache = parse_ok(build_compat(old_part, sample()));
  EXPECT_EQ(cache.entries, entries_of(sample(), true));
  // An odd old count puts the new header after 4 bytes of padding.
  const LdCache odd = parse_ok(build_compat({{"libold.so.1", "/old/libold.so.1"}}, sample()));
  EXPECT_EQ(odd.entries, entries_of(sample(), true));
}

TEST(LdCache, ByteOrderAndInvalidMarks) {
  EXPECT_EQ(parse_error(build_new(sample(), 1)), "loader cache marked invalid");
  EXPECT_EQ(parse_error(build_new(sample(), kHostBig ? 2 : 3)),
            "loader cache written for the other byte order");
  // Bits above the byte-order mask are unused and ignored.
  EXPECT_EQ(parse_ok(build_new(sample(), host_endian_flag() | 0x80)).entries.size(),
            sample().size());
}

TEST(LdCache, NotACacheAndBadOffsets) {
  EXPECT_EQ(parse_error(""), "not a loader cache");
  EXPECT_EQ(parse_error("hello, world: this is not a cache"), "not a loader cache");
  EXPECT_EQ(parse_error("ld.so-1.7"), "truncated loader cache");
  EXPECT_EQ(parse_error("glibc-ld.so"), "truncated loader cache");
  EXPECT_EQ(parse_error(std::string("ld.so-1.7.0\0\0", 13)), "truncated loader cache");
  std::string version = build_new(sample());
  version[19] = '2';
  EXPECT_EQ(parse_error(version), "unsupported loader cache version");

  // nlibs larger than the file can hold.
  Writer w;
  w.bytes = build_new(sample());
  w.put(20, 0xffffffff, 4);
  EXPECT_EQ(parse_error(w.bytes), "truncated loader cache");
  w.bytes = build_old(sample());
  w.put(12, 0x40000000, 4);
  EXPECT_EQ(parse_error(w.bytes), "truncated loader cache");
  // len_strings past the end.
  w.bytes = build_new(sample());
  w.put(24, w.bytes.size(), 4);
  EXPECT_EQ(parse_error(w.bytes), "truncated loader cache");
  // A key outside the file.
  w.bytes = build_new(sample());
  w.put(48 + 4, 0xfffffff0, 4);
  EXPECT_EQ(parse_error(w.bytes), "loader cache string outside the file");
  // A path that runs to the end of the file without a NUL.
  w.bytes = build_new({{"liba.so.1", "/x/liba.so.1"}});
  w.bytes.pop_back();
  w.put(24, 0, 4);  // so that len_strings does not give it away first
  EXPECT_EQ(parse_error(w.bytes), "loader cache string not terminated inside the file");
  // A string longer than the limit.
  EXPECT_EQ(parse_error(build_new({{"libl.so", "/" + std::string(5000, 'p')}})),
            "loader cache string longer than 4095 bytes");
}

// --- the real machine ----------------------------------------------------------------------

TEST(LdCache, SystemCacheMatchesLdconfigPrint) {
  const std::string path = "/etc/ld.so.cache";
  if (!fs::exists(path)) GTEST_SKIP() << path << " does not exist on this machine";
  const auto ldconfig = find_ldconfig();
  if (!ldconfig) GTEST_SKIP() << "ldconfig is not installed";
  const std::string bytes = read_bytes(path);
  const LdCache cache = parse_ok(bytes);
  const auto printed = ldconfig_print(*ldconfig, path);
  ASSERT_TRUE(printed);
  ASSERT_FALSE(printed->empty());
  expect_matches_ldconfig(cache, *printed);
}

// A root directory for `ldconfig -r` holding the fixtures under their sonames, in two library
// directories so that one soname has two entries.
class LdconfigRoot {
 public:
  LdconfigRoot() {
    fs::create_directories(dir_.path() + "/etc");
    fs::create_directories(dir_.path() + "/fixlib");
    fs::create_directories(dir_.path() + "/fixlib2");
    fs::copy_file(GPUVET_FIXTURE_RUNPATH_LIB,
                  dir_.path() + "/fixlib/libgpuvet_fixture_runpath.so.1");
    fs::copy_file(GPUVET_FIXTURE_RPATH_LIB, dir_.path() + "/fixlib/libgpuvet_fixture_rpath.so.7");
    fs::copy_file(GPUVET_FIXTURE_RUNPATH_LIB,
                  dir_.path() + "/fixlib2/libgpuvet_fixture_runpath.so.1");
    dir_.file("etc/ld.so.conf", "/fixlib\n/fixlib2\n");
  }
  std::string path() const { return dir_.path(); }

  // Builds <root>/etc/ld.so.cache.<format>; -X: no links; -r: only this root is scanned (a
  // chroot when allowed, paths resolved under the root otherwise), and the auxiliary cache
  // written, if at all, under the root too.
  std::optional<std::string> build(const std::string& ldconfig, const std::string& format) const {
    const std::string cache = "/etc/ld.so.cache." + format;
    const auto result = run("LC_ALL=C '" + ldconfig + "' -X -r '" + path() + "' -C " + cache +
                            " -f /etc/ld.so.conf -c " + format + " 2>&1");
    if (result.status != 0) {
      ADD_FAILURE() << "ldconfig -c " << format << " failed: " << result.output;
      return std::nullopt;
    }
    return path() + cache;
  }

 private:
  testing::TempDir dir_;
};

bool ldconfig_has_formats(const std::string& ldconfig) {
  return run("LC_ALL=C '" + ldconfig + "' --help 2>&1").output.find("--format") !=
         std::string::npos;
}

TEST(LdCache, LdconfigBuiltCachesInEachFormat) {
  const auto ldconfig = find_ldconfig();
  if (!ldconfig) GTEST_SKIP() << "ldconfig is not installed";
  if (!ldconfig_has_formats(*ldconfig)) GTEST_SKIP() << *ldconfig << " has no -c FORMAT";
  const LdconfigRoot root;
  std::map<std::string, LdCache> caches;
  for (const std::string format : {"new", "old", "compat"}) {
    SCOPED_TRACE(format);
    const auto file = root.build(*ldconfig, format);
    ASSERT_TRUE(file);
    const std::string bytes = read_bytes(*file);
    if (format == "new") {
      EXPECT_EQ(bytes.rfind("glibc-ld.so.cache1.1", 0), 0u);
    }
    if (format != "new") {
      EXPECT_EQ(bytes.rfind("ld.so-1.7.0", 0), 0u);
    }
    const bool embeds_new = bytes.find("glibc-ld.so.cache1.1") != std::string::npos;
    EXPECT_EQ(embeds_new, format != "old");

    const LdCache cache = parse_ok(bytes);
    const auto printed = ldconfig_print(*ldconfig, *file);
    ASSERT_TRUE(printed);
    expect_matches_ldconfig(cache, *printed);

    const auto flags = native_ld_cache_flags();
    if (!flags) continue;
    auto runpath = ld_cache_lookup(cache, "libgpuvet_fixture_runpath.so.1", *flags);
    std::sort(runpath.begin(), runpath.end());
    EXPECT_EQ(runpath, (std::vector<std::string>{"/fixlib/libgpuvet_fixture_runpath.so.1",
                                                 "/fixlib2/libgpuvet_fixture_runpath.so.1"}));
    EXPECT_EQ(ld_cache_lookup(cache, "libgpuvet_fixture_rpath.so.7", *flags),
              (std::vector<std::string>{"/fixlib/libgpuvet_fixture_rpath.so.7"}));
    EXPECT_TRUE(ld_cache_lookup(cache, "libgpuvet_fixture_rpath.so.7", *flags ^ 0x0f00).empty());
    EXPECT_TRUE(ld_cache_lookup(cache, "libgpuvet_missing.so.1", *flags).empty());
    caches[format] = cache;
  }
  // The three formats describe the same libraries (compat's old part repeats its last entry,
  // but the new part is what is read).
  EXPECT_EQ(caches["new"], caches["compat"]);
  ASSERT_EQ(caches["old"].entries.size(), caches["new"].entries.size());
  for (size_t i = 0; i < caches["old"].entries.size(); ++i) {
    EXPECT_EQ(caches["old"].entries[i].name, caches["new"].entries[i].name);
    EXPECT_EQ(caches["old"].entries[i].path, caches["new"].entries[i].path);
    EXPECT_EQ(caches["old"].entries[i].flags, caches["new"].entries[i].flags);
  }
}

// --- truncation and mutation ----------------------------------------------------------------

// Every prefix either fails with a one-line error or, when all it refers to is still there,
// reads exactly what the whole file reads.
void check_truncations(const std::string& bytes, size_t step) {
  const auto full = parse_ld_cache(bytes);
  ASSERT_TRUE(full.ok()) << full.error().message;
  for (size_t length = 0; length < bytes.size(); length += (length < 512 ? 1 : step)) {
    const auto result = parse_ld_cache(std::string_view(bytes).substr(0, length));
    expect_one_line_error(result);
    if (result.ok()) {
      EXPECT_EQ(*result, *full) << "prefix of " << length << " bytes";
    }
  }
}

std::vector<std::string> seed_caches() {
  std::vector<std::string> seeds = {build_new(sample()), build_old(sample()),
                                    build_compat({{"libold.so.1", "/old/libold.so.1"}}, sample())};
  const auto ldconfig = find_ldconfig();
  if (ldconfig && ldconfig_has_formats(*ldconfig)) {
    const LdconfigRoot root;
    for (const std::string format : {"new", "old", "compat"}) {
      if (const auto file = root.build(*ldconfig, format)) seeds.push_back(read_bytes(*file));
    }
  }
  return seeds;
}

TEST(LdCache, EveryTruncation) {
  for (const auto& seed : seed_caches())
    check_truncations(seed, 1);
  if (fs::exists("/etc/ld.so.cache")) {
    const std::string system = read_bytes("/etc/ld.so.cache");
    if (parse_ld_cache(system).ok()) check_truncations(system, system.size() / 1500 + 1);
  }
}

std::string mutate(std::string input, std::mt19937& rng) {
  std::uniform_int_distribution<int> op(0, 6);
  std::uniform_int_distribution<int> byte(0, 255);
  const int edits = 1 + static_cast<int>(rng() % 6);
  for (int e = 0; e < edits && !input.empty(); ++e) {
    // Half of the edits land in the headers and the first entries.
    const size_t at =
        rng() % 2 == 0 ? rng() % std::min<size_t>(input.size(), 160) : rng() % input.size();
    switch (op(rng)) {
      case 0:
        input[at] = static_cast<char>(byte(rng));
        break;
      case 1:
        input[at] = static_cast<char>(0xff);
        break;
      case 2:
        input[at] = '\0';
        break;
      case 3:
        input.resize(at);
        break;
      case 4:
        input.erase(at, 1 + rng() % 8);
        break;
      case 5:
        input[at] = static_cast<char>(input[at] ^ (1 << (rng() % 8)));
        break;
      default:
        input.insert(at, input.substr(rng() % input.size(), rng() % 32));
        break;
    }
  }
  return input;
}

TEST(LdCache, MutationFuzzNeverCrashesHangsOrThrows) {
  const auto seeds = seed_caches();
  std::mt19937 rng(20261130);
  size_t ok = 0;
  for (int i = 0; i < 4000; ++i) {
    const auto result = parse_ld_cache(mutate(seeds[static_cast<size_t>(i) % seeds.size()], rng));
    expect_one_line_error(result);
    if (result.ok()) {
      ++ok;
      (void)ld_cache_lookup(*result, "libcuda.so.1", kLdCacheX8664Flags);
    }
  }
  EXPECT_GT(ok, 0u);
  if (fs::exists("/etc/ld.so.cache")) {
    const std::string system = read_bytes("/etc/ld.so.cache");
    for (int i = 0; i < 200; ++i)
      expect_one_line_error(parse_ld_cache(mutate(system, rng)));
  }
}

// --- through the live System ----------------------------------------------------------------

TEST(LdCacheLive, LookupAnswersFromEtcLdSoCache) {
  const auto live = make_live_system();
  const auto answer = live->ld_cache_lookup("libc.so.6");
  const auto flags = native_ld_cache_flags();
  const bool usable = fs::exists("/etc/ld.so.cache") && flags &&
                      parse_ld_cache(read_bytes("/etc/ld.so.cache")).ok();
  if (!usable) {
    EXPECT_FALSE(answer) << "no usable cache must read as nullopt";
    return;
  }
  ASSERT_TRUE(answer);
  const LdCache cache = parse_ok(read_bytes("/etc/ld.so.cache"));
  EXPECT_EQ(*answer, ld_cache_lookup(cache, "libc.so.6", *flags));
  EXPECT_EQ(live->ld_cache_lookup("libgpuvet-not-a-library.so.9"), std::vector<std::string>{});
  // Asked again, from several threads: the cache is read once and answers the same.
  std::vector<std::optional<std::vector<std::string>>> answers(4);
  std::vector<std::thread> threads;
  const auto fresh = make_live_system();
  for (size_t i = 0; i < answers.size(); ++i) {
    threads.emplace_back([&, i] { answers[i] = fresh->ld_cache_lookup("libc.so.6"); });
  }
  for (auto& t : threads)
    t.join();
  for (const auto& a : answers)
    EXPECT_EQ(a, answer);
}

}  // namespace
}  // namespace gpuvet::sys
