// GPU names as users paste them (tests/fixtures/gpu_names): real strings from public threads,
// resolved to the compute capability NVIDIA gives. dev.csv is what the rules were checked
// against; heldout.csv was split off by a fixed rule and measured once.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kb/csv.hpp"
#include "kb/queries.hpp"
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

}  // namespace
}  // namespace gpuvet::kb
