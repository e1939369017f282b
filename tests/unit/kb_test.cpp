#include "kb/kb.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checks/finding.hpp"
#include "core/text.hpp"
#include "kb/queries.hpp"

namespace {

using gpuvet::kb::Kb;
using gpuvet::kb::Table;

const Kb& embedded_kb() {
  static const Kb kb = [] {
    auto loaded = Kb::embedded();
    if (!loaded.ok()) {
      ADD_FAILURE() << "embedded knowledge base failed to load: " << loaded.error().message;
      return Kb{};
    }
    return std::move(loaded).value();
  }();
  return kb;
}

const Table& embedded_table(const std::string& name) {
  static const Table empty;
  auto table = embedded_kb().table(name);
  EXPECT_TRUE(table.ok()) << table.error().message;
  return table.ok() ? **table : empty;
}

// --- Kb::from_files ---------------------------------------------------------------------------

TEST(KbFromFiles, LoadsTablesByPathWithoutExtension) {
  auto kb = Kb::from_files({{"things.csv", "id,source\na,here\nb,there\n"},
                            {"messages/en.csv", "key,text\nhello,Hello {name}\n"}});
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  EXPECT_EQ(kb->table_names(), (std::vector<std::string>{"messages/en", "things"}));

  auto things = kb->table("things");
  ASSERT_TRUE(things.ok()) << things.error().message;
  ASSERT_EQ((*things)->size(), 2u);
  EXPECT_EQ((*things)->cell(1, "source"), "there");
  EXPECT_EQ((*things)->name(), "data/things.csv");

  auto en = kb->table("messages/en");
  ASSERT_TRUE(en.ok()) << en.error().message;
  EXPECT_EQ((*en)->cell(0, "text"), "Hello {name}");
}

TEST(KbFromFiles, IgnoresFilesThatAreNotCsv) {
  auto kb = Kb::from_files({{"README.md", "# not, a \"table"},
                            {"notes.txt", "\"broken"},
                            {"real.csv", "a\n1\n"},
                            {"real.csv.bak", "\"broken"}});
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  EXPECT_EQ(kb->table_names(), std::vector<std::string>{"real"});
  EXPECT_FALSE(kb->table("README").ok());
  EXPECT_FALSE(kb->table("notes").ok());
}

TEST(KbFromFiles, EmptyFileSetIsAnEmptyKb) {
  auto kb = Kb::from_files({});
  ASSERT_TRUE(kb.ok());
  EXPECT_TRUE(kb->table_names().empty());
}

TEST(KbFromFiles, MissingTableIsAnErrorNamingTheFile) {
  auto kb = Kb::from_files({{"a.csv", "x\n1\n"}});
  ASSERT_TRUE(kb.ok());
  auto missing = kb->table("tf_log_levels");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("data/tf_log_levels.csv"), std::string::npos)
      << missing.error().message;

  auto nested = kb->table("messages/fr");
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.error().message.find("data/messages/fr.csv"), std::string::npos)
      << nested.error().message;
}

TEST(KbFromFiles, BrokenTableIsAnErrorNamingFileAndLine) {
  auto kb = Kb::from_files({{"good.csv", "a\n1\n"}, {"sub/bad.csv", "a,b\n1,2\n3\n"}});
  ASSERT_FALSE(kb.ok());
  EXPECT_EQ(kb.error().message.rfind("data/sub/bad.csv:3", 0), 0u) << kb.error().message;
}

// --- Integrity of the embedded data/ ----------------------------------------------------------

TEST(KbEmbedded, Loads) {
  auto kb = Kb::embedded();
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  // Embedded tables are parsed when first asked for: every one of them must parse.
  const auto parsed = kb->parse_all();
  EXPECT_TRUE(parsed.ok()) << parsed.error().message;
  const auto names = kb->table_names();
  for (const char* expected : {"taxonomy", "tf_log_levels", "messages/en", "messages/zh-CN"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end())
        << "missing table " << expected;
  }
}

TEST(KbEmbedded, EveryDataRowCitesASource) {
  for (const std::string& name : embedded_kb().table_names()) {
    if (name.starts_with("messages/")) continue;
    const Table& t = embedded_table(name);
    ASSERT_TRUE(t.has_column("source")) << t.name() << " has no source column";
    for (size_t row = 0; row < t.size(); ++row) {
      EXPECT_FALSE(gpuvet::text::trim(t.cell(row, "source")).empty())
          << t.name() << ":" << t.line_of(row) << ": empty source";
    }
  }
}

TEST(KbEmbedded, TaxonomyIdsAreUnique) {
  const Table& t = embedded_table("taxonomy");
  ASSERT_TRUE(t.has_column("id"));
  ASSERT_GT(t.size(), 0u);
  std::set<std::string> seen;
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string& id = t.cell(row, "id");
    EXPECT_FALSE(id.empty()) << t.name() << ":" << t.line_of(row) << ": empty id";
    EXPECT_TRUE(seen.insert(id).second)
        << t.name() << ":" << t.line_of(row) << ": duplicate id " << id;
  }
}

TEST(KbEmbedded, TaxonomyLayersAreKnown) {
  const Table& t = embedded_table("taxonomy");
  ASSERT_TRUE(t.has_column("layer"));
  const std::set<std::string> allowed = {"hardware", "driver",    "cuda",   "cudnn",
                                         "python",   "framework", "runtime"};
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string& layer = t.cell(row, "layer");
    EXPECT_TRUE(allowed.contains(layer))
        << t.name() << ":" << t.line_of(row) << ": unknown layer " << layer;
    EXPECT_TRUE(gpuvet::layer_from_string(layer).has_value())
        << t.name() << ":" << t.line_of(row) << ": layer_from_string rejects " << layer;
  }
}

TEST(KbEmbedded, TaxonomyHasTheIdsTheChecksUse) {
  const Table& t = embedded_table("taxonomy");
  std::set<std::string> ids;
  for (size_t row = 0; row < t.size(); ++row)
    ids.insert(t.cell(row, "id"));
  for (const char* id :
       {"gpu.none", "gpu.not_visible", "env.log_level_hides_errors", "driver.missing"}) {
    EXPECT_TRUE(ids.contains(id)) << "taxonomy lacks " << id;
  }
}

TEST(KbEmbedded, TfLogLevelsCoverZeroToThree) {
  const Table& t = embedded_table("tf_log_levels");
  ASSERT_TRUE(t.has_column("level"));
  ASSERT_TRUE(t.has_column("hidden"));
  ASSERT_TRUE(t.has_column("severity"));
  std::set<int> levels;
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string& level = t.cell(row, "level");
    ASSERT_TRUE(gpuvet::text::is_digits(level))
        << t.name() << ":" << t.line_of(row) << ": level is not an integer: " << level;
    const int value = std::stoi(level);
    EXPECT_TRUE(levels.insert(value).second)
        << t.name() << ":" << t.line_of(row) << ": duplicate level " << value;

    const std::string& severity = t.cell(row, "severity");
    EXPECT_TRUE(severity == "none" || gpuvet::severity_from_string(severity).has_value())
        << t.name() << ":" << t.line_of(row) << ": unknown severity " << severity;
  }
  EXPECT_EQ(levels, (std::set<int>{0, 1, 2, 3}));
}

std::vector<std::string> catalog_keys(const std::string& name) {
  const Table& t = embedded_table(name);
  EXPECT_EQ(t.header(), (std::vector<std::string>{"key", "text"})) << t.name();
  std::vector<std::string> keys;
  for (size_t row = 0; row < t.size(); ++row)
    keys.push_back(t.cell(row, "key"));
  return keys;
}

TEST(KbEmbedded, MessageCatalogsHaveUniqueKeys) {
  for (const std::string name : {"messages/en", "messages/zh-CN"}) {
    const Table& t = embedded_table(name);
    EXPECT_GT(t.size(), 0u) << name;
    std::set<std::string> seen;
    for (size_t row = 0; row < t.size(); ++row) {
      const std::string& key = t.cell(row, "key");
      EXPECT_FALSE(key.empty()) << t.name() << ":" << t.line_of(row) << ": empty key";
      EXPECT_TRUE(seen.insert(key).second)
          << t.name() << ":" << t.line_of(row) << ": duplicate key " << key;
    }
  }
}

TEST(KbEmbedded, EveryChineseKeyExistsInEnglish) {
  const auto en = catalog_keys("messages/en");
  const std::set<std::string> en_keys(en.begin(), en.end());
  std::vector<std::string> extra;
  for (const std::string& key : catalog_keys("messages/zh-CN")) {
    if (!en_keys.contains(key)) extra.push_back(key);
  }
  EXPECT_TRUE(extra.empty()) << "keys in messages/zh-CN.csv but not in messages/en.csv: "
                             << gpuvet::text::join(extra, ", ");
}

TEST(KbEmbedded, ChineseCatalogIsComplete) {
  const auto zh = catalog_keys("messages/zh-CN");
  const std::set<std::string> zh_keys(zh.begin(), zh.end());
  std::vector<std::string> missing;
  for (const std::string& key : catalog_keys("messages/en")) {
    if (!zh_keys.contains(key)) missing.push_back(key);
  }
  EXPECT_TRUE(missing.empty()) << "keys in messages/en.csv missing from messages/zh-CN.csv: "
                               << gpuvet::text::join(missing, ", ");
}

TEST(KbEmbedded, MessageTextsAreNotEmpty) {
  for (const std::string name : {"messages/en", "messages/zh-CN"}) {
    const Table& t = embedded_table(name);
    for (size_t row = 0; row < t.size(); ++row) {
      EXPECT_FALSE(t.cell(row, "text").empty())
          << t.name() << ":" << t.line_of(row) << ": empty text for " << t.cell(row, "key");
    }
  }
}

// A bound that is a series holds its patch releases: paddle_builds' 2.4..2.4 is 2.4.1's row, which
// `gpuvet kb framework paddle==2.4.1` once found none of.
TEST(VersionInRange, ASeriesBoundHoldsItsPatchReleases) {
  struct Case {
    const char* version;
    const char* from;
    const char* until;
    bool in;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"2.4.1", "2.4", "2.4", true},
           {"2.4", "2.4", "2.4", true},
           {"2.5.0", "2.4", "2.4", false},
           {"2.3.9", "2.4", "2.4", false},
           {"2.6.1", "2.6.0", "2.6.1", true},
           {"2.6.2", "2.6.0", "2.6.1", false},
           // A prefix is in the range when some version with it is.
           {"2", "1.5", "2.3", true},
           {"1", "1.5", "2.3", true},
           {"3", "1.5", "2.3", false},
           {"12.8", "12.0", "", true},
           {"11.8", "12.0", "", false},
           {"12.0", "", "13.0", false},
       }) {
    EXPECT_EQ(gpuvet::kb::version_in_range(c.version, c.from, c.until), c.in)
        << c.version << " in " << c.from << ".." << c.until;
  }
}

}  // namespace
