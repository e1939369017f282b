// The command line's conventions as pure functions: global options before the verb, the nearest
// verb to a typo, metavariables, the completion scripts and the man page made from the verbs'
// declarations (the real command line, not a copy of it).
#include <gtest/gtest.h>

#include "cli/app.hpp"
#include "cli/arguments.hpp"
#include "cli/command_model.hpp"
#include "cli/completion.hpp"
#include "cli/man_page.hpp"
#include "test_support.hpp"

namespace gpuvet::cli {
namespace {

using Args = std::vector<std::string>;

kb::Messages english() {
  return *kb::Messages::load(testing::embedded_kb(), kb::Lang::en);
}

TEST(CliArguments, GlobalOptionsBeforeTheVerbGoAfterIt) {
  EXPECT_EQ(hoist_global_options({"--lang", "zh", "plan", "torch"}),
            (Args{"plan", "torch", "--lang", "zh"}));
  EXPECT_EQ(hoist_global_options({"--no-color", "--lang=zh", "--json", "fleet", "report", "d"}),
            (Args{"fleet", "report", "d", "--no-color", "--lang=zh", "--json"}));
  // Before the srun arguments, which are not gpuvet's.
  EXPECT_EQ(hoist_global_options({"--json", "fleet", "collect", "--slurm", "--", "-N2"}),
            (Args{"fleet", "collect", "--slurm", "--json", "--", "-N2"}));
  // No verb after them: gpuvet's default verb takes them where they are.
  EXPECT_EQ(hoist_global_options({"--lang", "zh"}), (Args{"--lang", "zh"}));
  EXPECT_EQ(hoist_global_options({"--json", "--snapshot", "f"}),
            (Args{"--json", "--snapshot", "f"}));
  // A verb's own option first: nothing moves.
  EXPECT_EQ(hoist_global_options({"plan", "--lang", "zh", "torch"}),
            (Args{"plan", "--lang", "zh", "torch"}));
  EXPECT_EQ(with_default_verb(hoist_global_options({"--lang", "zh"})),
            (Args{"check", "--lang", "zh"}));
}

TEST(CliArguments, LanguageOfTheArgumentsNotOfTheUsersText) {
  EXPECT_EQ(lang_of_arguments({"plan", "--lang", "zh"}, kb::Lang::en), kb::Lang::zh);
  EXPECT_EQ(lang_of_arguments({"--lang=zh"}, kb::Lang::en), kb::Lang::zh);
  EXPECT_EQ(lang_of_arguments({"--lang", "en"}, kb::Lang::zh), kb::Lang::en);
  EXPECT_EQ(lang_of_arguments({"explain", "--text", "--lang", "zh"}, kb::Lang::en), kb::Lang::en);
  EXPECT_EQ(lang_of_arguments({"fleet", "collect", "--", "--lang", "zh"}, kb::Lang::en),
            kb::Lang::en);
}

TEST(CliArguments, NearestNameToATypo) {
  const Args verbs = {"check", "verify", "bench", "snapshot", "which", "explain",   "plan",
                      "fix",   "undo",   "fleet", "kb",       "help",  "completion"};
  EXPECT_EQ(nearest_name("chek", verbs), "check");
  EXPECT_EQ(nearest_name("chcek", verbs), "check");  // neighbours swapped: one edit
  EXPECT_EQ(nearest_name("paln", verbs), "plan");
  EXPECT_EQ(nearest_name("explian", verbs), "explain");
  EXPECT_EQ(nearest_name("snap", verbs), "snapshot");  // a unique beginning
  EXPECT_EQ(nearest_name("compl", verbs), "completion");
  EXPECT_EQ(nearest_name("frobnicate", verbs), std::nullopt);
  EXPECT_EQ(nearest_name("x", verbs), std::nullopt);
  EXPECT_EQ(nearest_name("--jsn", {"--json", "--lang"}), "--json");
}

TEST(CliModel, ChoicesAreListsOfLowerCaseWords) {
  EXPECT_EQ(choices_of("en|zh"), (Args{"en", "zh"}));
  EXPECT_EQ(choices_of("cudnn-install"), (Args{"cudnn-install"}));
  EXPECT_TRUE(choices_of("FILE|-").empty());
  EXPECT_TRUE(choices_of("X.Y").empty());
  EXPECT_TRUE(choices_of("").empty());
}

void expect_named_values(const CommandModel& command, const std::string& path) {
  for (const OptionModel& option : command.options) {
    if (option.kind == ValueKind::none) continue;
    const std::string where = path + " " + option.names.back();
    EXPECT_FALSE(option.metavar.empty()) << where;
    for (const char* vague : {"TEXT", "VALUE", "INT", "UINT", "FLOAT"}) {
      EXPECT_NE(option.metavar, vague) << where << " says only what type its value is";
    }
  }
  for (const CommandModel& sub : command.subcommands)
    expect_named_values(sub, path + " " + sub.name);
}

TEST(CliModel, EveryValueSaysWhatItIs) {
  const CommandModel command_line = command_line_model(english());
  expect_named_values(command_line, "gpuvet");
  const CommandModel* plan = command_line.subcommand("plan");
  ASSERT_NE(plan, nullptr);
  bool os_seen = false;
  for (const OptionModel& option : plan->options) {
    if (option.names.back() == "--os") {
      os_seen = true;
      EXPECT_EQ(option.kind, ValueKind::choice);
      EXPECT_EQ(option.choices, (Args{"windows", "linux", "wsl2"}));
    }
    if (option.names.back() == "--snapshot") {
      EXPECT_EQ(option.kind, ValueKind::file);
    }
    if (option.names.back() == "--write") {
      EXPECT_EQ(option.kind, ValueKind::directory);
    }
    if (option.positional) {
      EXPECT_EQ(option.kind, ValueKind::framework);
    }
  }
  EXPECT_TRUE(os_seen);
  // Hidden verbs and options stay hidden.
  EXPECT_EQ(command_line.subcommand("native-query"), nullptr);
  ASSERT_NE(command_line.subcommand("fleet"), nullptr);
  EXPECT_EQ(command_line.subcommand("fleet")->subcommand("node"), nullptr);
}

void collect_missing_help(const CommandModel& command, const kb::Messages& m,
                          std::string& missing) {
  auto quoted = [](const std::string& text) {
    std::string q = "\"";
    for (char c : text)
      q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  if (!m.has(command.help_key)) missing += command.help_key + "," + quoted(command.help) + "\n";
  for (const OptionModel& option : command.options) {
    if (!m.has(option.help_key)) missing += option.help_key + "," + quoted(option.help) + "\n";
  }
  for (const CommandModel& sub : command.subcommands)
    collect_missing_help(sub, m, missing);
}

// Every description comes from the catalogs (kb_test checks that zh-CN has every English key).
TEST(CliModel, EveryDescriptionIsInTheCatalog) {
  std::string missing;
  collect_missing_help(command_line_model(english()), english(), missing);
  EXPECT_TRUE(missing.empty()) << "rows missing from data/messages/en.csv:\n" << missing;
}

TEST(CliModel, EveryVerbListsItsExitStatuses) {
  const CommandModel command_line = command_line_model(english());
  for (const CommandModel& verb : command_line.subcommands) {
    EXPECT_NE(verb.footer.find("Exit status:"), std::string::npos) << verb.name;
    for (const char* status : {"\n  0  ", "\n  1  ", "\n  2  "})
      EXPECT_NE(verb.footer.find(status), std::string::npos) << verb.name;
  }
  EXPECT_NE(command_line.subcommand("plan")->footer.find("a feasible option exists"),
            std::string::npos);
  EXPECT_NE(command_line.subcommand("check")->footer.find("--strict"), std::string::npos);
}

TEST(CliCompletion, EveryShellGetsVerbsOptionsAndValues) {
  const CommandModel command_line = command_line_model(english());
  const Args frameworks = {"tensorflow", "torch", "pytorch"};
  for (const std::string& shell : completion_shells()) {
    const auto script = completion_script(shell, command_line, frameworks);
    ASSERT_TRUE(script) << shell;
    for (const char* word : {"check", "explain", "plan", "fleet", "collect", "report", "--lang",
                             "zh", "wsl2", "pytorch", "powershell", "cudnn-install"}) {
      const std::string spelled =
          shell == "fish" && std::string(word) == "--lang" ? "-l lang" : std::string(word);
      EXPECT_NE(script->find(spelled), std::string::npos) << shell << " lacks " << word;
    }
    EXPECT_EQ(script->find("native-query"), std::string::npos) << shell;
    EXPECT_EQ(script->find("--man"), std::string::npos) << shell;
  }
  EXPECT_FALSE(completion_script("tcsh", command_line, frameworks));
}

TEST(CliManPage, RoffFromTheSameDeclarations) {
  const CommandModel command_line = command_line_model(english());
  const std::string page = render_man_page(command_line, english(), "gpuvet 0.1.0", "2026-11-30");
  EXPECT_EQ(page.rfind(".TH GPUVET 1 \"2026-11-30\" \"gpuvet 0.1.0\"", 0), 0u)
      << page.substr(0, 80);
  for (const char* part : {".SH NAME", ".SH SYNOPSIS", ".SH COMMANDS", ".SH \"EXIT STATUS\"",
                           ".SH ENVIRONMENT", ".SS \"gpuvet fleet report\"", "\\-\\-snapshot",
                           "\\fIFRAMEWORK[==VERSION]\\fR", "GPUVET_NATIVE_TIMEOUT_MS"}) {
    EXPECT_NE(page.find(part), std::string::npos) << part;
  }
  // No line starts with a dot or quote that roff would take for a request by accident.
  size_t start = 0;
  while (start < page.size()) {
    const size_t end = std::min(page.find('\n', start), page.size());
    const std::string line = page.substr(start, end - start);
    if (!line.empty() && (line[0] == '.' || line[0] == '\'')) {
      EXPECT_TRUE(line.rfind(".TH", 0) == 0 || line.rfind(".SH", 0) == 0 ||
                  line.rfind(".SS", 0) == 0 || line == ".TP" || line == ".PP" || line == ".br" ||
                  line.rfind(".B ", 0) == 0)
          << line;
    }
    start = end + 1;
  }
}

}  // namespace
}  // namespace gpuvet::cli
