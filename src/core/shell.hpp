#pragma once
// Commands offered for Windows, spelled once for each of its two shells: cmd.exe and PowerShell.
// The cmd spelling is written with cmd's %VAR%; the PowerShell one is made from the same parts,
// so the two cannot drift. Paths are given with backslashes (windows_paths::native).
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::shell {

struct WindowsCommand {
  std::string cmd;
  std::string powershell;
};

// A line for the reader, not a command: "rem …" in cmd, "# …" in PowerShell.
WindowsCommand comment(std::string_view text);
// A command both shells run as it is written (pip, conda, python -c "…", wsl, gpuvet).
WindowsCommand same(std::string_view command);
// The directories first on PATH in this terminal only:
// set "PATH=a;b;%PATH%"  /  $env:Path = "a;b;" + $env:Path
WindowsCommand prepend_path(const std::vector<std::string>& directories);
// set "NAME=value"  /  $env:NAME = "value"
WindowsCommand set_variable(std::string_view name, std::string_view value);
// set NAME=  /  Remove-Item Env:NAME -ErrorAction SilentlyContinue
WindowsCommand clear_variable(std::string_view name);
// copy "from" "to"  /  Copy-Item "from" "to"
WindowsCommand copy(std::string_view from, std::string_view to);
// A venv's activation: "DIR\Scripts\activate.bat"  /  & "DIR\Scripts\Activate.ps1"
WindowsCommand activate_venv(std::string_view directory);
// A program with arguments, each quoted for its shell where it needs it:
// py -3.7 -m venv %USERPROFILE%\venvs\x  /  py -3.7 -m venv "$env:USERPROFILE\venvs\x"
WindowsCommand run(std::string_view program, const std::vector<std::string>& arguments);

// A cmd text ("%USERPROFILE%\venvs\x") as a PowerShell double-quoted string
// ("$env:USERPROFILE\venvs\x"): %VAR% becomes $env:VAR, and ` " $ are escaped.
std::string powershell_string(std::string_view cmd_text);

}  // namespace gpuvet::shell
