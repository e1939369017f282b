// Programs as the probes find them: Triton's CC and nvcc's compilers are looked up this way.
#include "probes/programs.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

TEST(Programs, ACommandIsAnAbsoluteFileOrABareNameOnPath) {
  const sys::ReplaySystem system(testing::linux_snapshot(
      {{"files", {{"/usr/bin/gcc-12", {{"text", ""}}}, {"/opt/cc/bin/cc", {{"text", ""}}}}}}));
  Facts facts;
  facts.os.family = "linux";
  facts.env.path = {"/usr/local/bin", "/usr/bin"};
  EXPECT_EQ(command_program(system, facts, "gcc-12"), "/usr/bin/gcc-12");
  EXPECT_EQ(command_program(system, facts, "/opt/cc/bin/cc"), "/opt/cc/bin/cc");
  EXPECT_EQ(command_program(system, facts, "/opt/cc/bin"), std::nullopt);  // a folder
  EXPECT_EQ(command_program(system, facts, "bin/cc"), std::nullopt);       // relative
  EXPECT_EQ(command_program(system, facts, "ccache gcc-12"), std::nullopt);
  EXPECT_EQ(command_program(system, facts, "gcc-12.exe"), std::nullopt);
  EXPECT_EQ(command_program(system, facts, "clang"), std::nullopt);
}

TEST(Programs, OnWindowsABareNameMayLeaveOutExe) {
  const sys::ReplaySystem system(
      testing::windows_snapshot({{"files", {{"C:/Tools/bin/cl.exe", {{"text", ""}}}}}}));
  Facts facts;
  facts.os.family = "windows";
  facts.env.path = {"C:/Windows/system32", "C:/Tools/bin"};
  EXPECT_EQ(command_program(system, facts, "cl"), "C:/Tools/bin/cl.exe");
  EXPECT_EQ(command_program(system, facts, "cl.exe"), "C:/Tools/bin/cl.exe");
  EXPECT_EQ(command_program(system, facts, "C:/Tools/bin"), std::nullopt);
}

}  // namespace
}  // namespace gpuvet::probes
