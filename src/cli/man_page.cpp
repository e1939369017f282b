#include "cli/man_page.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpuvet::cli {

namespace {

// The length of the UTF-8 sequence that starts with `lead` (1 for a stray byte).
size_t utf8_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// A non-ASCII character as roff's \[uXXXX], so that the page needs no input encoding.
std::string roff_character(std::string_view sequence) {
  const auto lead = static_cast<unsigned char>(sequence[0]);
  char32_t code = sequence.size() == 1 ? U'?' : lead & (0xFF >> (sequence.size() + 1));
  for (size_t i = 1; i < sequence.size(); ++i)
    code = (code << 6) | (static_cast<unsigned char>(sequence[i]) & 0x3F);
  return fmt::format("\\[u{:04X}]", static_cast<unsigned>(code));
}

// Text as roff reads it: backslashes escaped, a line that starts with a control character kept
// as text, hyphens as the minus sign man pages write in options, other characters than ASCII
// by their code point.
std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const size_t length = std::min(utf8_length(static_cast<unsigned char>(c)), text.size() - i);
      out += roff_character(text.substr(i, length));
      i += length - 1;
      line_start = false;
      continue;
    }
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

std::string option_heading(const OptionModel& option) {
  std::string heading;
  for (const std::string& name : option.names) {
    if (!heading.empty()) heading += ", ";
    const std::string& shown = option.positional && !option.metavar.empty() ? option.metavar : name;
    heading += option.positional ? "\\fI" + roff(shown) + "\\fR" : "\\fB" + roff(name) + "\\fR";
  }
  if (!option.positional && !option.metavar.empty())
    heading += " \\fI" + roff(option.metavar) + "\\fR";
  return heading;
}

std::string synopsis_of(const std::string& path, const CommandModel& command) {
  std::string line = ".B gpuvet " + roff(path) + "\n";
  if (!command.subcommands.empty()) return line + "\\fISUBCOMMAND\\fR ...\n";
  bool has_options = false;
  for (const OptionModel& option : command.options) {
    if (option.positional) {
      const std::string& shown = option.metavar.empty() ? option.names.front() : option.metavar;
      line += "\\fI" + roff(shown) + "\\fR\n";
    } else {
      has_options = true;
    }
  }
  if (has_options) line += "[\\fIOPTIONS\\fR]\n";
  return line;
}

void write_command(std::string& page, const std::string& path, const CommandModel& command) {
  page += ".SS \"gpuvet " + roff(path) + "\"\n" + roff(command.help) + "\n";
  page += ".PP\n" + synopsis_of(path, command);
  for (const OptionModel& option : command.options) {
    page += ".TP\n" + option_heading(option) + "\n" + roff(option.help) + "\n";
  }
  if (!command.footer.empty()) page += ".PP\n" + roff(command.footer) + "\n";
  for (const CommandModel& sub : command.subcommands) {
    write_command(page, path + " " + sub.name, sub);
  }
}

}  // namespace

std::string render_man_page(const CommandModel& command_line, const kb::Messages& m,
                            std::string_view version, std::string_view date) {
  std::string page = fmt::format(".TH GPUVET 1 \"{}\" \"{}\" \"{}\"\n", date, roff(version),
                                 roff(m.text("man.section")));
  page += ".SH NAME\ngpuvet \\- " + roff(m.text("man.name")) + "\n";
  page += ".SH SYNOPSIS\n.B gpuvet\n[\\fIVERB\\fR] [\\fIOPTIONS\\fR]\n.br\n";
  page += ".B gpuvet help\n[\\fIVERB\\fR]\n";
  page += ".SH DESCRIPTION\n" + roff(command_line.help) + "\n.PP\n" +
          roff(m.text("man.description")) + "\n";
  page += ".SH OPTIONS\n";
  for (const OptionModel& option : command_line.options) {
    page += ".TP\n" + option_heading(option) + "\n" + roff(option.help) + "\n";
  }
  page += ".SH COMMANDS\n";
  for (const CommandModel& verb : command_line.subcommands)
    write_command(page, verb.name, verb);
  page += ".SH \"EXIT STATUS\"\n" + roff(m.text("man.exit_status")) + "\n";
  page += ".SH ENVIRONMENT\n";
  for (const char* variable : {"NO_COLOR", "LANG", "GPUVET_NATIVE_TIMEOUT_MS", "XDG_STATE_HOME"}) {
    page += fmt::format(".TP\n.B {}\n{}\n", roff(variable),
                        roff(m.text(fmt::format("man.env.{}", variable))));
  }
  page += ".SH \"SEE ALSO\"\n" + roff(m.text("man.see_also")) + "\n";
  return page;
}

}  // namespace gpuvet::cli
