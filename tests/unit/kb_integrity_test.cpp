// The knowledge base's tables check each other: versions parse, keys are unique, and what one
// table names exists in the table that defines it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/text.hpp"
#include "core/version.hpp"
#include "kb/queries.hpp"
#include "test_support.hpp"

namespace gpuvet::kb {
namespace {

const Table& table(const std::string& name) {
  return testing::kb_table(name);
}

// Columns holding versions: empty (unknown) or dotted numbers.
TEST(KbIntegrity, VersionColumnsParse) {
  const std::map<std::string, std::vector<std::string>> columns = {
      {"cuda_releases", {"version", "min_driver_linux", "min_driver_windows"}},
      {"cuda_minor_compat",
       {"cuda_major", "min_driver", "min_driver_linux", "min_driver_windows",
        "max_driver_exclusive"}},
      {"cuda_arch_support", {"cuda_from", "cuda_to", "min_sm", "max_sm"}},
      {"cudnn_releases", {"cudnn_from", "cudnn_to"}},
      {"library_names", {"cuda"}},
      {"gpus", {"compute_capability"}},
      {"tensorflow_builds", {"python_min", "python_max", "cuda", "cudnn"}},
      {"framework_min_cc", {"min_cc"}},
      {"nvidia_wheels", {"cuda_major"}},
      {"onnxruntime_builds",
       {"version_from", "version_to", "cuda", "cudnn", "python_min", "python_max"}},
      {"paddle_builds", {"cuda", "cudnn", "python_min", "python_max", "min_cc"}},
      {"cupy_builds",
       {"version_from", "version_to", "cuda_from", "python_min", "python_max", "min_cc"}},
  };
  for (const auto& [name, cols] : columns) {
    const Table& t = table(name);
    for (const auto& column : cols) {
      ASSERT_TRUE(t.has_column(column)) << name << "." << column;
      for (size_t row = 0; row < t.size(); ++row) {
        const std::string& v = t.cell(row, column);
        EXPECT_TRUE(v.empty() || version::is_dotted(v))
            << t.name() << ":" << t.line_of(row) << " " << column << " = \"" << v << "\"";
      }
    }
  }
}

TEST(KbIntegrity, KeysAreUnique) {
  const std::map<std::string, std::vector<std::string>> keys = {
      {"cuda_releases", {"label"}},
      {"gpus", {"name"}},
      {"library_names", {"cuda", "library"}},
      {"tensorflow_builds", {"platform", "version", "cudnn", "cuda"}},
      {"pytorch_builds", {"torch_version"}},
      {"python_packages", {"ecosystem", "package"}},
      {"nvidia_wheels", {"package"}},
      {"cuda_minor_compat", {"cuda_major"}},
  };
  for (const auto& [name, cols] : keys) {
    const Table& t = table(name);
    std::set<std::string> seen;
    for (size_t row = 0; row < t.size(); ++row) {
      std::string key;
      for (const auto& c : cols)
        key += t.cell(row, c) + "|";
      EXPECT_TRUE(seen.insert(key).second)
          << t.name() << ":" << t.line_of(row) << " repeats " << key;
    }
  }
  // Full toolkit versions, where known, name one release each.
  const Table& releases = table("cuda_releases");
  std::set<std::string> versions;
  for (size_t row = 0; row < releases.size(); ++row) {
    const std::string& v = releases.cell(row, "version");
    if (!v.empty()) {
      EXPECT_TRUE(versions.insert(v).second) << "cuda_releases repeats " << v;
    }
  }
}

TEST(KbIntegrity, RangesAreOrdered) {
  for (const auto& [name, from, to] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"cuda_arch_support", "cuda_from", "cuda_to"},
           {"cuda_arch_support", "min_sm", "max_sm"},
           {"cudnn_releases", "cudnn_from", "cudnn_to"}}) {
    const Table& t = table(name);
    for (size_t row = 0; row < t.size(); ++row) {
      const std::string& a = t.cell(row, from);
      const std::string& b = t.cell(row, to);
      if (version::is_dotted(a) && version::is_dotted(b)) {
        EXPECT_LE(version::compare(a, b), 0) << t.name() << ":" << t.line_of(row);
      }
    }
  }
}

// Every CUDA and cuDNN a TensorFlow tested build names is a release the other tables know.
TEST(KbIntegrity, TensorflowBuildsNameKnownCudaAndCudnn) {
  const Table& builds = table("tensorflow_builds");
  const Table& releases = table("cuda_releases");
  for (size_t row = 0; row < builds.size(); ++row) {
    const std::string& cuda = builds.cell(row, "cuda");
    if (!cuda.empty()) {
      bool known = false;
      for (size_t r = 0; r < releases.size(); ++r) {
        const std::string label_version = text::split(releases.cell(r, "label"), ' ').front();
        known = known || version_has_prefix(releases.cell(r, "version"), cuda) ||
                version_has_prefix(label_version, cuda);
      }
      EXPECT_TRUE(known) << builds.name() << ":" << builds.line_of(row) << " CUDA " << cuda;
    }
    const std::string& cudnn = builds.cell(row, "cudnn");
    if (!cudnn.empty()) {
      auto rows =
          rows_for_range(testing::embedded_kb(), "cudnn_releases", "cudnn_from", "cudnn_to", cudnn);
      ASSERT_TRUE(rows.ok());
      EXPECT_FALSE(rows->empty()) << builds.name() << ":" << builds.line_of(row) << " cuDNN "
                                  << cudnn;
    }
  }
}

// The CUDA majors of the wheels table have a minor-compatibility row, and every library a
// CUDA release names in library_names is a CUDA version the releases table knows.
TEST(KbIntegrity, CudaMajorsAndLibraryNamesAreKnown) {
  const Table& wheels = table("nvidia_wheels");
  const Table& compat = table("cuda_minor_compat");
  std::set<std::string> majors;
  for (size_t row = 0; row < compat.size(); ++row)
    majors.insert(compat.cell(row, "cuda_major"));
  for (size_t row = 0; row < wheels.size(); ++row) {
    EXPECT_TRUE(majors.count(wheels.cell(row, "cuda_major")))
        << wheels.name() << ":" << wheels.line_of(row);
  }
  const Table& names = table("library_names");
  const Table& releases = table("cuda_releases");
  for (size_t row = 0; row < names.size(); ++row) {
    const std::string& cuda = names.cell(row, "cuda");
    bool known = false;
    for (size_t r = 0; r < releases.size() && !known; ++r) {
      const std::string label_version = text::split(releases.cell(r, "label"), ' ').front();
      known = version_has_prefix(releases.cell(r, "version"), cuda) ||
              version_has_prefix(label_version, cuda);
    }
    EXPECT_TRUE(known) << names.name() << ":" << names.line_of(row) << " CUDA " << cuda;
  }
}

TEST(KbIntegrity, HasAVersion) {
  EXPECT_NE(testing::embedded_kb().version(), "unknown");
}

// --- queries --------------------------------------------------------------------------------

TEST(KbQueries, GpuNamesMatchLooselyAndUnknownNamesGetTheClosest) {
  const Kb& kb = testing::embedded_kb();
  for (const char* name : {"RTX 3060", "rtx 3060", "NVIDIA GeForce RTX 3060", "GeForce RTX 3060"}) {
    auto m = find_gpu(kb, name);
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(m->rows.size(), 1u) << name;
    EXPECT_EQ(m->rows[0].get("compute_capability"), "8.6") << name;
  }
  auto unknown = find_gpu(kb, "RTX 3061");
  ASSERT_TRUE(unknown.ok());
  EXPECT_TRUE(unknown->rows.empty());
  ASSERT_FALSE(unknown->closest.empty());
  EXPECT_NE(std::find(unknown->closest.begin(), unknown->closest.end(), "GeForce RTX 3060"),
            unknown->closest.end());
  // Boards are named with their memory by the driver; the table names the GPU.
  EXPECT_EQ(gpu_key("NVIDIA GeForce GTX 1060 6GB"), "gtx 1060");
  auto board = find_gpu(kb, "GeForce GTX 1060 6GB");
  ASSERT_TRUE(board.ok());
  ASSERT_EQ(board->rows.size(), 1u);
  EXPECT_EQ(board->rows[0].get("compute_capability"), "6.1");
}

TEST(KbQueries, VersionPrefixesAndRanges) {
  EXPECT_TRUE(version_has_prefix("10.1.243", "10.1"));
  EXPECT_FALSE(version_has_prefix("10.10.1", "10.1"));
  EXPECT_FALSE(version_has_prefix("10", "10.1"));
  const Kb& kb = testing::embedded_kb();
  auto cudnn = rows_for_range(kb, "cudnn_releases", "cudnn_from", "cudnn_to", "7.6");
  ASSERT_TRUE(cudnn.ok());
  EXPECT_FALSE(cudnn->empty());
  for (const auto& row : *cudnn) {
    EXPECT_TRUE(row.get("cudnn_from").starts_with("7.")) << row.get("cudnn_from");
  }
}

}  // namespace
}  // namespace gpuvet::kb
