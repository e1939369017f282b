#include "core/text.hpp"
#include "core/legacy_text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using gpuvet::text::contains_icase;
using gpuvet::text::display_width;
using gpuvet::text::gbk_to_utf8;
using gpuvet::text::is_digits;
using gpuvet::text::is_utf8;
using gpuvet::text::join;
using gpuvet::text::split;
using gpuvet::text::starts_with_icase;
using gpuvet::text::to_lower;
using gpuvet::text::trim;
using Parts = std::vector<std::string>;

TEST(TextSplit, EmptyStringGivesOneEmptyPart) {
  EXPECT_EQ(split("", ','), Parts{""});
}

TEST(TextSplit, NoSeparatorGivesWholeString) {
  EXPECT_EQ(split("abc", ','), Parts{"abc"});
}

TEST(TextSplit, SplitsOnEverySeparator) {
  EXPECT_EQ(split("a,b,c", ','), (Parts{"a", "b", "c"}));
  EXPECT_EQ(split("/usr/bin:/bin", ':'), (Parts{"/usr/bin", "/bin"}));
}

TEST(TextSplit, TrailingSeparatorGivesTrailingEmptyPart) {
  EXPECT_EQ(split("a,b,", ','), (Parts{"a", "b", ""}));
}

TEST(TextSplit, LeadingAndAdjacentSeparatorsGiveEmptyParts) {
  EXPECT_EQ(split(",a,,b", ','), (Parts{"", "a", "", "b"}));
  EXPECT_EQ(split(",", ','), (Parts{"", ""}));
}

TEST(TextSplit, OtherCharactersAreNotSeparators) {
  EXPECT_EQ(split("a;b,c", ';'), (Parts{"a", "b,c"}));
}

TEST(TextTrim, RemovesSpacesTabsAndNewlinesAtBothEnds) {
  EXPECT_EQ(trim("  abc  "), "abc");
  EXPECT_EQ(trim("\t\r\nabc\r\n"), "abc");
  EXPECT_EQ(trim("abc"), "abc");
}

TEST(TextTrim, KeepsInnerWhitespace) {
  EXPECT_EQ(trim("  a b\tc "), "a b\tc");
}

TEST(TextTrim, EmptyAndAllWhitespace) {
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \t\r\n "), "");
}

TEST(TextToLower, LowersAsciiOnly) {
  EXPECT_EQ(to_lower("CUDA_Visible_DEVICES"), "cuda_visible_devices");
  EXPECT_EQ(to_lower("abc123"), "abc123");
  EXPECT_EQ(to_lower(""), "");
  EXPECT_EQ(to_lower("硬件 GPU"), "硬件 gpu");
}

TEST(TextJoin, JoinsWithSeparator) {
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join({"only"}, ","), "only");
  EXPECT_EQ(join({}, ","), "");
  EXPECT_EQ(join({"", ""}, ":"), ":");
  EXPECT_EQ(join({"a", "b"}, ""), "ab");
}

TEST(TextJoin, IsTheInverseOfSplit) {
  const std::string s = "/usr/local/cuda/bin::/usr/bin:";
  EXPECT_EQ(join(split(s, ':'), ":"), s);
}

TEST(TextStartsWithIcase, IgnoresCase) {
  EXPECT_TRUE(starts_with_icase("zh_CN.UTF-8", "ZH"));
  EXPECT_TRUE(starts_with_icase("CUDA_HOME", "cuda_"));
  EXPECT_TRUE(starts_with_icase("abc", "abc"));
  EXPECT_TRUE(starts_with_icase("abc", ""));
  EXPECT_TRUE(starts_with_icase("", ""));
}

TEST(TextStartsWithIcase, RejectsNonPrefixes) {
  EXPECT_FALSE(starts_with_icase("ab", "abc"));
  EXPECT_FALSE(starts_with_icase("xabc", "abc"));
  EXPECT_FALSE(starts_with_icase("", "a"));
}

TEST(TextContainsIcase, FindsAnywhereIgnoringCase) {
  EXPECT_TRUE(contains_icase("GITHUB_TOKEN", "token"));
  EXPECT_TRUE(contains_icase("my_Secret_value", "SECRET"));
  EXPECT_TRUE(contains_icase("abc", "abc"));
  EXPECT_TRUE(contains_icase("abc", ""));
  EXPECT_FALSE(contains_icase("abc", "abcd"));
  EXPECT_FALSE(contains_icase("CUDA_HOME", "token"));
  EXPECT_FALSE(contains_icase("", "a"));
}

TEST(TextIsDigits, AcceptsOnlyNonEmptyAsciiDigits) {
  EXPECT_TRUE(is_digits("0"));
  EXPECT_TRUE(is_digits("0123456789"));
  EXPECT_FALSE(is_digits(""));
  EXPECT_FALSE(is_digits("-1"));
  EXPECT_FALSE(is_digits("+1"));
  EXPECT_FALSE(is_digits("1.5"));
  EXPECT_FALSE(is_digits(" 1"));
  EXPECT_FALSE(is_digits("1 "));
  EXPECT_FALSE(is_digits("12a"));
  EXPECT_FALSE(is_digits("１"));  // fullwidth digit one
}

TEST(TextDisplayWidth, AsciiCountsOnePerByte) {
  EXPECT_EQ(display_width(""), 0u);
  EXPECT_EQ(display_width("a"), 1u);
  EXPECT_EQ(display_width("GPU 0: NVIDIA"), 13u);
}

TEST(TextDisplayWidth, ChineseCharactersCountTwo) {
  EXPECT_EQ(display_width("硬"), 2u);
  EXPECT_EQ(display_width("硬件"), 4u);
  EXPECT_EQ(display_width("驱动"), 4u);
  EXPECT_EQ(display_width("，"), 2u);  // fullwidth comma
  EXPECT_EQ(display_width("（"), 2u);  // fullwidth parenthesis
}

TEST(TextDisplayWidth, MixedStrings) {
  EXPECT_EQ(display_width("GPU 就绪"), 8u);
  EXPECT_EQ(display_width("a硬b件c"), 7u);
  EXPECT_EQ(display_width("cuDNN 8.9，位于 /usr"), 20u);
}

TEST(TextDisplayWidth, NarrowNonAsciiCountsOne) {
  EXPECT_EQ(display_width("✔"), 1u);
  EXPECT_EQ(display_width("✔ ok"), 4u);
  EXPECT_EQ(display_width("·"), 1u);  // middle dot, two bytes
  EXPECT_EQ(display_width("≤"), 1u);
  EXPECT_EQ(display_width("é"), 1u);
  EXPECT_EQ(display_width("—"), 1u);
}

TEST(TextDisplayWidth, SupplementaryIdeographsCountTwo) {
  EXPECT_EQ(display_width("\xF0\xA0\x80\x80"), 2u);  // U+20000, CJK Extension B
}

TEST(TextDisplayWidth, TruncatedUtf8DoesNotOverrun) {
  // A lone lead byte of a three-byte sequence at the end of the string.
  EXPECT_LE(display_width("ab\xE7"), 4u);
  EXPECT_GE(display_width("ab\xE7"), 2u);
}

TEST(TextDisplayWidth, EmojiAreWideAndCombiningMarksTakeNoColumn) {
  EXPECT_EQ(display_width("\xF0\x9F\x98\x80"), 2u);  // U+1F600
  EXPECT_EQ(display_width("e\xCC\x81"), 1u);         // e + U+0301
}

TEST(Utf8, WellFormedOnly) {
  EXPECT_TRUE(is_utf8(""));
  EXPECT_TRUE(is_utf8("ascii \xE9\x94\x99 \xF0\x9F\x98\x80"));
  EXPECT_FALSE(is_utf8("\xC0\xAF"));          // an overlong '/'
  EXPECT_FALSE(is_utf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(is_utf8("\xE4\xB8"));          // cut short
  EXPECT_FALSE(is_utf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(is_utf8("caf\xE9 ok"));        // Latin-1
}

TEST(Gbk, ReadAsUtf8OrNotAtAll) {
  EXPECT_EQ(gbk_to_utf8("\xD5\xD2\xB2\xBB\xB5\xBD ok"), "找不到 ok");
  EXPECT_EQ(gbk_to_utf8("plain"), "plain");
  EXPECT_EQ(gbk_to_utf8("\xD5"), std::nullopt);        // half a character
  EXPECT_EQ(gbk_to_utf8("\xD5\x20ok"), std::nullopt);  // no such character
}

}  // namespace
