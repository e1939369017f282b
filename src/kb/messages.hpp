#pragma once
// Message catalogs (data/messages/<lang>.csv: key,text). Texts are fmt templates with named
// arguments, e.g. "TF_CPP_MIN_LOG_LEVEL={level} hides {hidden}".
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "kb/kb.hpp"

namespace gpuvet::kb {

enum class Lang { en, zh };

std::string_view lang_code(Lang lang);
// "zh", "zh_CN.UTF-8", "zh-Hans" -> zh; anything else -> en.
Lang lang_from_locale(std::string_view locale);

using MessageArgs = std::vector<std::pair<std::string, std::string>>;

class Messages {
 public:
  // English is complete; another language falls back to English key by key.
  static Result<Messages> load(const Kb& kb, Lang lang);

  Lang lang() const { return lang_; }
  // The message for key with its arguments filled in. An unknown key or a broken template
  // yields the key itself, so that a catalog bug never hides a finding.
  std::string text(std::string_view key, const MessageArgs& args = {}) const;
  // The same, with every parenthesis that names one of `absent` left out ("… driver (found
  // {found})" -> "… driver"), so a text does not say "(unknown)" for what its input never told;
  // an absent argument outside parentheses still takes its value from args.
  std::string text_without(std::string_view key, const MessageArgs& args,
                           const std::vector<std::string>& absent) const;
  bool has(std::string_view key) const;

 private:
  Lang lang_ = Lang::en;
  std::map<std::string, std::string, std::less<>> texts_;
};

// An error in the catalog's words: its key with its arguments, inside "{file}: …" for each file it
// was met in; its English message where the catalog lacks the key.
std::string render_error(const Error& error, const Messages& messages);

// An error worded by the embedded English catalog (so the words are written once, in en.csv).
Error catalog_error(std::string_view key, const MessageArgs& args = {});
// `error` inside the catalog text `key`, which words it as {detail}: "cannot read snapshot
// {file}: {detail}".
Error within(Error error, std::string_view key, const MessageArgs& args = {});

}  // namespace gpuvet::kb
