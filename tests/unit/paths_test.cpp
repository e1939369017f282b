#include "core/paths.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpuvet::paths {
namespace {

TEST(Paths, NormalizeUsesForwardSlashesAndKeepsRoots) {
  EXPECT_EQ(normalize("C:\\Program Files\\NVIDIA\\"), "C:/Program Files/NVIDIA");
  EXPECT_EQ(normalize("/usr//lib/"), "/usr/lib");
  EXPECT_EQ(normalize("/"), "/");
  EXPECT_EQ(normalize("C:\\"), "C:/");
  EXPECT_EQ(normalize(""), "");
}

TEST(Paths, ComparisonKeyFoldsCaseOnlyOnWindows) {
  EXPECT_EQ(comparison_key("C:\\Windows\\System32", true), "c:/windows/system32");
  EXPECT_EQ(comparison_key("/USR/Lib", false), "/USR/Lib");
}

TEST(Paths, ParentAndJoin) {
  EXPECT_EQ(parent("/usr/local/cuda"), "/usr/local");
  EXPECT_EQ(parent("/usr"), "/");
  EXPECT_EQ(parent("C:/Windows"), "C:/");
  EXPECT_EQ(parent("relative"), "");
  EXPECT_EQ(join("/usr/local/", "cuda"), "/usr/local/cuda");
  EXPECT_EQ(join("/", "etc"), "/etc");
  EXPECT_EQ(join("C:\\CUDA", "bin"), "C:/CUDA/bin");
}

TEST(Paths, Absolute) {
  EXPECT_TRUE(is_absolute("/etc"));
  EXPECT_TRUE(is_absolute("C:\\x"));
  EXPECT_TRUE(is_absolute("d:/x"));
  EXPECT_FALSE(is_absolute("lib"));
  EXPECT_FALSE(is_absolute("../lib"));
  EXPECT_FALSE(is_absolute("C:"));
}

TEST(Paths, ReadAndWriteFilesWithUtf8Names) {
  gpuvet::testing::TempDir dir;
  const std::string path = dir.path() + "/快照-張.json";
  ASSERT_TRUE(write_file(path, "内容"));
  EXPECT_EQ(*read_file(path, 100), "内容");
  const auto too_big = read_file(path, 3);
  ASSERT_FALSE(too_big);
  EXPECT_NE(too_big.error().message.find("larger than 3 bytes"), std::string::npos);
  EXPECT_FALSE(write_file(dir.path() + "/no/such/dir/x", "x"));
  EXPECT_EQ(from_fs(to_fs(path)), path);
}

}  // namespace
}  // namespace gpuvet::paths
