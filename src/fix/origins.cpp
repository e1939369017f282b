#include "fix/origins.hpp"

#include <algorithm>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "system/real_path.hpp"

namespace gpuvet::fix {

namespace {

constexpr const char* kUserScripts[] = {
    ".bashrc",         ".bash_profile", ".bash_login",
    ".profile",        ".zshenv",       ".zprofile",
    ".zshrc",          ".zlogin",       ".config/fish/config.fish",
    ".cshrc",          ".tcshrc",       ".login",
    ".pam_environment"};
constexpr const char* kSystemScripts[] = {
    "/etc/environment",  "/etc/profile",   "/etc/bash.bashrc", "/etc/zsh/zshenv",
    "/etc/zsh/zprofile", "/etc/zsh/zshrc", "/etc/csh.cshrc",   "/etc/csh.login"};

void add_script(const sys::System& system, const std::string& path, std::vector<Script>& out) {
  const auto info = system.file_info(path);
  if (!info || info->kind != sys::FileKind::regular) return;
  auto bytes = system.read_text(path);
  if (!bytes) return;
  auto decoded = decode_script(*bytes);
  if (!decoded) return;  // not text gpuvet could write back as it was
  const std::string target = info->link_target ? sys::real_path(system, path) : path;
  for (const auto& known : out) {
    if (known.target == target) return;  // ~/.profile linked to ~/.bashrc: one file
  }
  out.push_back({path, target, script_kind_of(path), std::move(decoded->utf8)});
}

void add_scripts_in(const sys::System& system, const std::string& directory,
                    const std::vector<std::string>& suffixes, std::vector<Script>& out) {
  auto entries = system.list_dir(directory);
  if (!entries) return;
  std::vector<std::string> names;
  for (const auto& entry : *entries) {
    const std::string lower = text::to_lower(entry.name);
    if (std::any_of(suffixes.begin(), suffixes.end(),
                    [&](const std::string& s) { return lower.ends_with(s); })) {
      names.push_back(entry.name);
    }
  }
  std::sort(names.begin(), names.end());  // the order the shells source them in
  for (const auto& name : names)
    add_script(system, paths::join(directory, name), out);
}

}  // namespace

std::vector<Script> startup_scripts(const sys::System& system, const Facts& facts) {
  std::vector<Script> out;
  const bool windows = facts.os.family == "windows";
  if (!windows) {
    if (const auto home = system.env("HOME"); home && !home->empty()) {
      for (const char* name : kUserScripts)
        add_script(system, paths::join(*home, name), out);
    }
    for (const char* path : kSystemScripts)
      add_script(system, path, out);
    add_scripts_in(system, "/etc/profile.d", {".sh", ".csh"}, out);
  }
  for (const auto& env : facts.python_envs) {
    if (env.kind == "conda") {
      add_scripts_in(system, paths::join(env.path, "etc/conda/activate.d"),
                     windows ? std::vector<std::string>{".bat"}
                             : std::vector<std::string>{".sh", ".csh", ".fish"},
                     out);
    } else if (env.kind == "venv") {
      add_script(system, paths::join(env.path, windows ? "Scripts/activate.bat" : "bin/activate"),
                 out);
    }
  }
  return out;
}

std::vector<Origin> origins_of(const std::vector<Script>& scripts, const std::string& name) {
  std::vector<Origin> out;
  for (const auto& script : scripts) {
    size_t number = 0;
    for (const auto& line : split_lines(script.bytes)) {
      ++number;
      if (auto assignment = assignment_of(line.text, name, script.kind)) {
        out.push_back({&script, number, std::string(line.text), std::move(*assignment)});
      }
    }
  }
  return out;
}

const std::vector<SavedEnvironment>& saved_environments() {
  static const std::vector<SavedEnvironment> keys = {
      {"HKLM/SYSTEM/CurrentControlSet/Control/Session Manager/Environment", true},
      {"HKCU/Environment", false}};
  return keys;
}

std::string fix_marker(const std::string& stamp) {
  return "gpuvet fix " + stamp;
}

std::optional<std::string> own_startup_file(const sys::System& system) {
  const auto home = system.env("HOME");
  if (!home || home->empty()) return std::nullopt;
  const std::string shell = system.env("SHELL").value_or("");
  const std::string name = shell.substr(shell.find_last_of('/') + 1);
  if (name == "zsh") return paths::join(*home, ".zshrc");
  if (name == "fish") return paths::join(*home, ".config/fish/config.fish");
  if (name == "csh" || name == "tcsh") return paths::join(*home, ".cshrc");
  return paths::join(*home, ".bashrc");
}

}  // namespace gpuvet::fix
