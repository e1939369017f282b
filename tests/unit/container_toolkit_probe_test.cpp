// The NVIDIA Container Toolkit's release as its tools print it, and the known bugs of that release
// (data/known_release_bugs.csv) that `gpuvet check` then reports.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "checks/checks.hpp"
#include "probes/probes.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

using nlohmann::json;

const json kProgram = {{"size", 4096}};
const json kPath = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}};

Facts probe(const json& files, const json& programs, const json& host = {}) {
  json doc = {{"files", files}, {"env", kPath}, {"programs", programs}};
  if (!host.is_null()) doc["host"] = host;
  const sys::ReplaySystem system(testing::linux_snapshot(doc));
  return collect_facts(system);
}

json ctk_says(const std::string& output) {
  return {{"/usr/bin/nvidia-ctk --version", {{"exit", 0}, {"output", output}}}};
}

TEST(ContainerToolkitProbe, NvidiaCtkTellsItsRelease) {
  const Facts facts =
      probe({{"/usr/bin/nvidia-ctk", kProgram}},
            ctk_says("NVIDIA Container Toolkit CLI version 1.18.0\ncommit: 0e754442\n"));
  ASSERT_TRUE(facts.container_toolkit.has_value());
  EXPECT_EQ(facts.container_toolkit->program, "/usr/bin/nvidia-ctk");
  EXPECT_EQ(facts.container_toolkit->version, "1.18.0");
}

// Before nvidia-ctk (1.11) the runtime says it, after runc's lines.
TEST(ContainerToolkitProbe, TheRuntimeTellsItWithoutNvidiaCtk) {
  const Facts facts = probe({{"/usr/bin/nvidia-container-runtime", kProgram}},
                            {{"/usr/bin/nvidia-container-runtime --version",
                              {{"exit", 0},
                               {"output",
                                "runc version 1.0.0-rc10\nspec: 1.0.1-dev\n"
                                "NVIDIA Container Runtime version 1.5.1\n"}}}});
  ASSERT_TRUE(facts.container_toolkit.has_value());
  EXPECT_EQ(facts.container_toolkit->program, "/usr/bin/nvidia-container-runtime");
  EXPECT_EQ(facts.container_toolkit->version, "1.5.1");
}

// A tool that fails or prints no release leaves the release unknown; no tool, no toolkit.
TEST(ContainerToolkitProbe, NoReleaseWithoutItsWords) {
  Facts facts = probe({{"/usr/bin/nvidia-ctk", kProgram}},
                      {{"/usr/bin/nvidia-ctk --version", {{"exit", 1}, {"output", "error\n"}}}});
  ASSERT_TRUE(facts.container_toolkit.has_value());
  EXPECT_FALSE(facts.container_toolkit->version.has_value());
  facts = probe({{"/usr/bin/nvidia-ctk", kProgram}}, ctk_says("version 1.18.0\n"));
  ASSERT_TRUE(facts.container_toolkit.has_value());
  EXPECT_FALSE(facts.container_toolkit->version.has_value());
  facts = probe(json::object(), json::object());
  EXPECT_FALSE(facts.container_toolkit.has_value());
}

std::vector<Finding> known_bugs_of(const Facts& facts) {
  const checks::CheckContext context(facts, testing::embedded_kb(), testing::messages());
  std::vector<Finding> findings;
  EXPECT_TRUE(checks::check_known_release_bugs(context, findings).ok());
  return findings;
}

// 1.18.0 has two known bugs, 1.14.0 one; 1.18.1 and 1.17.9 none that the table knows.
TEST(ContainerToolkitProbe, ItsKnownBugsAreFindingsOfTheHost) {
  auto findings = known_bugs_of(probe({{"/usr/bin/nvidia-ctk", kProgram}},
                                      ctk_says("NVIDIA Container Toolkit CLI version 1.18.0\n")));
  ASSERT_EQ(findings.size(), 2u);
  for (const auto& f : findings) {
    EXPECT_EQ(f.id, "container.toolkit_known_bug");
    EXPECT_EQ(f.severity, Severity::info);
    EXPECT_EQ(f.layer, Layer::driver);
    EXPECT_TRUE(f.affects.empty());  // the whole host
    ASSERT_FALSE(f.evidence.empty());
    EXPECT_NE(
        f.evidence[0].find("/usr/bin/nvidia-ctk --version reports NVIDIA Container Toolkit 1.18.0"),
        std::string::npos)
        << f.evidence[0];
  }
  EXPECT_NE(findings[0].fix[0].find("1.18.1 or later"), std::string::npos) << findings[0].fix[0];
  EXPECT_NE(findings[1].fix[0].find("go back to NVIDIA Container Toolkit 1.17.9"),
            std::string::npos)
      << findings[1].fix[0];

  findings = known_bugs_of(probe({{"/usr/bin/nvidia-ctk", kProgram}},
                                 ctk_says("NVIDIA Container Toolkit CLI version 1.14.0\n")));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].details.at("signature"), "ctk_hook_ignores_config_devices");

  // 1.17.0's legacy images with IMEX channel "all": every such container fails, a warning.
  findings = known_bugs_of(probe({{"/usr/bin/nvidia-ctk", kProgram}},
                                 ctk_says("NVIDIA Container Toolkit CLI version 1.17.0\n")));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_NE(findings[0].fix[0].find("1.17.2 or later"), std::string::npos) << findings[0].fix[0];
  EXPECT_NE(findings[0].fix[0].find("1.16.2"), std::string::npos) << findings[0].fix[0];

  for (const char* release : {"1.18.1", "1.17.9", "1.14.1", "1.17.2"}) {
    EXPECT_TRUE(known_bugs_of(probe({{"/usr/bin/nvidia-ctk", kProgram}},
                                    ctk_says(std::string("NVIDIA Container Toolkit CLI version ") +
                                             release + "\n")))
                    .empty())
        << release;
  }
}

}  // namespace
}  // namespace gpuvet::probes
