// What users see of the knowledge base's provenance: public sources only. The data keeps, for
// maintainers, references to notes outside the repository (shared/reference/…), repository
// files and full commit hashes; no table hands them to a renderer.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/paths.hpp"
#include "kb/csv.hpp"
#include "kb/sources.hpp"
#include "pipeline/diagnose.hpp"
#include "plan/plan.hpp"
#include "report/render_plan.hpp"
#include "report/report.hpp"
#include "system/replay_system.hpp"
#include "system/snapshot.hpp"
#include "test_support.hpp"

namespace gpuvet::kb {
namespace {

namespace fs = std::filesystem;

// What no user-facing text may hold: shared/, reference/ (as a path of its own: a URL's
// /reference/ is a public page), tests/explain_corpus, or a 40-digit commit hash.
std::string leak_in(const std::string& text) {
  for (const std::string marker : {"shared/", "reference/", "tests/explain_corpus"}) {
    for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
      if (at == 0 || text[at - 1] != '/') return text.substr(at, 80);
    }
  }
  size_t run = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    run = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ? run + 1 : 0;
    if (run == 40) return text.substr(i - 39, 60);
  }
  return "";
}

TEST(PublicText, LeavesOutInternalItemsAndKeepsThePublicOnes) {
  EXPECT_EQ(public_text("https://x.org/a; shared/reference/tensorflow_facts.md §5"),
            "https://x.org/a");
  EXPECT_EQ(public_text("shared/design/TAXONOMY.md; https://x.org/a (b; c)"),
            "https://x.org/a (b; c)");
  EXPECT_EQ(public_text("tensorflow/core/x.cc (MinLogLevelFromEnv; shared/reference/tf.md §7)"),
            "tensorflow/core/x.cc (MinLogLevelFromEnv)");
  EXPECT_EQ(public_text("tensorflow/x.cc (IsSourceCompatible) via shared/reference/tf.md §9; "
                        "https://docs.nvidia.com/y"),
            "tensorflow/x.cc (IsSourceCompatible); https://docs.nvidia.com/y");
  EXPECT_EQ(public_text("https://a.org (rows 8.3.0; shared/reference/c.csv (8.3.0 rows))"),
            "https://a.org (rows 8.3.0)");
  EXPECT_EQ(public_text("data/cudnn_windows_dlls.csv (zlibwapi); tests/explain_corpus; https://z"),
            "data/cudnn_windows_dlls.csv (zlibwapi); https://z");
  EXPECT_EQ(public_text("shared/design/TAXONOMY.md"), "");
  EXPECT_EQ(public_text("https://docs.python.org/3/reference/import.html"),
            "https://docs.python.org/3/reference/import.html");
  EXPECT_EQ(public_text("nothing to do here"), "nothing to do here");
}

TEST(PublicText, CommitsCitedByHashBecomeGitHubUrls) {
  const std::string hash = "0071ad1d1f9e35ead7169c50dbe754ce5c27cae1";
  EXPECT_EQ(public_text("tensorflow/tensorflow .bazelrc@" + hash),
            "https://github.com/tensorflow/tensorflow/blob/0071ad1d1f9e/.bazelrc");
  EXPECT_EQ(public_text("tensorflow/docs site/en/install/source.md@" + hash + " (https://t.org)"),
            "https://github.com/tensorflow/docs/blob/0071ad1d1f9e/site/en/install/source.md "
            "(https://t.org)");
  EXPECT_EQ(public_text("jax-ml/jax@" + hash + " (jax-v0.5.2): setup.py"),
            "https://github.com/jax-ml/jax/tree/0071ad1d1f9e (jax-v0.5.2): setup.py");
  EXPECT_EQ(public_text("row added by tensorflow/docs commit " + hash + " (2025-03-18)"),
            "row added by https://github.com/tensorflow/docs/commit/0071ad1d1f9e (2025-03-18)");
  EXPECT_EQ(public_text("tensorflow/tensorflow/.bazelrc (commit " + hash + ")"),
            "https://github.com/tensorflow/tensorflow/blob/0071ad1d1f9e/.bazelrc");
  EXPECT_EQ(public_text("https://github.com/llvm/llvm-project/commit/" + hash),
            "https://github.com/llvm/llvm-project/commit/0071ad1d1f9e");
  EXPECT_EQ(public_text("PaddlePaddle/docs docs/install/pip/windows-pip.md @025b8b19 (2.6.1)"),
            "https://github.com/PaddlePaddle/docs/blob/025b8b19/docs/install/pip/windows-pip.md "
            "(2.6.1)");
  EXPECT_EQ(public_text("a lone " + hash), "a lone 0071ad1d1f9e");
  EXPECT_TRUE(cites_internal("x " + hash));
  EXPECT_FALSE(cites_internal("https://github.com/a/b/blob/0071ad1d1f9e/c"));
}

// Every table, every source and note, as the knowledge base hands it out: nothing internal, and a
// row whose data has a source still has one users can follow.
TEST(PublicSources, EveryTableHandsOutOnlyPublicSourcesAndNotes) {
  const auto& kb = testing::embedded_kb();
  size_t cells = 0;
  size_t rewritten = 0;
  for (const auto& name : kb.table_names()) {
    if (name.starts_with("messages/")) continue;
    const Table& t = testing::kb_table(name);
    auto raw_text =
        paths::read_file(std::string(GPUVET_SOURCE_DIR) + "/data/" + name + ".csv", 8 << 20);
    ASSERT_TRUE(raw_text) << name;
    auto raw = parse_csv(*raw_text, name);
    ASSERT_TRUE(raw) << name;
    ASSERT_EQ(raw->size(), t.size()) << name;
    for (const char* column : {"source", "notes"}) {
      if (!t.has_column(column)) continue;
      for (size_t row = 0; row < t.size(); ++row) {
        const std::string& shown = t.cell(row, column);
        const std::string& data = raw->cell(row, column);
        ++cells;
        if (shown != data) ++rewritten;
        EXPECT_EQ(leak_in(shown), "")
            << "data/" << name << ".csv:" << t.line_of(row) << " " << column << ": " << shown;
        EXPECT_FALSE(cites_internal(shown)) << name << ":" << t.line_of(row) << " " << shown;
        if (std::string(column) == "source" && !data.empty()) {
          EXPECT_FALSE(shown.empty())
              << "data/" << name << ".csv:" << t.line_of(row)
              << ": only internal references; add the public primary source: " << data;
        }
      }
    }
  }
  EXPECT_GT(cells, 1000u);
  EXPECT_GT(rewritten, 100u) << "the data keeps its internal references for maintainers";
}

// And end to end: what check and plan print (text and JSON) over the scenarios and the plans.
TEST(PublicSources, NothingInternalReachesCheckOrPlanOutput) {
  for (const auto& entry : fs::directory_iterator(GPUVET_SCENARIO_DIR)) {
    if (!entry.is_directory()) continue;
    auto snapshot = sys::load_snapshot_file(paths::from_fs(entry.path() / "snapshot.json"));
    ASSERT_TRUE(snapshot) << entry.path();
    const sys::ReplaySystem system(std::move(*snapshot));
    for (const Lang lang : {Lang::en, Lang::zh}) {
      auto report = pipeline::diagnose(system, testing::embedded_kb(), testing::messages(lang));
      ASSERT_TRUE(report);
      for (const std::string& out :
           {report::render_text(*report, testing::messages(lang), false),
            report::render_json(*report), report::render_md(*report, testing::messages(lang))}) {
        EXPECT_EQ(leak_in(out), "") << entry.path().filename();
      }
    }
  }
  for (const char* framework : {"tensorflow", "torch", "jax", "cupy", "paddle", "onnxruntime"}) {
    for (const char* os : {"linux", "windows", "wsl2"}) {
      plan::Request r;
      r.framework = framework;
      r.os = os;
      r.compute_capability = "8.6";
      r.driver = "550.54";
      auto p = plan::make_plan(r, testing::embedded_kb(), testing::messages());
      ASSERT_TRUE(p) << framework << " " << os;
      EXPECT_EQ(leak_in(report::render_plan_json(*p, "test")), "") << framework << " " << os;
      EXPECT_EQ(leak_in(report::render_plan_text(*p, testing::messages(), false)), "");
      EXPECT_EQ(leak_in(report::render_plan_md(*p, testing::messages())), "");
    }
  }
}

}  // namespace
}  // namespace gpuvet::kb
