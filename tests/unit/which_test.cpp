// The `which` resolver on hand-written snapshots: token expansion and search lists as glibc builds
// them, the step list, the shadowed copies, ELF class checks, the cache, and both renderers.
// (What the real loader does is checked in tests/loader_oracle.)
#include "resolve/which.hpp"
#include "report/render_which.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "resolve/platform.hpp"
#include "resolve/search_list.hpp"
#include "system/cpu_features.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::resolve {
namespace {

using nlohmann::json;

const TokenValues kTokens{"/opt/app/lib", "lib/x86_64-linux-gnu", "x86_64"};

TEST(ExpandTokens, BothSpellingsOfEachToken) {
  EXPECT_EQ(expand_tokens("$ORIGIN/../lib", kTokens), "/opt/app/lib/../lib");
  EXPECT_EQ(expand_tokens("${ORIGIN}/x", kTokens), "/opt/app/lib/x");
  EXPECT_EQ(expand_tokens("/usr/$LIB/cuda", kTokens), "/usr/lib/x86_64-linux-gnu/cuda");
  EXPECT_EQ(expand_tokens("/usr/${LIB}", kTokens), "/usr/lib/x86_64-linux-gnu");
  EXPECT_EQ(expand_tokens("/p/$PLATFORM/${PLATFORM}", kTokens), "/p/x86_64/x86_64");
  EXPECT_EQ(expand_tokens("$ORIGIN:$LIB", kTokens), "/opt/app/lib:lib/x86_64-linux-gnu");
}

TEST(ExpandTokens, WhatIsNoTokenStaysAsWritten) {
  EXPECT_EQ(expand_tokens("/a/$ORIGINX", kTokens), "/a/$ORIGINX");  // the longest name counts
  EXPECT_EQ(expand_tokens("/a/$ORIGIN_2", kTokens), "/a/$ORIGIN_2");
  EXPECT_EQ(expand_tokens("/a/$FOO/b", kTokens), "/a/$FOO/b");
  EXPECT_EQ(expand_tokens("/a/${ORIGIN", kTokens), "/a/${ORIGIN");  // no closing brace
  EXPECT_EQ(expand_tokens("/a/$", kTokens), "/a/$");
  EXPECT_EQ(expand_tokens("$ORIGIN.d", kTokens), "/opt/app/lib.d");  // '.' ends the name
  EXPECT_FALSE(has_tokens("/a/$ORIGINX/$FOO"));
  EXPECT_TRUE(has_tokens("/a/${LIB}"));
}

TEST(ExpandTokens, AnOriginNobodyKnowsDropsTheEntry) {
  const TokenValues unknown{std::nullopt, "lib64", "x86_64"};
  EXPECT_EQ(expand_tokens("$ORIGIN/lib", unknown), std::nullopt);
  EXPECT_EQ(expand_tokens("/usr/$LIB", unknown), "/usr/lib64");
}

TEST(SearchList, SplitsKeepingEmptyEntries) {
  EXPECT_EQ(split_list(":a::b:", ":"), (std::vector<std::string>{"", "a", "", "b", ""}));
  EXPECT_EQ(split_list("a;b:c", ":;"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_list("a;b", ":"), (std::vector<std::string>{"a;b"}));
}

TEST(SearchList, ExpandsTrimsAndDropsRepeats) {
  const auto entries = search_entries({"/a//", "/a", "", "$ORIGIN/x", "", "/b/"}, kTokens);
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].dir, "/a");
  EXPECT_EQ(entries[1].dir, "");  // the current directory
  EXPECT_EQ(entries[2].dir, "/opt/app/lib/x");
  EXPECT_EQ(entries[2].entry, "$ORIGIN/x");
  EXPECT_EQ(entries[3].dir, "/b");
  EXPECT_EQ(search_entries({"/"}, kTokens)[0].dir, "/");
  const auto dropped = search_entries({"$ORIGIN/x", "/c"}, {std::nullopt, "lib", "x86_64"});
  ASSERT_EQ(dropped.size(), 2u);
  EXPECT_EQ(dropped[0].dir, std::nullopt);
  EXPECT_EQ(dropped[1].dir, "/c");
}

TEST(VersionFromFileName, TheNumbersAfterSo) {
  EXPECT_EQ(version_from_file_name("libcudnn.so.9.19.0"), "9.19.0");
  EXPECT_EQ(version_from_file_name("libcudart.so.13"), "13");
  EXPECT_EQ(version_from_file_name("libpython3.10.so.1.0"), "1.0");
  EXPECT_EQ(version_from_file_name("libcudnn.so"), std::nullopt);
  EXPECT_EQ(version_from_file_name("libfoo.so.1.2rc"), std::nullopt);
  EXPECT_EQ(version_from_file_name("libfoo.so.1..2"), std::nullopt);
  EXPECT_EQ(version_from_file_name("libfoo.so."), std::nullopt);
}

// The old snapshots' way: the features as /proc/cpuinfo lists them.
std::vector<std::string> levels_of(const std::string& cpuinfo) {
  return x86_64_levels(sys::cpu_features_from_cpuinfo(cpuinfo).value_or(sys::CpuFeatures{}));
}
std::string platform_of(const std::string& cpuinfo) {
  return x86_64_platform(sys::cpu_features_from_cpuinfo(cpuinfo).value_or(sys::CpuFeatures{}));
}

TEST(Platform, X8664LevelsFromCpuinfo) {
  const std::string v2 = "flags\t\t: fpu cx16 lahf_lm popcnt pni sse4_1 sse4_2 ssse3\n";
  EXPECT_EQ(levels_of(v2), (std::vector<std::string>{"x86-64-v2"}));
  const std::string v3 =
      "flags: cx16 lahf_lm popcnt pni sse4_1 sse4_2 ssse3 avx avx2 bmi1 "
      "bmi2 f16c fma abm movbe xsave\n";
  EXPECT_EQ(levels_of(v3), (std::vector<std::string>{"x86-64-v3", "x86-64-v2"}));
  EXPECT_EQ(
      levels_of(v3.substr(0, v3.size() - 1) + " avx512f avx512bw avx512cd avx512dq avx512vl\n"),
      (std::vector<std::string>{"x86-64-v4", "x86-64-v3", "x86-64-v2"}));
  EXPECT_TRUE(levels_of("flags: fpu sse2\n").empty());
  EXPECT_TRUE(levels_of("").empty());
}

TEST(Platform, X8664PlatformFromCpuinfo) {
  const std::string haswell =
      "vendor_id\t: GenuineIntel\nflags\t: avx2 fma bmi1 bmi2 abm movbe popcnt\n";
  EXPECT_EQ(platform_of(haswell), "haswell");
  EXPECT_EQ(platform_of("vendor_id: AuthenticAMD\nflags: avx2 fma bmi1 bmi2 abm movbe popcnt\n"),
            "x86_64");
  EXPECT_EQ(platform_of("vendor_id: GenuineIntel\nflags: avx2 fma\n"), "x86_64");
  EXPECT_EQ(platform_of("vendor_id: GenuineIntel\nflags: avx512cd avx512er avx512pf avx2\n"),
            "xeon_phi");
  EXPECT_EQ(platform_of(""), "x86_64");
}

// The CPU features the snapshot recorded from CPUID decide, whatever /proc/cpuinfo hides: the
// issue-15 machine, an AMD EPYC with AVX-512 whose cpuinfo lists no "abm".
TEST(Platform, RecordedCpuidBeatsCpuinfo) {
  const json cpuinfo = {{"text",
                         "vendor_id: AuthenticAMD\nflags: cx16 lahf_lm popcnt pni sse4_1 sse4_2 "
                         "ssse3 avx avx2 bmi1 bmi2 f16c fma movbe xsave avx512f avx512bw "
                         "avx512cd avx512dq avx512vl\n"}};
  const std::vector<std::string> usable = {
      "abm",      "avx",     "avx2", "avx512bw", "avx512cd", "avx512dq", "avx512f",
      "avx512vl", "bmi1",    "bmi2", "cx16",     "f16c",     "fma",      "lahf_lm",
      "movbe",    "osxsave", "pni",  "popcnt",   "sse4_1",   "sse4_2",   "ssse3"};
  const sys::ReplaySystem recorded(testing::linux_snapshot(
      {{"host", {{"arch", "x86_64"}, {"cpu", {{"vendor", "AuthenticAMD"}, {"usable", usable}}}}},
       {"files", {{"/proc/cpuinfo", cpuinfo}}}}));
  const Platform p = detect_platform(recorded);
  EXPECT_EQ(p.hwcaps, (std::vector<std::string>{"x86-64-v4", "x86-64-v3", "x86-64-v2"}));
  EXPECT_EQ(p.hwcaps_source, "cpuid");
  EXPECT_FALSE(p.hwcaps_assumed);

  // The same machine in a snapshot older than the record: cpuinfo is all there is.
  const sys::ReplaySystem old(testing::linux_snapshot(
      {{"host", {{"arch", "x86_64"}}}, {"files", {{"/proc/cpuinfo", cpuinfo}}}}));
  const Platform q = detect_platform(old);
  EXPECT_EQ(q.hwcaps, (std::vector<std::string>{"x86-64-v2"}));
  EXPECT_EQ(q.hwcaps_source, "cpuinfo");
}

// GLIBC_TUNABLES turns features off for the loader, and so for which (the loader oracle checks
// every name against ld.so): AVX-512 off leaves v3, LZCNT off leaves v2; unknown names change
// nothing.
TEST(Platform, TunablesTurnFeaturesOff) {
  const json cpu = {
      {"vendor", "GenuineIntel"},
      {"usable", {"abm",      "avx",     "avx2", "avx512bw", "avx512cd", "avx512dq", "avx512f",
                  "avx512vl", "bmi1",    "bmi2", "cx16",     "f16c",     "fma",      "lahf_lm",
                  "movbe",    "osxsave", "pni",  "popcnt",   "sse4_1",   "sse4_2",   "ssse3"}}};
  const auto levels_with = [&cpu](const std::string& tunables) {
    const sys::ReplaySystem system(testing::linux_snapshot(
        {{"host", {{"arch", "x86_64"}, {"cpu", cpu}}}, {"env", {{"GLIBC_TUNABLES", tunables}}}}));
    return detect_platform(system);
  };
  EXPECT_EQ(levels_with("glibc.cpu.hwcaps=-AVX512F").hwcaps,
            (std::vector<std::string>{"x86-64-v3", "x86-64-v2"}));
  const Platform no_lzcnt = levels_with("glibc.malloc.check=3:glibc.cpu.hwcaps=-LZCNT,-NOSUCH");
  EXPECT_EQ(no_lzcnt.hwcaps, (std::vector<std::string>{"x86-64-v2"}));
  EXPECT_EQ(no_lzcnt.platform, "x86_64") << "haswell needs LZCNT";
  EXPECT_EQ(levels_with("glibc.cpu.hwcaps=-F16C,AVX2").hwcaps,
            (std::vector<std::string>{"x86-64-v4", "x86-64-v3", "x86-64-v2"}));
  EXPECT_EQ(levels_with("glibc.cpu.hwcaps=-F16C,AVX2").platform, "haswell");
}

TEST(Platform, DebianAndRpmLayouts) {
  const sys::ReplaySystem debian(testing::linux_snapshot(
      {{"host", {{"arch", "x86_64"}}},
       {"files", {{"/usr/lib/x86_64-linux-gnu/libc.so.6", {{"size", 1}}}}}}));
  const Platform d = detect_platform(debian);
  EXPECT_EQ(d.lib, "lib/x86_64-linux-gnu");
  EXPECT_EQ(d.default_dirs,
            (std::vector<std::string>{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib",
                                      "/usr/lib"}));
  EXPECT_EQ(d.bits, 64);
  EXPECT_EQ(d.machine, 62);
  EXPECT_TRUE(d.hwcaps_assumed);  // no /proc/cpuinfo in the snapshot
  const sys::ReplaySystem fedora(testing::linux_snapshot(
      {{"host", {{"arch", "x86_64"}}}, {"files", {{"/usr/lib64/libc.so.6", {{"size", 1}}}}}}));
  const Platform f = detect_platform(fedora);
  EXPECT_EQ(f.lib, "lib64");
  EXPECT_EQ(f.default_dirs, (std::vector<std::string>{"/lib64", "/usr/lib64"}));
  EXPECT_EQ(detect_platform(fedora, "aarch64").machine, 183);
  EXPECT_EQ(arch_of_machine(3), "i386");
  EXPECT_EQ(arch_of_machine(9999), std::nullopt);
}

// Two CUDA toolkits with cuDNN 8, LD_LIBRARY_PATH naming the older one first, and a third copy
// from the distribution in the cache.
json two_toolkits() {
  return {{"host", {{"arch", "x86_64"}}},
          {"env",
           {{"LD_LIBRARY_PATH",
             "/opt/missing:/usr/local/cuda-11.8/lib64:"
             "/usr/local/cuda-12.2/lib64"}}},
          {"files",
           {{"/usr/local/cuda-11.8/lib64/libcudnn.so.8", {{"link", "libcudnn.so.8.6.0"}}},
            {"/usr/local/cuda-11.8/lib64/libcudnn.so.8.6.0", {{"size", 1000}}},
            {"/usr/local/cuda-12.2/lib64/libcudnn.so.8", {{"link", "libcudnn.so.8.9.7"}}},
            {"/usr/local/cuda-12.2/lib64/libcudnn.so.8.9.7", {{"size", 1000}}},
            {"/usr/lib/x86_64-linux-gnu/libcudnn.so.8", {{"link", "libcudnn.so.8.9.2"}}},
            {"/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.2", {{"size", 1000}}},
            {"/usr/local/cuda", {{"link", "/usr/local/cuda-12.2"}}}}},
          {"ld_cache", {{"libcudnn.so.8", {"/usr/lib/x86_64-linux-gnu/libcudnn.so.8"}}}}};
}

WhichReport which_on(const sys::System& system, std::vector<std::string> names,
                     std::optional<std::string> from = std::nullopt) {
  WhichOptions options;
  options.elf_headers = ElfHeaders::from_snapshot;
  auto report = which(system, {std::move(names), std::move(from), {}}, options);
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
  return report.ok() ? *report : WhichReport{};
}

TEST(Which, TwoToolkitsInLdLibraryPathOrder) {
  const sys::ReplaySystem system(testing::linux_snapshot(two_toolkits()));
  const Resolution r = which_on(system, {"libcudnn.so.8"}).results.at(0);
  EXPECT_EQ(r.resolved, "/usr/local/cuda-11.8/lib64/libcudnn.so.8");
  EXPECT_EQ(r.real_path, "/usr/local/cuda-11.8/lib64/libcudnn.so.8.6.0");
  EXPECT_EQ(r.version, "8.6.0");
  EXPECT_EQ(r.error, std::nullopt);

  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].where, "/opt/missing");
  EXPECT_EQ(r.steps[0].source, Source::ld_library_path);
  EXPECT_EQ(r.steps[0].skipped, Skip::no_directory);
  EXPECT_FALSE(r.steps[0].found);
  EXPECT_EQ(r.steps[1].where, "/usr/local/cuda-11.8/lib64");
  EXPECT_TRUE(r.steps[1].found);

  ASSERT_EQ(r.shadowed.size(), 2u);
  EXPECT_EQ(r.shadowed[0].path, "/usr/local/cuda-12.2/lib64/libcudnn.so.8");
  EXPECT_EQ(r.shadowed[0].version, "8.9.7");
  EXPECT_EQ(r.shadowed[0].source, Source::ld_library_path);
  // The cache's entry and the default directory's file are one file: listed once.
  EXPECT_EQ(r.shadowed[1].path, "/usr/lib/x86_64-linux-gnu/libcudnn.so.8");
  EXPECT_EQ(r.shadowed[1].version, "8.9.2");
  EXPECT_EQ(r.shadowed[1].source, Source::ld_cache);
}

TEST(Which, WithoutLdLibraryPathTheCacheWins) {
  json doc = two_toolkits();
  doc["env"] = json::object();
  const sys::ReplaySystem system(testing::linux_snapshot(doc));
  const Resolution r = which_on(system, {"libcudnn.so.8"}).results.at(0);
  EXPECT_EQ(r.resolved, "/usr/lib/x86_64-linux-gnu/libcudnn.so.8");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].source, Source::ld_cache);
  EXPECT_EQ(r.steps[0].where, "/etc/ld.so.cache");
  EXPECT_TRUE(r.shadowed.empty()) << r.shadowed[0].path;  // the default directory: same file
}

TEST(Which, NothingLoadsListsEveryStep) {
  const sys::ReplaySystem system(testing::linux_snapshot(two_toolkits()));
  const WhichReport report = which_on(system, {"libcublas.so.12"});
  EXPECT_FALSE(report.all_resolved());
  const Resolution& r = report.results.at(0);
  EXPECT_EQ(r.resolved, std::nullopt);
  EXPECT_EQ(r.error, "cannot open shared object file: No such file or directory");
  // 3 LD_LIBRARY_PATH entries, the cache, 4 default directories.
  ASSERT_EQ(r.steps.size(), 8u);
  EXPECT_EQ(r.steps[3].source, Source::ld_cache);
  EXPECT_EQ(r.steps[3].skipped, Skip::not_in_cache);
  EXPECT_EQ(r.steps[4].where, "/lib/x86_64-linux-gnu");
  EXPECT_EQ(r.steps[4].skipped, Skip::no_directory);
  EXPECT_EQ(r.steps[5].skipped, Skip::no_file);
  EXPECT_EQ(r.steps[5].path, "/usr/lib/x86_64-linux-gnu/libcublas.so.12");
}

json module_with(json elf) {
  json doc = two_toolkits();
  doc["files"]["/opt/app/bin/_ext.so"] = json::object({{"elf", std::move(elf)}});
  doc["files"]["/opt/app/lib/libcudnn.so.8"] = json::object({{"link", "libcudnn.so.8.1.0"}});
  doc["files"]["/opt/app/lib/libcudnn.so.8.1.0"] = json::object({{"size", 1}});
  return doc;
}

TEST(Which, RpathOfTheLoaderComesFirst) {
  const sys::ReplaySystem system(testing::linux_snapshot(
      module_with({{"bits", 64}, {"machine", 62}, {"rpath", {"$ORIGIN/../lib"}}})));
  const Resolution r = which_on(system, {"libcudnn.so.8"}, "/opt/app/bin/_ext.so").results.at(0);
  EXPECT_EQ(r.resolved, "/opt/app/bin/../lib/libcudnn.so.8");
  EXPECT_EQ(r.version, "8.1.0");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].source, Source::rpath);
  EXPECT_EQ(r.steps[0].object, "/opt/app/bin/_ext.so");
  EXPECT_EQ(r.steps[0].entry, "$ORIGIN/../lib");
  EXPECT_EQ(why_text(r.steps[0].source, r.steps[0].object), "RPATH of /opt/app/bin/_ext.so");
  EXPECT_EQ(r.shadowed.size(), 3u);
}

TEST(Which, RunpathComesAfterLdLibraryPathAndSilencesRpath) {
  const sys::ReplaySystem system(testing::linux_snapshot(module_with(
      {{"bits", 64}, {"machine", 62}, {"rpath", {"/opt/none"}}, {"runpath", {"$ORIGIN/../lib"}}})));
  const Resolution r = which_on(system, {"libcudnn.so.8"}, "/opt/app/bin/_ext.so").results.at(0);
  EXPECT_EQ(r.resolved, "/usr/local/cuda-11.8/lib64/libcudnn.so.8");
  for (const auto& step : r.steps)
    EXPECT_NE(step.source, Source::rpath);
  ASSERT_EQ(r.shadowed.size(), 3u);
  EXPECT_EQ(r.shadowed[1].path, "/opt/app/bin/../lib/libcudnn.so.8");
  EXPECT_EQ(r.shadowed[1].source, Source::runpath);
}

TEST(Which, WrongClassAndMachineAreSkipped) {
  json doc = two_toolkits();
  doc["files"]["/usr/local/cuda-11.8/lib64/libcudnn.so.8.6.0"] = {
      {"elf", {{"bits", 32}, {"machine", 3}}}};
  doc["files"]["/usr/local/cuda-12.2/lib64/libcudnn.so.8.9.7"] = {
      {"elf", {{"bits", 64}, {"machine", 183}}}};
  const sys::ReplaySystem system(testing::linux_snapshot(doc));
  const Resolution r = which_on(system, {"libcudnn.so.8"}).results.at(0);
  EXPECT_EQ(r.resolved, "/usr/lib/x86_64-linux-gnu/libcudnn.so.8");
  ASSERT_GE(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[1].skipped, Skip::wrong_class);
  EXPECT_EQ(r.steps[1].bits, 32);
  EXPECT_EQ(r.steps[2].skipped, Skip::wrong_machine);
  EXPECT_EQ(r.steps[2].machine, 183);
}

TEST(Which, OnlyTheOtherClassNamesIt) {
  json doc = two_toolkits();
  doc["env"] = json::object({{"LD_LIBRARY_PATH", "/usr/local/cuda-11.8/lib64"}});
  doc["ld_cache"] = json::object();
  doc["files"].erase("/usr/lib/x86_64-linux-gnu/libcudnn.so.8");
  doc["files"]["/usr/local/cuda-11.8/lib64/libcudnn.so.8.6.0"] =
      json::object({{"elf", {{"bits", 32}}}});
  const sys::ReplaySystem system(testing::linux_snapshot(doc));
  const Resolution r = which_on(system, {"libcudnn.so.8"}).results.at(0);
  EXPECT_EQ(r.resolved, std::nullopt);
  EXPECT_EQ(r.error, "wrong ELF class: ELFCLASS32");
}

TEST(Which, OriginInLdLibraryPathIsUnknown) {
  json doc = two_toolkits();
  doc["env"] = json::object({{"LD_LIBRARY_PATH", "$ORIGIN/lib"}});
  const sys::ReplaySystem system(testing::linux_snapshot(doc));
  const Resolution r = which_on(system, {"libcudnn.so.8"}).results.at(0);
  ASSERT_FALSE(r.steps.empty());
  EXPECT_EQ(r.steps[0].skipped, Skip::origin_unknown);
  EXPECT_EQ(r.steps[0].where, "$ORIGIN/lib");
  EXPECT_EQ(r.resolved, "/usr/lib/x86_64-linux-gnu/libcudnn.so.8");
}

TEST(Which, APathNameIsOpenedAsItIs) {
  const sys::ReplaySystem system(testing::linux_snapshot(two_toolkits()));
  const Resolution r = which_on(system, {"/usr/local/cuda/lib64/libcudnn.so.8"}).results.at(0);
  EXPECT_EQ(r.resolved, "/usr/local/cuda/lib64/libcudnn.so.8");
  EXPECT_EQ(r.real_path, "/usr/local/cuda-12.2/lib64/libcudnn.so.8.9.7");
  EXPECT_EQ(r.version, "8.9.7");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].source, Source::path);
  EXPECT_TRUE(r.shadowed.empty());
}

TEST(Which, TokensInAPathNameAreExpanded) {
  const sys::ReplaySystem system(testing::linux_snapshot(two_toolkits()));
  const WhichReport report = which_on(system, {"/usr/$LIB/libcudnn.so.8", "$ORIGIN/libcudnn.so.8"});
  EXPECT_EQ(report.results[0].resolved, "/usr/lib/x86_64-linux-gnu/libcudnn.so.8");
  // Without --from the caller is the executable, whose $ORIGIN is unknown.
  const Resolution& unknown = report.results[1];
  EXPECT_EQ(unknown.resolved, std::nullopt);
  ASSERT_EQ(unknown.steps.size(), 1u);
  EXPECT_EQ(unknown.steps[0].skipped, Skip::origin_unknown);
}

TEST(Which, HwcapsSubdirectoriesComeFirst) {
  json doc = two_toolkits();
  doc["files"]["/usr/local/cuda-11.8/lib64/glibc-hwcaps/x86-64-v3/libcudnn.so.8"] = {{"size", 1}};
  doc["files"]["/proc/cpuinfo"] = {
      {"text",
       "flags: cx16 lahf_lm popcnt pni sse4_1 sse4_2 ssse3 avx avx2 bmi1 bmi2 f16c "
       "fma abm movbe xsave\n"}};
  const sys::ReplaySystem system(testing::linux_snapshot(doc));
  const Resolution r = which_on(system, {"libcudnn.so.8"}).results.at(0);
  EXPECT_EQ(r.resolved, "/usr/local/cuda-11.8/lib64/glibc-hwcaps/x86-64-v3/libcudnn.so.8");
  EXPECT_EQ(r.steps.back().hwcaps, "x86-64-v3");
  ASSERT_FALSE(r.shadowed.empty());
  EXPECT_EQ(r.shadowed[0].path, "/usr/local/cuda-11.8/lib64/libcudnn.so.8");
}

TEST(Which, AFromModuleThatIsNotElfIsAnError) {
  json doc = two_toolkits();
  doc["files"]["/opt/x.so"] = json::object({{"size", 3}});
  const sys::ReplaySystem system(testing::linux_snapshot(doc));
  EXPECT_FALSE(which(system, {{"libcudnn.so.8"}, "/opt/x.so", {}}).ok());
  EXPECT_FALSE(which(system, {{"libcudnn.so.8"}, "/opt/none.so", {}}).ok());
}

TEST(WhichRender, JsonFollowsTheSchema) {
  const sys::ReplaySystem system(testing::linux_snapshot(two_toolkits()));
  const auto doc =
      json::parse(report::render_which_json(which_on(system, {"libcudnn.so.8", "libx.so"})));
  EXPECT_EQ(doc["schema"], "gpuvet.which/1");
  ASSERT_EQ(doc["results"].size(), 2u);
  const auto& r = doc["results"][0];
  EXPECT_EQ(r["name"], "libcudnn.so.8");
  EXPECT_EQ(r["resolved"], "/usr/local/cuda-11.8/lib64/libcudnn.so.8");
  EXPECT_EQ(r["version"], "8.6.0");
  EXPECT_EQ(r["steps"][0]["where"], "/opt/missing");
  EXPECT_EQ(r["steps"][0]["why"], "LD_LIBRARY_PATH");
  EXPECT_EQ(r["steps"][0]["found"], false);
  EXPECT_EQ(r["steps"][0]["skipped"], "no_directory");
  EXPECT_EQ(r["steps"][1]["found"], true);
  EXPECT_TRUE(r["steps"][1]["skipped"].is_null());
  EXPECT_EQ(r["shadowed"][0]["path"], "/usr/local/cuda-12.2/lib64/libcudnn.so.8");
  EXPECT_EQ(r["shadowed"][0]["version"], "8.9.7");
  EXPECT_TRUE(doc["results"][1]["resolved"].is_null());
  EXPECT_TRUE(doc["results"][1]["version"].is_null());
  EXPECT_EQ(doc["platform"]["lib"], "lib/x86_64-linux-gnu");
}

TEST(WhichRender, TextInBothLanguages) {
  const sys::ReplaySystem system(testing::linux_snapshot(two_toolkits()));
  const WhichReport report = which_on(system, {"libcudnn.so.8", "libx.so"});
  const std::string en = report::render_which_text(report, testing::messages(kb::Lang::en), false);
  EXPECT_NE(en.find("libcudnn.so.8 → /usr/local/cuda-11.8/lib64/libcudnn.so.8"), std::string::npos)
      << en;
  EXPECT_NE(en.find("version 8.6.0"), std::string::npos);
  EXPECT_NE(en.find("no such directory"), std::string::npos);
  EXPECT_NE(en.find("shadowed"), std::string::npos);
  EXPECT_NE(en.find("/usr/local/cuda-12.2/lib64/libcudnn.so.8  version 8.9.7"), std::string::npos);
  EXPECT_NE(en.find("libx.so: nothing would load"), std::string::npos);
  EXPECT_EQ(en.find("which."), std::string::npos) << "a catalog key leaked: " << en;
  const std::string zh = report::render_which_text(report, testing::messages(kb::Lang::zh), false);
  EXPECT_NE(zh.find("版本 8.6.0"), std::string::npos) << zh;
  EXPECT_NE(zh.find("目录不存在"), std::string::npos);
  EXPECT_EQ(zh.find("which."), std::string::npos) << "a catalog key leaked: " << zh;
  EXPECT_EQ(zh.find("shadowed"), std::string::npos);
}

TEST(WhichRender, EveryKeyInBothCatalogs) {
  std::vector<std::string> keys = {"which.loads",      "which.version",      "which.real_path",
                                   "which.not_loaded", "which.searched",     "which.step.found",
                                   "which.shadowed",   "which.later_copies", "which.entry",
                                   "which.hwcaps",     "which.error.from"};
  for (auto source : {Source::path, Source::rpath, Source::ld_library_path, Source::runpath,
                      Source::ld_cache, Source::default_dir})
    keys.push_back("which.why." + std::string(to_string(source)));
  for (auto skip :
       {Skip::no_directory, Skip::no_file, Skip::wrong_class, Skip::wrong_machine, Skip::unreadable,
        Skip::not_regular, Skip::not_elf, Skip::origin_unknown, Skip::no_cache, Skip::not_in_cache})
    keys.push_back("which.skip." + std::string(to_string(skip)));
  const auto en = kb::Messages::load(testing::embedded_kb(), kb::Lang::en);
  const auto zh_table = testing::embedded_kb().table("messages/zh-CN");
  ASSERT_TRUE(zh_table.ok());
  for (const auto& key : keys) {
    EXPECT_TRUE(en->has(key)) << key;
    bool in_zh = false;
    for (size_t row = 0; row < (*zh_table)->size(); ++row)
      in_zh = in_zh || (*zh_table)->cell(row, "key") == key;
    EXPECT_TRUE(in_zh) << key;
  }
}

}  // namespace
}  // namespace gpuvet::resolve
