// `which` on the live Windows System against the real loader: for DLLs this test places in
// folders with Chinese names, the file `which` names must be the one LoadLibraryW loads.
#include <windows.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "core/paths.hpp"
#include "core/win32_text.hpp"
#include "resolve/which.hpp"
#include "system/system.hpp"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

fs::path unique_dir(const std::wstring& stem) {
  std::random_device seed;
  fs::path dir = fs::temp_directory_path() / (stem + L"-" + std::to_wstring(seed()));
  fs::create_directories(dir);
  return dir;
}

std::string portable(const fs::path& path) {
  return win32::portable_path(path.native());
}

// Each case loads a DLL under a name of its own: a module once loaded answers every later
// LoadLibrary of its name, whatever the search order says.
std::wstring fresh_name() {
  static int count = 0;
  return L"gpuvet_oracle_" + std::to_wstring(GetCurrentProcessId()) + L"_" +
         std::to_wstring(++count) + L".dll";
}

fs::path this_executable() {
  wchar_t buffer[MAX_PATH * 4];
  const DWORD n = GetModuleFileNameW(nullptr, buffer, MAX_PATH * 4);
  return fs::path(std::wstring(buffer, n));
}

bool under_wine() {
  return GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "wine_get_version") != nullptr;
}

// The file LoadLibraryW loads for a bare name, or "" when it loads none.
std::string loaded_by_windows(const std::wstring& name) {
  HMODULE module = LoadLibraryW(name.c_str());
  if (!module) return "";
  wchar_t buffer[MAX_PATH * 4];
  const DWORD n = GetModuleFileNameW(module, buffer, MAX_PATH * 4);
  FreeLibrary(module);
  return win32::portable_path(std::wstring_view(buffer, n));
}

class WindowsLoaderOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    first_ = unique_dir(L"张伟-first");
    second_ = unique_dir(L"第二-second");
    const DWORD n = GetEnvironmentVariableW(L"PATH", nullptr, 0);
    saved_path_.resize(n);
    GetEnvironmentVariableW(L"PATH", saved_path_.data(), n);
    saved_path_.resize(n ? n - 1 : 0);
    const std::wstring path = first_.native() + L";" + second_.native() + L";" + saved_path_;
    SetEnvironmentVariableW(L"PATH", path.c_str());
    wchar_t cwd[MAX_PATH * 4];
    GetCurrentDirectoryW(MAX_PATH * 4, cwd);
    saved_cwd_ = cwd;
  }
  void TearDown() override {
    SetEnvironmentVariableW(L"PATH", saved_path_.c_str());
    SetCurrentDirectoryW(saved_cwd_.c_str());
    std::error_code ec;
    for (const auto& placed : placed_)
      fs::remove(placed, ec);
    fs::remove_all(first_, ec);
    fs::remove_all(second_, ec);
  }

  void place(const fs::path& dir, const std::wstring& name) {
    fs::copy_file(fs::path(std::u8string(reinterpret_cast<const char8_t*>(GPUVET_VERSIONED_DLL))),
                  dir / name, fs::copy_options::overwrite_existing);
    placed_.push_back(dir / name);
  }

  // Asserts that which() and LoadLibraryW agree on `name`, and returns the file.
  std::string agreed(const std::wstring& name) {
    const auto system = sys::make_live_system();
    resolve::WhichRequest request{{win32::narrow(name)}, portable(this_executable()), {}};
    const auto report = resolve::which(*system, request);
    EXPECT_TRUE(report.ok());
    if (!report.ok()) return "";
    const auto& result = report->results.at(0);
    const std::string loaded = loaded_by_windows(name);
    // Windows compares paths without case: "System32" and "system32" are one folder.
    EXPECT_EQ(paths::comparison_key(result.resolved.value_or(""), true),
              paths::comparison_key(loaded, true))
        << win32::narrow(name);
    return loaded;
  }

  fs::path first_;
  fs::path second_;
  std::wstring saved_path_;
  std::wstring saved_cwd_;
  std::vector<fs::path> placed_;
};

TEST_F(WindowsLoaderOracle, OnlyOnPath) {
  const auto name = fresh_name();
  place(second_, name);
  EXPECT_EQ(agreed(name), portable(second_ / name));
}

TEST_F(WindowsLoaderOracle, FirstPathEntryWins) {
  const auto name = fresh_name();
  place(first_, name);
  place(second_, name);
  EXPECT_EQ(agreed(name), portable(first_ / name));
}

TEST_F(WindowsLoaderOracle, CurrentFolderBeforePath) {
  const auto name = fresh_name();
  const fs::path cwd = unique_dir(L"当前-cwd");
  place(cwd, name);
  place(first_, name);
  SetCurrentDirectoryW(cwd.c_str());
  const std::string loaded = agreed(name);
  SetCurrentDirectoryW(saved_cwd_.c_str());
  EXPECT_EQ(loaded, portable(cwd / name));
  std::error_code ec;
  fs::remove_all(cwd, ec);
}

TEST_F(WindowsLoaderOracle, ApplicationFolderFirst) {
  const auto name = fresh_name();
  place(this_executable().parent_path(), name);
  place(first_, name);
  EXPECT_EQ(agreed(name), portable(this_executable().parent_path() / name));
}

// Only in Wine's private prefix: a test on a real Windows must not write to System32.
TEST_F(WindowsLoaderOracle, System32BeatsPath) {
  if (!under_wine()) GTEST_SKIP() << "writes to System32; only in a Wine test prefix";
  wchar_t system32[MAX_PATH];
  const UINT n = GetSystemDirectoryW(system32, MAX_PATH);
  const auto name = fresh_name();
  place(fs::path(std::wstring(system32, n)), name);
  place(first_, name);
  EXPECT_EQ(paths::comparison_key(agreed(name), true),
            paths::comparison_key(portable(fs::path(std::wstring(system32, n)) / name), true));
}

TEST_F(WindowsLoaderOracle, NowhereLoadsNothing) {
  const auto name = fresh_name();
  EXPECT_EQ(agreed(name), "");
}

TEST(WindowsPeVersion, ReadsTheVersionResourceOfABuiltDll) {
  const auto system = sys::make_live_system();
  const auto version = system->pe_version(GPUVET_VERSIONED_DLL);
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_EQ(version->file_version.value_or(""), "9.1.0.70");
  EXPECT_EQ(version->product_version.value_or(""), "9.1.0.0");
  EXPECT_FALSE(system->pe_version(std::string(GPUVET_VERSIONED_DLL) + ".missing").ok());
}

}  // namespace
}  // namespace gpuvet
