#pragma once
// Where a variable of the environment comes from: the start-up and activation scripts a new
// shell reads, and on Windows the saved user and machine environment.
#include <optional>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "fix/fix.hpp"
#include "fix/script_lines.hpp"
#include "system/system.hpp"

namespace gpuvet::fix {

// A script that may set variables for new shells, as gpuvet would edit it: `target` is the real
// file (a dotfile that is a link to a dotfiles repository is edited where it lives).
struct Script {
  std::string path;    // as the shell names it: ~/.bashrc
  std::string target;  // the real file
  ScriptKind kind = ScriptKind::posix_shell;
  std::string bytes;  // as UTF-8, whatever the file's encoding
};

// The scripts that exist: the user's (~/.bashrc, ~/.profile, ~/.zshrc, fish, csh, pam), the
// system's (/etc/environment, /etc/profile, /etc/profile.d/*.sh ...), and each Python
// environment's activation (conda activate.d, venv activate).
std::vector<Script> startup_scripts(const sys::System& system, const Facts& facts);

struct Origin {
  const Script* script = nullptr;
  size_t line = 0;  // 1-based
  std::string text;
  Assignment assignment;
};
std::vector<Origin> origins_of(const std::vector<Script>& scripts, const std::string& name);

// The saved environments of Windows, in the order a new process reads them (machine, then
// user): their registry keys and whether changing them needs an administrator.
struct SavedEnvironment {
  std::string key;
  bool machine = false;
};
const std::vector<SavedEnvironment>& saved_environments();

// The marker a commented-out line carries.
std::string fix_marker(const std::string& stamp);

// The shell start-up file a new line goes into, from $SHELL: ~/.zshrc for zsh, config.fish for
// fish, ~/.cshrc for csh/tcsh, else ~/.bashrc. nullopt without a HOME.
std::optional<std::string> own_startup_file(const sys::System& system);

}  // namespace gpuvet::fix
