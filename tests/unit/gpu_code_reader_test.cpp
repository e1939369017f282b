// The GPU-code reader against what real tools wrote: nvcc's fat binaries for chosen -gencode sets
// (tests/gpu_code/cases.csv) inside ELF libraries and PE DLLs made by objcopy, the same flags
// compiled by nvcc into shared libraries where nvcc is found, the CUDA toolkit's own libraries
// (with cuobjdump as the oracle where it is installed), and broken input: truncations, a
// deterministic mutation loop, and a 1 GiB section that must not be read whole.
#include "system/gpu_code_reader.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;
  GpuCode expected;
};

std::vector<std::string> words(const std::string& field) {
  std::vector<std::string> out;
  for (const auto& w : text::split(field, ' ')) {
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

std::vector<Case> cases() {
  std::ifstream in(GPUVET_GPU_CODE_CASES);
  std::vector<Case> out;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    const auto fields = text::split(line, ',');
    if (fields.size() < 5) continue;
    out.push_back({fields[0], GpuCode{words(fields[2]), words(fields[3]), words(fields[4])}});
  }
  return out;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

Result<GpuCode> parse(std::string_view bytes) {
  const MemoryByteSource source(bytes);
  return read_gpu_code(source);
}

const System& live() {
  static const auto system = make_live_system();
  return *system;
}

void expect_cases_in(const std::string& dir, const std::string& suffix) {
  const auto all = cases();
  ASSERT_GE(all.size(), 6u);
  for (const auto& c : all) {
    const std::string path = dir + "/" + c.name + suffix;
    SCOPED_TRACE(path);
    auto code = live().gpu_code(path);
    ASSERT_TRUE(code.ok()) << code.error().message;
    EXPECT_EQ(code->sass, c.expected.sass);
    EXPECT_EQ(code->ptx, c.expected.ptx);
    EXPECT_EQ(code->lto, c.expected.lto);
  }
}

TEST(GpuCodeReader, ElfLibrariesWithNvccFatBinaries) {
  if (std::string(GPUVET_GPU_CODE_ELF_DIR).empty()) GTEST_SKIP() << "no objcopy for ELF files";
  expect_cases_in(GPUVET_GPU_CODE_ELF_DIR, ".so");
}

TEST(GpuCodeReader, PeDllsWithTheShortAndTheLongSectionName) {
  if (std::string(GPUVET_GPU_CODE_PE_DIR).empty()) GTEST_SKIP() << "no MinGW-w64 for PE files";
  expect_cases_in(GPUVET_GPU_CODE_PE_DIR, ".dll");
  expect_cases_in(GPUVET_GPU_CODE_PE_DIR, ".long.dll");
}

TEST(GpuCodeReader, LibrariesNvccCompiled) {
  if (std::string(GPUVET_GPU_CODE_NVCC_DIR).empty()) GTEST_SKIP() << "nvcc not found at build";
  expect_cases_in(GPUVET_GPU_CODE_NVCC_DIR, ".so");
}

TEST(GpuCodeReader, FilesWithoutFatBinaries) {
  if (!std::string(GPUVET_GPU_CODE_PE_DIR).empty()) {
    auto dll = live().gpu_code(std::string(GPUVET_GPU_CODE_PE_DIR) + "/base.dll");
    ASSERT_TRUE(dll.ok()) << dll.error().message;
    EXPECT_EQ(*dll, GpuCode{});
  }
  // A bare fat binary is neither ELF nor PE: it is no library a framework loads.
  const std::string fatbin = fs::path(GPUVET_GPU_CODE_CASES).parent_path().string() + "/lto.fatbin";
  auto raw = live().gpu_code(fatbin);
  ASSERT_FALSE(raw.ok());
  EXPECT_NE(raw.error().message.find("not an ELF or PE file"), std::string::npos);
  EXPECT_FALSE(live().gpu_code(fatbin + ".missing").ok());
}

// ---- the CUDA toolkit's own libraries
// ------------------------------------------------------------

std::string toolkit_lib(const std::string& name) {
  const char* cuda_home = std::getenv("CUDA_HOME");
  for (const char* root : {cuda_home, static_cast<const char*>("/usr/local/cuda")}) {
    if (root == nullptr) continue;
    const std::string path = std::string(root) + "/lib64/" + name;
    if (fs::exists(path)) return path;
  }
  return "";
}

// What `cuobjdump --list-elf` / `--list-ptx` name: "ELF file    1: x.1.sm_90a.cubin".
std::set<std::string> cuobjdump_list(const std::string& path, const char* option, bool ptx) {
  std::set<std::string> out;
  const std::string command = std::string("cuobjdump ") + option + " '" + path + "' 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> line{};
  while (std::fgets(line.data(), line.size(), pipe) != nullptr) {
    const std::string text(line.data());
    const size_t sm = text.rfind(".sm_");
    if (sm == std::string::npos) continue;
    const size_t end = text.find('.', sm + 1);
    const std::string arch = text.substr(sm + 4, end - sm - 4);
    out.insert((ptx ? "compute_" : "sm_") + arch);
  }
  pclose(pipe);
  return out;
}

TEST(GpuCodeReader, ToolkitLibraries) {
  const std::vector<std::string> names = {"libcublas.so.13", "libcublas.so.12", "libcudnn_ops.so.9",
                                          "libcufft.so.12"};
  int read = 0;
  const bool have_cuobjdump = std::system("command -v cuobjdump >/dev/null 2>&1") == 0;
  for (const auto& name : names) {
    const std::string path = toolkit_lib(name);
    if (path.empty()) continue;
    SCOPED_TRACE(path);
    auto code = live().gpu_code(path);
    ASSERT_TRUE(code.ok()) << code.error().message;
    EXPECT_FALSE(code->sass.empty());
    for (const auto& arch : code->sass)
      EXPECT_TRUE(arch.starts_with("sm_")) << arch;
    if (have_cuobjdump) {
      EXPECT_EQ(std::set<std::string>(code->sass.begin(), code->sass.end()),
                cuobjdump_list(path, "--list-elf", false));
      EXPECT_EQ(std::set<std::string>(code->ptx.begin(), code->ptx.end()),
                cuobjdump_list(path, "--list-ptx", true));
    }
    ++read;
  }
  if (read == 0) GTEST_SKIP() << "no CUDA toolkit libraries on this machine";
}

// ---- ELF files built here ---------------------------------------------------------------------

void put(std::string& out, size_t at, std::uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i)
    out[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

std::uint64_t get(const std::string& in, size_t at, size_t width) {
  std::uint64_t value = 0;
  for (size_t i = width; i > 0; --i)
    value = (value << 8) | static_cast<unsigned char>(in[at + i - 1]);
  return value;
}

// A 64-bit little-endian ELF file with one .nv_fatbin section holding the given bytes.
std::string elf_with_fatbin(const std::string& fatbin) {
  const std::string names = std::string("\0.nv_fatbin\0.shstrtab\0", 22);
  std::string out(64, '\0');
  out.replace(0, 4,
              "\x7f"
              "ELF");
  out[4] = 2;  // ELFCLASS64
  out[5] = 1;  // little endian
  out[6] = 1;
  const size_t data = out.size();
  out += fatbin;
  const size_t strings = out.size();
  out += names;
  while (out.size() % 8 != 0)
    out += '\0';
  const size_t table = out.size();
  out += std::string(3 * 64, '\0');
  put(out, 40, table, 8);  // e_shoff
  put(out, 52, 64, 2);     // e_ehsize
  put(out, 58, 64, 2);     // e_shentsize
  put(out, 60, 3, 2);      // e_shnum
  put(out, 62, 2, 2);      // e_shstrndx
  const size_t fat = table + 64;
  put(out, fat, 1, 4);      // sh_name ".nv_fatbin"
  put(out, fat + 4, 1, 4);  // SHT_PROGBITS
  put(out, fat + 24, data, 8);
  put(out, fat + 32, fatbin.size(), 8);
  const size_t str = table + 128;
  put(out, str, 12, 4);     // ".shstrtab"
  put(out, str + 4, 3, 4);  // SHT_STRTAB
  put(out, str + 24, strings, 8);
  put(out, str + 32, names.size(), 8);
  return out;
}

std::string committed_fatbin(const std::string& name) {
  return read_bytes(fs::path(GPUVET_GPU_CODE_CASES).parent_path().string() + "/" + name +
                    ".fatbin");
}

TEST(GpuCodeReader, ContainersBackToBackAndPadded) {
  const std::string a = committed_fatbin("sass_only");
  const std::string b = committed_fatbin("ptx_only");
  ASSERT_FALSE(a.empty());
  auto code = parse(elf_with_fatbin(a + std::string(24, '\0') + b + std::string(8, '\0')));
  ASSERT_TRUE(code.ok()) << code.error().message;
  EXPECT_EQ(code->sass, std::vector<std::string>{"sm_80"});
  EXPECT_EQ(code->ptx, std::vector<std::string>{"compute_75"});
}

TEST(GpuCodeReader, BrokenContainersAreOneLineErrors) {
  const std::string good = committed_fatbin("sass_and_ptx");
  ASSERT_GT(good.size(), 100u);
  auto expect_error = [](const std::string& fatbin, const std::string& words) {
    auto code = parse(elf_with_fatbin(fatbin));
    ASSERT_FALSE(code.ok()) << words;
    EXPECT_NE(code.error().message.find(words), std::string::npos) << code.error().message;
    EXPECT_EQ(code.error().message.find('\n'), std::string::npos);
  };
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  expect_error(bad_magic, "no fat binary header");
  std::string too_long = good;
  put(too_long, 8, std::uint64_t{1} << 40, 8);  // fatSize past the section
  expect_error(too_long, "runs past");
  std::string small_entry = good;
  put(small_entry, 16 + 4, 8, 4);  // the first entry's header size
  expect_error(small_entry, "8-byte header");
  std::string bad_arch = good;
  put(bad_arch, 16 + 28, 70000, 4);
  expect_error(bad_arch, "architecture 70000");
  expect_error(good.substr(0, 40), "runs past");
}

TEST(GpuCodeReader, EveryTruncationAndMutationIsAnAnswerOrAnError) {
  const std::string elf = elf_with_fatbin(committed_fatbin("arch_specific"));
  for (size_t n = 0; n < elf.size(); n += (n < 256 ? 1 : 37)) {
    auto code = parse(std::string_view(elf).substr(0, n));
    if (!code.ok()) {
      EXPECT_EQ(code.error().message.find('\n'), std::string::npos);
    }
  }
  std::mt19937 rng(20261202);
  for (int i = 0; i < 3000; ++i) {
    std::string input = elf;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < flips; ++f) {
      // Aim at the headers: the ELF header and the first container's first entries.
      const size_t at = rng() % std::min<size_t>(input.size(), 512);
      input[at] = static_cast<char>(rng() & 0xff);
    }
    auto code = parse(input);
    if (!code.ok()) {
      EXPECT_EQ(code.error().message.find('\n'), std::string::npos);
    }
  }
}

// A 1 GiB file that is all .nv_fatbin: one container whose single SASS entry carries a payload
// of almost the whole section. Only the headers around it may be read.
class SparseSource final : public ByteSource {
 public:
  explicit SparseSource(std::string head, std::uint64_t size)
      : head_(std::move(head)), size_(size) {}
  std::uint64_t size() const override { return size_; }
  bool read(std::uint64_t offset, std::size_t length, void* out) const override {
    if (offset > size_ || length > size_ - offset) return false;
    bytes_read += length;
    auto* bytes = static_cast<char*>(out);
    for (std::size_t i = 0; i < length; ++i) {
      const std::uint64_t at = offset + i;
      bytes[i] = at < head_.size() ? head_[at] : '\0';
    }
    return true;
  }
  mutable std::uint64_t bytes_read = 0;

 private:
  std::string head_;
  std::uint64_t size_;
};

TEST(GpuCodeReader, LargeSectionIsNotReadWhole) {
  constexpr std::uint64_t kFile = std::uint64_t{1} << 30;
  std::string container(16 + 64, '\0');
  put(container, 0, 0xBA55ED50, 4);
  put(container, 4, 1, 2);
  put(container, 6, 16, 2);
  put(container, 16, 2, 2);        // SASS
  put(container, 16 + 4, 64, 4);   // entry header bytes
  put(container, 16 + 28, 86, 4);  // sm_86
  std::string elf = elf_with_fatbin(container);
  // Grow the section to the end of a 1 GiB file: the payload is the zeros past the head.
  const std::uint64_t section_offset = 64;
  const std::uint64_t section_size = kFile - section_offset;
  const std::uint64_t payload = section_size - container.size();
  put(elf, section_offset + 8, section_size - 16, 8);       // fatSize
  put(elf, section_offset + 16 + 8, payload, 8);            // the entry's payload
  const auto table = static_cast<size_t>(get(elf, 40, 8));  // e_shoff
  put(elf, table + 64 + 32, section_size, 8);               // sh_size of .nv_fatbin
  SparseSource source(elf, kFile);
  auto code = read_gpu_code(source);
  ASSERT_TRUE(code.ok()) << code.error().message;
  EXPECT_EQ(code->sass, std::vector<std::string>{"sm_86"});
  EXPECT_LT(source.bytes_read, std::uint64_t{1} << 20) << "read " << source.bytes_read;
}

}  // namespace
}  // namespace gpuvet::sys
