#include "explain/pasted_forms.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/text.hpp"

namespace gpuvet::explain {

namespace {

constexpr size_t kMaxPrefixName = 64;
constexpr size_t npos = std::string_view::npos;
// Wrappings inside wrappings ("> " around "[rank0]: " in a journal line) are peeled this deep.
constexpr int kMaxPeels = 4;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// `count` digits at `pos`.
bool digits_at(std::string_view s, size_t pos, size_t count) {
  if (pos + count > s.size()) return false;
  for (size_t i = pos; i < pos + count; ++i)
    if (!is_digit(s[i])) return false;
  return true;
}

// "2024-05-01T12:00:00": where it ends, or npos.
size_t iso_date_time_end(std::string_view s) {
  if (!digits_at(s, 0, 4) || s.size() < 19 || s[4] != '-' || !digits_at(s, 5, 2) || s[7] != '-' ||
      !digits_at(s, 8, 2) || s[10] != 'T' || !digits_at(s, 11, 2) || s[13] != ':' ||
      !digits_at(s, 14, 2) || s[16] != ':' || !digits_at(s, 17, 2)) {
    return std::string_view::npos;
  }
  size_t pos = 19;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    ++pos;
    while (pos < s.size() && is_digit(s[pos]))
      ++pos;
  }
  // Z, +08:00 or +0800.
  if (pos < s.size() && s[pos] == 'Z') return pos + 1;
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-') && digits_at(s, pos + 1, 2)) {
    pos += 3;
    if (pos < s.size() && s[pos] == ':') ++pos;
    if (digits_at(s, pos, 2)) return pos + 2;
  }
  return std::string_view::npos;
}

// Kubernetes' container log: "2024-05-01T12:00:00.123456789Z stderr F message".
size_t kubernetes_prefix(std::string_view s) {
  const size_t time = iso_date_time_end(s);
  if (time == std::string_view::npos) return 0;
  const std::string_view rest = s.substr(time);
  for (const std::string_view stream : {" stdout ", " stderr "}) {
    if (rest.starts_with(stream) && rest.size() > stream.size() + 1 &&
        (rest[stream.size()] == 'F' || rest[stream.size()] == 'P') &&
        rest[stream.size() + 1] == ' ') {
      return time + stream.size() + 2;
    }
  }
  return 0;
}

// "Oct 23 10:22:21" (the journal's and syslog's short form): where it ends, or npos.
size_t syslog_time_end(std::string_view s) {
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan ", "Feb ", "Mar ", "Apr ",
                                                               "May ", "Jun ", "Jul ", "Aug ",
                                                               "Sep ", "Oct ", "Nov ", "Dec "};
  bool month = false;
  for (const auto m : kMonths)
    month = month || s.starts_with(m);
  if (!month || s.size() < 15) return std::string_view::npos;
  // The day is padded with a space or a zero: "Oct  3" or "Oct 03".
  if (!(is_digit(s[4]) || s[4] == ' ') || !is_digit(s[5]) || s[6] != ' ' || !digits_at(s, 7, 2) ||
      s[9] != ':' || !digits_at(s, 10, 2) || s[12] != ':' || !digits_at(s, 13, 2)) {
    return std::string_view::npos;
  }
  return 15;
}

// "ident: " or "ident[1234]: " at the start of s: its length, or 0.
size_t syslog_ident(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size() && pos < kMaxPrefixName && s[pos] != ' ' && s[pos] != '[' && s[pos] != ':')
    ++pos;
  if (pos == 0) return 0;
  if (pos < s.size() && s[pos] == '[') {
    const size_t pid = pos + 1;
    pos = pid;
    while (pos < s.size() && is_digit(s[pos]))
      ++pos;
    if (pos == pid || pos >= s.size() || s[pos] != ']') return 0;
    ++pos;
  }
  return s.substr(pos).starts_with(": ") ? pos + 2 : 0;
}

// The journal's (journalctl, short or short-iso, with or without the host's name) and syslog's
// "Oct 23 10:22:21 host ollama[1234]: message". Without a host, the program is the kernel or
// has its pid: "RuntimeError: " after a time is the message's own word.
size_t journal_prefix(std::string_view s) {
  size_t time = syslog_time_end(s);
  // journalctl's short-iso writes the zone as an offset (+0800), never as a CI runner's 'Z'.
  if (time == npos) time = iso_date_time_end(s);
  if (time == npos || time >= s.size() || s[time] != ' ' || s[time - 1] == 'Z') return 0;
  const std::string_view rest = s.substr(time + 1);
  if (const size_t ident = syslog_ident(rest);
      ident && (rest.starts_with("kernel: ") || rest.substr(0, ident).find('[') != npos)) {
    return time + 1 + ident;
  }
  const size_t host = rest.find(' ');
  if (host == npos || host == 0 || host > kMaxPrefixName || rest[host - 1] == ':') return 0;
  const size_t ident = syslog_ident(rest.substr(host + 1));
  return ident ? time + 1 + host + 1 + ident : 0;
}

// A CI runner's time before each line (GitHub Actions: "2024-05-01T12:00:00.1234567Z ").
size_t ci_time_prefix(std::string_view s) {
  const size_t time = iso_date_time_end(s);
  return time != npos && time + 1 < s.size() && s[time] == ' ' ? time + 1 : 0;
}

// Compose names containers in lower case; loguru's "ERROR    | " is a level, not a container.
bool is_service_name_char(char c) {
  return (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' || c == '-' || c == '.';
}

// A container's name as compose makes it: the service's and a replica's number ("ollama-1",
// "web_1"), or one without any digit ("ollama"). Not a conda package's name and version, which
// conda's tables print before a bar too ("pytorch-1.7.1   |cpu_py37hf1c21f6_1").
bool compose_container_name(std::string_view name) {
  if (name.find_first_of("0123456789") == std::string_view::npos) return true;
  const size_t number = name.find_last_not_of("0123456789");
  return number != std::string_view::npos && number + 1 < name.size() &&
         (name[number] == '-' || name[number] == '_') && name.find('.') == std::string_view::npos;
}

// docker compose's "ollama-1  | message": a container's name padded with spaces before the bar.
size_t compose_prefix(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size() && pos < kMaxPrefixName && is_service_name_char(s[pos]))
    ++pos;
  if (pos == 0 || pos >= s.size() || s[pos] != ' ' || !compose_container_name(s.substr(0, pos)))
    return 0;
  while (pos < s.size() && s[pos] == ' ')
    ++pos;
  if (!s.substr(pos).starts_with("| ")) return 0;
  pos += 2;
  return pos < s.size() ? pos : 0;
}

// torchrun's and torch.distributed's "[rank0]: " and "[default0]:".
size_t rank_prefix(std::string_view s) {
  for (const std::string_view tag : {"[rank", "[default"}) {
    if (!s.starts_with(tag)) continue;
    size_t pos = tag.size();
    const size_t digits = pos;
    while (pos < s.size() && is_digit(s[pos]))
      ++pos;
    if (pos == digits || !s.substr(pos).starts_with("]:")) return 0;
    pos += 2;
    if (pos < s.size() && s[pos] == ' ') ++pos;
    return pos;
  }
  return 0;
}

// A quoted reply's "> " (not Python's ">>> " prompt, whose second character is '>').
size_t quote_prefix(std::string_view s) {
  return s.size() > 2 && s[0] == '>' && s[1] == ' ' ? 2 : 0;
}

size_t wrapping_prefix(std::string_view s) {
  for (const auto prefix : {kubernetes_prefix, journal_prefix, ci_time_prefix, compose_prefix,
                            rank_prefix, quote_prefix}) {
    if (const size_t length = prefix(s)) return length;
  }
  return 0;
}

constexpr std::string_view kDockerRecord = "{\"log\":\"";

// Docker's json-file record: its "log" string, without the line's end.
std::optional<std::string> docker_record_message(std::string_view s) {
  if (!s.starts_with(kDockerRecord)) return std::nullopt;
  const auto record = nlohmann::json::parse(s, nullptr, false);
  if (record.is_discarded() || !record.is_object()) return std::nullopt;
  const auto log = record.find("log");
  if (log == record.end() || !log->is_string()) return std::nullopt;
  std::string message = log->get<std::string>();
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r'))
    message.pop_back();
  return message;
}

// "&#39;", "&#x27;": the code point and the reference's length, or a length of 0.
std::pair<std::uint32_t, size_t> numeric_reference(std::string_view s) {
  if (!s.starts_with("&#")) return {0, 0};
  const bool hex = s.size() > 2 && (s[2] == 'x' || s[2] == 'X');
  size_t pos = hex ? 3 : 2;
  const size_t first = pos;
  std::uint32_t code = 0;
  for (; pos < s.size() && pos - first < 7; ++pos) {
    const char c = s[pos];
    std::uint32_t digit = 0;
    if (is_digit(c)) {
      digit = static_cast<std::uint32_t>(c - '0');
    } else if (hex && c >= 'a' && c <= 'f') {
      digit = static_cast<std::uint32_t>(c - 'a' + 10);
    } else if (hex && c >= 'A' && c <= 'F') {
      digit = static_cast<std::uint32_t>(c - 'A' + 10);
    } else {
      break;
    }
    code = code * (hex ? 16 : 10) + digit;
  }
  if (pos == first || pos >= s.size() || s[pos] != ';') return {0, 0};
  // A line break or a tab inside a line is a space; other control characters (ESC would bring
  // back a colour code), surrogates and what Unicode does not have are no text.
  if (code == '\n' || code == '\r' || code == '\t') code = ' ';
  if (code < 0x20 || (code >= 0x7F && code < 0xA0) || (code >= 0xD800 && code <= 0xDFFF) ||
      code > 0x10FFFF) {
    return {0, 0};
  }
  return {code, pos + 1};
}

struct NamedReference {
  std::string_view name;
  char text;
};
constexpr std::array<NamedReference, 6> kNamedReferences = {{{"&quot;", '"'},
                                                             {"&apos;", '\''},
                                                             {"&lt;", '<'},
                                                             {"&gt;", '>'},
                                                             {"&amp;", '&'},
                                                             {"&nbsp;", ' '}}};

// The reference at the start of s: its length, 0 when there is none.
size_t reference_length(std::string_view s) {
  for (const auto& r : kNamedReferences)
    if (s.starts_with(r.name)) return r.name.size();
  return numeric_reference(s).second;
}

std::optional<std::string> decode_html(std::string_view s) {
  size_t amp = s.find('&');
  while (amp != std::string_view::npos && !reference_length(s.substr(amp)))
    amp = s.find('&', amp + 1);
  if (amp == std::string_view::npos) return std::nullopt;
  std::string out(s.substr(0, amp));
  for (size_t pos = amp; pos < s.size();) {
    const std::string_view rest = s.substr(pos);
    bool named = false;
    for (const auto& r : kNamedReferences) {
      if (rest.starts_with(r.name)) {
        out.push_back(r.text);
        pos += r.name.size();
        named = true;
        break;
      }
    }
    if (named) continue;
    if (const auto [code, length] = numeric_reference(rest); length) {
      text::append_utf8(out, code);
      pos += length;
      continue;
    }
    out.push_back(s[pos]);
    ++pos;
  }
  return out;
}

}  // namespace

std::optional<std::string> unwrapped_message(std::string_view line) {
  // A web page's entities first: "&gt; " is a quoted reply's "> ".
  std::optional<std::string> message = decode_html(line);
  for (int peel = 0; peel < kMaxPeels; ++peel) {
    const std::string_view current = message ? std::string_view(*message) : line;
    if (const size_t prefix = wrapping_prefix(current)) {
      message = std::string(current.substr(prefix));
    } else if (auto inner = docker_record_message(current)) {
      message = std::move(inner);
    } else {
      break;
    }
  }
  return message;
}

std::string message_of(std::string_view line) {
  auto message = unwrapped_message(line);
  return message ? std::move(*message) : std::string(line);
}

namespace {

// A Docker record whose message holds an escape ("\"", "\\", "\u0027") besides its line's end.
size_t first_escaped_record(std::string_view text) {
  for (size_t at = text.find(kDockerRecord); at != npos; at = text.find(kDockerRecord, at + 1)) {
    const size_t line_end = std::min(text.find('\n', at), text.size());
    const std::string_view record = text.substr(at, line_end - at);
    for (size_t slash = record.find('\\'); slash != npos && slash + 1 < record.size();
         slash = record.find('\\', slash + 2)) {
      const char escaped = record[slash + 1];
      if (escaped == '"' || escaped == '\\' || escaped == 'u' || escaped == 't') return at;
    }
  }
  return npos;
}

}  // namespace

size_t first_escaped_form(std::string_view text) {
  size_t found = first_escaped_record(text);
  for (size_t amp = text.find('&'); amp < found; amp = text.find('&', amp + 1)) {
    if (reference_length(text.substr(amp))) {
      found = amp;
      break;
    }
  }
  return found;
}

}  // namespace gpuvet::explain
