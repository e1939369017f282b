#include "cli/completion.hpp"

#include <fmt/format.h>

#include <map>

namespace gpuvet::cli {

namespace {

// A command's place on the command line: "" (gpuvet itself), "plan", "fleet report".
struct Place {
  std::string path;
  const CommandModel* command;
};

std::vector<Place> places_of(const CommandModel& root) {
  std::vector<Place> places = {{"", &root}};
  for (size_t i = 0; i < places.size(); ++i) {
    const Place place = places[i];
    for (const CommandModel& sub : place.command->subcommands) {
      places.push_back({place.path.empty() ? sub.name : place.path + " " + sub.name, &sub});
    }
  }
  return places;
}

std::string joined(const std::vector<std::string>& words, std::string_view separator = " ") {
  std::string text;
  for (const std::string& word : words) {
    if (!text.empty()) text += separator;
    text += word;
  }
  return text;
}

std::vector<std::string> subcommand_names(const CommandModel& command) {
  std::vector<std::string> names;
  for (const CommandModel& sub : command.subcommands)
    names.push_back(sub.name);
  return names;
}

// Without a verb, gpuvet runs check: at the top, check's options are offered with gpuvet's own.
std::vector<const OptionModel*> options_at(const Place& place, const CommandModel& root) {
  std::vector<const OptionModel*> options;
  std::map<std::string, bool> seen;
  auto add = [&](const CommandModel& command) {
    for (const OptionModel& option : command.options) {
      if (option.positional || seen[option.names.back()]) continue;
      seen[option.names.back()] = true;
      options.push_back(&option);
    }
  };
  add(*place.command);
  if (place.path.empty()) {
    if (const CommandModel* check = root.subcommand("check")) add(*check);
  }
  return options;
}

std::vector<std::string> option_names(const std::vector<const OptionModel*>& options) {
  std::vector<std::string> names;
  for (const OptionModel* option : options) {
    names.insert(names.end(), option->names.begin(), option->names.end());
  }
  return names;
}

// What completes a value: "file", "directory", "words a b c", "text" (nothing to offer), "none"
// (a flag takes no value).
std::string value_completion(const OptionModel& option, const CommandModel& root,
                             const std::vector<std::string>& frameworks) {
  switch (option.kind) {
    case ValueKind::none:
      return "none";
    case ValueKind::file:
      return "file";
    case ValueKind::directory:
      return "directory";
    case ValueKind::choice:
      return "words " + joined(option.choices);
    case ValueKind::framework:
      return "words " + joined(frameworks);
    case ValueKind::verb:
      return "words " + joined(subcommand_names(root));
    case ValueKind::text:
      return "text";
  }
  return "text";
}

const OptionModel* first_positional(const CommandModel& command) {
  for (const OptionModel& option : command.options) {
    if (option.positional) return &option;
  }
  return nullptr;
}

std::string single_quoted(std::string_view text) {
  std::string quoted = "'";
  for (char c : text)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The part bash and zsh share: POSIX-style functions that read the words typed so far and print
// what completes the last one (the value_completion forms).
std::string posix_core(const CommandModel& root, const std::vector<std::string>& frameworks) {
  const std::vector<Place> places = places_of(root);
  std::string subs, options, values, positionals;
  for (const Place& place : places) {
    const std::vector<std::string> sub_names = subcommand_names(*place.command);
    if (!sub_names.empty())
      subs += fmt::format("    {}) echo {} ;;\n", single_quoted(place.path),
                          single_quoted(joined(sub_names)));
    const auto place_options = options_at(place, root);
    options += fmt::format("    {}) echo {} ;;\n", single_quoted(place.path),
                           single_quoted(joined(option_names(place_options))));
    for (const OptionModel* option : place_options) {
      if (option->kind == ValueKind::none) continue;
      for (const std::string& name : option->names) {
        values += fmt::format("    {}) echo {} ;;\n", single_quoted(place.path + " " + name),
                              single_quoted(value_completion(*option, root, frameworks)));
      }
    }
    if (const OptionModel* positional = first_positional(*place.command)) {
      positionals += fmt::format("    {}) echo {} ;;\n", single_quoted(place.path),
                                 single_quoted(value_completion(*positional, root, frameworks)));
    }
  }
  return fmt::format(R"sh(_gpuvet_subcommands() {{
  case "$1" in
{}    *) echo '' ;;
  esac
}}
_gpuvet_options() {{
  case "$1" in
{}    *) echo '' ;;
  esac
}}
_gpuvet_option_value() {{
  case "$1 $2" in
{}    *) echo none ;;
  esac
}}
_gpuvet_positional() {{
  case "$1" in
{}    *) echo text ;;
  esac
}}
# "$@": the words after gpuvet, the last one the word being completed. Prints "words A B ...",
# "file", "directory" or "text" (nothing to offer).
_gpuvet_complete() {{
  local place='' option='' word='' count=$# index=0 after_dashes=0
  for word in "$@"; do
    index=$((index + 1))
    [ "$index" -eq "$count" ] && break
    if [ "$after_dashes" = 1 ]; then continue; fi
    if [ -n "$option" ]; then
      [ "$word" = '=' ] || option=''
      continue
    fi
    case "$word" in
      --) after_dashes=1 ;;
      --*=*) ;;
      -*) [ "$(_gpuvet_option_value "$place" "$word")" = none ] || option=$word ;;
      *) case " $(_gpuvet_subcommands "$place") " in
           *" $word "*) place=${{place:+$place }}$word ;;
         esac ;;
    esac
  done
  if [ "$after_dashes" = 1 ]; then echo text; return; fi
  if [ -n "$option" ]; then _gpuvet_option_value "$place" "$option"; return; fi
  case "$word" in
    -*) echo "words $(_gpuvet_options "$place")"; return ;;
  esac
  local subcommands
  subcommands=$(_gpuvet_subcommands "$place")
  if [ -n "$subcommands" ]; then echo "words $subcommands"; return; fi
  _gpuvet_positional "$place"
}}
)sh",
                     subs, options, values, positionals);
}

std::string bash_script(const CommandModel& root, const std::vector<std::string>& frameworks) {
  return "# gpuvet completion for bash. Load it with: source <(gpuvet completion bash)\n" +
         posix_core(root, frameworks) + R"sh(_gpuvet() {
  local cur=${COMP_WORDS[COMP_CWORD]} reply
  # bash splits --lang=zh at the '=': the value is completed on its own
  [ "$cur" = '=' ] && cur=''
  reply=$(_gpuvet_complete "${COMP_WORDS[@]:1:COMP_CWORD}")
  case "${reply%% *}" in
    words) COMPREPLY=($(compgen -W "${reply#words}" -- "$cur")) ;;
    file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
    directory) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
    *) COMPREPLY=() ;;
  esac
}
complete -F _gpuvet gpuvet gpuvet.exe
)sh";
}

std::string zsh_script(const CommandModel& root, const std::vector<std::string>& frameworks) {
  return "#compdef gpuvet gpuvet.exe\n"
         "# gpuvet completion for zsh: put it in a directory of $fpath as _gpuvet, or load it\n"
         "# with: source <(gpuvet completion zsh)\n" +
         posix_core(root, frameworks) + R"sh(_gpuvet() {
  local reply
  local -a candidates
  reply=$(_gpuvet_complete "${(@)words[2,CURRENT]}")
  case "${reply%% *}" in
    words) candidates=(${=${reply#words}}); compadd -a candidates ;;
    file) _files ;;
    directory) _files -/ ;;
  esac
}
if [ "$funcstack[1]" = _gpuvet ]; then
  _gpuvet "$@"
else
  compdef _gpuvet gpuvet gpuvet.exe
fi
)sh";
}

// fish: one `complete` line per verb, option and value, each under the condition of its place.
std::string fish_condition(const Place& place, const CommandModel& root) {
  if (place.path.empty()) return "__fish_use_subcommand";
  std::string condition;
  std::string prefix;
  const CommandModel* parent = &root;
  size_t start = 0;
  while (start < place.path.size()) {
    const size_t space = std::min(place.path.find(' ', start), place.path.size());
    const std::string verb = place.path.substr(start, space - start);
    condition += prefix + "__fish_seen_subcommand_from " + verb;
    prefix = "; and ";
    parent = parent->subcommand(verb);
    start = space + 1;
  }
  // Its sub-verbs are offered only until one is given.
  const std::vector<std::string> subs = subcommand_names(*place.command);
  (void)parent;
  if (!subs.empty()) condition += "; and not __fish_seen_subcommand_from " + joined(subs);
  return condition;
}

std::string fish_value_arguments(const std::string& completion) {
  if (completion == "file") return " -r -F";
  if (completion == "directory") return " -x -a '(__fish_complete_directories)'";
  if (completion.starts_with("words ")) return " -x -a " + single_quoted(completion.substr(6));
  return " -x";
}

std::string fish_script(const CommandModel& root, const std::vector<std::string>& frameworks) {
  std::string script =
      "# gpuvet completion for fish. Load it with: gpuvet completion fish | source\n"
      "complete -c gpuvet -f\n";
  for (const Place& place : places_of(root)) {
    const std::string condition = single_quoted(fish_condition(place, root));
    for (const CommandModel& sub : place.command->subcommands) {
      script += fmt::format("complete -c gpuvet -n {} -a {} -d {}\n", condition,
                            single_quoted(sub.name), single_quoted(sub.help));
    }
    for (const OptionModel* option : options_at(place, root)) {
      std::string line = "complete -c gpuvet -n " + condition;
      for (const std::string& name : option->names) {
        line += name.starts_with("--") ? " -l " + name.substr(2) : " -s " + name.substr(1);
      }
      if (option->kind != ValueKind::none)
        line += fish_value_arguments(value_completion(*option, root, frameworks));
      script += line + " -d " + single_quoted(option->help) + "\n";
    }
    const OptionModel* positional = first_positional(*place.command);
    if (positional && place.command->subcommands.empty()) {
      const std::string completion = value_completion(*positional, root, frameworks);
      if (completion == "file" || completion.starts_with("words ") || completion == "directory")
        script += "complete -c gpuvet -n " + condition + fish_value_arguments(completion) + "\n";
    }
  }
  return script;
}

std::string powershell_list(const std::vector<std::string>& words) {
  std::vector<std::string> quoted;
  for (const std::string& word : words) {
    std::string q = "'";
    for (char c : word)
      q += c == '\'' ? std::string("''") : std::string(1, c);
    quoted.push_back(q + "'");
  }
  return "@(" + joined(quoted, ", ") + ")";
}

std::vector<std::string> words_of(const std::string& completion) {
  std::vector<std::string> words;
  if (!completion.starts_with("words ")) return words;
  size_t start = 6;
  while (start < completion.size()) {
    const size_t space = std::min(completion.find(' ', start), completion.size());
    if (space > start) words.push_back(completion.substr(start, space - start));
    start = space + 1;
  }
  return words;
}

std::string powershell_script(const CommandModel& root,
                              const std::vector<std::string>& frameworks) {
  std::string subs, options, takes_value, values, positionals;
  for (const Place& place : places_of(root)) {
    const std::string key = powershell_list({place.path}).substr(2);
    const std::string quoted_place = key.substr(0, key.size() - 1);
    if (!place.command->subcommands.empty())
      subs += fmt::format("    {} = {}\n", quoted_place,
                          powershell_list(subcommand_names(*place.command)));
    const auto place_options = options_at(place, root);
    options +=
        fmt::format("    {} = {}\n", quoted_place, powershell_list(option_names(place_options)));
    for (const OptionModel* option : place_options) {
      if (option->kind == ValueKind::none) continue;
      for (const std::string& name : option->names) {
        const std::string option_key = powershell_list({place.path + " " + name}).substr(2);
        const std::string quoted_key = option_key.substr(0, option_key.size() - 1);
        values +=
            fmt::format("    {} = {}\n", quoted_key,
                        powershell_list(words_of(value_completion(*option, root, frameworks))));
      }
    }
    if (const OptionModel* positional = first_positional(*place.command)) {
      const auto words = words_of(value_completion(*positional, root, frameworks));
      if (!words.empty())
        positionals += fmt::format("    {} = {}\n", quoted_place, powershell_list(words));
    }
  }
  return fmt::format(R"sh(# gpuvet completion for PowerShell. Load it with:
#   gpuvet completion powershell | Out-String | Invoke-Expression
# or dot-source the saved script in your $PROFILE: . .\gpuvet-completion.ps1
Register-ArgumentCompleter -Native -CommandName 'gpuvet', 'gpuvet.exe' -ScriptBlock {{
  param($wordToComplete, $commandAst, $cursorPosition)
  $subcommands = @{{
{}  }}
  $options = @{{
{}  }}
  # The values of options that take one (empty: a file, a directory or free text).
  $values = @{{
{}  }}
  $positionals = @{{
{}  }}
  $place = ''
  $option = $null
  $afterDashes = $false
  $typed = @($commandAst.CommandElements | Select-Object -Skip 1 |
    Where-Object {{ $_.Extent.EndOffset -lt $cursorPosition }} | ForEach-Object {{ $_.ToString() }})
  foreach ($word in $typed) {{
    if ($afterDashes) {{ continue }}
    if ($null -ne $option) {{ $option = $null; continue }}
    if ($word -eq '--') {{ $afterDashes = $true }}
    elseif ($word -like '--*=*') {{ }}
    elseif ($word -like '-*') {{ if ($values.ContainsKey("$place $word")) {{ $option = $word }} }}
    elseif ($subcommands.ContainsKey($place) -and $subcommands[$place] -contains $word) {{
      $place = if ($place) {{ "$place $word" }} else {{ $word }}
    }}
  }}
  $candidates = @()
  if ($afterDashes) {{ return }}
  if ($null -ne $option) {{ $candidates = $values["$place $option"] }}
  elseif ($wordToComplete -like '-*') {{ $candidates = $options[$place] }}
  elseif ($subcommands.ContainsKey($place)) {{ $candidates = $subcommands[$place] }}
  elseif ($positionals.ContainsKey($place)) {{ $candidates = $positionals[$place] }}
  # Nothing offered: PowerShell completes file names itself.
  $candidates | Where-Object {{ $_ -like "$wordToComplete*" }} | ForEach-Object {{
    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
  }}
}}
)sh",
                     subs, options, values, positionals);
}

}  // namespace

const std::vector<std::string>& completion_shells() {
  static const std::vector<std::string> shells = {"bash", "zsh", "fish", "powershell"};
  return shells;
}

Result<std::string> completion_script(std::string_view shell, const CommandModel& command_line,
                                      const std::vector<std::string>& frameworks) {
  if (shell == "bash") return bash_script(command_line, frameworks);
  if (shell == "zsh") return zsh_script(command_line, frameworks);
  if (shell == "fish") return fish_script(command_line, frameworks);
  if (shell == "powershell") return powershell_script(command_line, frameworks);
  return Error{fmt::format("no completion for the shell {}", shell)};
}

}  // namespace gpuvet::cli
