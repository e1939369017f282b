// The start-up script reader of gpuvet fix: which lines set a variable, and how one is commented
// out without touching any other byte.
#include <gtest/gtest.h>

#include "fix/script_lines.hpp"

namespace gpuvet::fix {
namespace {

std::optional<Assignment> posix(std::string_view line,
                                std::string_view name = "CUDA_VISIBLE_DEVICES") {
  return assignment_of(line, name, ScriptKind::posix_shell);
}

TEST(FixScriptLines, PosixAssignmentsAreFound) {
  for (const char* line :
       {"export CUDA_VISIBLE_DEVICES=-1", "  export CUDA_VISIBLE_DEVICES=-1",
        "CUDA_VISIBLE_DEVICES=-1", "export CUDA_VISIBLE_DEVICES=\"-1\"",
        "export CUDA_VISIBLE_DEVICES='-1'", "declare -x CUDA_VISIBLE_DEVICES=-1",
        "typeset -gx CUDA_VISIBLE_DEVICES=-1", "export CUDA_VISIBLE_DEVICES=-1  # no GPU for me",
        "export CUDA_VISIBLE_DEVICES=-1;"}) {
    const auto found = posix(line);
    ASSERT_TRUE(found) << line;
    EXPECT_EQ(found->value, "-1") << line;
    EXPECT_TRUE(found->sole) << line;
  }
}

TEST(FixScriptLines, OtherLinesAreNotAssignments) {
  for (const char* line : {"# export CUDA_VISIBLE_DEVICES=-1", "export CUDA_VISIBLE_DEVICES_X=1",
                           "export XCUDA_VISIBLE_DEVICES=1", "echo CUDA_VISIBLE_DEVICES=-1",
                           "CUDA_VISIBLE_DEVICES=-1 python train.py",
                           "declare CUDA_VISIBLE_DEVICES=-1", "unset CUDA_VISIBLE_DEVICES", ""}) {
    EXPECT_FALSE(posix(line)) << line;
  }
}

TEST(FixScriptLines, CompoundLinesAreFoundButNotSole) {
  for (const char* line :
       {"export A=1 CUDA_VISIBLE_DEVICES=-1", "export CUDA_VISIBLE_DEVICES=-1; conda activate tf",
        "export CUDA_VISIBLE_DEVICES=-1 && echo hidden",
        "[ -f x ] || export CUDA_VISIBLE_DEVICES=-1 X=2"}) {
    const auto found = posix(line);
    if (!found) continue;  // past a separator the reader does not look: never edited
    EXPECT_FALSE(found->sole) << line;
  }
  EXPECT_TRUE(posix("export A=1 CUDA_VISIBLE_DEVICES=-1"));
}

TEST(FixScriptLines, QuotedValuesKeepTheirSpaces) {
  const auto found =
      posix(R"(export LD_LIBRARY_PATH="/opt/my cuda/lib64:$LD_LIBRARY_PATH")", "LD_LIBRARY_PATH");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->value, "/opt/my cuda/lib64:$LD_LIBRARY_PATH");
  EXPECT_TRUE(found->sole);
}

TEST(FixScriptLines, OtherShellsSpellings) {
  auto csh =
      assignment_of("setenv TF_CPP_MIN_LOG_LEVEL 3", "TF_CPP_MIN_LOG_LEVEL", ScriptKind::csh);
  ASSERT_TRUE(csh);
  EXPECT_EQ(csh->value, "3");
  auto fish =
      assignment_of("set -gx TF_CPP_MIN_LOG_LEVEL 3", "TF_CPP_MIN_LOG_LEVEL", ScriptKind::fish);
  ASSERT_TRUE(fish);
  EXPECT_EQ(fish->value, "3");
  EXPECT_FALSE(
      assignment_of("set -e TF_CPP_MIN_LOG_LEVEL", "TF_CPP_MIN_LOG_LEVEL", ScriptKind::fish));
  EXPECT_FALSE(
      assignment_of("set TF_CPP_MIN_LOG_LEVEL 3", "TF_CPP_MIN_LOG_LEVEL", ScriptKind::fish));
  auto pam = assignment_of("TF_CPP_MIN_LOG_LEVEL=\"3\"", "TF_CPP_MIN_LOG_LEVEL",
                           ScriptKind::etc_environment);
  ASSERT_TRUE(pam);
  EXPECT_EQ(pam->value, "3");
  for (const char* line : {"set CUDA_VISIBLE_DEVICES=-1", "@SET \"cuda_visible_devices=-1\"",
                           "  set \"CUDA_VISIBLE_DEVICES=-1\""}) {
    auto bat = assignment_of(line, "CUDA_VISIBLE_DEVICES", ScriptKind::batch);
    ASSERT_TRUE(bat) << line;
    EXPECT_EQ(bat->value, "-1") << line;
    EXPECT_TRUE(bat->sole) << line;
  }
  EXPECT_FALSE(
      assignment_of("rem set CUDA_VISIBLE_DEVICES=-1", "CUDA_VISIBLE_DEVICES", ScriptKind::batch));
  EXPECT_FALSE(
      assignment_of(":: set CUDA_VISIBLE_DEVICES=-1", "CUDA_VISIBLE_DEVICES", ScriptKind::batch));
  EXPECT_FALSE(
      assignment_of("set /a CUDA_VISIBLE_DEVICES=1", "CUDA_VISIBLE_DEVICES", ScriptKind::batch));
  auto chained = assignment_of("set CUDA_VISIBLE_DEVICES=-1& python x.py", "CUDA_VISIBLE_DEVICES",
                               ScriptKind::batch);
  ASSERT_TRUE(chained);
  EXPECT_FALSE(chained->sole);
}

TEST(FixScriptLines, KindFromTheFileName) {
  EXPECT_EQ(script_kind_of("/home/u/.bashrc"), ScriptKind::posix_shell);
  EXPECT_EQ(script_kind_of("/etc/profile.d/cuda.sh"), ScriptKind::posix_shell);
  EXPECT_EQ(script_kind_of("/etc/profile.d/cuda.csh"), ScriptKind::csh);
  EXPECT_EQ(script_kind_of("/home/u/.tcshrc"), ScriptKind::csh);
  EXPECT_EQ(script_kind_of("/home/u/.config/fish/config.fish"), ScriptKind::fish);
  EXPECT_EQ(script_kind_of("/etc/environment"), ScriptKind::etc_environment);
  EXPECT_EQ(script_kind_of("C:/Users/u/miniconda3/envs/tf/etc/conda/activate.d/env.BAT"),
            ScriptKind::batch);
}

TEST(FixScriptLines, SplitAndJoinGiveBackEveryByte) {
  for (const std::string& bytes : {std::string("a\nb\r\nc"), std::string("a\n\n"), std::string(""),
                                   std::string("\r\n"), std::string("x\ry\n")}) {
    std::string joined;
    for (const auto& line : split_lines(bytes))
      joined += std::string(line.text) + std::string(line.ending);
    EXPECT_EQ(joined, bytes);
  }
  const auto lines = split_lines("a\r\nb");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "a");
  EXPECT_EQ(lines[0].ending, "\r\n");
  EXPECT_EQ(lines[1].ending, "");
}

TEST(FixScriptLines, CommentingOutKeepsShellsParsing) {
  EXPECT_EQ(
      commented_out("export CUDA_VISIBLE_DEVICES=-1", ScriptKind::posix_shell, "gpuvet fix T"),
      "# export CUDA_VISIBLE_DEVICES=-1  # gpuvet fix T");
  // The only statement of an if body: a comment would leave "then fi", which sh rejects.
  EXPECT_EQ(commented_out("    export CUDA_VISIBLE_DEVICES=-1", ScriptKind::posix_shell, "m"),
            "    : # export CUDA_VISIBLE_DEVICES=-1  # m");
  EXPECT_EQ(commented_out("set CUDA_VISIBLE_DEVICES=-1", ScriptKind::batch, "m"),
            "rem set CUDA_VISIBLE_DEVICES=-1  m");
  EXPECT_EQ(commented_out("  set -gx X 1", ScriptKind::fish, "m"), "  # set -gx X 1  # m");
}

TEST(FixScriptLines, WrittenAssignmentsReadBack) {
  for (const auto kind : {ScriptKind::posix_shell, ScriptKind::csh, ScriptKind::fish,
                          ScriptKind::etc_environment, ScriptKind::batch}) {
    for (const char* value : {"true", "a b", "it's"}) {
      const auto found = assignment_of(assignment_line("X_Y", value, kind), "X_Y", kind);
      ASSERT_TRUE(found) << static_cast<int>(kind) << value;
      if (kind != ScriptKind::etc_environment || std::string(value) == "true") {
        EXPECT_EQ(found->value, value) << static_cast<int>(kind);
      }
    }
  }
}

}  // namespace
}  // namespace gpuvet::fix

namespace gpuvet::fix {
namespace {

std::string utf16le(std::u16string_view text) {
  std::string out = "\xFF\xFE";
  for (const char16_t c : text) {
    out.push_back(static_cast<char>(c & 0xFF));
    out.push_back(static_cast<char>(c >> 8));
  }
  return out;
}

TEST(FixScriptEncodings, Utf16WithABomDecodesAndEncodesBackByteForByte) {
  const std::string bytes =
      utf16le(u"@echo off\r\nset \"CUDA_VISIBLE_DEVICES=-1\"\r\nrem 张伟 \U0001F600\r\n");
  const auto text = decode_script(bytes);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->encoding, ScriptEncoding::utf16le_bom);
  EXPECT_NE(text->utf8.find("set \"CUDA_VISIBLE_DEVICES=-1\""), std::string::npos);
  EXPECT_NE(text->utf8.find("张伟"), std::string::npos);
  EXPECT_EQ(encode_script(*text), bytes);
}

TEST(FixScriptEncodings, Utf8BomIsKeptAndBrokenUtf16IsRefused) {
  const auto bom = decode_script(
      "\xEF\xBB\xBF"
      "export X=1\n");
  ASSERT_TRUE(bom);
  EXPECT_EQ(bom->utf8, "export X=1\n");
  EXPECT_EQ(encode_script(*bom),
            "\xEF\xBB\xBF"
            "export X=1\n");
  EXPECT_FALSE(decode_script(std::string("\xFF\xFE\x00\xD8\x41\x00", 6)));  // a lone surrogate
  EXPECT_FALSE(decode_script(std::string("\xFF\xFE\x41", 3)));              // an odd length
  const auto plain = decode_script("a\nb");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->encoding, ScriptEncoding::utf8);
}

}  // namespace
}  // namespace gpuvet::fix

#include <random>

namespace gpuvet::fix {
namespace {

// Random bytes, and scripts cut and spliced at random: the reader never crashes, a decoded script
// encodes back to its bytes, and whatever it calls an assignment comments out to one line.
TEST(FixScriptFuzz, AnyBytesAreReadSafely) {
  std::mt19937 random(7);
  const std::string seeds[] = {"export CUDA_VISIBLE_DEVICES=\"-1\" # x\n",
                               "set \"CUDA_VISIBLE_DEVICES=-1\"\r\n",
                               "setenv CUDA_VISIBLE_DEVICES -1\n",
                               "set -gx CUDA_VISIBLE_DEVICES '-1'\n",
                               "CUDA_VISIBLE_DEVICES='a'\\''b' ; x\n",
                               std::string("\xFF\xFE"
                                           "e\0x\0",
                                           6)};
  for (int round = 0; round < 20000; ++round) {
    std::string bytes = seeds[random() % std::size(seeds)];
    const int edits = static_cast<int>(random() % 4);
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      const size_t at = random() % bytes.size();
      if (random() % 2) {
        bytes[at] = static_cast<char>(random());
      } else {
        bytes.insert(at, seeds[random() % std::size(seeds)].substr(0, random() % 12));
      }
    }
    if (const auto text = decode_script(bytes)) {
      EXPECT_EQ(encode_script(*text), bytes);
      for (const auto kind : {ScriptKind::posix_shell, ScriptKind::csh, ScriptKind::fish,
                              ScriptKind::etc_environment, ScriptKind::batch}) {
        for (const auto& line : split_lines(text->utf8)) {
          if (!assignment_of(line.text, "CUDA_VISIBLE_DEVICES", kind)) continue;
          const std::string out = commented_out(line.text, kind, "m");
          EXPECT_EQ(out.find('\n'), std::string::npos);
          EXPECT_FALSE(assignment_of(out, "CUDA_VISIBLE_DEVICES", kind)) << out;
        }
      }
    }
  }
}

}  // namespace
}  // namespace gpuvet::fix
