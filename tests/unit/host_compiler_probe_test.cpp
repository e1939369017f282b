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

TEST(HostCompilerProbe, NothingWithoutAToolkitOrOnWindowsWithoutVisualStudio) {
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

// The Visual Studio check of host_config.h, as CUDA 13.0 writes it and as CUDA 9 wrote it
// (xmr-stak#962 quotes "#if _MSC_VER < 1600 || _MSC_VER > 1911").
TEST(HostCompilerProbe, TheVisualStudioRangeAndItsNames) {
  const std::string cuda13 =
      "#if _MSC_VER < 1920 || _MSC_VER >= 1950\n\n#error -- unsupported Microsoft Visual Studio "
      "version! Only the versions between 2019 and 2022 (inclusive) are supported! The nvcc flag "
      "'-allow-unsupported-compiler' can be used\n";
  EXPECT_EQ(host_config_msc_range(cuda13), std::make_pair(1920, 1950));
  EXPECT_EQ(host_config_msvc_names(cuda13), "2019 and 2022");
  const std::string cuda9 =
      "#if _MSC_VER < 1600 || _MSC_VER > 1911\n\n#error -- unsupported Microsoft Visual Studio "
      "version! Only the versions 2012, 2013, 2015 and 2017 are supported!\n";
  EXPECT_EQ(host_config_msc_range(cuda9), std::make_pair(1600, 1912));
  EXPECT_EQ(host_config_msvc_names(cuda9), "2012, 2013, 2015 and 2017");
  EXPECT_EQ(host_config_msc_range(kHostConfig12), std::nullopt);
  EXPECT_EQ(host_config_msc_range("#if _MSC_VER < 1920\n#endif\n"), std::nullopt);
  EXPECT_EQ(host_config_msc_range("#if _MSC_VER < 1950 || _MSC_VER >= 1920\n"), std::nullopt);
}

// MSVC toolset 14.YY is _MSC_VER 19YY (14.40 of Visual Studio 2022 17.10 is 1940: vcpkg#36146,
// llama.cpp#8628); Visual Studio 2015's 14.0 and anything else is not mapped.
TEST(HostCompilerProbe, TheMscVerOfAToolset) {
  EXPECT_EQ(msc_ver_of_toolset("14.44.35207"), 1944);
  EXPECT_EQ(msc_ver_of_toolset("14.16.27023"), 1916);
  EXPECT_EQ(msc_ver_of_toolset("14.50.35717"), 1950);
  EXPECT_EQ(msc_ver_of_toolset("14.0"), std::nullopt);
  EXPECT_EQ(msc_ver_of_toolset("14.4"), std::nullopt);
  EXPECT_EQ(msc_ver_of_toolset("15.10.1"), std::nullopt);
  EXPECT_EQ(msc_ver_of_toolset("Preview"), std::nullopt);
}

// On Windows every installed toolset's cl.exe is recorded, the one on Path first.
TEST(HostCompilerProbe, WindowsRecordsTheClOnPathAndEveryInstalledToolset) {
  const std::string vs = "C:/Program Files/Microsoft Visual Studio";
  const std::string cl22 = vs + "/2022/Community/VC/Tools/MSVC/14.44.35207/bin/Hostx64/x64";
  const std::string cl19 =
      "C:/Program Files (x86)/Microsoft Visual Studio/2019/BuildTools/VC/Tools/MSVC/"
      "14.29.30133/bin/Hostx64/x64";
  const std::string toolkit = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.5";
  const sys::ReplaySystem windows(testing::windows_snapshot(
      {{"env", {{"Path", cl22 + ";" + toolkit + "/bin"}}},
       {"files",
        {{toolkit + "/version.json", {{"text", R"({"cuda": {"version": "12.5.1"}})"}}},
         {toolkit + "/bin/nvcc.exe", {{"size", 1}}},
         {toolkit + "/include/crt/host_config.h",
          {{"text", "#if _MSC_VER < 1910 || _MSC_VER >= 1950\n"}}},
         {cl22 + "/cl.exe", {{"size", 1}}},
         {cl19 + "/cl.exe", {{"size", 1}}},
         // A toolset folder without its compiler is no compiler.
         {vs + "/2022/Community/VC/Tools/MSVC/14.38.33130/include/vector", {{"size", 1}}}}}}));
  const Facts f = collect_facts(windows);
  ASSERT_EQ(f.cuda_toolkits.size(), 1u);
  EXPECT_EQ(f.cuda_toolkits[0].host_msc_min, 1910);
  EXPECT_EQ(f.cuda_toolkits[0].host_msc_below, 1950);
  ASSERT_EQ(f.host_compilers.size(), 2u);
  EXPECT_EQ(f.host_compilers[0].source, "PATH");
  EXPECT_EQ(f.host_compilers[0].family, "msvc");
  EXPECT_EQ(f.host_compilers[0].version, "14.44.35207");
  EXPECT_EQ(f.host_compilers[0].msc_ver, 1944);
  EXPECT_EQ(f.host_compilers[1].source, "VISUAL_STUDIO");
  EXPECT_EQ(f.host_compilers[1].msc_ver, 1929);
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
    // The same header's Visual Studio range, read on any platform.
    ASSERT_TRUE(toolkit.host_msc_min && toolkit.host_msc_below) << header;
    EXPECT_LT(*toolkit.host_msc_min, *toolkit.host_msc_below);
    EXPECT_TRUE(toolkit.host_msvc_names) << header;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no CUDA toolkit with include/crt/host_config.h here";
}

}  // namespace
}  // namespace gpuvet::probes
