#include "kb/messages.hpp"

#include <fmt/args.h>
#include <fmt/format.h>

#include <optional>

#include "core/text.hpp"

namespace gpuvet::kb {

std::string_view lang_code(Lang lang) {
  return lang == Lang::zh ? "zh" : "en";
}

Lang lang_from_locale(std::string_view locale) {
  return text::starts_with_icase(locale, "zh") ? Lang::zh : Lang::en;
}

namespace {
Result<bool> add_catalog(const Kb& kb, std::string_view code,
                         std::map<std::string, std::string, std::less<>>& texts) {
  auto table = kb.table(fmt::format("messages/{}", code));
  if (!table) return table.error();
  const Table& t = **table;
  if (!t.has_column("key") || !t.has_column("text")) {
    return make_error(fmt::format("{}: needs the columns key,text", t.name()));
  }
  for (size_t row = 0; row < t.size(); ++row)
    texts[t.cell(row, "key")] = t.cell(row, "text");
  return true;
}
}  // namespace

Result<Messages> Messages::load(const Kb& kb, Lang lang) {
  Messages m;
  m.lang_ = lang;
  if (auto ok = add_catalog(kb, "en", m.texts_); !ok) return ok.error();
  if (lang != Lang::en) {
    // Simplified Chinese as written in mainland China: data/messages/zh-CN.csv.
    if (auto ok = add_catalog(kb, lang == Lang::zh ? "zh-CN" : lang_code(lang), m.texts_); !ok) {
      return ok.error();
    }
  }
  return m;
}

bool Messages::has(std::string_view key) const {
  return texts_.contains(key);
}

namespace {

std::string format_named(std::string_view key, const std::string& pattern,
                         const MessageArgs& args) {
  fmt::dynamic_format_arg_store<fmt::format_context> store;
  for (const auto& [name, value] : args)
    store.push_back(fmt::arg(name.c_str(), value));
  try {
    return fmt::vformat(pattern, store);
  } catch (const fmt::format_error&) {
    return std::string(key);
  }
}

// ASCII and full-width (Chinese) parentheses.
constexpr std::string_view kOpen[] = {"(", "\xEF\xBC\x88"};
constexpr std::string_view kClose[] = {")", "\xEF\xBC\x89"};

// Where the innermost parenthesis around `at` opens and closes (the close one past its end), of
// either kind, or nothing when `at` is not inside one.
std::optional<std::pair<size_t, size_t>> enclosing_parenthesis(const std::string& text, size_t at) {
  std::optional<std::pair<size_t, size_t>> innermost;
  for (size_t kind = 0; kind < 2; ++kind) {
    const size_t open = text.rfind(kOpen[kind], at);
    if (open == std::string::npos) continue;
    const size_t closed_before = text.rfind(kClose[kind], at);
    if (closed_before != std::string::npos && closed_before > open) continue;
    const size_t close = text.find(kClose[kind], at);
    if (close == std::string::npos) continue;
    const size_t opens_between = text.find(kOpen[kind], at);
    if (opens_between != std::string::npos && opens_between < close) continue;
    if (!innermost || open > innermost->first)
      innermost = std::make_pair(open, close + kClose[kind].size());
  }
  return innermost;
}

std::string drop_parentheses_naming(std::string pattern, const std::vector<std::string>& absent) {
  for (const auto& name : absent) {
    const std::string placeholder = "{" + name + "}";
    size_t from = 0;
    while ((from = pattern.find(placeholder, from)) != std::string::npos) {
      const auto around = enclosing_parenthesis(pattern, from);
      if (!around) {
        from += placeholder.size();
        continue;
      }
      size_t begin = around->first;
      if (begin > 0 && pattern[begin - 1] == ' ') --begin;
      pattern.erase(begin, around->second - begin);
      from = begin;
    }
  }
  return pattern;
}

}  // namespace

std::string Messages::text(std::string_view key, const MessageArgs& args) const {
  const auto it = texts_.find(key);
  if (it == texts_.end()) return std::string(key);
  return format_named(key, it->second, args);
}

std::string Messages::text_without(std::string_view key, const MessageArgs& args,
                                   const std::vector<std::string>& absent) const {
  const auto it = texts_.find(key);
  if (it == texts_.end()) return std::string(key);
  return format_named(key, drop_parentheses_naming(it->second, absent), args);
}

std::string render_error(const Error& error, const Messages& messages) {
  if (error.key.empty() || !messages.has(error.key)) return error.message;
  std::string text = messages.text(error.key, error.args);
  if (text == error.key) return error.message;  // an argument the template needs is missing
  for (const ErrorContext& around : error.context) {
    MessageArgs args = around.args;
    args.emplace_back("detail", text);
    text = messages.text(around.key, args);
  }
  return text;
}

namespace {

std::string in_english(std::string_view key, const MessageArgs& args) {
  static const auto english = [] {
    auto kb = Kb::embedded();
    return kb ? Messages::load(*kb, Lang::en) : Result<Messages>(Error{"no catalog"});
  }();
  return english ? english->text(key, args) : std::string(key);
}

}  // namespace

Error catalog_error(std::string_view key, const MessageArgs& args) {
  return keyed_error(in_english(key, args), std::string(key), args);
}

Error within(Error error, std::string_view key, const MessageArgs& args) {
  error = keyed_verbatim(std::move(error));
  MessageArgs english_args = args;
  english_args.emplace_back("detail", error.message);
  error.message = in_english(key, english_args);
  error.context.push_back({std::string(key), args});
  return error;
}

}  // namespace gpuvet::kb
