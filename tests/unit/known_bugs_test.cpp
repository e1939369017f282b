// Known release bugs (data/known_release_bugs.csv): the line a bug prints names it, and the
// release the log shows decides.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "core/version.hpp"
#include "explain/known_bugs.hpp"
#include "explain_support.hpp"
#include "kb/known_bugs.hpp"

namespace gpuvet::explain {
namespace {

using testing::explain_by_signatures;

const Cause* find_cause(const std::vector<Cause>& causes, const std::string& id) {
  const auto it =
      std::find_if(causes.begin(), causes.end(), [&](const Cause& c) { return c.id == id; });
  return it == causes.end() ? nullptr : &*it;
}

std::string fix_text(const Cause& c) {
  std::string text;
  for (const auto& fix : c.fix)
    text += fix + "\n";
  return text;
}

// Every row is a sourced fact about a signature of a known-bug cause, its releases in order: the
// last good before the first affected, the fix after the last affected, and at least one of them
// known (the answer is another release).
TEST(KnownReleaseBugs, EveryRowIsSourcedAndItsReleasesOrdered) {
  const auto& table = testing::kb_table("known_release_bugs");
  ASSERT_GT(table.size(), 0u);
  std::set<std::string> rows;
  for (size_t row = 0; row < table.size(); ++row) {
    const std::string where = "known_release_bugs.csv:" + std::to_string(table.line_of(row));
    const auto cell = [&](const char* column) { return table.cell(row, column); };
    const auto& all = testing::signatures().all();
    const auto signature = std::find_if(
        all.begin(), all.end(), [&](const Signature& s) { return s.id == cell("signature"); });
    ASSERT_NE(signature, all.end()) << where;
    EXPECT_TRUE(is_known_bug_cause(signature->cause)) << where;
    EXPECT_TRUE(rows.insert(cell("signature")).second) << where << " repeats its signature";
    EXPECT_FALSE(cell("component").empty()) << where;
    EXPECT_FALSE(cell("name").empty()) << where;
    EXPECT_NE(cell("source").find("https://"), std::string::npos) << where;
    EXPECT_TRUE(cell("needs_version") == "yes" || cell("needs_version") == "no") << where;
    EXPECT_TRUE(version::is_dotted(cell("first_affected"))) << where;
    for (const char* column : {"last_affected", "last_good", "fixed_in"}) {
      EXPECT_TRUE(cell(column).empty() || version::is_dotted(cell(column))) << where << column;
    }
    EXPECT_FALSE(cell("last_good").empty() && cell("fixed_in").empty()) << where;
    if (!cell("last_affected").empty()) {
      EXPECT_LE(version::compare(cell("first_affected"), cell("last_affected")), 0) << where;
    }
    if (!cell("fixed_in").empty()) {
      const std::string last =
          cell("last_affected").empty() ? cell("first_affected") : cell("last_affected");
      EXPECT_LT(version::compare(last, cell("fixed_in")), 0) << where;
    }
    if (!cell("last_good").empty()) {
      EXPECT_LT(version::compare(cell("last_good"), cell("first_affected")), 0) << where;
    }
  }
  // And every known-bug signature has its row: without its releases it would name no release.
  for (const auto& s : testing::signatures().all()) {
    if (is_known_bug_cause(s.cause)) {
      EXPECT_TRUE(rows.contains(s.id)) << s.id;
    }
  }
}

const std::string kJaxLine =
    "CUDA backend failed to initialize: jaxlib/cuda/versions_helpers.cc:90: operation "
    "gpuDeviceGetAttribute( &major, GPU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) "
    "failed: CUDA_ERROR_NOT_INITIALIZED (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n";

// A line only the bug prints names it with or without the release; a release it affects confirms
// it, one it does not affect rules it out.
TEST(KnownReleaseBugs, TheReleaseTheLogShowsDecides) {
  auto causes = explain_by_signatures(kJaxLine);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "framework.known_bug");
  EXPECT_FALSE(causes[0].captures.contains("version"));
  EXPECT_NE(causes[0].why.find("does not say which release"), std::string::npos) << causes[0].why;
  EXPECT_NE(causes[0].why.find("0.4.26"), std::string::npos) << causes[0].why;
  EXPECT_NE(fix_text(causes[0]).find("jaxlib 0.4.27 or later"), std::string::npos);
  EXPECT_NE(fix_text(causes[0]).find("0.4.25"), std::string::npos);

  causes = explain_by_signatures("jaxlib                    0.4.26\n" + kJaxLine);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "framework.known_bug");
  EXPECT_GE(causes[0].confidence, 0.95);
  EXPECT_EQ(causes[0].captures["version"], "0.4.26");
  EXPECT_NE(causes[0].why.find("jaxlib 0.4.26 is a release with a bug"), std::string::npos)
      << causes[0].why;
  // The line where the log shows the release is evidence too.
  EXPECT_TRUE(std::any_of(causes[0].evidence.begin(), causes[0].evidence.end(),
                          [](const Evidence& e) { return e.line == 1; }));

  causes = explain_by_signatures("jaxlib==0.4.27\n" + kJaxLine);
  EXPECT_EQ(find_cause(causes, "framework.known_bug"), nullptr);
}

const std::string kFbgemmLine =
    "OSError: [WinError 126] The specified module could not be found. Error loading "
    "\"C:\\Python311\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n";

// A line other causes print too is the bug only where the log shows an affected release: then
// the other readings of the line follow from it.
TEST(KnownReleaseBugs, ALineOthersPrintTooNeedsTheRelease) {
  auto causes = explain_by_signatures(kFbgemmLine);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "msvc.runtime_missing");
  const Cause* bug = find_cause(causes, "framework.known_bug");
  ASSERT_NE(bug, nullptr);
  EXPECT_TRUE(bug->alternative);

  causes = explain_by_signatures("torch==2.4.0\n" + kFbgemmLine);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "framework.known_bug");
  EXPECT_FALSE(causes[0].alternative);
  EXPECT_NE(fix_text(causes[0]).find("PyTorch 2.4.1 or later"), std::string::npos);
  EXPECT_NE(fix_text(causes[0]).find("2.3.1"), std::string::npos);
  EXPECT_NE(causes[0].why.find("libomp140.x86_64.dll"), std::string::npos) << causes[0].why;
  const Cause* runtime = find_cause(causes, "msvc.runtime_missing");
  ASSERT_NE(runtime, nullptr);
  EXPECT_TRUE(runtime->alternative);

  causes = explain_by_signatures("torch==2.3.1\n" + kFbgemmLine);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "msvc.runtime_missing");
  EXPECT_EQ(find_cause(causes, "framework.known_bug"), nullptr);
}

// On the log's own machine, the checks' finding of the very bug installed decides as a release in
// the log would; a finding of another bug of the same cause decides nothing.
TEST(KnownReleaseBugs, TheMachinesInstalledReleaseDecidesOnItsOwnLog) {
  const auto machine_with = [](const std::string& signature, const std::string& version) {
    Finding installed;
    installed.id = "framework.known_bug";
    installed.severity = Severity::warning;
    installed.title = "PyTorch " + version + " is a release with a bug its maintainers confirmed";
    installed.evidence = {"torch " + version + " is installed in C:\\venv"};
    installed.details = {{"signature", signature}, {"version", version}};
    return MachineFindings{{installed}, "windows"};
  };
  auto causes =
      explain_by_signatures(kFbgemmLine, machine_with("torch_fbgemm_needs_libomp", "2.4.0"));
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "framework.known_bug");
  EXPECT_EQ(causes[0].confirmed_by_facts, true);
  EXPECT_EQ(causes[0].captures["version"], "2.4.0");
  EXPECT_NE(causes[0].why.find("This machine's facts show it too"), std::string::npos)
      << causes[0].why;

  causes =
      explain_by_signatures(kFbgemmLine, machine_with("jaxlib_cc_query_before_cuinit", "0.4.26"));
  ASSERT_FALSE(causes.empty());
  EXPECT_NE(causes[0].id, "framework.known_bug");
  const Cause* bug = find_cause(causes, "framework.known_bug");
  ASSERT_NE(bug, nullptr);
  EXPECT_TRUE(bug->alternative);
  EXPECT_NE(bug->confirmed_by_facts, true);
  EXPECT_EQ(bug->why.find("This machine's facts show it too"), std::string::npos) << bug->why;
}

const std::string kRootlessLine =
    "nvidia-container-cli: mount error: failed to add device rules: unable to find any existing "
    "device filters attached to the cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation "
    "not permitted: unknown.\n";

// The container toolkit's release as nvidia-ctk, dpkg and rpm print it.
TEST(KnownReleaseBugs, TheToolkitsReleaseIsReadAsItsToolsPrintIt) {
  for (const std::string release :
       {"NVIDIA Container Toolkit CLI version 1.18.0\ncommit: 0e754442\n",
        "ii  nvidia-container-toolkit      1.18.0-1      amd64   NVIDIA Container toolkit\n",
        "nvidia-container-toolkit-1.18.0-1.x86_64\n"}) {
    const auto causes = explain_by_signatures(release + kRootlessLine);
    ASSERT_FALSE(causes.empty()) << release;
    EXPECT_EQ(causes[0].id, "container.toolkit_known_bug") << release;
    EXPECT_NE(fix_text(causes[0]).find("1.17.9"), std::string::npos) << release;
  }
  // Without the release, or with one before the bug, the setup is what to look at first.
  for (const std::string& release :
       {std::string(), std::string("NVIDIA Container Toolkit CLI version 1.17.8\n")}) {
    const auto causes = explain_by_signatures(release + kRootlessLine);
    ASSERT_FALSE(causes.empty()) << release;
    EXPECT_EQ(causes[0].id, "container.no_gpu_access") << release;
  }
}

// After the last release known to have the bug, with no fix known, the release decides nothing:
// the line's other readings come first, and the why says so.
TEST(KnownReleaseBugs, AReleaseAfterTheLastKnownAffectedIsUndecided) {
  const auto causes =
      explain_by_signatures("NVIDIA Container Toolkit CLI version 1.18.1\n" + kRootlessLine);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "container.no_gpu_access");
  const Cause* bug = find_cause(causes, "container.toolkit_known_bug");
  ASSERT_NE(bug, nullptr);
  EXPECT_TRUE(bug->alternative);
  EXPECT_NE(bug->why.find("The log shows release 1.18.1"), std::string::npos) << bug->why;
  EXPECT_NE(bug->why.find("release 1.18.0 (later ones: not known)"), std::string::npos) << bug->why;
  // Its own text says it is one reading; not the words for another thread's cause.
  EXPECT_EQ(bug->why.find("threads with the same message"), std::string::npos) << bug->why;
}

// What a row says of a release: three answers, not two.
TEST(KnownReleaseBugs, ARowSaysAffectedUnaffectedOrNotKnown) {
  const auto row = [](const char* first, const char* last, const char* fixed) {
    return kb::Row{"known_release_bugs",
                   {{"first_affected", first}, {"last_affected", last}, {"fixed_in", fixed}}};
  };
  using kb::BugRelease;
  const auto fixed = row("2.5.0", "", "2.6.0");
  EXPECT_EQ(kb::bug_release(fixed, "2.4.3"), BugRelease::unaffected);
  EXPECT_EQ(kb::bug_release(fixed, "2.5.0"), BugRelease::affected);
  EXPECT_EQ(kb::bug_release(fixed, "2.5.3+cu121"), BugRelease::affected);
  EXPECT_EQ(kb::bug_release(fixed, "v2.6.0"), BugRelease::unaffected);
  const auto span = row("0.1.19", "0.1.19", "");
  EXPECT_EQ(kb::bug_release(span, "0.1.19"), BugRelease::affected);
  EXPECT_EQ(kb::bug_release(span, "0.1.20"), BugRelease::unknown);
  const auto open = row("1.18.0", "", "");
  EXPECT_EQ(kb::bug_release(open, "1.18.0-1"), BugRelease::affected);
  EXPECT_EQ(kb::bug_release(open, "1.18.1"), BugRelease::unknown);
  EXPECT_EQ(kb::bug_release(open, "1.17.9"), BugRelease::unaffected);
  EXPECT_EQ(kb::bug_release(open, "nightly"), BugRelease::unknown);
}

// libnvidia-container's debug log names its release; a pre-release counts as its release.
TEST(KnownReleaseBugs, LibnvidiaContainersDebugLogNamesItsRelease) {
  explain::Collector collector(testing::signatures(), nullptr);
  collector.on_line(1,
                    "I0814 19:23:08.008628 12076 nvc.c:372] initializing library context "
                    "(version=1.5.0~rc.1, build=5884d4232da9109423f55e79d57df264991c27cf)");
  collector.on_line(2, "ollama version is 0.1.19");
  collector.on_line(3, "gpu-st-ml-2:49542:49542 [0] NCCL INFO NCCL version 2.29.2+cuda12.8");
  const auto& versions = collector.log_facts().versions;
  ASSERT_TRUE(versions.contains("libnvidia-container"));
  EXPECT_EQ(versions.at("libnvidia-container").version, "1.5.0");
  ASSERT_TRUE(versions.contains("ollama"));
  EXPECT_EQ(versions.at("ollama").version, "0.1.19");
  ASSERT_TRUE(versions.contains("nccl"));
  EXPECT_EQ(versions.at("nccl").version, "2.29.2");
}

// Every text a known bug can be said with exists in Chinese too.
TEST(KnownReleaseBugs, TheirTextsAreTranslated) {
  const auto zh = kb::Messages::load(testing::embedded_kb(), kb::Lang::zh);
  ASSERT_TRUE(zh.ok());
  const auto& table = testing::kb_table("known_release_bugs");
  for (size_t row = 0; row < table.size(); ++row) {
    const std::string key = "explain.bug." + table.cell(row, "signature");
    EXPECT_TRUE(testing::messages().has(key)) << key;
    EXPECT_TRUE(zh->has(key)) << key;
  }
  for (const char* cause :
       {"framework.known_bug", "driver.known_bug", "container.toolkit_known_bug"}) {
    for (const std::string part : {"why.", "fix."}) {
      for (const std::string variant : {"", ".without_package", ".without_fixed_in"}) {
        if (part == "why." && variant == ".without_fixed_in") continue;
        const std::string key = "explain." + part + cause + variant;
        EXPECT_TRUE(testing::messages().has(key)) << key;
        EXPECT_TRUE(zh->has(key)) << key;
      }
    }
  }
}

}  // namespace
}  // namespace gpuvet::explain
