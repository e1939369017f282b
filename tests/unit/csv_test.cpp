#include "kb/csv.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using gpuvet::kb::parse_csv;
using gpuvet::kb::Table;

Table parse_ok(std::string_view text, const std::string& name = "t.csv") {
  auto table = parse_csv(text, name);
  EXPECT_TRUE(table.ok()) << (table.ok() ? "" : table.error().message);
  if (!table.ok()) return Table{};
  return std::move(table).value();
}

std::string parse_error(std::string_view text, const std::string& name = "data/bad.csv") {
  auto table = parse_csv(text, name);
  EXPECT_FALSE(table.ok()) << "expected an error for: " << text;
  if (table.ok()) return "";
  EXPECT_EQ(table.error().message.rfind(name, 0), 0u)
      << "error should start with the name: " << table.error().message;
  return table.error().message;
}

TEST(Csv, HeaderAndRows) {
  const Table t = parse_ok("id,layer,source\ngpu.none,hardware,a\ndriver.missing,driver,b\n");
  EXPECT_EQ(t.name(), "t.csv");
  EXPECT_EQ(t.header(), (std::vector<std::string>{"id", "layer", "source"}));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.cell(0, "id"), "gpu.none");
  EXPECT_EQ(t.cell(0, "layer"), "hardware");
  EXPECT_EQ(t.cell(1, "id"), "driver.missing");
  EXPECT_EQ(t.cell(1, "source"), "b");
}

TEST(Csv, HeaderOnlyHasNoRows) {
  const Table t = parse_ok("key,text\n");
  EXPECT_EQ(t.header().size(), 2u);
  EXPECT_EQ(t.size(), 0u);
}

TEST(Csv, LastLineWithoutNewline) {
  const Table t = parse_ok("a,b\n1,2");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.cell(0, "b"), "2");
}

TEST(Csv, EmptyFields) {
  const Table t = parse_ok("a,b,c\n,,\n1,,3\n");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.cell(0, "a"), "");
  EXPECT_EQ(t.cell(0, "c"), "");
  EXPECT_EQ(t.cell(1, "a"), "1");
  EXPECT_EQ(t.cell(1, "b"), "");
  EXPECT_EQ(t.cell(1, "c"), "3");
}

TEST(Csv, HasColumnAndUnknownColumnGivesEmptyString) {
  const Table t = parse_ok("key,text\nk,v\n");
  EXPECT_TRUE(t.has_column("key"));
  EXPECT_TRUE(t.has_column("text"));
  EXPECT_FALSE(t.has_column("source"));
  EXPECT_FALSE(t.has_column("Key"));
  EXPECT_EQ(t.cell(0, "source"), "");
  EXPECT_EQ(t.cell(0, ""), "");
}

TEST(Csv, QuotedFieldWithComma) {
  const Table t = parse_ok("id,meaning\nx,\"a, b, c\"\n");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.cell(0, "meaning"), "a, b, c");
}

TEST(Csv, QuotedFieldWithDoubledQuotes) {
  const Table t = parse_ok("id,meaning\nx,\"say \"\"hi\"\", then go\"\n");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.cell(0, "meaning"), "say \"hi\", then go");
}

TEST(Csv, QuotedFieldThatIsOnlyAQuote) {
  const Table t = parse_ok("a,b\n\"\"\"\",x\n");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.cell(0, "a"), "\"");
}

TEST(Csv, QuotedEmptyField) {
  const Table t = parse_ok("a,b\n\"\",x\n");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.cell(0, "a"), "");
  EXPECT_EQ(t.cell(0, "b"), "x");
}

TEST(Csv, QuotedFieldWithEmbeddedNewline) {
  const Table t = parse_ok("id,text\nx,\"line one\nline two\"\ny,z\n");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.cell(0, "text"), "line one\nline two");
  EXPECT_EQ(t.cell(1, "id"), "y");
  EXPECT_EQ(t.cell(1, "text"), "z");
}

TEST(Csv, QuotedLastFieldWithoutNewline) {
  const Table t = parse_ok("a,b\n1,\"2\"");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.cell(0, "b"), "2");
}

TEST(Csv, CrlfLineEndings) {
  const Table t = parse_ok("a,b\r\n1,2\r\n3,4\r\n");
  EXPECT_EQ(t.header(), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.cell(0, "b"), "2");
  EXPECT_EQ(t.cell(1, "a"), "3");
  EXPECT_EQ(t.cell(1, "b"), "4");
  EXPECT_EQ(t.line_of(0), 2);
  EXPECT_EQ(t.line_of(1), 3);
}

TEST(Csv, CrlfWithCommentsAndBlankLines) {
  const Table t = parse_ok("# c, \"x\r\na,b\r\n\r\n# more\r\n1,2\r\n");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.header(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.cell(0, "b"), "2");
  EXPECT_EQ(t.line_of(0), 5);
}

TEST(Csv, Utf8ByteOrderMarkIsSkipped) {
  const Table t = parse_ok("\xEF\xBB\xBFkey,text\nk,v\n");
  EXPECT_EQ(t.header(), (std::vector<std::string>{"key", "text"}));
  EXPECT_TRUE(t.has_column("key"));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.cell(0, "key"), "k");
  EXPECT_EQ(t.line_of(0), 2);
}

TEST(Csv, Utf8ByteOrderMarkBeforeComment) {
  const Table t = parse_ok("\xEF\xBB\xBF# comment\nkey,text\nk,v\n");
  EXPECT_EQ(t.header(), (std::vector<std::string>{"key", "text"}));
  ASSERT_EQ(t.size(), 1u);
}

TEST(Csv, Utf8ContentIsKept) {
  const Table t = parse_ok("key,text\nreport.layer.hardware,硬件\n");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.cell(0, "text"), "硬件");
}

TEST(Csv, CommentLinesAnywhere) {
  const Table t = parse_ok(
      "# leading comment\n"
      "id,value\n"
      "# between header and rows\n"
      "a,1\n"
      "# between rows\n"
      "b,2\n"
      "# trailing comment\n");
  EXPECT_EQ(t.header(), (std::vector<std::string>{"id", "value"}));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.cell(0, "id"), "a");
  EXPECT_EQ(t.cell(1, "id"), "b");
}

TEST(Csv, CommentsWithQuotesAndCommas) {
  const Table t = parse_ok(
      "# a \"quoted, thing\" and an unbalanced \" quote, with, commas\n"
      "id,value\n"
      "#\"\n"
      "# don't, \"\"stop\n"
      "a,1\n");
  EXPECT_EQ(t.header(), (std::vector<std::string>{"id", "value"}));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.cell(0, "value"), "1");
  EXPECT_EQ(t.line_of(0), 5);
}

TEST(Csv, CommentAtEndWithoutNewline) {
  const Table t = parse_ok("a,b\n1,2\n# the end, \"really\"");
  ASSERT_EQ(t.size(), 1u);
}

TEST(Csv, HashInsideAFieldIsData) {
  const Table t = parse_ok("a,b\nx,#not a comment\n\"#quoted\",y\n");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.cell(0, "b"), "#not a comment");
  EXPECT_EQ(t.cell(1, "a"), "#quoted");
}

TEST(Csv, BlankLinesAreSkipped) {
  const Table t = parse_ok("\n\na,b\n\n1,2\n\n\n3,4\n\n");
  EXPECT_EQ(t.header(), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.cell(0, "a"), "1");
  EXPECT_EQ(t.cell(1, "a"), "3");
  EXPECT_EQ(t.line_of(0), 5);
  EXPECT_EQ(t.line_of(1), 8);
}

TEST(Csv, LineOfReportsFileLines) {
  const Table t = parse_ok(
      "# comment\n"  // 1
      "a,b\n"        // 2
      "1,2\n"        // 3
      "\n"           // 4
      "# c\n"        // 5
      "3,4\n");      // 6
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.line_of(0), 3);
  EXPECT_EQ(t.line_of(1), 6);
}

TEST(Csv, LineOfAfterMultiLineQuotedField) {
  const Table t = parse_ok(
      "a,b\n"            // 1
      "1,\"x\ny\nz\"\n"  // 2-4
      "2,w\n"            // 5
      "3,\"p\r\nq\"\n"   // 6-7
      "4,v\n");          // 8
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.line_of(0), 2);
  EXPECT_EQ(t.line_of(1), 5);
  EXPECT_EQ(t.line_of(2), 6);
  EXPECT_EQ(t.line_of(3), 8);
  EXPECT_EQ(t.cell(0, "b"), "x\ny\nz");
}

TEST(Csv, LineOfOutOfRangeThrows) {
  const Table t = parse_ok("a\n1\n");
  EXPECT_THROW((void)t.line_of(1), std::out_of_range);
}

TEST(CsvErrors, WrongNumberOfFields) {
  const std::string message = parse_error("a,b,c\n1,2,3\n4,5\n", "data/x.csv");
  EXPECT_NE(message.find("data/x.csv:3"), std::string::npos) << message;
  EXPECT_NE(message.find("expected"), std::string::npos) << message;
  EXPECT_NE(message.find("3"), std::string::npos) << message;
  EXPECT_NE(message.find("2"), std::string::npos) << message;
}

TEST(CsvErrors, TooManyFields) {
  const std::string message = parse_error("a,b\n1,2,3\n", "data/y.csv");
  EXPECT_NE(message.find("data/y.csv:2"), std::string::npos) << message;
  EXPECT_NE(message.find("expected"), std::string::npos) << message;
}

TEST(CsvErrors, WrongNumberOfFieldsAfterMultiLineField) {
  const std::string message = parse_error("a,b\n1,\"x\ny\"\n# c\n2\n", "data/z.csv");
  EXPECT_NE(message.find("data/z.csv:5"), std::string::npos) << message;
  EXPECT_NE(message.find("expected"), std::string::npos) << message;
}

TEST(CsvErrors, UnterminatedQuote) {
  const std::string message = parse_error("a,b\n1,\"never closed\n2,3\n");
  EXPECT_NE(message.find("unterminated"), std::string::npos) << message;
}

TEST(CsvErrors, StrayQuoteInTheMiddleOfAField) {
  const std::string message = parse_error("a,b\n1,ab\"c\n");
  EXPECT_NE(message.find("data/bad.csv:2"), std::string::npos) << message;
  EXPECT_NE(message.find("quote"), std::string::npos) << message;
}

TEST(CsvErrors, TextAfterClosingQuote) {
  const std::string message = parse_error("a,b\n1,\"ab\"c\n");
  EXPECT_NE(message.find("data/bad.csv:2"), std::string::npos) << message;
  EXPECT_NE(message.find("after a closing quote"), std::string::npos) << message;
}

TEST(CsvErrors, SpaceAfterClosingQuote) {
  parse_error("a,b\n\"1\" ,2\n");
  parse_error("a,b\n1,\"2\" \n");
}

TEST(CsvErrors, NulByte) {
  const std::string text("a,b\n1,\0\n", 8);
  const std::string message = parse_error(text);
  EXPECT_NE(message.find("data/bad.csv:2"), std::string::npos) << message;
  EXPECT_NE(message.find("NUL"), std::string::npos) << message;
}

TEST(CsvErrors, NulByteInsideQuotes) {
  const std::string text("a,b\n1,\"x\0y\"\n", 12);
  const std::string message = parse_error(text);
  EXPECT_NE(message.find("NUL"), std::string::npos) << message;
}

TEST(CsvErrors, NoHeader) {
  EXPECT_NE(parse_error("").find("header"), std::string::npos);
  EXPECT_NE(parse_error("\n\n").find("header"), std::string::npos);
  EXPECT_NE(parse_error("# only a comment\n# and another, \"quoted\"\n").find("header"),
            std::string::npos);
  EXPECT_NE(parse_error("\xEF\xBB\xBF").find("header"), std::string::npos);
}

TEST(CsvErrorLines, UnterminatedQuoteNamesTheLineWhereItOpened) {
  const auto table = parse_csv("a,b\n1,\"never closed\n2,3\n4,5\n", "x.csv");
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.error().message.rfind("x.csv:2:", 0), 0u) << table.error().message;
}

}  // namespace
