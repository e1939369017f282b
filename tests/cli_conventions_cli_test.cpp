// The command line's conventions as users meet them: the real binary for help, typos, global
// options, --quiet and --strict; its completion scripts loaded in the real bash, zsh and fish;
// its man page read by groff.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"

namespace gpuvet {
namespace {

using testing::line_count;
using testing::Outcome;
using testing::run_command;
using testing::run_gpuvet;
using testing::TempDir;

const std::string kScenarios = std::string(GPUVET_SOURCE_DIR) + "/tests/scenarios/";

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliConventions, HelpVerbPrintsWhatVerbHelpPrints) {
  for (const char* verb : {"plan", "check", "fleet report", "kb gpu"}) {
    const Outcome help = run_gpuvet(std::string("help ") + verb);
    const Outcome own = run_gpuvet(std::string(verb) + " --help");
    EXPECT_EQ(help.status, 0) << verb << help.err;
    EXPECT_EQ(help.out, own.out) << verb;
    EXPECT_TRUE(has(help.out, "Exit status:")) << verb;
  }
  const Outcome top = run_gpuvet("help");
  EXPECT_EQ(top.status, 0);
  EXPECT_EQ(top.out, run_gpuvet("--help").out);
  EXPECT_TRUE(has(top.out, "completion")) << top.out;
  EXPECT_FALSE(has(top.out, "native-query"));
  // Metavariables say what a value is.
  const std::string plan = run_gpuvet("help plan").out;
  for (const char* shown : {"--snapshot FILE", "--write DIR", "--os windows|linux|wsl2", "--cc X.Y",
                            "FRAMEWORK[==VERSION]", "--lang en|zh"}) {
    EXPECT_TRUE(has(plan, shown)) << shown << "\n" << plan;
  }
  EXPECT_FALSE(has(plan, " TEXT")) << plan;
}

TEST(CliConventions, TyposGetTheNearestNameAndExitTwo) {
  const struct {
    const char* args;
    const char* suggestion;
  } cases[] = {
      {"chek", "did you mean check?"},
      {"paln torch", "did you mean plan?"},
      {"help explian", "did you mean explain?"},
      {"fleet reprot d", nullptr},
      {"check --jsn", "did you mean --json?"},
      {"fleet report --jsn d", "gpuvet fleet report has no option --jsn; did you mean --json?"},
      {"plan torch --pyhton 3.11", "did you mean --python?"},
      {"frobnicate", nullptr}};
  for (const auto& c : cases) {
    const Outcome run = run_gpuvet(c.args);
    EXPECT_EQ(run.status, 2) << c.args;
    EXPECT_EQ(line_count(run.err), 1u) << c.args << ": " << run.err;
    EXPECT_TRUE(run.out.empty()) << c.args;
    if (c.suggestion) {
      EXPECT_TRUE(has(run.err, c.suggestion)) << c.args << ": " << run.err;
    }
  }
  EXPECT_TRUE(has(run_gpuvet("chek --lang zh").err, "你是不是想用 check？"));
}

TEST(CliConventions, GlobalOptionsBeforeTheVerb) {
  const Outcome zh = run_gpuvet("--lang zh --no-color kb gpu \"RTX 3060\"");
  EXPECT_EQ(zh.status, 0) << zh.err;
  EXPECT_EQ(zh.out, run_gpuvet("kb gpu \"RTX 3060\" --lang zh --no-color").out);
  const Outcome json = run_gpuvet("--json which libc.so.6");
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out << json.err;
  const Outcome md = run_gpuvet("--format md --snapshot " + kScenarios + "cvd_empty/snapshot.json");
  EXPECT_EQ(md.status, 1) << md.err;
  EXPECT_EQ(md.out.rfind("#", 0), 0u) << md.out;
}

TEST(CliConventions, QuietIsOneLineAndStrictFailsOnWarnings) {
  const std::string ready = "--snapshot " + kScenarios + "linux_torch_cu121/snapshot.json";
  const std::string warned =
      "--snapshot " + kScenarios + "linux_driver_minor_compat_torch_cu124/snapshot.json";
  const std::string broken = "--snapshot " + kScenarios + "cvd_empty/snapshot.json";

  Outcome run = run_gpuvet("check --quiet " + ready);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "GPU ready: yes\n");
  run = run_gpuvet("check --quiet " + broken);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(line_count(run.out), 1u) << run.out;
  EXPECT_EQ(run.out.rfind("GPU ready: no — fix first: ", 0), 0u) << run.out;
  EXPECT_TRUE(has(run.out, "(gpu.not_visible")) << run.out;

  EXPECT_EQ(run_gpuvet("check " + warned).status, 0);
  EXPECT_EQ(run_gpuvet("check --strict " + warned).status, 1);
  EXPECT_EQ(run_gpuvet("check --strict " + ready).status, 0);
  run = run_gpuvet("check --strict --quiet " + warned);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.out.rfind("GPU ready: yes, but with --strict, fix first: ", 0), 0u) << run.out;
  run = run_gpuvet("--lang zh check --quiet " + ready);
  EXPECT_EQ(run.out, "GPU 就绪：是\n");
  // Not ready without a finding to fix (no GPU framework installed) says why, in one line.
  run = run_gpuvet("check --quiet --snapshot " + kScenarios + "linux_gpu_working/snapshot.json");
  EXPECT_EQ(run.out, "GPU ready: no — no environment on this machine can use a GPU yet\n");
  // A Windows machine's paths with backslashes, as in the full report.
  run = run_gpuvet("check --quiet --snapshot " + kScenarios +
                   "windows10_cudnn_not_copied/snapshot.json");
  EXPECT_TRUE(has(run.out, "C:\\Users\\zhang\\Miniconda3")) << run.out;
  EXPECT_FALSE(has(run.out, "C:/")) << run.out;
}

// A completion script saved, loaded in a real shell, asked what completes `words`.
class Completion : public ::testing::Test {
 protected:
  TempDir dir;
  std::string script(const std::string& shell) {
    const Outcome made = run_gpuvet("completion " + shell);
    EXPECT_EQ(made.status, 0) << made.err;
    return dir.file("gpuvet." + shell, made.out);
  }
  std::string shell_env() const { return "env -i PATH=/usr/bin:/bin HOME=" + dir.path() + " "; }
};

std::string single_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

TEST_F(Completion, BashCompletesVerbsOptionsValuesAndFiles) {
  const std::string file = script("bash");
  dir.file("snapshot-a.json", "{}");
  auto complete = [&](const std::string& line) {
    const std::string program = "source " + file + "; words=(" + line +
                                "); COMP_WORDS=(\"${words[@]}\"); COMP_CWORD=$((${#words[@]}-1)); "
                                "_gpuvet; printf '%s\\n' \"${COMPREPLY[@]}\"";
    return run_command(shell_env() + "bash -c " + single_quoted(program)).output;
  };
  EXPECT_EQ(complete("gpuvet pl"), "plan\n");
  EXPECT_EQ(complete("gpuvet plan --o"), "--os\n");
  EXPECT_EQ(complete("gpuvet plan --os w"), "windows\nwsl2\n");
  EXPECT_EQ(complete("gpuvet plan tensorf"), "tensorflow\n");
  EXPECT_EQ(complete("gpuvet plan --os linux py"), "pytorch\n");
  EXPECT_EQ(complete("gpuvet fleet r"), "report\n");
  EXPECT_EQ(complete("gpuvet fleet report --f"), "--format\n");
  EXPECT_EQ(complete("gpuvet --lang zh pl"), "plan\n");
  EXPECT_EQ(complete("gpuvet --la"), "--lang\n");
  EXPECT_EQ(complete("gpuvet completion p"), "powershell\n");
  EXPECT_EQ(complete("gpuvet help expl"), "explain\n");
  EXPECT_EQ(complete("gpuvet check --snapshot " + dir.path() + "/snap"),
            dir.path() + "/snapshot-a.json\n");
  EXPECT_EQ(complete("gpuvet fleet collect --slurm -- --n"), "\n");  // srun's, not ours
  EXPECT_EQ(complete("gpuvet plan --gpu R"), "\n");                  // free text
}

TEST_F(Completion, ZshLoadsAndSharesTheSameAnswers) {
  if (run_command("command -v zsh >/dev/null").status != 0) GTEST_SKIP() << "no zsh";
  const std::string file = script("zsh");
  EXPECT_EQ(run_command(shell_env() + "zsh -n " + file).status, 0);
  auto complete = [&](const std::string& words) {
    const std::string program = "autoload -U compinit && compinit -u -D && source " + file +
                                " && _gpuvet_complete " + words;
    return run_command(shell_env() + "zsh -f -c " + single_quoted(program) + " 2>&1").output;
  };
  EXPECT_TRUE(has(complete("pl"), "words check verify")) << complete("pl");
  EXPECT_EQ(complete("plan --os ''"), "words windows linux wsl2\n");
  EXPECT_EQ(complete("--lang zh fleet ''"), "words collect report\n");
  EXPECT_EQ(complete("explain ''"), "file\n");
}

TEST_F(Completion, FishCompletesTheCommandLine) {
  if (run_command("command -v fish >/dev/null").status != 0) GTEST_SKIP() << "no fish";
  const std::string file = script("fish");
  auto complete = [&](const std::string& line) {
    const std::string program = "source " + file + "; complete -C " + single_quoted(line);
    return run_command(shell_env() + "fish --no-config -c " + single_quoted(program) + " 2>&1")
        .output;
  };
  EXPECT_EQ(complete("gpuvet pl").rfind("plan\t", 0), 0u) << complete("gpuvet pl");
  const std::string os = complete("gpuvet plan --os ");
  EXPECT_TRUE(has(os, "windows") && has(os, "wsl2")) << os;
  EXPECT_EQ(complete("gpuvet fleet rep").rfind("report\t", 0), 0u) << complete("gpuvet fleet rep");
  EXPECT_TRUE(has(complete("gpuvet check --sn"), "--snapshot")) << complete("gpuvet check --sn");
}

TEST(CliConventions, ManPageIsCleanRoff) {
  const Outcome man = run_gpuvet("help --man --lang en");
  ASSERT_EQ(man.status, 0) << man.err;
  if (run_command("command -v groff >/dev/null").status != 0) GTEST_SKIP() << "no groff";
  TempDir dir;
  dir.file("gpuvet.1", man.out);
  // -ww: every warning; a clean page prints nothing on stderr.
  const auto checked = run_command("groff -man -Tutf8 -ww -z " + dir.path() + "/gpuvet.1 2>&1");
  EXPECT_EQ(checked.status, 0);
  EXPECT_EQ(checked.output, "");
  const auto text = run_command("env -i PATH=/usr/bin:/bin groff -man -Tutf8 " + dir.path() +
                                "/gpuvet.1 2>/dev/null | col -b");
  EXPECT_TRUE(has(text.output, "EXIT STATUS")) << text.output.substr(0, 400);
  EXPECT_TRUE(has(text.output, "--snapshot FILE")) << text.output.substr(0, 400);
}

}  // namespace
}  // namespace gpuvet
