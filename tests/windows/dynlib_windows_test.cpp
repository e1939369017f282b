// DynamicLibrary on Windows: LoadLibraryExW by bare name and by path, GetProcAddress, the file
// the loader chose, and the loader's own words when a DLL is missing.
#include <windows.h>

#include <gtest/gtest.h>

#include <string>

#include "core/text.hpp"
#include "core/win32_text.hpp"
#include "platform/dynlib.hpp"

namespace gpuvet::platform {
namespace {

std::string system_dir() {
  wchar_t buffer[MAX_PATH];
  const UINT n = GetSystemDirectoryW(buffer, MAX_PATH);
  return win32::portable_path(std::wstring_view(buffer, n));
}

TEST(WindowsDynamicLibrary, ABareNameIsSearchedTheStandardWay) {
  auto lib = DynamicLibrary::open("kernel32.dll");
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_NE(lib->symbol("GetProcAddress"), nullptr);
  EXPECT_EQ(lib->symbol("NoSuchExport"), nullptr);
  ASSERT_TRUE(lib->path());
  EXPECT_EQ(text::to_lower(*lib->path()), text::to_lower(system_dir() + "/kernel32.dll"));
}

TEST(WindowsDynamicLibrary, APathWithForwardSlashesLoads) {
  auto lib = DynamicLibrary::open(system_dir() + "/version.dll");
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_NE(lib->symbol("GetFileVersionInfoSizeW"), nullptr);
}

TEST(WindowsDynamicLibrary, ADllBuiltHereLoadsByPath) {
  auto lib = DynamicLibrary::open(GPUVET_VERSIONED_DLL);
  ASSERT_TRUE(lib) << lib.error().message;
  using Answer = int (*)();
  auto* answer = reinterpret_cast<Answer>(lib->symbol("gpuvet_versioned_answer"));
  ASSERT_NE(answer, nullptr);
  EXPECT_EQ(answer(), 42);
  ASSERT_TRUE(lib->path());
  EXPECT_TRUE(text::to_lower(*lib->path()).ends_with("/gpuvet_versioned.dll")) << *lib->path();
}

// ERROR_MOD_NOT_FOUND in the system's words, after the name: no dialog box, no crash.
TEST(WindowsDynamicLibrary, AMissingDllSaysWhy) {
  auto by_name = DynamicLibrary::open("gpuvet_no_such_library.dll");
  ASSERT_FALSE(by_name);
  EXPECT_TRUE(by_name.error().message.starts_with("gpuvet_no_such_library.dll: "))
      << by_name.error().message;
  EXPECT_TRUE(by_name.error().message.ends_with("(126)")) << by_name.error().message;
  auto by_path = DynamicLibrary::open("C:/no/such/dir/nvml.dll");
  ASSERT_FALSE(by_path);
  EXPECT_TRUE(by_path.error().message.starts_with("C:/no/such/dir/nvml.dll: "))
      << by_path.error().message;
}

}  // namespace
}  // namespace gpuvet::platform
