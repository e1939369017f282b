// The ZIP reader on archives Python's zipfile wrote (tests/fixtures/fix), plain and ZIP64, and on
// every truncation and many corruptions of them: an error or the right bytes, never a crash.
#include <gtest/gtest.h>

#include <random>

#include "core/paths.hpp"
#include "core/zip_reader.hpp"
#include "test_support.hpp"

namespace gpuvet::zip {
namespace {

const std::string kPlain =
    std::string(GPUVET_FIX_FIXTURES) + "/cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip";
const std::string kZip64 = std::string(GPUVET_FIX_FIXTURES) + "/cudnn-zip64_cuda12.zip";

std::string entry_text(const Archive& archive, const std::string& suffix) {
  for (const auto& e : archive.entries()) {
    if (e.name.ends_with(suffix)) {
      auto bytes = archive.read(e, 1 << 20);
      EXPECT_TRUE(bytes) << bytes.error().message;
      return bytes ? *bytes : "";
    }
  }
  ADD_FAILURE() << suffix;
  return "";
}

TEST(ZipReader, ReadsStoredAndDeflatedEntriesOfBothFormats) {
  for (const auto& path : {kPlain, kZip64}) {
    auto archive = Archive::open(path);
    ASSERT_TRUE(archive) << archive.error().message;
    EXPECT_EQ(entry_text(*archive, "include/cudnn_version.h"),
              "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n");
    EXPECT_EQ(entry_text(*archive, "lib/x64/cudnn.lib"), "!<arch>\nfake import library\n");
    EXPECT_EQ(entry_text(*archive, "bin/cudnn64_9.dll").size(), 41u * 50);
  }
  auto plain = Archive::open(kPlain);
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->entries().front().directory());
}

TEST(ZipReader, ALimitIsAnError) {
  auto archive = Archive::open(kPlain);
  ASSERT_TRUE(archive);
  for (const auto& e : archive->entries()) {
    if (e.name.ends_with(".dll") && e.size > 100) {
      EXPECT_FALSE(archive->read(e, 100));
    }
  }
}

TEST(ZipReader, NotAZipAndDamagedArchivesAreErrors) {
  testing::TempDir dir;
  EXPECT_FALSE(Archive::open(dir.file("empty.zip", "")));
  EXPECT_FALSE(Archive::open(dir.file("text.zip", "not a zip at all")));
  EXPECT_FALSE(Archive::open(dir.path() + "/missing.zip"));
  const std::string bytes = paths::read_file(kPlain, 1 << 20).value();
  // Every truncation.
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    auto archive = Archive::open(dir.file("cut.zip", bytes.substr(0, cut)));
    if (!archive) continue;
    for (const auto& e : archive->entries())
      (void)archive->read(e, 1 << 20);
  }
  // Random byte flips: whatever opens must read each entry back right or say it cannot.
  std::mt19937 random(42);
  for (int round = 0; round < 400; ++round) {
    std::string damaged = bytes;
    for (int flips = 0; flips < 3; ++flips)
      damaged[random() % damaged.size()] = static_cast<char>(random());
    auto archive = Archive::open(dir.file("flip.zip", damaged));
    if (!archive) {
      EXPECT_EQ(archive.error().message.find('\n'), std::string::npos);
      continue;
    }
    for (const auto& e : archive->entries())
      (void)archive->read(e, 1 << 20);
  }
}

}  // namespace
}  // namespace gpuvet::zip
