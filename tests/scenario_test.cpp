// The scenario harness: every directory under tests/scenarios/ holds a snapshot.json (a machine)
// and an expected.json (what gpuvet must say about it). Adding a scenario means adding two files.
//
// expected.json (docs/development.md, "Scenarios"); every key is one of these, at every level:
//   "description": "..."                        what the machine is (required)
//   "doubt": "..."                              why an expectation below may be wrong (optional)
//   "findings": {"error": [id...],              EXACTLY the ids of the error findings and of the
//                "warning": [id...]}            warning findings, as sets (required, both keys)
//   "summary": {"errors": N, "warnings": N,     the whole "summary" of check --json (required,
//               "gpu_ready": bool}              all three keys)
//   "present": [{"id": ..., "severity": ...}]   findings that must be there (info ones, mostly)
//   "absent":  ["id", ...]                      findings that must not be there, at any severity
//   "facts":   {"/json/pointer": value}         selected values of the check --json "facts"
//   "follows": {"id": "root id" | null}         what each listed finding follows from (null: it
//                                               is a cause of its own); every finding of that id
// Every id must be in data/taxonomy.csv, so a misspelt id is a failure, not a vacuous assertion.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/finding.hpp"
#include "core/paths.hpp"
#include "pipeline/diagnose.hpp"
#include "report/report.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using IdSet = std::set<std::string>;

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(GPUVET_SCENARIO_DIR)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

const IdSet& taxonomy_ids() {
  static const IdSet ids = [] {
    IdSet out;
    const auto& table = testing::kb_table("taxonomy");
    for (size_t row = 0; row < table.size(); ++row)
      out.insert(table.cell(row, "id"));
    return out;
  }();
  return ids;
}

std::string join(const IdSet& ids) {
  std::string out = "[";
  for (const auto& id : ids)
    out += (out.size() > 1 ? ", " : "") + id;
  return out + "]";
}

std::string known_list(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& key : keys)
    out += (out.empty() ? "" : ", ") + key;
  return out;
}

// One expected.json, checked for shape before anything is compared: a key the harness does not
// read, a missing required key, a value of the wrong type or an id outside the taxonomy is a
// problem, reported with where it is.
class Expectation {
 public:
  explicit Expectation(const json& document) { read(document); }

  const std::vector<std::string>& problems() const { return problems_; }

  IdSet errors, warnings;  // findings.error, findings.warning
  json summary = json::object();
  std::vector<std::pair<std::string, std::optional<std::string>>> present;  // id, severity
  IdSet absent;
  std::vector<std::pair<std::string, json>> facts;            // JSON pointer, value
  std::map<std::string, std::optional<std::string>> follows;  // id -> root, nullopt: none

 private:
  void problem(std::string text) { problems_.push_back(std::move(text)); }

  // Every key of `object` must be in `known`; the ones in `required` must be there.
  bool keys(const json& object, const std::string& where, const std::vector<std::string>& known,
            const std::vector<std::string>& required) {
    if (!object.is_object()) {
      problem(where + " must be an object");
      return false;
    }
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        problem("unknown key \"" + key + "\" in " + where + " (known: " + known_list(known) + ")");
      }
    }
    for (const auto& key : required) {
      if (!object.contains(key)) problem("missing key \"" + key + "\" in " + where);
    }
    return true;
  }

  void id(const json& value, const std::string& where, IdSet& into) {
    if (!value.is_string()) {
      problem(where + " must hold finding ids (strings), not " + value.dump());
      return;
    }
    const auto text = value.get<std::string>();
    if (!taxonomy_ids().contains(text)) {
      problem("\"" + text + "\" in " + where + " is no finding id of data/taxonomy.csv");
    }
    if (!into.insert(text).second) problem("\"" + text + "\" is listed twice in " + where);
  }

  void ids(const json& value, const std::string& where, IdSet& into) {
    if (!value.is_array()) {
      problem(where + " must be an array of finding ids");
      return;
    }
    for (const auto& item : value)
      id(item, where, into);
  }

  void read(const json& document) {
    if (!keys(document, "expected.json",
              {"description", "doubt", "findings", "summary", "present", "absent", "facts",
               "follows"},
              {"description", "findings", "summary"})) {
      return;
    }
    for (const char* key : {"description", "doubt"}) {
      if (document.contains(key) &&
          (!document[key].is_string() || document[key].get<std::string>().empty())) {
        problem(std::string("\"") + key + "\" must be a non-empty string");
      }
    }
    if (document.contains("findings")) {
      const auto& findings = document["findings"];
      if (keys(findings, "\"findings\"", {"error", "warning"}, {"error", "warning"})) {
        if (findings.contains("error")) ids(findings["error"], "findings.error", errors);
        if (findings.contains("warning")) ids(findings["warning"], "findings.warning", warnings);
      }
    }
    if (document.contains("summary")) {
      summary = document["summary"];
      if (keys(summary, "\"summary\"", {"errors", "warnings", "gpu_ready"},
               {"errors", "warnings", "gpu_ready"})) {
        for (const char* key : {"errors", "warnings"}) {
          if (summary.contains(key) && !summary[key].is_number_unsigned()) {
            problem(std::string("summary.") + key + " must be a count");
          }
        }
        if (summary.contains("gpu_ready") && !summary["gpu_ready"].is_boolean()) {
          problem("summary.gpu_ready must be true or false");
        }
      }
    }
    if (document.contains("present")) {
      if (!document["present"].is_array()) problem("\"present\" must be an array");
      size_t index = 0;
      for (const auto& want : document.value("present", json::array())) {
        const std::string where = "present[" + std::to_string(index++) + "]";
        if (!keys(want, where, {"id", "severity"}, {"id"})) continue;
        IdSet seen;
        if (want.contains("id")) id(want["id"], where, seen);
        std::optional<std::string> severity;
        if (want.contains("severity")) {
          if (!want["severity"].is_string() ||
              !severity_from_string(want["severity"].get<std::string>())) {
            problem(where + ".severity must be ok, info, warning or error");
          } else {
            severity = want["severity"].get<std::string>();
          }
        }
        if (!seen.empty()) present.emplace_back(*seen.begin(), severity);
      }
    }
    if (document.contains("absent")) ids(document["absent"], "\"absent\"", absent);
    if (document.contains("facts")) {
      if (!document["facts"].is_object()) {
        problem("\"facts\" must be an object of JSON pointers");
      } else {
        for (const auto& [pointer, value] : document["facts"].items()) {
          if (pointer.empty() || pointer.front() != '/') {
            problem("\"" + pointer + "\" in \"facts\" is no JSON pointer (it starts with /)");
          } else {
            facts.emplace_back(pointer, value);
          }
        }
      }
    }
    if (document.contains("follows")) {
      if (!document["follows"].is_object()) {
        problem("\"follows\" must be an object of finding ids");
      } else {
        for (const auto& [key, root] : document["follows"].items()) {
          IdSet seen;
          id(json(key), "\"follows\"", seen);
          if (root.is_null()) {
            follows[key] = std::nullopt;
          } else {
            id(root, "follows." + key, seen);
            if (root.is_string()) follows[key] = root.get<std::string>();
          }
        }
      }
    }
    for (const auto& id : absent) {
      if (errors.contains(id) || warnings.contains(id)) {
        problem("\"" + id + "\" is both in \"findings\" and in \"absent\"");
      }
    }
  }

  std::vector<std::string> problems_;
};

std::string problems_text(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& p : problems)
    out += "\n  " + p;
  return out;
}

// What to paste into expected.json when the change in behaviour is the intended one.
std::string as_written(const IdSet& errors, const IdSet& warnings, const json& summary) {
  const auto quoted = [](const IdSet& ids) {
    std::string out;
    for (const auto& id : ids)
      out += (out.empty() ? "\"" : ", \"") + id + "\"";
    return "[" + out + "]";
  };
  return "  \"findings\": {\"error\": " + quoted(errors) + ", \"warning\": " + quoted(warnings) +
         "},\n  \"summary\": {\"errors\": " + summary["errors"].dump() +
         ", \"warnings\": " + summary["warnings"].dump() +
         ", \"gpu_ready\": " + summary["gpu_ready"].dump() + "}";
}

// Where a set differs: both sets, and what is missing and unexpected.
std::string set_difference_text(const std::string& what, const IdSet& expected,
                                const IdSet& actual) {
  IdSet missing, unexpected;
  std::set_difference(expected.begin(), expected.end(), actual.begin(), actual.end(),
                      std::inserter(missing, missing.end()));
  std::set_difference(actual.begin(), actual.end(), expected.begin(), expected.end(),
                      std::inserter(unexpected, unexpected.end()));
  return what + " findings differ\n  expected:   " + join(expected) +
         "\n  actual:     " + join(actual) + "\n  missing:    " + join(missing) +
         "\n  unexpected: " + join(unexpected);
}

class Scenario : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path dir() const { return fs::path(GPUVET_SCENARIO_DIR) / GetParam(); }
};

TEST_P(Scenario, MatchesExpectations) {
  const std::string name = GetParam();
  auto snapshot = sys::load_snapshot_file((dir() / "snapshot.json").string());
  ASSERT_TRUE(snapshot) << "scenario " << name << ": " << snapshot.error().message;
  auto expected_text = paths::read_file((dir() / "expected.json").string(), 1 << 20);
  ASSERT_TRUE(expected_text) << "scenario " << name << ": " << expected_text.error().message;
  const auto document = json::parse(*expected_text, nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << "scenario " << name << ": expected.json is no JSON";
  const Expectation expected(document);
  ASSERT_TRUE(expected.problems().empty())
      << "scenario " << name << ": expected.json:" << problems_text(expected.problems());

  const sys::ReplaySystem system(std::move(*snapshot));
  auto report = pipeline::diagnose(system, testing::embedded_kb(), testing::messages());
  ASSERT_TRUE(report) << "scenario " << name << ": " << report.error().message;
  const auto actual = json::parse(report::render_json(*report));

  IdSet errors, warnings;
  std::multimap<std::string, std::string> severities;  // id -> severity, per finding
  std::string listing;                                 // the findings, one a line
  for (const auto& f : actual["findings"]) {
    const std::string id = f["id"], severity = f["severity"];
    severities.emplace(id, severity);
    if (severity == "error") errors.insert(id);
    if (severity == "warning") warnings.insert(id);
    listing += "\n  " + severity + " " + id + ": " + f["title"].get<std::string>();
  }
  // Every difference, then the findings once, so one run shows all that is wrong.
  std::string differences;
  const auto differ = [&](const std::string& text) { differences += "\n" + text; };
  if (errors != expected.errors) differ(set_difference_text("error", expected.errors, errors));
  if (warnings != expected.warnings) {
    differ(set_difference_text("warning", expected.warnings, warnings));
  }
  if (actual["summary"] != expected.summary) {
    differ("summary differs\n  expected: " + expected.summary.dump() +
           "\n  actual:   " + actual["summary"].dump());
  }
  for (const auto& [id, severity] : expected.present) {
    const auto [first, last] = severities.equal_range(id);
    if (first == last) {
      differ("no finding " + id + " (\"present\")");
      continue;
    }
    bool found = !severity;
    for (auto it = first; it != last; ++it)
      found = found || it->second == *severity;
    if (!found) differ("finding " + id + " is not of severity " + *severity + " (\"present\")");
  }
  for (const auto& id : expected.absent) {
    if (severities.contains(id)) differ("unexpected finding " + id + " (\"absent\")");
  }
  for (const auto& [id, root] : expected.follows) {
    bool seen = false;
    for (const auto& f : actual["findings"]) {
      if (f["id"] != id) continue;
      seen = true;
      const std::optional<std::string> actual_root =
          f["follows_from"].is_string() ? std::optional(f["follows_from"].get<std::string>())
                                        : std::nullopt;
      if (actual_root != root) {
        differ("finding " + id + " follows from " + actual_root.value_or("nothing") +
               ", expected " + root.value_or("nothing") + " (\"follows\")");
      }
    }
    if (!seen) differ("no finding " + id + " (\"follows\")");
  }
  for (const auto& [pointer, value] : expected.facts) {
    try {
      const json::json_pointer at(pointer);
      if (!actual["facts"].contains(at)) {
        differ("no fact at " + pointer);
      } else if (actual["facts"][at] != value) {
        differ("fact " + pointer + " differs\n  expected: " + value.dump() +
               "\n  actual:   " + actual["facts"][at].dump());
      }
    } catch (const json::exception& e) {
      differ("fact " + pointer + ": " + e.what());
    }
  }
  EXPECT_TRUE(differences.empty())
      << "scenario " << name << " (tests/scenarios/" << name << "):" << differences
      << "\nthe findings:" << (listing.empty() ? std::string("\n  (none)") : listing)
      << "\nas expected.json would say it:\n"
      << as_written(errors, warnings, actual["summary"]);
}

INSTANTIATE_TEST_SUITE_P(All, Scenario, ::testing::ValuesIn(scenario_names()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (auto& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// --- the harness itself: a typo must fail, never weaken --------------------------------------

json minimal_expectation() {
  return json::parse(R"({"description": "d", "findings": {"error": [], "warning": []},
                         "summary": {"errors": 0, "warnings": 0, "gpu_ready": false}})");
}

// The problems of `document`, one string.
std::string problems_of(const json& document) {
  return problems_text(Expectation(document).problems());
}

// The advice of a scenario's finding: never to install what the report found installed.
std::vector<std::string> fixes_of(const std::string& scenario, const std::string& id) {
  const fs::path dir = fs::path(GPUVET_SCENARIO_DIR) / scenario;
  auto snapshot = sys::load_snapshot_file((dir / "snapshot.json").string());
  EXPECT_TRUE(snapshot) << scenario;
  if (!snapshot) return {};
  const sys::ReplaySystem system(std::move(*snapshot));
  auto report = pipeline::diagnose(system, testing::embedded_kb(), testing::messages());
  EXPECT_TRUE(report) << scenario;
  if (!report) return {};
  for (const auto& f : report->findings) {
    if (f.id == id) return f.fix;
  }
  ADD_FAILURE() << scenario << ": no " << id;
  return {};
}

bool any_contains(const std::vector<std::string>& texts, std::string_view part) {
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

TEST(ScenarioAdvice, WhatTheReportFoundIsMadeVisibleNotInstalledAgain) {
  const auto installed =
      fixes_of("windows10_toolkit_installed_not_on_path", "cuda.runtime_missing");
  EXPECT_TRUE(any_contains(installed, "Nothing to install")) << ::testing::PrintToString(installed);
  EXPECT_FALSE(any_contains(installed, "Install CUDA")) << ::testing::PrintToString(installed);
  const auto saved = fixes_of("windows10_saved_path_names_cuda_path", "cuda.runtime_missing");
  EXPECT_TRUE(any_contains(saved, "open a new one")) << ::testing::PrintToString(saved);
  EXPECT_FALSE(any_contains(saved, "Install CUDA")) << ::testing::PrintToString(saved);
}

TEST(ScenarioAdvice, AHostCompilerFixNamesTheGccInstalledElseTheOneToInstall) {
  const auto installed =
      fixes_of("linux_cc_hands_gcc11_to_extension_builds", "cuda.host_compiler_unsupported");
  EXPECT_TRUE(any_contains(installed, "GCC 11 is installed"))
      << ::testing::PrintToString(installed);
  EXPECT_TRUE(any_contains(installed, "NVCC_CCBIN=/usr/bin/gcc-11"))
      << ::testing::PrintToString(installed);
  const auto missing = fixes_of("linux_gcc13_refused_by_cuda121", "cuda.host_compiler_unsupported");
  EXPECT_TRUE(any_contains(missing, "apt-get install gcc-12 g++-12"))
      << ::testing::PrintToString(missing);
  EXPECT_FALSE(any_contains(missing, "is installed")) << ::testing::PrintToString(missing);
}

TEST(ScenarioHarness, AcceptsTheMinimalExpectation) {
  EXPECT_EQ(problems_of(minimal_expectation()), "");
}

TEST(ScenarioHarness, UnknownKeysAreNamedAtEveryLevel) {
  auto top = minimal_expectation();
  top["presnt"] = json::array();
  EXPECT_NE(problems_of(top).find("unknown key \"presnt\" in expected.json"), std::string::npos)
      << problems_of(top);

  auto summary = minimal_expectation();
  summary["summary"]["gpu_redy"] = true;
  EXPECT_NE(problems_of(summary).find("unknown key \"gpu_redy\" in \"summary\""), std::string::npos)
      << problems_of(summary);

  auto findings = minimal_expectation();
  findings["findings"]["warnings"] = json::array();
  EXPECT_NE(problems_of(findings).find("unknown key \"warnings\" in \"findings\""),
            std::string::npos)
      << problems_of(findings);

  auto present = minimal_expectation();
  present["present"] = json::parse(R"([{"id": "gpu.none", "severty": "error"}])");
  EXPECT_NE(problems_of(present).find("unknown key \"severty\" in present[0]"), std::string::npos)
      << problems_of(present);
}

TEST(ScenarioHarness, RequiredKeysMustBeThere) {
  for (const auto& [path, key] :
       std::vector<std::pair<std::string, std::string>>{{"", "findings"},
                                                        {"", "summary"},
                                                        {"", "description"},
                                                        {"/findings", "warning"},
                                                        {"/summary", "gpu_ready"}}) {
    auto document = minimal_expectation();
    document[json::json_pointer(path)].erase(key);
    EXPECT_NE(problems_of(document).find("missing key \"" + key + "\""), std::string::npos)
        << path << "/" << key << problems_of(document);
  }
}

TEST(ScenarioHarness, MisspeltIdsAndWrongTypesAreProblems) {
  auto absent = minimal_expectation();
  absent["absent"] = {"gpu.nonee"};
  EXPECT_NE(problems_of(absent).find("\"gpu.nonee\" in \"absent\" is no finding id"),
            std::string::npos)
      << problems_of(absent);

  auto twice = minimal_expectation();
  twice["findings"]["error"] = {"gpu.none", "gpu.none"};
  EXPECT_NE(problems_of(twice).find("listed twice"), std::string::npos) << problems_of(twice);

  auto contradiction = minimal_expectation();
  contradiction["findings"]["error"] = {"gpu.none"};
  contradiction["absent"] = {"gpu.none"};
  EXPECT_NE(problems_of(contradiction).find("both in"), std::string::npos)
      << problems_of(contradiction);

  auto count = minimal_expectation();
  count["summary"]["errors"] = "1";
  EXPECT_NE(problems_of(count).find("summary.errors must be a count"), std::string::npos)
      << problems_of(count);

  auto severity = minimal_expectation();
  severity["present"] = json::parse(R"([{"id": "gpu.none", "severity": "fatal"}])");
  EXPECT_NE(problems_of(severity).find("present[0].severity"), std::string::npos)
      << problems_of(severity);

  auto pointer = minimal_expectation();
  pointer["facts"] = {{"os/name", "x"}};
  EXPECT_NE(problems_of(pointer).find("no JSON pointer"), std::string::npos)
      << problems_of(pointer);
}

}  // namespace
}  // namespace gpuvet
