// The ELF dynamic-section reader against what the linker wrote (the fixture libraries, with
// `readelf -d` as a second opinion where it exists), against ELF files built byte by byte here
// (32-bit big-endian, section headers only, static), and against broken input: every truncation
// of a real library and a deterministic mutation fuzz loop.
#include "system/elf_reader.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
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

Result<ElfInfo> parse(std::string_view bytes) {
  const MemoryByteSource source(bytes);
  return read_elf_dynamic(source);
}

ElfInfo parse_ok(std::string_view bytes) {
  auto info = parse(bytes);
  EXPECT_TRUE(info.ok()) << (info.ok() ? "" : info.error().message);
  return info.ok() ? *info : ElfInfo{};
}

std::string parse_error(std::string_view bytes) {
  auto info = parse(bytes);
  EXPECT_FALSE(info.ok()) << "expected an error";
  return info.ok() ? "" : info.error().message;
}

void expect_one_line_error(const Result<ElfInfo>& result) {
  if (result.ok()) return;
  EXPECT_FALSE(result.error().message.empty());
  EXPECT_EQ(result.error().message.find('\n'), std::string::npos) << result.error().message;
}

// The machine this test binary was built for, as e_machine; nullopt where not listed here.
std::optional<int> host_machine() {
#if defined(__x86_64__) && !defined(__ILP32__)
  return 62;  // EM_X86_64
#elif defined(__aarch64__)
  return 183;  // EM_AARCH64
#elif defined(__i386__)
  return 3;  // EM_386
#else
  return std::nullopt;
#endif
}

// --- readelf as an independent oracle -----------------------------------------------------

bool have_readelf() {
  return std::system("command -v readelf >/dev/null 2>&1") == 0;
}

std::optional<std::string> command_output(const std::string& command) {
  auto result = gpuvet::testing::run_command(command);
  if (result.status != 0) return std::nullopt;
  return std::move(result.output);
}

std::vector<std::string> split_colons(const std::string& s) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, ':')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// `readelf -d` lines such as
//   0x000000000000000e (SONAME)             Library soname: [libz.so.1]
std::optional<ElfInfo> readelf_dynamic(const std::string& path) {
  const auto out = command_output("LC_ALL=C readelf -dW '" + path + "' 2>/dev/null");
  if (!out) return std::nullopt;
  ElfInfo info;
  std::istringstream lines(*out);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t open = line.find('[');
    const size_t close = line.rfind(']');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    const std::string value = line.substr(open + 1, close - open - 1);
    if (line.find("(SONAME)") != std::string::npos) info.soname = value;
    if (line.find("(NEEDED)") != std::string::npos) info.needed.push_back(value);
    if (line.find("(RUNPATH)") != std::string::npos) info.runpath = split_colons(value);
    if (line.find("(RPATH)") != std::string::npos) info.rpath = split_colons(value);
  }
  return info;
}

void expect_same_dynamic_as_readelf(const std::string& path, const ElfInfo& ours) {
  if (!have_readelf()) {
    std::printf("[ SKIPPED  ] readelf cross-check of %s: readelf is not installed\n", path.c_str());
    return;
  }
  const auto theirs = readelf_dynamic(path);
  ASSERT_TRUE(theirs) << "readelf -d failed on " << path;
  EXPECT_EQ(ours.soname, theirs->soname) << path;
  EXPECT_EQ(ours.needed, theirs->needed) << path;
  EXPECT_EQ(ours.runpath, theirs->runpath) << path;
  EXPECT_EQ(ours.rpath, theirs->rpath) << path;
}

// --- ELF files built byte by byte ---------------------------------------------------------

struct ElfSpec {
  bool is64 = true;
  bool big_endian = false;
  int machine = 62;
  bool program_headers = true;  // false: section headers only (an unlinked layout)
  bool dynamic = true;
  std::string soname = "libhand.so.3";
  std::vector<std::string> needed = {"libdep.so.1", "libc.so.6"};
  std::string runpath = "/a::/b:";
  std::string rpath = "/r1";
  std::uint64_t base_address = 0x10000;  // vaddr of file offset 0, so vaddr != offset
};

class ByteWriter {
 public:
  explicit ByteWriter(bool big_endian) : big_endian_(big_endian) {}
  std::string bytes;

  void put(size_t at, std::uint64_t value, size_t width) {
    if (bytes.size() < at + width) bytes.resize(at + width, '\0');
    for (size_t i = 0; i < width; ++i) {
      const size_t shift = 8 * (big_endian_ ? width - 1 - i : i);
      bytes[at + i] = static_cast<char>((value >> shift) & 0xff);
    }
  }
  void put_bytes(size_t at, std::string_view data) {
    if (bytes.size() < at + data.size()) bytes.resize(at + data.size(), '\0');
    bytes.replace(at, data.size(), data);
  }

 private:
  bool big_endian_;
};

size_t align(size_t value, size_t to) {
  return (value + to - 1) / to * to;
}

std::string build_elf(const ElfSpec& spec) {
  ByteWriter w(spec.big_endian);
  const size_t word = spec.is64 ? 8 : 4;
  const size_t ehsize = spec.is64 ? 64 : 52;
  const size_t phentsize = spec.is64 ? 56 : 32;
  const size_t shentsize = spec.is64 ? 64 : 40;
  const size_t dynsize = 2 * word;

  // The string table: offset 0 is the empty string.
  std::string strtab(1, '\0');
  auto add_string = [&strtab](const std::string& s) {
    const size_t offset = strtab.size();
    strtab += s;
    strtab += '\0';
    return offset;
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> dyn;  // tag, value
  if (!spec.soname.empty()) dyn.emplace_back(14, add_string(spec.soname));
  for (const auto& n : spec.needed)
    dyn.emplace_back(1, add_string(n));
  if (!spec.runpath.empty()) dyn.emplace_back(29, add_string(spec.runpath));
  if (!spec.rpath.empty()) dyn.emplace_back(15, add_string(spec.rpath));

  const size_t phnum = spec.program_headers ? (spec.dynamic ? 2 : 1) : 0;
  const size_t str_at = align(ehsize + phnum * phentsize, 8);
  const size_t dyn_at = align(str_at + strtab.size(), 8);
  // DT_STRTAB names a virtual address; with section headers only it is deliberately bogus.
  const std::uint64_t strtab_address =
      spec.program_headers ? spec.base_address + str_at : 0xdead0000;
  dyn.emplace_back(5, strtab_address);
  dyn.emplace_back(10, strtab.size());
  dyn.emplace_back(0, 0);
  const size_t dyn_bytes = dyn.size() * dynsize;
  const size_t end = dyn_at + dyn_bytes;
  const size_t sh_at = align(end, 8);

  // e_ident, then the header fields.
  w.put_bytes(0, std::string("\x7f"
                             "ELF",
                             4));
  w.put(4, spec.is64 ? 2 : 1, 1);
  w.put(5, spec.big_endian ? 2 : 1, 1);
  w.put(6, 1, 1);   // EI_VERSION
  w.put(16, 3, 2);  // e_type ET_DYN
  w.put(18, static_cast<std::uint64_t>(spec.machine), 2);
  w.put(20, 1, 4);  // e_version
  const size_t after_entry = 24 + word;
  const std::uint64_t phoff = phnum ? ehsize : 0;
  const std::uint64_t shoff = spec.program_headers ? 0 : sh_at;
  w.put(after_entry, phoff, word);
  w.put(after_entry + word, shoff, word);
  const size_t after_offsets = after_entry + 2 * word + 4;  // e_flags
  w.put(after_offsets, ehsize, 2);
  w.put(after_offsets + 2, phentsize, 2);
  w.put(after_offsets + 4, phnum, 2);
  w.put(after_offsets + 6, shentsize, 2);
  w.put(after_offsets + 8, spec.program_headers ? 0 : 3, 2);
  w.put(after_offsets + 10, 0, 2);  // e_shstrndx: none

  auto put_phdr = [&](size_t index, std::uint32_t type, std::uint64_t offset,
                      std::uint64_t filesz) {
    const size_t at = ehsize + index * phentsize;
    const std::uint64_t vaddr = spec.base_address + offset;
    w.put(at, type, 4);
    if (spec.is64) {
      w.put(at + 4, 4, 4);  // p_flags R
      w.put(at + 8, offset, 8);
      w.put(at + 16, vaddr, 8);
      w.put(at + 24, vaddr, 8);
      w.put(at + 32, filesz, 8);
      w.put(at + 40, filesz, 8);
      w.put(at + 48, 8, 8);
    } else {
      w.put(at + 4, offset, 4);
      w.put(at + 8, vaddr, 4);
      w.put(at + 12, vaddr, 4);
      w.put(at + 16, filesz, 4);
      w.put(at + 20, filesz, 4);
      w.put(at + 24, 4, 4);
      w.put(at + 28, 8, 4);
    }
  };
  if (spec.program_headers) {
    put_phdr(0, 1, 0, end);  // PT_LOAD of the whole file
    if (spec.dynamic) put_phdr(1, 2, dyn_at, dyn_bytes);
  }

  w.put_bytes(str_at, strtab);
  if (spec.dynamic) {
    for (size_t i = 0; i < dyn.size(); ++i) {
      w.put(dyn_at + i * dynsize, dyn[i].first, word);
      w.put(dyn_at + i * dynsize + word, dyn[i].second, word);
    }
  }
  w.bytes.resize(end, '\0');

  if (!spec.program_headers) {
    // [0] null, [1] .dynstr (SHT_STRTAB), [2] .dynamic (SHT_DYNAMIC, sh_link 1)
    auto put_shdr = [&](size_t index, std::uint32_t type, std::uint64_t offset, std::uint64_t size,
                        std::uint32_t link) {
      const size_t at = sh_at + index * shentsize;
      w.put(at + 4, type, 4);
      if (spec.is64) {
        w.put(at + 24, offset, 8);
        w.put(at + 32, size, 8);
        w.put(at + 40, link, 4);
      } else {
        w.put(at + 16, offset, 4);
        w.put(at + 20, size, 4);
        w.put(at + 24, link, 4);
      }
    };
    w.put(sh_at + 3 * shentsize - 1, 0, 1);  // size the table
    put_shdr(1, 3, str_at, strtab.size(), 0);
    if (spec.dynamic) put_shdr(2, 6, dyn_at, dyn_bytes, 1);
  }
  return w.bytes;
}

// --- the fixture libraries ----------------------------------------------------------------

TEST(ElfReader, RunpathFixtureAsTheLinkerWroteIt) {
  const std::string path = GPUVET_FIXTURE_RUNPATH_LIB;
  const ElfInfo info = parse_ok(read_bytes(path));
  EXPECT_EQ(info.bits, static_cast<int>(sizeof(void*) * 8));
  if (host_machine()) {
    EXPECT_EQ(info.machine, host_machine());
  }
  EXPECT_EQ(info.soname, "libgpuvet_fixture_runpath.so.1");
  EXPECT_EQ(info.runpath, (std::vector<std::string>{"$ORIGIN", "$ORIGIN/../lib"}));
  EXPECT_TRUE(info.rpath.empty());
  for (const auto& needed : info.needed)
    EXPECT_EQ(needed.find("gpuvet"), std::string::npos);
  expect_same_dynamic_as_readelf(path, info);
}

TEST(ElfReader, RpathFixtureAsTheLinkerWroteIt) {
  const std::string path = GPUVET_FIXTURE_RPATH_LIB;
  const ElfInfo info = parse_ok(read_bytes(path));
  EXPECT_EQ(info.bits, static_cast<int>(sizeof(void*) * 8));
  if (host_machine()) {
    EXPECT_EQ(info.machine, host_machine());
  }
  EXPECT_EQ(info.soname, "libgpuvet_fixture_rpath.so.7");
  EXPECT_EQ(info.rpath, (std::vector<std::string>{"/opt/gpuvet-fixture/lib", "$ORIGIN"}));
  EXPECT_TRUE(info.runpath.empty());
  ASSERT_FALSE(info.needed.empty());
  EXPECT_NE(std::find(info.needed.begin(), info.needed.end(), "libgpuvet_fixture_runpath.so.1"),
            info.needed.end());
  expect_same_dynamic_as_readelf(path, info);
}

TEST(ElfReader, SystemShellAndThisTestBinary) {
  std::vector<std::string> paths = {"/proc/self/exe"};
  if (fs::exists("/bin/sh")) paths.push_back(fs::canonical("/bin/sh").string());
  for (const auto& path : paths) {
    SCOPED_TRACE(path);
    const std::string real = path == "/proc/self/exe" ? fs::read_symlink(path).string() : path;
    const ElfInfo info = parse_ok(read_bytes(real));
    if (path == "/proc/self/exe") {
      EXPECT_EQ(info.bits, static_cast<int>(sizeof(void*) * 8));
      if (host_machine()) {
        EXPECT_EQ(info.machine, host_machine());
      }
    } else {
      EXPECT_TRUE(info.bits == 32 || info.bits == 64);
    }
    expect_same_dynamic_as_readelf(real, info);
  }
#if defined(__x86_64__) && !defined(__ILP32__)
  const ElfInfo self = parse_ok(read_bytes(fs::read_symlink("/proc/self/exe").string()));
  EXPECT_EQ(self.bits, 64);
  EXPECT_EQ(self.machine, 62);
#endif
}

// A source that counts what is read: the reader must not read a library whole.
class CountingSource final : public ByteSource {
 public:
  explicit CountingSource(const ByteSource& inner) : inner_(inner) {}
  std::uint64_t size() const override { return inner_.size(); }
  bool read(std::uint64_t offset, std::size_t length, void* out) const override {
    bytes_read += length;
    ++reads;
    return inner_.read(offset, length, out);
  }
  mutable std::uint64_t bytes_read = 0;
  mutable std::uint64_t reads = 0;

 private:
  const ByteSource& inner_;
};

TEST(ElfReader, ReadsOnlyHeadersTableAndStrings) {
  const std::string bytes = read_bytes(fs::read_symlink("/proc/self/exe").string());
  ASSERT_GT(bytes.size(), 1u << 20) << "the test binary should be larger than 1 MiB";
  const MemoryByteSource memory(bytes);
  const CountingSource counting(memory);
  ASSERT_TRUE(read_elf_dynamic(counting).ok());
  EXPECT_LT(counting.bytes_read, 256u * 1024) << "read " << counting.bytes_read << " bytes";
  EXPECT_LT(counting.reads, 200u);
}

// --- hand-built files -----------------------------------------------------------------------

TEST(ElfReader, HandBuilt64BitLittleEndian) {
  const ElfInfo info = parse_ok(build_elf(ElfSpec{}));
  EXPECT_EQ(info.bits, 64);
  EXPECT_EQ(info.machine, 62);
  EXPECT_EQ(info.soname, "libhand.so.3");
  EXPECT_EQ(info.needed, (std::vector<std::string>{"libdep.so.1", "libc.so.6"}));
  EXPECT_EQ(info.runpath, (std::vector<std::string>{"/a", "/b"})) << "empty entries left out";
  EXPECT_EQ(info.rpath, (std::vector<std::string>{"/r1"}));
}

TEST(ElfReader, HandBuilt32BitBigEndian) {
  ElfSpec spec;
  spec.is64 = false;
  spec.big_endian = true;
  spec.machine = 8;  // EM_MIPS
  spec.base_address = 0x400000;
  const ElfInfo info = parse_ok(build_elf(spec));
  EXPECT_EQ(info.bits, 32);
  EXPECT_EQ(info.machine, 8);
  EXPECT_EQ(info.soname, "libhand.so.3");
  EXPECT_EQ(info.needed, (std::vector<std::string>{"libdep.so.1", "libc.so.6"}));
  EXPECT_EQ(info.runpath, (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(info.rpath, (std::vector<std::string>{"/r1"}));
}

TEST(ElfReader, HandBuilt64BitBigEndianAnd32BitLittleEndian) {
  for (const bool is64 : {true, false}) {
    ElfSpec spec;
    spec.is64 = is64;
    spec.big_endian = is64;
    spec.machine = is64 ? 43 : 40;  // EM_SPARCV9, EM_ARM
    spec.runpath.clear();
    spec.rpath = "$ORIGIN/../lib:/opt/x";
    const ElfInfo info = parse_ok(build_elf(spec));
    EXPECT_EQ(info.bits, is64 ? 64 : 32);
    EXPECT_EQ(info.machine, spec.machine);
    EXPECT_TRUE(info.runpath.empty());
    EXPECT_EQ(info.rpath, (std::vector<std::string>{"$ORIGIN/../lib", "/opt/x"}));
  }
}

TEST(ElfReader, SectionHeadersOnlyWhenThereAreNoProgramHeaders) {
  for (const bool is64 : {true, false}) {
    ElfSpec spec;
    spec.is64 = is64;
    spec.big_endian = !is64;
    spec.program_headers = false;
    const ElfInfo info = parse_ok(build_elf(spec));
    EXPECT_EQ(info.bits, is64 ? 64 : 32);
    EXPECT_EQ(info.soname, "libhand.so.3") << "strings come from sh_link, not DT_STRTAB";
    EXPECT_EQ(info.needed, (std::vector<std::string>{"libdep.so.1", "libc.so.6"}));
  }
}

TEST(ElfReader, StaticFileHasClassAndMachineButNoLists) {
  ElfSpec spec;
  spec.dynamic = false;
  spec.machine = 183;
  const ElfInfo info = parse_ok(build_elf(spec));
  EXPECT_EQ(info.bits, 64);
  EXPECT_EQ(info.machine, 183);
  EXPECT_FALSE(info.soname);
  EXPECT_TRUE(info.needed.empty());
  EXPECT_TRUE(info.runpath.empty());
  EXPECT_TRUE(info.rpath.empty());

  spec.program_headers = false;  // an object file: section headers, no SHT_DYNAMIC
  const ElfInfo object = parse_ok(build_elf(spec));
  EXPECT_EQ(object.machine, 183);
  EXPECT_TRUE(object.needed.empty());
}

TEST(ElfReader, DynamicTableWithoutStrings) {
  ElfSpec spec;
  spec.soname.clear();
  spec.needed.clear();
  spec.runpath.clear();
  spec.rpath.clear();
  const ElfInfo info = parse_ok(build_elf(spec));
  EXPECT_FALSE(info.soname);
  EXPECT_TRUE(info.needed.empty());
}

// --- errors -------------------------------------------------------------------------------

TEST(ElfReader, NotElfInput) {
  EXPECT_EQ(parse_error(""), "not an ELF file");
  EXPECT_EQ(parse_error("\x7f"), "not an ELF file");
  EXPECT_EQ(parse_error("#!/bin/sh\necho hi\n"), "not an ELF file");
  EXPECT_EQ(parse_error("MZ\x90\x00 a PE file, not ELF"), "not an ELF file");
  EXPECT_EQ(parse_error("\x7f"
                        "ELF"),
            "truncated ELF header");
  EXPECT_EQ(parse_error(build_elf(ElfSpec{}).substr(0, 40)), "truncated ELF header");

  std::string bad_class = build_elf(ElfSpec{});
  bad_class[4] = 3;
  EXPECT_EQ(parse_error(bad_class), "unsupported ELF class 3");
  std::string bad_order = build_elf(ElfSpec{});
  bad_order[5] = 0;
  EXPECT_EQ(parse_error(bad_order), "unsupported ELF byte order 0");
}

TEST(ElfReader, MalformedTablesAreOneLineErrors) {
  const std::string good = build_elf(ElfSpec{});
  ByteWriter w(false);

  w.bytes = good;
  w.put(32, good.size() - 8, 8);  // e_phoff near the end
  EXPECT_EQ(parse_error(w.bytes), "ELF program headers outside the file");

  w.bytes = good;
  w.put(54, 40, 2);  // e_phentsize
  EXPECT_EQ(parse_error(w.bytes), "unexpected ELF program header size 40");

  w.bytes = good;
  w.put(64 + 56 + 8, good.size() + 100, 8);  // PT_DYNAMIC p_offset
  EXPECT_EQ(parse_error(w.bytes), "ELF dynamic section outside the file");

  // PN_XNUM with a section 0 that claims more program headers than allowed.
  w.bytes = good;
  const size_t sh_at = good.size();
  w.put(sh_at + 63, 0, 1);      // room for section header 0
  w.put(40, sh_at, 8);          // e_shoff
  w.put(58, 64, 2);             // e_shentsize
  w.put(60, 1, 2);              // e_shnum
  w.put(56, 0xffff, 2);         // e_phnum = PN_XNUM
  w.put(sh_at + 44, 70000, 4);  // section 0 sh_info
  EXPECT_EQ(parse_error(w.bytes), "too many ELF program headers");

  // DT_STRTAB pointing at an address no PT_LOAD holds.
  ElfSpec spec;
  spec.base_address = 0x10000;
  std::string moved = build_elf(spec);
  ByteWriter m(false);
  m.bytes = moved;
  m.put(64 + 16, 0x900000, 8);  // PT_LOAD p_vaddr
  EXPECT_EQ(parse_error(m.bytes), "ELF string table not in a loaded segment");

  // A string running into the end of its table (DT_STRSZ cut short).
  spec = ElfSpec{};
  spec.needed = {"libonly.so.1"};
  spec.runpath.clear();
  spec.rpath.clear();
  std::string cut = build_elf(spec);
  const size_t strsz_value_at = cut.size() - 2 * 16 + 8;  // the entry before DT_NULL
  ByteWriter c(false);
  c.bytes = cut;
  c.put(strsz_value_at, 1 + 13 + 3, 8);  // ends inside "libonly.so.1"
  EXPECT_EQ(parse_error(c.bytes), "ELF dynamic string not terminated inside its table");
  c.put(strsz_value_at, 1, 8);
  EXPECT_EQ(parse_error(c.bytes), "ELF dynamic string offset outside its table");

  // A string with no NUL within the 4096-byte limit.
  spec.soname = std::string(5000, 's');
  EXPECT_EQ(parse_error(build_elf(spec)), "ELF dynamic string longer than 4095 bytes");

  // Strings named but no DT_STRTAB at all: turn DT_STRTAB into an unknown tag.
  spec = ElfSpec{};
  std::string no_strtab = build_elf(spec);
  ByteWriter n(false);
  n.bytes = no_strtab;
  const size_t strtab_entry_at = no_strtab.size() - 3 * 16;
  n.put(strtab_entry_at, 0x7000, 8);
  EXPECT_EQ(parse_error(n.bytes), "ELF dynamic section has strings but no DT_STRTAB");
}

TEST(ElfReader, ByteSourceBoundsAreChecked) {
  const std::string bytes = "0123456789";
  const MemoryByteSource source(bytes);
  char out[16] = {};
  EXPECT_TRUE(source.read(0, 10, out));
  EXPECT_TRUE(source.read(10, 0, out));
  EXPECT_FALSE(source.read(5, 6, out));
  EXPECT_FALSE(source.read(11, 0, out));
  EXPECT_FALSE(source.read(UINT64_MAX, 2, out));
  EXPECT_FALSE(source.read(2, SIZE_MAX, out));
  EXPECT_EQ(source.size(), 10u);
}

// --- truncation and mutation ----------------------------------------------------------------

TEST(ElfReader, EveryTruncationOfARealLibrary) {
  const std::string bytes = read_bytes(GPUVET_FIXTURE_RPATH_LIB);
  ASSERT_FALSE(bytes.empty());
  const auto full = parse(bytes);
  ASSERT_TRUE(full.ok());
  // Small fixtures: every prefix; a larger one would step.
  const size_t step = bytes.size() <= (size_t{1} << 16) ? 1 : bytes.size() / 65536 + 1;
  size_t errors = 0;
  for (size_t length = 0; length < bytes.size(); length += step) {
    const auto result = parse(std::string_view(bytes).substr(0, length));
    expect_one_line_error(result);
    if (result.ok()) {
      // A prefix may only succeed when everything read lies inside it: then it says the same.
      EXPECT_EQ(*result, *full) << "prefix of " << length << " bytes";
    } else {
      ++errors;
    }
  }
  EXPECT_GT(errors, 0u);
}

// Like the fuzz test's mutator, aimed at the bytes the reader looks at (the headers and, where
// found, the dynamic table) half of the time.
std::string mutate(std::string input, std::mt19937& rng, size_t hot_begin, size_t hot_end) {
  std::uniform_int_distribution<int> op(0, 6);
  std::uniform_int_distribution<int> byte(0, 255);
  const int edits = 1 + static_cast<int>(rng() % 6);
  for (int e = 0; e < edits && !input.empty(); ++e) {
    size_t at = rng() % input.size();
    if (rng() % 2 == 0) {
      at = rng() % 256 % input.size();  // ELF header and program headers
    } else if (rng() % 2 == 0 && hot_end > hot_begin && hot_end <= input.size()) {
      at = hot_begin + rng() % (hot_end - hot_begin);
    }
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
        std::swap(input[at], input[rng() % input.size()]);
        break;
    }
  }
  return input;
}

// Where PT_DYNAMIC lies in a 64-bit little-endian file (test-side, for aiming mutations only).
std::pair<size_t, size_t> dynamic_range(const std::string& bytes) {
  auto u = [&bytes](size_t at, size_t width) {
    std::uint64_t v = 0;
    for (size_t i = width; i-- > 0;)
      v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  if (bytes.size() < 64 || bytes[4] != 2 || bytes[5] != 1) return {0, 0};
  const std::uint64_t phoff = u(32, 8);
  const std::uint64_t phnum = u(56, 2);
  for (std::uint64_t i = 0; i < phnum; ++i) {
    const std::uint64_t at = phoff + i * 56;
    if (at + 56 > bytes.size()) break;
    if (u(at, 4) == 2) {
      const std::uint64_t offset = u(at + 8, 8);
      const std::uint64_t size = u(at + 32, 8);
      if (offset + size <= bytes.size()) return {offset, offset + size};
    }
  }
  return {0, 0};
}

TEST(ElfReader, MutationFuzzNeverCrashesHangsOrThrows) {
  ElfSpec be32;
  be32.is64 = false;
  be32.big_endian = true;
  ElfSpec sections;
  sections.program_headers = false;
  const std::vector<std::string> seeds = {
      read_bytes(GPUVET_FIXTURE_RUNPATH_LIB), read_bytes(GPUVET_FIXTURE_RPATH_LIB),
      build_elf(ElfSpec{}), build_elf(be32), build_elf(sections)};
  std::mt19937 rng(20261130);
  size_t ok = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string& seed = seeds[static_cast<size_t>(i) % seeds.size()];
    const auto [hot_begin, hot_end] = dynamic_range(seed);
    const std::string input = mutate(seed, rng, hot_begin, hot_end);
    const auto result = parse(input);
    expect_one_line_error(result);
    if (result.ok()) ++ok;
  }
  EXPECT_GT(ok, 0u);
}

// --- through the live System ----------------------------------------------------------------

TEST(ElfLive, ElfInfoReadsThroughPread) {
  const auto live = make_live_system();
  const std::string path = GPUVET_FIXTURE_RUNPATH_LIB;
  auto info = live->elf_info(path);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(*info, parse_ok(read_bytes(path)));

  auto self = live->elf_info(fs::read_symlink("/proc/self/exe").string());
  ASSERT_TRUE(self.ok()) << self.error().message;
  EXPECT_EQ(self->bits, static_cast<int>(sizeof(void*) * 8));
}

TEST(ElfLive, ErrorsNameThePathAndNothingBlocks) {
  testing::TempDir dir;
  const auto live = make_live_system();
  const std::string text = dir.file("notes.txt", "not an ELF file at all\n");
  auto not_elf = live->elf_info(text);
  ASSERT_FALSE(not_elf.ok());
  EXPECT_EQ(not_elf.error().message, text + ": not an ELF file");

  const std::string missing = dir.path() + "/missing.so";
  auto absent = live->elf_info(missing);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().message.rfind(missing + ": ", 0), 0u) << absent.error().message;

  auto directory = live->elf_info(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().message, dir.path() + ": not a regular file");

  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto pipe = live->elf_info(fifo);
  ASSERT_FALSE(pipe.ok());
  EXPECT_EQ(pipe.error().message, fifo + ": not a regular file");

  const std::string truncated = dir.file("short.so", std::string("\x7f"
                                                                 "ELF\x02\x01",
                                                                 6));
  auto short_file = live->elf_info(truncated);
  ASSERT_FALSE(short_file.ok());
  EXPECT_EQ(short_file.error().message, truncated + ": truncated ELF header");
}

}  // namespace
}  // namespace gpuvet::sys
