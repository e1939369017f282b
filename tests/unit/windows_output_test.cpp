// Windows output looks like Windows: what gpuvet prints about a Windows machine, or for
// `--os windows`, spells paths with backslashes (the System spells them with '/'), and every
// command it offers there exists for cmd and for PowerShell, labelled in the catalog's words.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/shell.hpp"
#include "core/windows_paths.hpp"
#include "pipeline/diagnose.hpp"
#include "plan/plan.hpp"
#include "report/render_explain.hpp"
#include "report/render_plan.hpp"
#include "report/report.hpp"
#include "system/replay_system.hpp"
#include "system/snapshot.hpp"
#include "test_support.hpp"

namespace gpuvet {
namespace {

namespace fs = std::filesystem;
using testing::embedded_kb;
using testing::messages;

// The first Windows path spelled the System's way ("C:/…") in a text, with what surrounds it.
std::optional<std::string> forward_slash_path(const std::string& text) {
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    const char c = text[i];
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    if (!letter || text[i + 1] != ':' || text[i + 2] != '/') continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '/'))
      continue;
    const size_t from = i < 40 ? 0 : i - 40;
    return text.substr(from, 120);
  }
  return std::nullopt;
}

// ---- the shared helper ------------------------------------------------------------------------

TEST(WindowsPaths, PathsInATextGetBackslashes) {
  using windows_paths::in_text;
  EXPECT_EQ(in_text("toolkit 10.1.243 at C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1"),
            "toolkit 10.1.243 at C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1");
  // A catalog's "{root}\bin" after a path from the facts: one spelling throughout.
  EXPECT_EQ(in_text("put C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1\\bin on Path"),
            "put C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin on Path");
  EXPECT_EQ(in_text("C:/Program Files (x86)/NVIDIA Corporation/PhysX (9.0) loaded"),
            "C:\\Program Files (x86)\\NVIDIA Corporation\\PhysX (9.0) loaded");
  EXPECT_EQ(in_text("cuDNN 7.0.5 (C:/Windows/System32/cudnn64_7.dll), but it was built with 7.6"),
            "cuDNN 7.0.5 (C:\\Windows\\System32\\cudnn64_7.dll), but it was built with 7.6");
  EXPECT_EQ(in_text("from C:/a/b.dll, before C:/c/d.dll"),
            "from C:\\a\\b.dll, before C:\\c\\d.dll");
  EXPECT_EQ(in_text("set \"PATH=C:/x/bin;%PATH%\""), "set \"PATH=C:\\x\\bin;%PATH%\"");
  EXPECT_EQ(in_text("C:/Users/张伟/envs/tf：然后/再试"), "C:\\Users\\张伟\\envs\\tf：然后/再试");
  // The path ends where the sentence goes on: words with a '/' later are not part of it.
  EXPECT_EQ(in_text("C:/x/tf21-gpu needs cudnn64_7.dll and the 11.x/12.x runtimes"),
            "C:\\x\\tf21-gpu needs cudnn64_7.dll and the 11.x/12.x runtimes");
  EXPECT_EQ(in_text("C:/x/bin: its folder is on the saved Path/terminal"),
            "C:\\x\\bin: its folder is on the saved Path/terminal");
  // Paths after an ANSI colour code are paths too.
  EXPECT_EQ(in_text("\x1b[2mC:/x/y\x1b[0m"), "\x1b[2mC:\\x\\y\x1b[0m");
}

TEST(WindowsPaths, UrlsLinuxPathsAndWordsStay) {
  using windows_paths::in_text;
  for (const char* text : {"https://developer.nvidia.com/cuda-toolkit-archive", "file:///C:/x/y",
                           "/usr/local/cuda-12.2/bin", "Library/bin and bin\\cudnn*.dll",
                           "CUDA 11.x/12.x", "abc:/x", "http://localhost:8080/a"}) {
    EXPECT_EQ(in_text(text), text);
  }
  EXPECT_EQ(windows_paths::native("C:/Users/zhang/venvs/tf"), "C:\\Users\\zhang\\venvs\\tf");
}

TEST(Shell, EachCommandIsSpelledForCmdAndForPowerShell) {
  const auto path = shell::prepend_path({"C:\\CUDA\\v10.1\\bin", "C:\\CUDA\\v10.1\\libnvvp"});
  EXPECT_EQ(path.cmd, "set \"PATH=C:\\CUDA\\v10.1\\bin;C:\\CUDA\\v10.1\\libnvvp;%PATH%\"");
  EXPECT_EQ(path.powershell,
            "$env:Path = \"C:\\CUDA\\v10.1\\bin;C:\\CUDA\\v10.1\\libnvvp;\" + $env:Path");
  const auto set = shell::set_variable("TF_CPP_MIN_LOG_LEVEL", "0");
  EXPECT_EQ(set.cmd, "set \"TF_CPP_MIN_LOG_LEVEL=0\"");
  EXPECT_EQ(set.powershell, "$env:TF_CPP_MIN_LOG_LEVEL = \"0\"");
  const auto clear = shell::clear_variable("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(clear.cmd, "set CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(clear.powershell, "Remove-Item Env:CUDA_VISIBLE_DEVICES -ErrorAction SilentlyContinue");
  const auto copy = shell::copy("<cudnn>\\bin\\cudnn*.dll", "C:\\Program Files\\CUDA\\bin");
  EXPECT_EQ(copy.cmd, "copy \"<cudnn>\\bin\\cudnn*.dll\" \"C:\\Program Files\\CUDA\\bin\"");
  EXPECT_EQ(copy.powershell,
            "Copy-Item \"<cudnn>\\bin\\cudnn*.dll\" \"C:\\Program Files\\CUDA\\bin\"");
  const auto venv = shell::activate_venv("%USERPROFILE%\\venvs\\tf-2.1.0");
  EXPECT_EQ(venv.cmd, "\"%USERPROFILE%\\venvs\\tf-2.1.0\\Scripts\\activate.bat\"");
  EXPECT_EQ(venv.powershell, "& \"$env:USERPROFILE\\venvs\\tf-2.1.0\\Scripts\\Activate.ps1\"");
  const auto py = shell::run("py", {"-3.7", "-m", "venv", "%USERPROFILE%\\venvs\\x"});
  EXPECT_EQ(py.cmd, "py -3.7 -m venv %USERPROFILE%\\venvs\\x");
  EXPECT_EQ(py.powershell, "py -3.7 -m venv \"$env:USERPROFILE\\venvs\\x\"");
  // PowerShell reads a,b as an array: the argument is quoted there.
  const auto smi = shell::run("nvidia-smi", {"--query-gpu=name,driver_version", "--format=csv"});
  EXPECT_EQ(smi.cmd, "nvidia-smi --query-gpu=name,driver_version --format=csv");
  EXPECT_EQ(smi.powershell, "nvidia-smi \"--query-gpu=name,driver_version\" --format=csv");
  EXPECT_EQ(shell::comment("x").cmd, "rem x");
  EXPECT_EQ(shell::comment("x").powershell, "# x");
  EXPECT_EQ(shell::powershell_string("%ProgramFiles(x86)%\\a $b `c \"d\""),
            "\"${env:ProgramFiles(x86)}\\a `$b ``c `\"d`\"\"");
}

// ---- check: every Windows scenario ----------------------------------------------------------

std::vector<std::string> windows_scenarios() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(GPUVET_SCENARIO_DIR)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.starts_with("windows")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

pipeline::Report diagnose_scenario(const std::string& name, kb::Lang lang) {
  auto snapshot =
      sys::load_snapshot_file(std::string(GPUVET_SCENARIO_DIR) + "/" + name + "/snapshot.json");
  EXPECT_TRUE(snapshot) << name;
  const sys::ReplaySystem system(std::move(*snapshot));
  auto report = pipeline::diagnose(system, embedded_kb(), messages(lang));
  EXPECT_TRUE(report) << name;
  return report ? std::move(*report) : pipeline::Report{};
}

TEST(WindowsOutput, EveryWindowsScenarioPrintsBackslashPathsInTextAndMarkdown) {
  const auto names = windows_scenarios();
  ASSERT_GE(names.size(), 20u);
  for (const auto& name : names) {
    for (const kb::Lang lang : {kb::Lang::en, kb::Lang::zh}) {
      const pipeline::Report report = diagnose_scenario(name, lang);
      for (const bool color : {false, true}) {
        const std::string text = report::render_text(report, messages(lang), color);
        EXPECT_FALSE(forward_slash_path(text)) << name << ": " << *forward_slash_path(text);
      }
      const std::string md = report::render_md(report, messages(lang));
      const std::string shown = md.substr(0, md.find("<details>"));
      EXPECT_FALSE(forward_slash_path(shown)) << name << ": " << *forward_slash_path(shown);
    }
  }
}

TEST(WindowsOutput, TheTextReallyNamesTheMachinesPathsWithBackslashes) {
  const pipeline::Report report =
      diagnose_scenario("windows10_old_toolkit_first_with_its_cudnn", kb::Lang::en);
  const std::string text = report::render_text(report, messages(), false);
  EXPECT_NE(text.find("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v9.0\\bin"),
            std::string::npos)
      << text;
  // JSON keeps the documented form (CONTRACTS.md: keys and paths with '/').
  const std::string json = report::render_json(report);
  EXPECT_NE(json.find("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1"),
            std::string::npos);
}

TEST(WindowsOutput, ALinuxReportIsLeftAlone) {
  const pipeline::Report report =
      diagnose_scenario("windows10_gtx1060_tf21_all_green", kb::Lang::en);
  pipeline::Report linux = report;
  linux.facts.os.family = "linux";
  EXPECT_TRUE(forward_slash_path(report::render_text(linux, messages(), false)));
}

// ---- explain ----------------------------------------------------------------------------------

TEST(WindowsOutput, ExplainSpellsItsWordsForWindowsAndQuotesTheLogAsItIs) {
  explain::Cause cause;
  cause.id = "cudnn.missing";
  cause.confidence = 0.9;
  cause.why = "No cudnn64_7.dll is in C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1/bin";
  cause.fix = {
      "Copy bin\\cudnn*.dll into C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1/bin"};
  cause.evidence = {{12, "Could not load 'C:/odd/log/spelling/cudnn64_7.dll'"}};
  explain::FactsUse facts;
  facts.log_platform = "windows";
  for (const kb::Lang lang : {kb::Lang::en, kb::Lang::zh}) {
    const std::string text = report::render_explain_text({cause}, messages(lang), false, facts);
    const std::string md = report::render_explain_md({cause}, messages(lang), facts);
    for (const std::string& out : {text, md}) {
      EXPECT_NE(out.find("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin"),
                std::string::npos)
          << out;
      EXPECT_NE(out.find("C:/odd/log/spelling/cudnn64_7.dll"), std::string::npos)
          << "the log's own line is quoted as it was written";
    }
  }
  // A Linux log's words are not touched.
  explain::FactsUse linux;
  linux.log_platform = "linux";
  EXPECT_NE(report::render_explain_text({cause}, messages(), false, linux)
                .find("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1/bin"),
            std::string::npos);
}

TEST(ExplainMarkdown, HeadingsFencedLogLinesAndFixesInTheCatalogsWords) {
  explain::Cause cause;
  cause.id = "cudnn.missing";
  cause.confidence = 0.9;
  cause.confirmed_by_facts = true;
  cause.why = "cuDNN is missing";
  cause.fix = {"Install cuDNN 7.6", "pip install nvidia-cudnn-cu11"};
  cause.evidence = {{12, "a line with ``` inside"}};
  for (const kb::Lang lang : {kb::Lang::en, kb::Lang::zh}) {
    const kb::Messages& m = messages(lang);
    const std::string md = report::render_explain_md({cause}, m, {});
    EXPECT_TRUE(md.starts_with("## " + m.text("explain.md.title") + "\n")) << md;
    EXPECT_NE(md.find("### 1. `cudnn.missing` · " +
                      m.text("explain.confidence",
                             {{"percent", "90"}, {"state", m.text("explain.state.confirmed")}})),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("**" + m.text("explain.md.log_lines") + m.text("cli.label.colon") + "**"),
              std::string::npos);
    // The fence is longer than the backticks in the log line, so the line cannot close it.
    EXPECT_NE(md.find("````text\n"), std::string::npos) << md;
    EXPECT_NE(md.find("**" + m.text("explain.md.fix") + m.text("cli.label.colon") + "**\n\n- " +
                      "Install cuDNN 7.6\n- pip install nvidia-cudnn-cu11\n"),
              std::string::npos)
        << md;
  }
  EXPECT_NE(report::render_explain_md({}, messages(), {}).find(messages().text("explain.none")),
            std::string::npos);
}

// ---- plan -------------------------------------------------------------------------------------

plan::Plan solve(const std::string& framework, std::optional<std::string> version,
                 const std::string& os, std::optional<std::string> python,
                 kb::Lang lang = kb::Lang::en) {
  plan::Request r;
  r.framework = framework;
  r.version = std::move(version);
  r.os = os;
  r.compute_capability = "6.1";
  r.driver = "452.06";
  r.python = std::move(python);
  auto result = plan::make_plan(r, embedded_kb(), messages(lang));
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : plan::Plan{};
}

std::vector<plan::Plan> windows_plans(kb::Lang lang = kb::Lang::en) {
  return {solve("tensorflow", "2.1", "windows", "3.7", lang),
          solve("tensorflow", "2.10", "windows", std::nullopt, lang),
          solve("tensorflow", "2.15", "windows", std::nullopt, lang),
          solve("torch", "2.1", "windows", "3.10", lang),
          solve("cupy", std::nullopt, "windows", std::nullopt, lang)};
}

TEST(WindowsPlan, EveryWindowsCommandHasItsPowerShellTwinLineForLine) {
  size_t checked = 0;
  for (const auto& p : windows_plans()) {
    ASSERT_FALSE(p.options.empty()) << p.request.framework;
    for (const auto& o : p.options) {
      for (const auto& step : o.steps) {
        if (o.platform != "windows") {
          EXPECT_TRUE(step.powershell.empty()) << step.title;
          continue;
        }
        ASSERT_EQ(step.commands.size(), step.powershell.size()) << step.title;
        for (size_t i = 0; i < step.commands.size(); ++i) {
          const std::string& cmd = step.commands[i];
          const std::string& ps = step.powershell[i];
          ++checked;
          EXPECT_EQ(cmd.find("$env:"), std::string::npos) << cmd;
          EXPECT_FALSE(cmd.starts_with("# ")) << "cmd has no # comments: " << cmd;
          EXPECT_EQ(ps.find('%'), std::string::npos) << "a cmd variable in PowerShell: " << ps;
          EXPECT_FALSE(ps.starts_with("set ") || ps.starts_with("copy ") || ps.starts_with("rem "))
              << ps;
          if (cmd.starts_with("set \"PATH=")) {
            EXPECT_TRUE(ps.starts_with("$env:Path = \"")) << ps;
          }
          if (cmd.starts_with("copy ")) {
            EXPECT_TRUE(ps.starts_with("Copy-Item ")) << ps;
          }
          if (cmd.find("activate.bat") != std::string::npos) {
            EXPECT_NE(ps.find("Activate.ps1"), std::string::npos) << ps;
          }
          if (cmd.starts_with("rem ")) {
            EXPECT_EQ(ps, "# " + cmd.substr(4));
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 20u);
}

TEST(WindowsPlan, TextAndMarkdownShowBothShellsLabelledInEitherLanguage) {
  for (const kb::Lang lang : {kb::Lang::en, kb::Lang::zh}) {
    const kb::Messages& m = messages(lang);
    const plan::Plan p = solve("tensorflow", "2.1", "windows", "3.7", lang);
    const std::string colon = m.text("cli.label.colon");
    const std::string text = report::render_plan_text(p, m, false);
    EXPECT_NE(text.find(m.text("plan.shell.cmd") + colon + "\n"), std::string::npos) << text;
    EXPECT_NE(text.find(m.text("plan.shell.powershell") + colon + "\n"), std::string::npos);
    EXPECT_NE(text.find("$env:Path = \"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\"
                        "v10.1\\bin;"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("set \"PATH=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\"
                        "bin;"),
              std::string::npos);
    EXPECT_FALSE(forward_slash_path(text)) << *forward_slash_path(text);
    const std::string md = report::render_plan_md(p, m);
    EXPECT_TRUE(md.starts_with("## " + m.text("plan.md.title") + (colon == ":" ? ": " : colon) +
                               "TensorFlow 2.1\n"))
        << md;
    EXPECT_NE(md.find("**" + m.text("plan.md.steps") + colon + "**"), std::string::npos);
    EXPECT_NE(md.find(m.text("plan.shell.cmd") + colon + "\n\n   ```bat\n"), std::string::npos)
        << md;
    EXPECT_NE(md.find(m.text("plan.shell.powershell") + colon + "\n\n   ```powershell\n"),
              std::string::npos);
    EXPECT_NE(md.find(m.text("plan.note.powershell_scripts")), std::string::npos);
    EXPECT_FALSE(forward_slash_path(md)) << *forward_slash_path(md);
    EXPECT_EQ(md.find("plan.shell"), std::string::npos) << "a key instead of its words";
  }
}

TEST(PlanMarkdown, ALinuxPlanHasShellBlocksAndItsBlockersAndAlternatives) {
  plan::Request r;
  r.framework = "tensorflow";
  r.version = "2.15";
  r.os = "windows";
  r.compute_capability = "8.6";
  r.driver = "550.54";
  auto solved = plan::make_plan(r, embedded_kb(), messages());
  ASSERT_TRUE(solved.ok());
  const plan::Plan& p = *solved;
  ASSERT_FALSE(p.blockers.empty());
  const std::string md = report::render_plan_md(p, messages());
  EXPECT_NE(md.find("### " + messages().text("plan.md.blockers") + "\n\n- ✖ "), std::string::npos)
      << md;
  EXPECT_NE(md.find("`framework.windows_native_gpu_unsupported`"), std::string::npos);
  EXPECT_NE(md.find("### " + messages().text("plan.text.alternatives")), std::string::npos);
  EXPECT_NE(md.find("```sh\n"), std::string::npos) << "the WSL2 option's commands";
  EXPECT_NE(md.find("#### 1. "), std::string::npos);
}

TEST(WindowsPlan, JsonAddsPowerShellBesideTheCommands) {
  const plan::Plan p = solve("tensorflow", "2.1", "windows", "3.7");
  const auto doc = nlohmann::json::parse(report::render_plan_json(p, "test"));
  const auto& step = doc["options"][0]["steps"][0];
  EXPECT_TRUE(step["commands"].is_array());
  EXPECT_EQ(step["shell"], "cmd");
  EXPECT_EQ(step["powershell"].size(), step["commands"].size());
  const plan::Plan linux = solve("tensorflow", "2.1", "linux", "3.7");
  const auto linux_doc = nlohmann::json::parse(report::render_plan_json(linux, "test"));
  EXPECT_EQ(linux_doc["options"][0]["steps"][0]["shell"], "sh");
  EXPECT_TRUE(linux_doc["options"][0]["steps"][0]["powershell"].empty());
}

TEST(WindowsPlan, WriteMakesTheActivationForCmdAndForPowerShell) {
  const plan::Plan p = solve("tensorflow", "2.1", "windows", "3.7");
  testing::TempDir dir;
  auto written = plan::write_environment_files(p.options.front(), dir.path() + "/win");
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(written->size(), 4u);
  const std::string bat = paths::read_file(dir.path() + "/win/activate-gpu.bat", 1 << 16).value();
  const std::string ps1 = paths::read_file(dir.path() + "/win/activate-gpu.ps1", 1 << 16).value();
  const std::string folder = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1";
  EXPECT_NE(bat.find("set \"PATH=" + folder + "\\bin;" + folder + "\\libnvvp;%PATH%\"\r\n"),
            std::string::npos)
      << bat;
  EXPECT_NE(ps1.find("$env:CUDA_PATH = \"" + folder + "\"\r\n"), std::string::npos) << ps1;
  EXPECT_NE(
      ps1.find("$env:Path = \"" + folder + "\\bin;" + folder + "\\libnvvp;\" + $env:Path\r\n"),
      std::string::npos)
      << ps1;
  EXPECT_NE(ps1.find("Set-ExecutionPolicy -Scope CurrentUser RemoteSigned"), std::string::npos);
  EXPECT_EQ(ps1.find('%'), std::string::npos);
}

// ---- the catalogs' fix texts ------------------------------------------------------------------

TEST(WindowsCatalog, EveryCmdCommandInATextHasItsPowerShellTwin) {
  for (const char* catalog : {"messages/en", "messages/zh-CN"}) {
    const kb::Table& t = testing::kb_table(catalog);
    size_t windows_texts = 0;
    for (size_t row = 0; row < t.size(); ++row) {
      const std::string& key = t.cell(row, "key");
      const std::string& text = t.cell(row, "text");
      if (key.starts_with("man.") || key.starts_with("help.")) continue;
      // cmd's own spellings: a %VARIABLE%, set NAME=… and set "NAME=…".
      bool cmd = false;
      for (size_t at = text.find('%'); at != std::string::npos; at = text.find('%', at + 1)) {
        const size_t end = text.find('%', at + 1);
        if (end == std::string::npos) break;
        const std::string name = text.substr(at + 1, end - at - 1);
        cmd = cmd || (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
                return std::isupper(static_cast<unsigned char>(c)) || c == '_';
              }));
      }
      for (size_t at = text.find("set "); at != std::string::npos; at = text.find("set ", at + 1)) {
        if (at > 0 && std::isalpha(static_cast<unsigned char>(text[at - 1]))) continue;
        size_t k = at + 4;
        if (k < text.size() && text[k] == '"') ++k;
        const size_t name = k;
        while (k < text.size() &&
               (std::isupper(static_cast<unsigned char>(text[k])) ||
                std::isdigit(static_cast<unsigned char>(text[k])) || text[k] == '_'))
          ++k;
        if (k > name && k < text.size() && text[k] == '=') cmd = true;
      }
      if (!cmd) continue;
      ++windows_texts;
      EXPECT_TRUE(text.find("$env:") != std::string::npos ||
                  text.find("Remove-Item Env:") != std::string::npos)
          << catalog << " " << key << ": a cmd command without its PowerShell twin: " << text;
      EXPECT_NE(text.find("PowerShell"), std::string::npos) << catalog << " " << key;
    }
    EXPECT_GE(windows_texts, 4u) << catalog;
  }
}

}  // namespace
}  // namespace gpuvet
