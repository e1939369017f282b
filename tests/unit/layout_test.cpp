// The source tree's shape, checked: folders import only folders below them (docs/architecture.md
// gives the order), and framework names are compared only inside src/frameworks/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

// Lower numbers are lower layers; a folder may include its own folder and lower layers only.
const std::map<std::string, int>& layers() {
  static const std::map<std::string, int> order = {
      {"core", 0},     {"platform", 1}, {"facts", 1},   {"python", 1},     {"kb", 2},
      {"gpu", 2},      {"system", 3},   {"resolve", 4}, {"frameworks", 4}, {"probes", 5},
      {"checks", 6},   {"explain", 7},  {"plan", 7},    {"bench", 7},      {"fix", 7},
      {"pipeline", 8}, {"fleet", 9},    {"report", 10}, {"cli", 11},
  };
  return order;
}

struct SourceFile {
  std::string folder;  // src/<folder>/...
  std::string path;    // relative to src/
  std::string text;
};

std::vector<SourceFile> sources() {
  std::vector<SourceFile> files;
  const fs::path root = fs::path(GPUVET_SOURCE_DIR) / "src";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
    const fs::path relative = fs::relative(entry.path(), root);
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    files.push_back({relative.begin()->string(), relative.generic_string(), text.str()});
  }
  return files;
}

std::vector<std::string> project_includes(const std::string& text) {
  std::vector<std::string> includes;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    constexpr std::string_view kInclude = "#include \"";
    if (!line.starts_with(kInclude)) continue;
    const std::string target =
        line.substr(kInclude.size(), line.find('"', kInclude.size()) - kInclude.size());
    if (target.find('/') != std::string::npos) includes.push_back(target);
  }
  return includes;
}

TEST(Layout, EveryFolderHasALayer) {
  for (const auto& file : sources()) {
    EXPECT_TRUE(layers().count(file.folder)) << "src/" << file.folder
                                             << " has no layer in layout_test.cpp and "
                                                "docs/architecture.md";
  }
}

TEST(Layout, NoFolderIncludesAFolderAboveIt) {
  for (const auto& file : sources()) {
    const auto from = layers().find(file.folder);
    if (from == layers().end()) continue;
    for (const auto& target : project_includes(file.text)) {
      const std::string folder = target.substr(0, target.find('/'));
      const auto to = layers().find(folder);
      if (folder == file.folder || to == layers().end()) continue;
      EXPECT_LT(to->second, from->second) << "src/" << file.path << " includes " << target << ": "
                                          << folder << " is not below " << file.folder;
    }
  }
}

TEST(Layout, NoFrameworkNamesOutsideTheRegistry) {
  const std::vector<std::string> families = {"\"tensorflow\"", "\"torch\"",  "\"jax\"",
                                             "\"cupy\"",       "\"paddle\"", "\"onnxruntime\""};
  for (const auto& file : sources()) {
    if (file.folder == "frameworks") continue;
    for (const auto& family : families) {
      EXPECT_EQ(file.text.find(family), std::string::npos)
          << "src/" << file.path << " names the framework " << family
          << ": ask src/frameworks/ instead (docs/frameworks.md)";
    }
  }
}

}  // namespace
}  // namespace gpuvet
