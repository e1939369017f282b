#include "core/shell.hpp"

namespace gpuvet::shell {

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '(' || c == ')';
}

// The body of a PowerShell "…" string: %VAR% becomes $env:VAR; ` " $ are escaped.
std::string powershell_body(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      const size_t end = text.find('%', i + 1);
      if (end != std::string_view::npos && end > i + 1) {
        const std::string_view name = text.substr(i + 1, end - i - 1);
        bool plain = true;
        for (char n : name)
          plain = plain && is_name_char(n);
        if (plain) {
          // ${env:ProgramFiles(x86)}: a name with parentheses needs the braces.
          const bool braces = name.find('(') != std::string_view::npos;
          out += braces ? "${env:" + std::string(name) + "}" : "$env:" + std::string(name);
          i = end;
          continue;
        }
      }
    }
    if (c == '`' || c == '"' || c == '$') out.push_back('`');
    out.push_back(c);
  }
  return out;
}

// cmd: quoted when it holds a space or a character cmd treats specially.
std::string cmd_argument(std::string_view argument) {
  if (argument.find_first_of(" &|<>^()") == std::string_view::npos) return std::string(argument);
  return "\"" + std::string(argument) + "\"";
}

// PowerShell: a bare word unless it holds a variable, a space or a character PowerShell parses
// ("," makes an array, ";" ends a statement ...).
std::string powershell_argument(std::string_view argument) {
  if (argument.find_first_of(" %$`\",;&|<>(){}@#'") == std::string_view::npos)
    return std::string(argument);
  return powershell_string(argument);
}

}  // namespace

std::string powershell_string(std::string_view cmd_text) {
  return "\"" + powershell_body(cmd_text) + "\"";
}

WindowsCommand comment(std::string_view text) {
  return {"rem " + std::string(text), "# " + std::string(text)};
}

WindowsCommand same(std::string_view command) {
  return {std::string(command), std::string(command)};
}

WindowsCommand prepend_path(const std::vector<std::string>& directories) {
  std::string list;
  for (const auto& d : directories)
    list += d + ";";
  return {"set \"PATH=" + list + "%PATH%\"",
          "$env:Path = \"" + powershell_body(list) + "\" + $env:Path"};
}

WindowsCommand set_variable(std::string_view name, std::string_view value) {
  return {"set \"" + std::string(name) + "=" + std::string(value) + "\"",
          "$env:" + std::string(name) + " = " + powershell_string(value)};
}

WindowsCommand clear_variable(std::string_view name) {
  return {"set " + std::string(name) + "=",
          "Remove-Item Env:" + std::string(name) + " -ErrorAction SilentlyContinue"};
}

WindowsCommand copy(std::string_view from, std::string_view to) {
  return {"copy " + cmd_argument(from) + " " + cmd_argument(to),
          "Copy-Item " + powershell_string(from) + " " + powershell_string(to)};
}

WindowsCommand activate_venv(std::string_view directory) {
  const std::string scripts = std::string(directory) + "\\Scripts\\";
  return {"\"" + scripts + "activate.bat\"", "& " + powershell_string(scripts + "Activate.ps1")};
}

WindowsCommand run(std::string_view program, const std::vector<std::string>& arguments) {
  WindowsCommand out{std::string(program), std::string(program)};
  for (const auto& a : arguments) {
    out.cmd += " " + cmd_argument(a);
    out.powershell += " " + powershell_argument(a);
  }
  return out;
}

}  // namespace gpuvet::shell
