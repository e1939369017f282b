// The live Windows System against the real Win32 API (under Wine on the Linux CI machine): the
// registry, the environment and files with non-ASCII names, which is where UTF-8 and UTF-16 meet.
// Only what Windows and Wine agree on is asserted; Wine reports its own Windows version.
#include <windows.h>

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/win32_text.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {
namespace {

namespace fs = std::filesystem;

// UTF-8 text spelled exactly, whatever the compiler's execution character set.
std::string utf8(std::u8string_view text) {
  return std::string(text.begin(), text.end());
}

// A System path ("C:/Users/x") for a std::filesystem path, never through path::string().
std::string system_path(const fs::path& path) {
  return win32::portable_path(path.native());
}

std::wstring random_suffix() {
  return std::to_wstring(std::random_device{}());
}

// A fresh directory under %TEMP% whose own name is Chinese, removed with everything in it.
class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / (L"张伟-" + random_suffix())) {
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path() const { return system_path(path_); }
  // Writes a file (creating its directories) and returns its System path.
  std::string file(const fs::path& relative, std::string_view content) const {
    const fs::path full = path_ / relative;
    fs::create_directories(full.parent_path());
    std::ofstream(full, std::ios::binary)
        .write(content.data(), static_cast<std::streamsize>(content.size()));
    return system_path(full);
  }
  std::string directory(const fs::path& relative) const {
    fs::create_directories(path_ / relative);
    return system_path(path_ / relative);
  }

 private:
  fs::path path_;
};

// A key under HKCU\Software that the test owns, deleted with its subkeys at the end.
class TestKey {
 public:
  TestKey() : name_(L"gpuvet-test-" + random_suffix()) {
    const std::wstring path = L"Software\\" + name_;
    EXPECT_EQ(RegCreateKeyExW(HKEY_CURRENT_USER, path.c_str(), 0, nullptr, 0, KEY_ALL_ACCESS,
                              nullptr, &key_, nullptr),
              ERROR_SUCCESS);
  }
  ~TestKey() {
    if (key_) RegCloseKey(key_);
    RegDeleteTreeW(HKEY_CURRENT_USER, (L"Software\\" + name_).c_str());
  }
  TestKey(const TestKey&) = delete;
  TestKey& operator=(const TestKey&) = delete;

  // "HKCU/Software/gpuvet-test-N", as probes spell keys.
  std::string spelled() const { return "HKCU/Software/" + win32::narrow(name_); }

  void set(const wchar_t* name, DWORD type, const void* data, size_t size) const {
    EXPECT_EQ(RegSetValueExW(key_, name, 0, type, static_cast<const BYTE*>(data),
                             static_cast<DWORD>(size)),
              ERROR_SUCCESS);
  }
  void set_string(const wchar_t* name, DWORD type, std::wstring_view value) const {
    // Strings and multi-strings are stored with their terminating NUL(s).
    set(name, type, value.data(), (value.size() + 1) * sizeof(wchar_t));
  }
  void subkey(const wchar_t* name) const {
    HKEY sub = nullptr;
    EXPECT_EQ(RegCreateKeyExW(key_, name, 0, nullptr, 0, KEY_ALL_ACCESS, nullptr, &sub, nullptr),
              ERROR_SUCCESS);
    if (sub) RegCloseKey(sub);
  }

 private:
  std::wstring name_;
  HKEY key_ = nullptr;
};

TEST(LiveWindowsSystem, DescribesTheHost) {
  const auto live = make_live_system();
  const HostInfo host = live->host();
  EXPECT_EQ(host.os, "windows");
  ASSERT_TRUE(host.os_version);
  ASSERT_FALSE(host.os_version->empty());
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(host.os_version->front())))
      << *host.os_version;
  EXPECT_TRUE(host.os_name);
  EXPECT_TRUE(host.arch);
  EXPECT_FALSE(host.wsl);
  ASSERT_TRUE(host.cwd);
  EXPECT_EQ(*host.cwd, system_path(fs::current_path()));
}

TEST(LiveWindowsSystem, ReadsRegistryValuesAsProbesSeeThem) {
  const TestKey key;
  key.set_string(L"Name", REG_SZ, L"张伟的显卡");
  key.set_string(L"Home", REG_EXPAND_SZ, L"%USERPROFILE%\\cuda");
  key.set_string(L"Paths", REG_MULTI_SZ, std::wstring_view(L"C:\\a\0D:\\张\0", 10));
  const DWORD dword = 0xFFFFFFFF;
  key.set(L"Count", REG_DWORD, &dword, sizeof dword);
  const std::uint64_t qword = std::uint64_t{1} << 40;
  key.set(L"Big", REG_QWORD, &qword, sizeof qword);
  const BYTE blob[] = {1, 2, 3};
  key.set(L"Blob", REG_BINARY, blob, sizeof blob);
  const auto live = make_live_system();

  const auto values = live->registry_values(key.spelled());
  ASSERT_TRUE(values);
  EXPECT_EQ(values->at("Name"), RegistryValue(utf8(u8"张伟的显卡")));
  EXPECT_EQ(values->at("Home"), RegistryValue("%USERPROFILE%\\cuda")) << "never expanded";
  EXPECT_EQ(values->at("Paths"), RegistryValue(utf8(u8"C:\\a;D:\\张")));
  EXPECT_EQ(values->at("Count"), RegistryValue(std::int64_t{0xFFFFFFFF}));
  EXPECT_EQ(values->at("Big"), RegistryValue(std::int64_t{1} << 40));
  EXPECT_FALSE(values->contains("Blob")) << "binary values say nothing to a probe";
  EXPECT_EQ(values->size(), 5u);

  // The long hive name, backslashes and a trailing separator name the same key.
  const std::string tail = key.spelled().substr(std::string("HKCU/").size());
  std::string backslashed = "HKEY_CURRENT_USER\\" + tail + "\\";
  for (auto& c : backslashed)
    if (c == '/') c = '\\';
  EXPECT_EQ(live->registry_values(backslashed), values);
}

TEST(LiveWindowsSystem, ListsRegistrySubkeysSorted) {
  const TestKey key;
  key.subkey(L"b-sub");
  key.subkey(L"中文");
  key.subkey(L"A-sub");
  const auto live = make_live_system();
  EXPECT_EQ(live->registry_subkeys(key.spelled()),
            (std::vector<std::string>{"A-sub", "b-sub", utf8(u8"中文")}));
  EXPECT_EQ(live->registry_values(key.spelled() + "/" + utf8(u8"中文")), RegistryValues{});
}

TEST(LiveWindowsSystem, AMissingKeyHasNoValues) {
  const auto live = make_live_system();
  const std::string missing = "HKCU/Software/gpuvet-test-missing-" + win32::narrow(random_suffix());
  EXPECT_FALSE(live->registry_values(missing));
  EXPECT_TRUE(live->registry_subkeys(missing).empty());
  EXPECT_FALSE(live->registry_values("HKXX/Software")) << "not a hive";
  // The machine's own version key exists under Windows and Wine alike (64-bit view).
  const auto current = live->registry_values("HKLM/SOFTWARE/Microsoft/Windows NT/CurrentVersion");
  ASSERT_TRUE(current);
  EXPECT_TRUE(current->contains("CurrentBuild"));
}

TEST(LiveWindowsSystem, ReadsTheEnvironmentInUtf8AnyCase) {
  const std::wstring name = L"GpuVet_Test_" + random_suffix();
  ASSERT_TRUE(SetEnvironmentVariableW(name.c_str(), L"张伟=显卡"));
  const auto live = make_live_system();
  std::string upper = win32::narrow(name);
  for (auto& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(live->env(upper), utf8(u8"张伟=显卡"));
  const auto all = live->environment();
  ASSERT_TRUE(all.contains(win32::narrow(name)));
  EXPECT_EQ(all.at(win32::narrow(name)), utf8(u8"张伟=显卡"));
  for (const auto& [variable, value] : all) {
    EXPECT_FALSE(variable.empty()) << "=C: style entries are not variables";
  }

  ASSERT_TRUE(SetEnvironmentVariableW(name.c_str(), nullptr));
  EXPECT_FALSE(live->env(upper));
  EXPECT_FALSE(live->environment().contains(win32::narrow(name)));
}

TEST(LiveWindowsSystem, ReadsFilesAndDirectoriesWithChineseNames) {
  const TempDir dir;
  const std::string version = dir.file(L"toolkit/version.txt", "CUDA Version 13.0.0\n");
  const std::string chinese = dir.file(L"显卡.txt", "hi");
  dir.directory(L"b-dir");
  const auto live = make_live_system();

  const auto info = live->file_info(version);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->kind, FileKind::regular);
  EXPECT_EQ(info->size, 20u);
  EXPECT_FALSE(info->link_target);
  EXPECT_TRUE(live->file_info(dir.path() + "/TOOLKIT/Version.TXT")) << "names ignore case";

  const auto directory = live->file_info(dir.path());
  ASSERT_TRUE(directory);
  EXPECT_EQ(directory->kind, FileKind::directory);
  EXPECT_FALSE(directory->size);
  EXPECT_FALSE(live->file_info(dir.path() + "/nope"));

  const auto listing = live->list_dir(dir.path());
  ASSERT_TRUE(listing);
  EXPECT_EQ(*listing, (std::vector<DirEntry>{{"b-dir", FileKind::directory},
                                             {"toolkit", FileKind::directory},
                                             {utf8(u8"显卡.txt"), FileKind::regular}}));
  EXPECT_EQ(live->list_dir(dir.path() + "/"), listing);
  EXPECT_EQ(live->list_dir(dir.path() + "/b-dir"), std::vector<DirEntry>{});
  EXPECT_FALSE(live->list_dir(version)) << "a file is not a directory";
  EXPECT_FALSE(live->list_dir(dir.path() + "/nope"));

  EXPECT_EQ(*live->read_text(chinese), "hi");
  EXPECT_EQ(*live->read_text(version), "CUDA Version 13.0.0\n");
  EXPECT_EQ(*live->read_head(version, 4), "CUDA");
  EXPECT_EQ(*live->read_head(version, 1000), "CUDA Version 13.0.0\n");
}

TEST(LiveWindowsSystem, ReadErrorsAreValuesNamingThePath) {
  const TempDir dir;
  const auto live = make_live_system();
  const auto missing = live->read_text(dir.path() + "/nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message.rfind(dir.path() + "/nope: ", 0), 0u)
      << missing.error().message;

  const auto directory = live->read_text(dir.path());
  ASSERT_FALSE(directory) << "a directory is not text";
  EXPECT_NE(directory.error().message.find("not a regular file"), std::string::npos);
  EXPECT_FALSE(live->read_head(dir.path(), 10));
  EXPECT_FALSE(live->read_text("//./NUL")) << "devices are not files";

  const std::string big = dir.file(L"big", std::string(kMaxTextBytes + 10, 'x'));
  const auto too_big = live->read_text(big);
  ASSERT_FALSE(too_big);
  EXPECT_NE(too_big.error().message.find("larger than"), std::string::npos);
  EXPECT_EQ(live->read_head(big, 10)->size(), 10u);
}

TEST(LiveWindowsSystem, ReadsElfHeadersThroughTheSharedReader) {
  const TempDir dir;
  // The 64-byte header of a static x86-64 ELF executable: no program or section headers.
  std::string header(64, '\0');
  header.replace(0, 7, "\x7f\x45\x4c\x46\x02\x01\x01");  // \x7f E L F, 64-bit, LE, v1
  header[16] = 2;                                        // e_type: ET_EXEC
  header[18] = 62;                                       // e_machine: x86-64
  header[20] = 1;                                        // e_version
  header[52] = 64;                                       // e_ehsize
  const std::string elf = dir.file(L"库.so", header);
  const auto live = make_live_system();
  const auto info = live->elf_info(elf);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->bits, 64);
  EXPECT_EQ(info->machine, 62);
  EXPECT_TRUE(info->needed.empty());

  const auto text = live->elf_info(dir.file(L"readme.txt", "not an ELF file"));
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("readme.txt"), std::string::npos);
  EXPECT_FALSE(live->elf_info(dir.path() + "/nope"));
}

TEST(LiveWindowsSystem, AnswersHonestlyWhatItCannotTell) {
  const TempDir dir;
  const auto live = make_live_system();
  EXPECT_FALSE(live->ld_cache_lookup("nvcuda.dll")) << "Windows has no loader cache";
  EXPECT_FALSE(live->driver()) << "no helper given: not asked";
  EXPECT_FALSE(live->gpus());
  EXPECT_FALSE(live->load("nvcuda.dll"));
  EXPECT_FALSE(live->run_program(dir.path() + "/nope.exe", {"--version"}));
  EXPECT_FALSE(live->run_program(dir.path(), {"--version"})) << "a directory is not a program";
  // SetupAPI answers under Windows and Wine alike; what it lists depends on the machine.
  const auto adapters = live->display_adapters();
  if (adapters) {
    for (const auto& adapter : *adapters)
      EXPECT_TRUE(adapter.name || adapter.pnp_id);
  }
}

}  // namespace
}  // namespace gpuvet::sys
