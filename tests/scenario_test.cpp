// The scenario harness: every directory under tests/scenarios/ holds a snapshot.json (a machine)
// and an expected.json (what gpuvet must say about it). Adding a scenario means adding two files.
//
// expected.json:
//   "present": [{"id": ..., "severity": ...}]  findings that must be there, with that severity
//   "absent":  ["id", ...]                     findings that must not be there
//   "facts":   {"/json/pointer": value}        selected values of the check --json "facts"
//   "summary": {"errors": N, ...}              selected values of "summary" (optional)
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/app.hpp"
#include "system/paths.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(GPUVET_SCENARIO_DIR)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class Scenario : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path dir() const { return fs::path(GPUVET_SCENARIO_DIR) / GetParam(); }
};

TEST_P(Scenario, MatchesExpectations) {
  auto snapshot = sys::load_snapshot_file((dir() / "snapshot.json").string());
  ASSERT_TRUE(snapshot) << snapshot.error().message;
  auto expected_text = paths::read_file((dir() / "expected.json").string(), 1 << 20);
  ASSERT_TRUE(expected_text) << expected_text.error().message;
  const auto expected = nlohmann::json::parse(*expected_text);

  const sys::ReplaySystem system(std::move(*snapshot));
  auto report = cli::diagnose(system, testing::embedded_kb(), testing::messages());
  ASSERT_TRUE(report) << report.error().message;
  const auto actual = nlohmann::json::parse(report::render_json(*report));

  std::map<std::string, std::string> severities;
  for (const auto& f : actual["findings"])
    severities[f["id"]] = f["severity"];
  const auto present = expected.value("present", nlohmann::json::array());
  const auto absent = expected.value("absent", nlohmann::json::array());
  const auto facts = expected.value("facts", nlohmann::json::object());
  const auto summary = expected.value("summary", nlohmann::json::object());
  for (const auto& want : present) {
    const std::string id = want.at("id");
    ASSERT_TRUE(severities.contains(id)) << "missing finding " << id << "\n" << actual.dump(2);
    if (want.contains("severity")) {
      EXPECT_EQ(severities[id], want["severity"]) << id;
    }
  }
  for (const auto& id : absent) {
    EXPECT_FALSE(severities.contains(id)) << "unexpected finding " << id;
  }
  for (const auto& [pointer, value] : facts.items()) {
    const nlohmann::json::json_pointer at(pointer);
    ASSERT_TRUE(actual["facts"].contains(at)) << "no fact at " << pointer;
    EXPECT_EQ(actual["facts"][at], value) << "fact " << pointer;
  }
  for (const auto& [key, value] : summary.items()) {
    EXPECT_EQ(actual["summary"][key], value) << "summary " << key;
  }
}

INSTANTIATE_TEST_SUITE_P(All, Scenario, ::testing::ValuesIn(scenario_names()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (auto& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace gpuvet
