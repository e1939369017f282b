#include "cli/arguments.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

namespace gpuvet::cli {

namespace {

constexpr std::array<std::string_view, 3> kGlobalValueOptions = {"--lang", "--kb", "--format"};
constexpr std::array<std::string_view, 2> kGlobalFlags = {"--json", "--no-color"};

bool is_one_of(std::string_view arg, const auto& names) {
  return std::find(names.begin(), names.end(), arg) != names.end();
}

// "--lang=zh" -> "--lang"
std::string_view option_name(std::string_view arg) {
  return arg.substr(0, arg.find('='));
}

// How many arguments the global option at args[i] spans (0: not a global option).
size_t global_option_span(const std::vector<std::string>& args, size_t i) {
  const std::string_view arg = args[i];
  if (is_one_of(arg, kGlobalFlags)) return 1;
  if (!is_one_of(option_name(arg), kGlobalValueOptions)) return 0;
  if (arg.find('=') != std::string_view::npos) return 1;
  return i + 1 < args.size() ? 2 : 1;  // a value missing is the verb's parser's to report
}

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: a swap of neighbours counts as one edit (chcek -> check).
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> hoist_global_options(std::vector<std::string> args) {
  std::vector<std::string> globals;
  size_t i = 0;
  while (i < args.size()) {
    const size_t span = global_option_span(args, i);
    if (span == 0) break;
    globals.insert(globals.end(), args.begin() + static_cast<std::ptrdiff_t>(i),
                   args.begin() + static_cast<std::ptrdiff_t>(i + span));
    i += span;
  }
  // Only before a verb: `gpuvet --json` alone is `gpuvet check --json` already.
  if (globals.empty() || i == args.size() || args[i].starts_with("-")) return args;
  std::vector<std::string> rest(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  const auto end_of_options = std::find(rest.begin(), rest.end(), "--");
  rest.insert(end_of_options, globals.begin(), globals.end());
  return rest;
}

bool take_redact_user(std::vector<std::string>& args) {
  bool found = false;
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--") break;
    if (args[i] == "--redact-user" && (i == 0 || args[i - 1] != "--text")) {
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
      found = true;
    } else {
      ++i;
    }
  }
  return found;
}

std::vector<std::string> with_default_verb(std::vector<std::string> args) {
  const bool top_level_flag =
      !args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "--version");
  if (args.empty() || (args[0].starts_with("-") && !top_level_flag)) {
    args.insert(args.begin(), "check");
  }
  return args;
}

kb::Lang lang_of_arguments(const std::vector<std::string>& args, kb::Lang from_environment) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i] == "--text") {
      ++i;  // its value is the user's text, not an option
    } else if (args[i] == "--lang" && i + 1 < args.size()) {
      return kb::lang_from_locale(args[i + 1]);
    } else if (args[i].starts_with("--lang=")) {
      return kb::lang_from_locale(std::string_view(args[i]).substr(7));
    }
  }
  return from_environment;
}

std::optional<std::string> nearest_name(std::string_view typed,
                                        const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = 3;  // more than two edits apart is not a typo
  for (const std::string& candidate : candidates) {
    const size_t distance = edit_distance(typed, candidate);
    // Two edits make any short word another: a suggestion keeps most of what was typed.
    if (distance < best_distance && distance * 2 <= typed.size() && distance < candidate.size()) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (best || typed.size() < 2) return best;
  std::optional<std::string> prefixed;
  for (const std::string& candidate : candidates) {
    if (!candidate.starts_with(typed)) continue;
    if (prefixed) return std::nullopt;  // ambiguous
    prefixed = candidate;
  }
  return prefixed;
}

}  // namespace gpuvet::cli
