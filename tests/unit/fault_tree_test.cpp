#include <gtest/gtest.h>

#include <map>
#include <set>

#include "checks/checks.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

namespace gpuvet::checks {
namespace {

Finding make(std::string id, Layer layer, Severity severity,
             std::vector<std::string> affects = {}) {
  Finding f;
  f.id = std::move(id);
  f.layer = layer;
  f.severity = severity;
  f.affects = std::move(affects);
  return f;
}

std::vector<Finding> marked(std::vector<Finding> findings) {
  auto ok = mark_what_follows(testing::embedded_kb(), findings);
  EXPECT_TRUE(ok) << ok.error().message;
  return findings;
}

TEST(FaultTree, ShadowedCopyDoesNotFollowFromNoGpu) {
  const auto f = marked({make("gpu.none", Layer::hardware, Severity::error),
                         make("lib.shadowed_copy", Layer::cuda, Severity::warning)});
  EXPECT_FALSE(f[1].follows_from);
}

TEST(FaultTree, LogLevelDoesNotFollowFromHiddenGpu) {
  const auto f = marked({make("gpu.not_visible", Layer::hardware, Severity::error),
                         make("cuda.path_order", Layer::cuda, Severity::warning),
                         make("env.log_level_hides_errors", Layer::framework, Severity::warning)});
  EXPECT_FALSE(f[1].follows_from);
  EXPECT_FALSE(f[2].follows_from);
}

TEST(FaultTree, MissingDriverExplainsWhatNeedsIt) {
  const auto f = marked({make("gpu.none", Layer::hardware, Severity::error),
                         make("driver.missing", Layer::driver, Severity::error)});
  EXPECT_EQ(f[1].follows_from.value_or(""), "gpu.none");
}

TEST(FaultTree, PathOrderExplainsTheWrongCudnnOfAnEnvironment) {
  const auto f = marked({make("cuda.path_order", Layer::cuda, Severity::warning),
                         make("cudnn.version_mismatch", Layer::cudnn, Severity::error, {"/env"})});
  EXPECT_EQ(f[1].follows_from.value_or(""), "cuda.path_order");
}

TEST(FaultTree, AnEnvironmentsCauseExplainsOnlyThatEnvironment) {
  const auto f = marked(
      {make("framework.windows_native_gpu_unsupported", Layer::framework, Severity::error, {"/a"}),
       make("framework.cpu_only_build", Layer::framework, Severity::warning, {"/b"}),
       make("framework.cpu_only_build", Layer::framework, Severity::warning, {"/a"})});
  EXPECT_FALSE(f[1].follows_from);
  EXPECT_EQ(f[2].follows_from.value_or(""), "framework.windows_native_gpu_unsupported");
}

TEST(FaultTree, InformationExplainsNothing) {
  const auto f = marked({make("gpu.none", Layer::hardware, Severity::info),
                         make("driver.missing", Layer::driver, Severity::error)});
  EXPECT_FALSE(f[1].follows_from);
}

// Every row names two ids of the taxonomy, and no chain leads back to where it started.
TEST(FaultTree, RowsNameKnownIdsAndFormNoCycle) {
  const auto& kb = testing::embedded_kb();
  auto tree = kb.table("fault_tree");
  auto taxonomy = kb.table("taxonomy");
  ASSERT_TRUE(tree && taxonomy);
  std::set<std::string> ids;
  for (size_t row = 0; row < (*taxonomy)->size(); ++row)
    ids.insert((*taxonomy)->cell(row, "id"));
  std::map<std::string, std::set<std::string>> edges;
  for (size_t row = 0; row < (*tree)->size(); ++row) {
    const std::string& cause = (*tree)->cell(row, "cause");
    const std::string& consequence = (*tree)->cell(row, "consequence");
    EXPECT_TRUE(ids.count(cause)) << cause;
    EXPECT_TRUE(ids.count(consequence)) << consequence;
    EXPECT_NE(cause, consequence);
    edges[cause].insert(consequence);
  }
  for (const auto& [start, next] : edges) {
    std::set<std::string> seen;
    std::vector<std::string> todo(next.begin(), next.end());
    while (!todo.empty()) {
      const std::string id = todo.back();
      todo.pop_back();
      ASSERT_NE(id, start) << "cycle through " << start;
      if (!seen.insert(id).second) continue;
      for (const auto& n : edges[id])
        todo.push_back(n);
    }
  }
}

TEST(FaultTree, TheCauseIsFixedFirstEvenWhenOnlyWhatFollowsIsAnError) {
  const auto f = marked({make("cuda.path_order", Layer::cuda, Severity::warning),
                         make("cudnn.version_mismatch", Layer::cudnn, Severity::error, {"/env"}),
                         make("msvc.runtime_missing", Layer::python, Severity::error, {"/env"})});
  const auto order = report::findings_to_fix(f);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0]->id, "cuda.path_order");
  EXPECT_EQ(order[1]->id, "msvc.runtime_missing");
  EXPECT_EQ(order[2]->id, "cudnn.version_mismatch");
  EXPECT_EQ(report::chain_of(*order[0], f), "cuda.path_order → cudnn.version_mismatch");
}

}  // namespace
}  // namespace gpuvet::checks
