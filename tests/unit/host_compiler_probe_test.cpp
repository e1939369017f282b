#include <gtest/gtest.h>

#include <filesystem>

#include "core/text.hpp"
#include "facts/facts.hpp"
#include "probes/probes.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

using nlohmann::json;

const json kFile = {{"size", 1024}};

json link(const std::string& target) {
  return {{"link", target}};
}

// The #error block of a toolkit's include/crt/host_config.h, as CUDA 12.1 has it.
const std::string kHostConfig12 =
    "#if defined(__GNUC__)\n\n#if __GNUC__ > 12\n\n#error -- unsupported GNU version! gcc "
    "versions later than 12 are not supported! The nvcc flag '-allow-unsupported-compiler' can "
    "be used to override this version check; however, using an unsupported host compiler may "
    "cause compilation failure or incorrect run time execution. Use at your own risk.\n\n"
    "#endif /* __GNUC__ > 12 */\n";

// A runfile toolkit: include is a link into targets/, as NVIDIA lays it out.
json toolkit_files() {
  const std::string root = "/usr/local/cuda-12.1";
  return {{root + "/version.json", {{"text", R"({"cuda": {"version": "12.1.1"}})"}}},
          {root + "/bin/nvcc", kFile},
          {root + "/include", link("targets/x86_64-linux/include")},
          {root + "/targets/x86_64-linux/include/cuda.h", kFile},
          {root + "/targets/x86_64-linux/include/crt/host_config.h", {{"text", kHostConfig12}}}};
}

Facts probe(json files, const json& env, const json& programs = json::object()) {
  json doc = {{"files", std::move(files)}, {"env", env}};
  if (!programs.empty()) doc["programs"] = programs;
  const sys::ReplaySystem system(testing::linux_snapshot(doc));
  return collect_facts(system);
}

const json kPath = {{"PATH", "/usr/local/cuda-12.1/bin:/usr/bin:/bin"}};

TEST(HostConfigGccMax, ReadsTheLimitOfTheErrorLine) {
  EXPECT_EQ(host_config_gcc_max(kHostConfig12), "12");
  EXPECT_EQ(host_config_gcc_max("#error -- unsupported GNU version! gcc versions later than 5.3 "
                                "are not supported!"),
            "5.3");
  EXPECT_EQ(host_config_gcc_max("gcc versions later than 6."), "6");
}

TEST(HostConfigGccMax, AHeaderWithoutTheLineHasNoLimit) {
  EXPECT_EQ(host_config_gcc_max(""), std::nullopt);
  EXPECT_EQ(host_config_gcc_max("#if _MSC_VER < 1910 || _MSC_VER >= 1950"), std::nullopt);
  EXPECT_EQ(host_config_gcc_max("gcc versions later than  are not supported"), std::nullopt);
  EXPECT_EQ(host_config_gcc_max("gcc versions later than .5"), std::nullopt);
  EXPECT_EQ(host_config_gcc_max("gcc versions later than 1234567890123"), std::nullopt);
  EXPECT_EQ(host_config_gcc_max("gcc versions later than "), std::nullopt);
}

TEST(HostCompilerProbe, ReadsTheLimitThroughTheIncludeLink) {
  const Facts f = probe(toolkit_files(), kPath);
  ASSERT_EQ(f.cuda_toolkits.size(), 1u);
  EXPECT_EQ(f.cuda_toolkits[0].host_gcc_max, "12");
}

TEST(HostCompilerProbe, TheCompilersOwnWordBeatsItsName) {
  json files = toolkit_files();
  files["/usr/bin/gcc"] = link("gcc-13");
  files["/usr/bin/gcc-13"] = kFile;
  const Facts f =
      probe(files, kPath, {{"/usr/bin/gcc -dumpversion", {{"exit", 0}, {"output", "13.3.0\n"}}}});
  ASSERT_EQ(f.host_compilers.size(), 1u);
  EXPECT_EQ(f.host_compilers[0].path, "/usr/bin/gcc");
  EXPECT_EQ(f.host_compilers[0].real_path, "/usr/bin/gcc-13");
  EXPECT_EQ(f.host_compilers[0].source, "PATH");
  EXPECT_EQ(f.host_compilers[0].family, "gcc");
  EXPECT_EQ(f.host_compilers[0].version, "13.3.0");
}

TEST(HostCompilerProbe, AGccThatIsNoLinkAndWasNotAskedHasNoVersion) {
  json files = toolkit_files();
  files["/usr/bin/gcc"] = kFile;
  const Facts f = probe(files, kPath);
  ASSERT_EQ(f.host_compilers.size(), 1u);
  EXPECT_EQ(f.host_compilers[0].version, std::nullopt) << "nothing is guessed";
}

TEST(HostCompilerProbe, AnAnswerThatIsNoVersionIsIgnored) {
  json files = toolkit_files();
  files["/usr/bin/gcc"] = link("gcc-13");
  files["/usr/bin/gcc-13"] = kFile;
  const Facts f = probe(files, kPath,
                        {{"/usr/bin/gcc -dumpversion", {{"exit", 0}, {"output", "gcc: oops\n"}}}});
  ASSERT_EQ(f.host_compilers.size(), 1u);
  EXPECT_EQ(f.host_compilers[0].version, "13") << "from the name gcc-13";
}

TEST(HostCompilerProbe, NvccCcbinByNameIsLookedUpOnPath) {
  json files = toolkit_files();
  files["/usr/bin/gcc"] = link("gcc-13");
  files["/usr/bin/gcc-13"] = kFile;
  files["/usr/bin/g++-11"] = kFile;
  files["/usr/bin/gcc-11"] = kFile;
  json env = kPath;
  env["NVCC_CCBIN"] = "g++-11";
  const Facts f = probe(files, env);
  ASSERT_EQ(f.host_compilers.size(), 1u);
  EXPECT_EQ(f.host_compilers[0].path, "/usr/bin/g++-11");
  EXPECT_EQ(f.host_compilers[0].source, "NVCC_CCBIN");
  EXPECT_EQ(f.host_compilers[0].version, "11");
  EXPECT_EQ(f.host_compilers[0].other_gcc, (std::vector<std::string>{"/usr/bin/gcc-13"}));
}

TEST(HostCompilerProbe, NvccCcbinDirectoryMeansItsGcc) {
  json files = toolkit_files();
  files["/opt/gcc11/bin/gcc"] = link("x86_64-pc-linux-gnu-gcc-11");
  files["/opt/gcc11/bin/x86_64-pc-linux-gnu-gcc-11"] = kFile;
  json env = kPath;
  env["NVCC_CCBIN"] = "/opt/gcc11/bin";
  const Facts f = probe(files, env);
  ASSERT_EQ(f.host_compilers.size(), 1u);
  EXPECT_EQ(f.host_compilers[0].path, "/opt/gcc11/bin/gcc");
  EXPECT_EQ(f.host_compilers[0].version, "11");
}

TEST(HostCompilerProbe, ClangAndCompilerCommandsAreNotTakenForGcc) {
  json files = toolkit_files();
  files["/usr/bin/gcc"] = link("gcc-13");
  files["/usr/bin/gcc-13"] = kFile;
  files["/usr/bin/clang-17"] = kFile;
  json env = kPath;
  env["CC"] = "/usr/bin/clang-17";
  env["CUDAHOSTCXX"] = "ccache g++";
  const Facts f =
      probe(files, env, {{"/usr/bin/clang-17 -dumpversion", {{"exit", 0}, {"output", "17\n"}}}});
  ASSERT_EQ(f.host_compilers.size(), 2u) << "ccache g++ is a command, not a program";
  EXPECT_EQ(f.host_compilers[1].source, "CC");
  EXPECT_EQ(f.host_compilers[1].family, "clang");
  EXPECT_EQ(f.host_compilers[1].version, std::nullopt) << "a clang's version is no GCC's";
}

TEST(HostCompilerProbe, NothingWithoutAToolkitOrOnWindows) {
  json files = {{"/usr/bin/gcc", link("gcc-13")}, {"/usr/bin/gcc-13", kFile}};
  EXPECT_TRUE(probe(files, kPath).host_compilers.empty());
  const sys::ReplaySystem windows(testing::windows_snapshot(
      {{"env", {{"Path", "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.1/bin"}}},
       {"files",
        {{"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.1/version.json",
          {{"text", R"({"cuda": {"version": "12.1.1"}})"}}},
         {"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.1/include/crt/host_config.h",
          {{"text", kHostConfig12}}}}}}));
  const Facts f = collect_facts(windows);
  EXPECT_TRUE(f.host_compilers.empty());
}

// The real header of the toolkits on this machine, read by the live system: where one has
// include/crt/host_config.h, its limit is a number. Skipped on a machine without a toolkit.
TEST(HostCompilerProbe, LiveToolkitHeadersHaveALimit) {
  const auto live = sys::make_live_system();
  const Facts f = collect_facts(*live);
  int checked = 0;
  for (const auto& toolkit : f.cuda_toolkits) {
    const auto header = std::filesystem::path(toolkit.root) / "include/crt/host_config.h";
    if (f.os.family != "linux" || !std::filesystem::exists(header)) continue;
    ASSERT_TRUE(toolkit.host_gcc_max) << header;
    EXPECT_TRUE(text::is_digits(toolkit.host_gcc_max->substr(0, 1))) << *toolkit.host_gcc_max;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no CUDA toolkit with include/crt/host_config.h here";
}

}  // namespace
}  // namespace gpuvet::probes
