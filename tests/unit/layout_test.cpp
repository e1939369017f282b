// The source tree's shape, checked: framework names are compared only inside src/frameworks/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

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
