#include "kb/messages.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "kb/kb.hpp"

namespace {

using gpuvet::kb::Kb;
using gpuvet::kb::Lang;
using gpuvet::kb::lang_code;
using gpuvet::kb::lang_from_locale;
using gpuvet::kb::Messages;

TEST(LangFromLocale, ChineseLocales) {
  EXPECT_EQ(lang_from_locale("zh_CN.UTF-8"), Lang::zh);
  EXPECT_EQ(lang_from_locale("zh"), Lang::zh);
  EXPECT_EQ(lang_from_locale("ZH_tw"), Lang::zh);
  EXPECT_EQ(lang_from_locale("zh-Hans"), Lang::zh);
  EXPECT_EQ(lang_from_locale("zh_TW.Big5"), Lang::zh);
}

TEST(LangFromLocale, EverythingElseIsEnglish) {
  EXPECT_EQ(lang_from_locale("en_US.UTF-8"), Lang::en);
  EXPECT_EQ(lang_from_locale("C"), Lang::en);
  EXPECT_EQ(lang_from_locale("C.UTF-8"), Lang::en);
  EXPECT_EQ(lang_from_locale("POSIX"), Lang::en);
  EXPECT_EQ(lang_from_locale(""), Lang::en);
  EXPECT_EQ(lang_from_locale("de_DE.UTF-8"), Lang::en);
  EXPECT_EQ(lang_from_locale("z"), Lang::en);
}

TEST(LangCode, Codes) {
  EXPECT_EQ(lang_code(Lang::en), "en");
  EXPECT_EQ(lang_code(Lang::zh), "zh");
  EXPECT_EQ(lang_from_locale(lang_code(Lang::zh)), Lang::zh);
  EXPECT_EQ(lang_from_locale(lang_code(Lang::en)), Lang::en);
}

Kb test_kb() {
  const std::map<std::string, std::string> files = {
      {"messages/en.csv",
       "# English\n"
       "key,text\n"
       "greeting,\"Hello, {name}!\"\n"
       "two,{a} and {b}\n"
       "plain,no arguments here\n"
       "english_only,only in English: {x}\n"
       "broken,{unclosed\n"
       "broken_close,stray } brace\n"
       "needs_arg,value is {missing}\n"
       "escaped,\"{{literal}} {name}\"\n"
       "driver,\"The driver is too old (found {found}); it needs {min} (see (notes)).\"\n"
       "nested,\"outer (inner (deep {x}) tail) end\"\n"
       "unclosed_paren,\"open ( {x} never closed\"\n"
       "mixed,\"a (b \xEF\xBC\x88"
       "c {x}\xEF\xBC\x89"
       " d) e\"\n"},
      {"messages/zh-CN.csv",
       "# 中文\n"
       "key,text\n"
       "greeting,你好，{name}！\n"
       "two,{b} 和 {a}\n"
       "plain,没有参数\n"
       "driver,驱动太旧（找到 {found}），需要 {min}。\n"},
  };
  auto kb = Kb::from_files(files);
  EXPECT_TRUE(kb.ok()) << kb.error().message;
  return kb.ok() ? std::move(kb).value() : Kb{};
}

Messages load(const Kb& kb, Lang lang) {
  auto messages = Messages::load(kb, lang);
  EXPECT_TRUE(messages.ok()) << messages.error().message;
  return messages.ok() ? std::move(messages).value() : Messages{};
}

TEST(Messages, EnglishSubstitutesNamedArguments) {
  const Kb kb = test_kb();
  const Messages m = load(kb, Lang::en);
  EXPECT_EQ(m.lang(), Lang::en);
  EXPECT_EQ(m.text("greeting", {{"name", "Ada"}}), "Hello, Ada!");
  EXPECT_EQ(m.text("two", {{"a", "1"}, {"b", "2"}}), "1 and 2");
  EXPECT_EQ(m.text("two", {{"b", "2"}, {"a", "1"}}), "1 and 2");
  EXPECT_EQ(m.text("plain"), "no arguments here");
  EXPECT_EQ(m.text("escaped", {{"name", "x"}}), "{literal} x");
}

TEST(Messages, ExtraArgumentsAreIgnored) {
  const Kb kb = test_kb();
  const Messages m = load(kb, Lang::en);
  EXPECT_EQ(m.text("plain", {{"unused", "x"}}), "no arguments here");
  EXPECT_EQ(m.text("greeting", {{"name", "Ada"}, {"other", "y"}}), "Hello, Ada!");
}

TEST(Messages, ArgumentValuesAreNotTemplates) {
  const Kb kb = test_kb();
  const Messages m = load(kb, Lang::en);
  EXPECT_EQ(m.text("greeting", {{"name", "{name} {0} }"}}), "Hello, {name} {0} }!");
}

TEST(Messages, ChineseTranslates) {
  const Kb kb = test_kb();
  const Messages m = load(kb, Lang::zh);
  EXPECT_EQ(m.lang(), Lang::zh);
  EXPECT_EQ(m.text("greeting", {{"name", "Ada"}}), "你好，Ada！");
  EXPECT_EQ(m.text("two", {{"a", "1"}, {"b", "2"}}), "2 和 1");
  EXPECT_EQ(m.text("plain"), "没有参数");
}

TEST(Messages, ChineseFallsBackToEnglishForMissingKeys) {
  const Kb kb = test_kb();
  const Messages m = load(kb, Lang::zh);
  EXPECT_TRUE(m.has("english_only"));
  EXPECT_EQ(m.text("english_only", {{"x", "42"}}), "only in English: 42");
}

TEST(Messages, UnknownKeyReturnsTheKey) {
  const Kb kb = test_kb();
  for (Lang lang : {Lang::en, Lang::zh}) {
    const Messages m = load(kb, lang);
    EXPECT_FALSE(m.has("no.such.key"));
    EXPECT_EQ(m.text("no.such.key"), "no.such.key");
    EXPECT_EQ(m.text("no.such.key", {{"name", "x"}}), "no.such.key");
    EXPECT_EQ(m.text(""), "");
  }
}

TEST(Messages, AbsentArgumentsTakeTheirParenthesesWithThem) {
  const Kb kb = test_kb();
  const Messages en = load(kb, Lang::en);
  const gpuvet::kb::MessageArgs args = {{"found", "unknown"}, {"min", "525"}, {"x", "unknown"}};
  EXPECT_EQ(en.text_without("driver", args, {"found"}),
            "The driver is too old; it needs 525 (see (notes)).");
  EXPECT_EQ(en.text_without("driver", args, {}),
            "The driver is too old (found unknown); it needs 525 (see (notes)).");
  // Outside parentheses an absent argument keeps the value it was given.
  EXPECT_EQ(en.text_without("driver", args, {"min"}),
            "The driver is too old (found unknown); it needs 525 (see (notes)).");
  EXPECT_EQ(en.text_without("nested", args, {"x"}), "outer (inner tail) end");
  EXPECT_EQ(en.text_without("unclosed_paren", args, {"x"}), "open ( unknown never closed");
  // The innermost of either kind goes, not the one around it.
  EXPECT_EQ(en.text_without("mixed", args, {"x"}), "a (b d) e");
  EXPECT_EQ(en.text_without("no.such.key", args, {"x"}), "no.such.key");
  const Messages zh = load(kb, Lang::zh);
  EXPECT_EQ(zh.text_without("driver", args, {"found"}), "驱动太旧，需要 525。");
}

TEST(Messages, HasKnownKeys) {
  const Kb kb = test_kb();
  const Messages m = load(kb, Lang::en);
  EXPECT_TRUE(m.has("greeting"));
  EXPECT_TRUE(m.has("broken"));
  EXPECT_FALSE(m.has("Greeting"));
}

TEST(Messages, BrokenTemplateReturnsTheKey) {
  const Kb kb = test_kb();
  const Messages m = load(kb, Lang::en);
  EXPECT_NO_THROW({ EXPECT_EQ(m.text("broken"), "broken"); });
  EXPECT_NO_THROW({ EXPECT_EQ(m.text("broken", {{"unclosed", "x"}}), "broken"); });
  EXPECT_NO_THROW({ EXPECT_EQ(m.text("broken_close"), "broken_close"); });
}

TEST(Messages, MissingArgumentReturnsTheKey) {
  const Kb kb = test_kb();
  const Messages m = load(kb, Lang::en);
  EXPECT_NO_THROW({ EXPECT_EQ(m.text("needs_arg"), "needs_arg"); });
  EXPECT_NO_THROW({ EXPECT_EQ(m.text("needs_arg", {{"other", "x"}}), "needs_arg"); });
  EXPECT_NO_THROW({ EXPECT_EQ(m.text("two", {{"a", "1"}}), "two"); });
}

TEST(Messages, LoadFailsWithoutEnglishCatalog) {
  auto kb = Kb::from_files({{"messages/zh-CN.csv", "key,text\na,b\n"}});
  ASSERT_TRUE(kb.ok());
  auto messages = Messages::load(*kb, Lang::zh);
  ASSERT_FALSE(messages.ok());
  EXPECT_NE(messages.error().message.find("messages/en"), std::string::npos)
      << messages.error().message;
}

TEST(Messages, LoadFailsWithoutTheRequestedCatalog) {
  auto kb = Kb::from_files({{"messages/en.csv", "key,text\na,b\n"}});
  ASSERT_TRUE(kb.ok());
  EXPECT_TRUE(Messages::load(*kb, Lang::en).ok());
  auto zh = Messages::load(*kb, Lang::zh);
  ASSERT_FALSE(zh.ok());
  EXPECT_NE(zh.error().message.find("messages/zh-CN"), std::string::npos) << zh.error().message;
}

TEST(Messages, LoadFailsWhenCatalogLacksColumns) {
  auto kb = Kb::from_files({{"messages/en.csv", "name,value\na,b\n"}});
  ASSERT_TRUE(kb.ok());
  auto messages = Messages::load(*kb, Lang::en);
  ASSERT_FALSE(messages.ok());
  EXPECT_NE(messages.error().message.find("key,text"), std::string::npos)
      << messages.error().message;
}

TEST(MessagesEmbedded, EnglishAndChineseLoad) {
  auto kb = Kb::embedded();
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  for (Lang lang : {Lang::en, Lang::zh}) {
    auto messages = Messages::load(*kb, lang);
    ASSERT_TRUE(messages.ok()) << lang_code(lang) << ": " << messages.error().message;
    EXPECT_EQ(messages->lang(), lang);
    EXPECT_TRUE(messages->has("report.no_problems"));
  }
}

TEST(MessagesEmbedded, RealTemplatesFormat) {
  auto kb = Kb::embedded();
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  auto en = Messages::load(*kb, Lang::en);
  auto zh = Messages::load(*kb, Lang::zh);
  ASSERT_TRUE(en.ok() && zh.ok());
  const gpuvet::kb::MessageArgs args = {{"level", "3"}, {"hidden", "INFO WARNING ERROR"}};
  EXPECT_EQ(en->text("env.log_level_hides_errors.title", args),
            "TF_CPP_MIN_LOG_LEVEL=3 hides TensorFlow's INFO WARNING ERROR messages");
  EXPECT_EQ(zh->text("env.log_level_hides_errors.title", args),
            "TF_CPP_MIN_LOG_LEVEL=3 会屏蔽 TensorFlow 的 INFO WARNING ERROR 日志");
  EXPECT_EQ(zh->text("report.layer.hardware"), "硬件");
  EXPECT_EQ(en->text("report.layer.hardware"), "Hardware");
}

}  // namespace
