#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "system/system.hpp"
#include "test_support.hpp"

namespace gpuvet::sys {
namespace {

namespace fs = std::filesystem;

TEST(LiveSystem, DescribesTheHost) {
  const auto live = make_live_system();
  const HostInfo host = live->host();
  EXPECT_EQ(host.os, "linux");
  EXPECT_TRUE(host.arch.has_value());
  EXPECT_TRUE(host.os_version.has_value());
}

TEST(LiveSystem, ReadsFilesDirectoriesAndLinks) {
  testing::TempDir dir;
  dir.file("toolkit/version.txt", "CUDA Version 13.0.0\n");
  fs::create_directory_symlink("toolkit", dir.path() + "/current");
  fs::create_symlink(dir.path() + "/missing", dir.path() + "/dangling");
  const auto live = make_live_system();

  const auto info = live->file_info(dir.path() + "/toolkit/version.txt");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->kind, FileKind::regular);
  EXPECT_EQ(info->size, 20u);
  EXPECT_FALSE(info->link_target);

  const auto link = live->file_info(dir.path() + "/current");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->kind, FileKind::directory);
  EXPECT_EQ(link->link_target, "toolkit");
  EXPECT_EQ(*live->read_text(dir.path() + "/current/version.txt"), "CUDA Version 13.0.0\n");

  EXPECT_FALSE(live->file_info(dir.path() + "/dangling")) << "a dangling link loads nothing";
  EXPECT_FALSE(live->file_info(dir.path() + "/nope"));

  const auto listing = live->list_dir(dir.path());
  ASSERT_TRUE(listing);
  ASSERT_EQ(listing->size(), 3u);
  EXPECT_EQ((*listing)[0].name, "current");
  EXPECT_TRUE((*listing)[0].is_link);
  EXPECT_EQ((*listing)[0].kind, FileKind::directory);
  EXPECT_EQ((*listing)[1].name, "dangling");
  EXPECT_EQ((*listing)[2].name, "toolkit");
  EXPECT_FALSE(live->list_dir(dir.path() + "/toolkit/version.txt"));
}

TEST(LiveSystem, ReadErrorsAreValuesNamingThePath) {
  testing::TempDir dir;
  const auto live = make_live_system();
  const auto missing = live->read_text(dir.path() + "/nope");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope"), std::string::npos);
  EXPECT_FALSE(live->read_text(dir.path())) << "a directory is not text";
  const std::string big = dir.file("big", std::string(kMaxTextBytes + 10, 'x'));
  const auto too_big = live->read_text(big);
  ASSERT_FALSE(too_big);
  EXPECT_NE(too_big.error().message.find("larger than"), std::string::npos);
}

TEST(LiveSystem, NeverBlocksOnAPipe) {
  testing::TempDir dir;
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto live = make_live_system();
  const auto started = std::chrono::steady_clock::now();
  const auto result = live->read_text(fifo);
  EXPECT_FALSE(result);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  const auto info = live->file_info(fifo);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->kind, FileKind::other);
}

TEST(LiveSystem, TellsWhetherADeviceNodeOpensReadWrite) {
  const auto live = make_live_system();
  const auto null_device = live->file_info("/dev/null");
  ASSERT_TRUE(null_device);
  EXPECT_EQ(null_device->kind, FileKind::other);
  EXPECT_EQ(null_device->read_write, true) << "everyone may read and write /dev/null";
  EXPECT_FALSE(live->file_info("/etc/os-release")->read_write) << "asked of device nodes only";
}

TEST(LiveSystem, RunsOnlyExecutablesAndStopsThemAtTheDeadline) {
  const auto live = make_live_system();
  const auto echo = live->run_program("/bin/echo", {"13.0"});
  ASSERT_TRUE(echo);
  EXPECT_EQ(echo->exit_code, 0);
  EXPECT_EQ(echo->output, "13.0\n");
  EXPECT_FALSE(live->run_program("/etc/os-release", {})) << "not executable";
  EXPECT_FALSE(live->run_program("/nonexistent/nvcc", {"--version"}));
  const auto started = std::chrono::steady_clock::now();
  const auto stuck = live->run_program("/bin/sleep", {"60"});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
  ASSERT_TRUE(stuck);
  EXPECT_FALSE(stuck->exit_code);
  EXPECT_EQ(stuck->error, "hung and was stopped");
}

TEST(LiveSystem, ReadsTheProcessEnvironment) {
  ASSERT_EQ(setenv("GPUVET_TEST_VARIABLE", "a=b", 1), 0);
  const auto live = make_live_system();
  EXPECT_EQ(live->env("GPUVET_TEST_VARIABLE"), "a=b");
  EXPECT_EQ(live->environment().at("GPUVET_TEST_VARIABLE"), "a=b");
  unsetenv("GPUVET_TEST_VARIABLE");
  EXPECT_FALSE(live->env("GPUVET_TEST_VARIABLE"));
}

TEST(LiveSystem, AnswersHonestlyWhatItCannotTell) {
  const auto live = make_live_system();
  EXPECT_FALSE(live->registry_values("HKLM/SOFTWARE")) << "no registry on POSIX";
  EXPECT_TRUE(live->registry_subkeys("HKLM/SOFTWARE").empty());
  EXPECT_FALSE(live->display_adapters()) << "SetupAPI is Windows only";
  EXPECT_FALSE(live->pe_version("/bin/sh"));
  // Without a helper executable gpuvet never calls into a driver in its own process.
  EXPECT_FALSE(live->driver());
  EXPECT_FALSE(live->gpus());
  EXPECT_FALSE(live->load("libcuda.so.1"));
}

TEST(LiveSystem, NativeAnswersComeFromTheHelperProcessOnce) {
  LiveOptions options;
  options.native_helper = GPUVET_BINARY;
  const auto live = make_live_system(options);
  const auto driver = live->driver();
  ASSERT_TRUE(driver) << "asked through the helper";
  EXPECT_EQ(live->driver(), driver) << "cached";
  EXPECT_TRUE(live->gpus().has_value());
  const auto load = live->load("libc.so.6");
  ASSERT_TRUE(load);
  EXPECT_TRUE(load->ok) << load->error.value_or("");
  EXPECT_NE(load->path.value_or("").find("libc.so.6"), std::string::npos);
  EXPECT_FALSE(load->init_code) << "libc has no driver initialisation";
}

}  // namespace
}  // namespace gpuvet::sys
