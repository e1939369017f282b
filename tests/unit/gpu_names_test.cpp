// GPU names as users paste them (tests/fixtures/gpu_names): real strings from public threads,
// resolved to the compute capability NVIDIA gives. dev.csv is what the rules were checked
// against; heldout.csv was split off by a fixed rule and measured once.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kb/csv.hpp"
#include "kb/queries.hpp"
#include "probes/probes.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::kb {
namespace {

struct Score {
  size_t total = 0;
  size_t resolved = 0;
  std::vector<std::string> wrong;
  std::vector<std::string> unresolved;
};

// Resolved: one compute capability answered, and it is the expected one (an ambiguous answer
// counts only when it says the capability all its candidates share). Wrong: another one. An
// empty expected_cc means the string names no GPU and must stay unanswered.
Score score(const std::string& file) {
  std::ifstream in(std::string(GPUVET_SOURCE_DIR) + "/tests/fixtures/gpu_names/" + file);
  std::stringstream text;
  text << in.rdbuf();
  auto table = parse_csv(text.str(), file);
  EXPECT_TRUE(table.ok()) << file;
  Score s;
  if (!table.ok()) return s;
  for (size_t row = 0; row < table->size(); ++row) {
    const std::string& input = table->cell(row, "input");
    const std::string& expected = table->cell(row, "expected_cc");
    auto match = find_gpu(testing::embedded_kb(), input);
    ++s.total;
    const bool answered = match.ok() && !match->compute_capability.empty();
    if (expected.empty()) {
      // A placeholder ("NVIDIA Graphics Device") names no GPU: any answer would be a guess.
      if (answered)
        s.wrong.push_back(input + " -> " + match->compute_capability);
      else
        ++s.resolved;
    } else if (!answered) {
      s.unresolved.push_back(input);
    } else if (match->compute_capability != expected) {
      s.wrong.push_back(input + " -> " + match->compute_capability);
    } else {
      ++s.resolved;
    }
  }
  return s;
}

void expect_resolved(const std::string& file, size_t min_percent) {
  const Score s = score(file);
  ASSERT_GT(s.total, 0u);
  EXPECT_TRUE(s.wrong.empty()) << file << " wrong: " << ::testing::PrintToString(s.wrong);
  EXPECT_GE(s.resolved * 100, s.total * min_percent)
      << file << ": " << s.resolved << "/" << s.total
      << " unresolved: " << ::testing::PrintToString(s.unresolved);
  std::cout << file << ": " << s.resolved << "/" << s.total << " resolved, " << s.wrong.size()
            << " wrong\n";
}

TEST(GpuNames, DevelopmentStringsResolve) {
  expect_resolved("dev.csv", 98);
}

TEST(GpuNames, HeldOutStringsResolve) {
  // Measured once: 16/18, 0 wrong. The two misses are Fermi parts (GeForce 820M, GTX 560 Ti)
  // that data/gpus.csv does not list and no sourced chip rule covers, so their capability is
  // unknown rather than guessed; the 98% target needs the legacy page's Fermi rows first.
  expect_resolved("heldout.csv", 88);
}

TEST(GpuNames, SecondRoundDevelopmentStringsResolve) {
  expect_resolved("dev2.csv", 98);
}

TEST(GpuNames, SecondRoundHeldOutStringsResolve) {
  // Measured blind once, before any rule saw the second round: 17/25, 0 wrong. The misses were
  // all tools' framing around the name (nvidia-smi -L, llama.cpp, TensorFlow 1, PyTorch's
  // sm_XX warning, gpumodeswitch); the rules for those classes came from dev2.csv's same misses.
  expect_resolved("heldout2.csv", 98);
}

TEST(GpuNames, ThirdRoundDevelopmentStringsResolve) {
  expect_resolved("dev3.csv", 98);
}

TEST(GpuNames, ThirdRoundHeldOutStringsResolve) {
  // Measured blind once: 10/15, 0 wrong. The misses were again tools' framing (nvidia-smi's table
  // row, "GPU 0,1,2:", clinfo's "Device Name", torch's _CudaDeviceProperties, a "(chip / 0xID)"
  // detail); the rules came from the same classes' misses in dev3.csv.
  expect_resolved("heldout3.csv", 98);
}

TEST(GpuNames, NearMissesAndIdentifiers) {
  const Kb& kb = testing::embedded_kb();
  auto plain = find_gpu(kb, "GeForce GTX 1650");
  ASSERT_TRUE(plain.ok());
  ASSERT_FALSE(plain->rows.empty());
  EXPECT_EQ(plain->rows.front().get("name").find("Ti"), std::string::npos);
  auto id = find_gpu(kb, "PCI\\VEN_10DE&DEV_2504&SUBSYS_397D1462&REV_A1");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->matched_by, "pci_id");
  EXPECT_EQ(id->compute_capability, "8.6");
  auto cut = find_gpu(kb, "NVIDIA A100-SXM...");
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->matched_by, "prefix");
  EXPECT_EQ(cut->compute_capability, "8.0");
  auto partial = find_gpu(kb, "3060");
  ASSERT_TRUE(partial.ok());
  EXPECT_GT(partial->candidates.size(), 1u);
  EXPECT_EQ(partial->compute_capability, "8.6");
  EXPECT_EQ(gpu_key("NVIDIA GeForce GTX 1650Ti (TM)"), "gtx 1650 ti");
  EXPECT_EQ(parse_gpu_query("0x2504").device_id, "2504");
}

// A GPU that no driver answers for (nouveau bound, or nothing) is still named, from its PCI id.
TEST(GpuNames, TheProbeNamesAGpuWithoutADriverFromItsPciId) {
  const std::string dir = "/sys/bus/pci/devices/0000:01:00.0";
  const sys::ReplaySystem system(
      testing::linux_snapshot({{"files",
                                {{dir + "/vendor", {{"text", "0x10de\n"}}},
                                 {dir + "/device", {{"text", "0x2504\n"}}},
                                 {dir + "/class", {{"text", "0x030000\n"}}},
                                 {dir + "/driver", {{"link", "/sys/bus/pci/drivers/nouveau"}}},
                                 {"/sys/bus/pci/drivers/nouveau", {{"dir", true}}}}}}));
  const Facts facts = probes::collect_facts(system, testing::embedded_kb());
  ASSERT_EQ(facts.hardware.pci_gpus.size(), 1u);
  const PciGpuFact& gpu = facts.hardware.pci_gpus.front();
  EXPECT_EQ(gpu.pci_id, "10DE:2504");
  EXPECT_EQ(gpu.kernel_driver, "nouveau");
  ASSERT_TRUE(gpu.name);
  EXPECT_NE(gpu.name->find("RTX 3060"), std::string::npos) << *gpu.name;
  EXPECT_EQ(gpu.compute_capability, "8.6");
}

// An old driver names its GPUs but not their capability: the table completes it.
TEST(GpuNames, TheProbeCompletesACapabilityTheDriverDidNotReport) {
  const sys::ReplaySystem system(testing::linux_snapshot(
      {{"driver", {{"installed", true}, {"version", "470.82.01"}}},
       {"gpus",
        {{{"index", 0}, {"name", "Tesla K80"}},
         {{"index", 1}, {"name", "unnamed"}, {"pci_id", "10DE:1EB8"}},
         {{"index", 2}, {"name", "NVIDIA Graphics Device"}},
         {{"index", 3}, {"name", "Tesla T4"}, {"compute_capability", "7.5"}}}}}));
  const Facts facts = probes::collect_facts(system, testing::embedded_kb());
  ASSERT_EQ(facts.gpus.size(), 4u);
  EXPECT_EQ(facts.gpus[0].compute_capability, "3.7");
  EXPECT_EQ(facts.gpus[1].compute_capability, "7.5") << "by its PCI id (Tesla T4)";
  EXPECT_FALSE(facts.gpus[2].compute_capability) << "a placeholder name stays unknown";
  EXPECT_EQ(facts.gpus[3].compute_capability, "7.5");
}

}  // namespace
}  // namespace gpuvet::kb
