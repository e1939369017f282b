#pragma once
// Finds English sentences left in Chinese output: runs of three or more English words once
// what is rightly English is taken out (product names, paths, options, versions and ids,
// quoted text from logs, URLs, and commands to type).
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuvet::testing {

inline bool is_ascii_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Words that stay English in Chinese text: names of products, file formats and tools.
inline bool is_allowed_word(std::string_view word) {
  static const std::vector<std::string_view> allowed = {"CUDA",       "cuDNN",
                                                        "NVIDIA",     "TensorFlow",
                                                        "PyTorch",    "GPU",
                                                        "CPU",        "Python",
                                                        "Windows",    "Linux",
                                                        "WSL",        "JSON",
                                                        "HTML",       "ONNX",
                                                        "Runtime",    "JAX",
                                                        "CuPy",       "Paddle",
                                                        "GeForce",    "RTX",
                                                        "GTX",        "Tesla",
                                                        "Microsoft",  "Visual",
                                                        "Studio",     "Redistributable",
                                                        "Update",     "Toolkit",
                                                        "NVML",       "DLL",
                                                        "TCC",        "WDDM",
                                                        "XLA",        "PTX",
                                                        "SASS",       "Slurm",
                                                        "Kubernetes", "Docker",
                                                        "Ubuntu",     "Debian",
                                                        "Pro",        "Home",
                                                        "Enterprise", "Container",
                                                        "Basic",      "Display",
                                                        "Adapter",    "Compute",
                                                        "Capability", "Toolkit",
                                                        "Driver",     "Edition",
                                                        "GEMM",       "PCIe",
                                                        "UUID",       "MIG",
                                                        "for",        "and",
                                                        "or",         "the",
                                                        "of",         "in",
                                                        "to",         "on",
                                                        "a",          "an",
                                                        "by",         "with",
                                                        "VERB",       "SUB",
                                                        "tensorflow", "torch",
                                                        "jax",        "cupy",
                                                        "paddle",     "onnxruntime"};
  for (std::string_view a : allowed) {
    if (a == word) return true;
  }
  // All capitals: an acronym or a metavariable (FILE, DIR, OPTIONS).
  for (char c : word) {
    if (!(c >= 'A' && c <= 'Z')) return false;
  }
  return true;
}

// Commands a line may offer to type: the rest of the line after one is the command.
inline bool is_command_word(std::string_view word) {
  for (std::string_view command :
       {"gpuvet", "pip",  "pip3",  "conda",  "python", "python3", "sudo",     "apt",
        "docker", "reg",  "set",   "copy",   "ls",     "dmesg",   "export",   "unset",
        "source", "cd",   "mkdir", "nvidia", "uname",  "dkms",    "ldconfig", "where",
        "nvcc",   "srun", "tail",  "uv",     "pipx"}) {
    if (word == command) return true;
  }
  return false;
}

// A parenthesis that cites a source (it holds a URL): the source's own words.
inline std::string without_citations(std::string_view line) {
  std::string out(line);
  for (const auto& [open, close] : {std::pair<std::string, std::string>{"(", ")"}, {"（", "）"}}) {
    for (size_t at = out.find(open); at != std::string::npos; at = out.find(open, at + 1)) {
      size_t depth = 0;
      size_t end = at;
      for (size_t i = at; i < out.size(); ++i) {
        if (out.compare(i, open.size(), open) == 0) ++depth;
        if (out.compare(i, close.size(), close) == 0 && --depth == 0) {
          end = i + close.size();
          break;
        }
      }
      if (end > at && out.substr(at, end - at).find("://") != std::string::npos)
        out.replace(at, end - at, " ");
    }
  }
  return out;
}

// Blanks what is rightly not Chinese: citations, quotes, URLs, and tokens holding / \ . _ =
// digits or -.
inline std::string without_rightful_english(std::string_view raw_line) {
  const std::string cited = without_citations(raw_line);
  const std::string_view line = cited;
  std::string out;
  std::string_view closing;
  for (size_t i = 0; i < line.size();) {
    if (!closing.empty()) {
      if (line.substr(i).starts_with(closing)) {
        i += closing.size();
        closing = {};
      } else {
        ++i;
      }
      continue;
    }
    const std::pair<std::string_view, std::string_view> quotes[] = {
        {"“", "”"}, {"\"", "\""}, {"`", "`"}, {"「", "」"}, {"‘", "’"}};
    bool opened = false;
    for (const auto& [open, close] : quotes) {
      if (line.substr(i).starts_with(open)) {
        closing = close;
        i += open.size();
        out += ' ';
        opened = true;
        break;
      }
    }
    if (opened) continue;
    out += line[i++];
  }
  // Tokens between spaces and CJK punctuation that are paths, options, versions or ids.
  std::string cleaned;
  size_t start = 0;
  while (start <= out.size()) {
    size_t end = start;
    while (end < out.size() && out[end] != ' ' && static_cast<unsigned char>(out[end]) < 0x80)
      ++end;
    const std::string token = out.substr(start, end - start);
    const bool technical =
        token.find_first_of("/\\._=0123456789:$%<>@#|*[]{}") != std::string::npos ||
        token.starts_with("-") || token.find("-") != std::string::npos;
    cleaned += technical ? std::string(" ") : token;
    if (end < out.size()) cleaned += out[end];
    start = end + 1;
  }
  return cleaned;
}

// The English sentences in `text` (one per offending line, with the line).
inline std::vector<std::string> untranslated_sentences(std::string_view text) {
  std::vector<std::string> found;
  size_t line_start = 0;
  while (line_start < text.size()) {
    const size_t line_end = std::min(text.find('\n', line_start), text.size());
    const std::string_view line = text.substr(line_start, line_end - line_start);
    // A source line is a citation: the cited document's own words.
    const size_t indent = line.find_first_not_of(' ');
    if (indent != std::string_view::npos && line.substr(indent).starts_with("来源：")) {
      line_start = line_end + 1;
      continue;
    }
    const std::string cleaned = without_rightful_english(line);
    int run = 0;
    for (size_t i = 0; i < cleaned.size();) {
      if (is_ascii_letter(cleaned[i])) {
        size_t j = i;
        while (j < cleaned.size() && (is_ascii_letter(cleaned[j]) || cleaned[j] == '\''))
          ++j;
        const std::string_view word(cleaned.data() + i, j - i);
        if (is_command_word(word)) break;
        if (!is_allowed_word(word)) ++run;
        i = j;
        // Words of a sentence are separated by single spaces or commas only.
        while (i < cleaned.size() && (cleaned[i] == ' ' || cleaned[i] == ','))
          ++i;
        if (i < cleaned.size() && !is_ascii_letter(cleaned[i])) {
          if (run >= 3) break;
          run = 0;
        }
        continue;
      }
      if (run >= 3) break;
      run = 0;
      ++i;
    }
    if (run >= 3) found.emplace_back(line);
    line_start = line_end + 1;
  }
  return found;
}

// What a reader of an HTML page sees: the text between tags and the titles and labels shown on
// hover, a line each; styles and scripts left out, entities decoded.
inline std::string visible_text_of_html(std::string_view html) {
  std::string out;
  size_t i = 0;
  auto skip_element = [&](std::string_view open, std::string_view close) {
    if (html.substr(i).starts_with(open)) {
      const size_t end = html.find(close, i);
      i = end == std::string_view::npos ? html.size() : end + close.size();
      return true;
    }
    return false;
  };
  while (i < html.size()) {
    if (skip_element("<style", "</style>") || skip_element("<script", "</script>")) continue;
    if (html[i] == '<') {
      const size_t end = std::min(html.find('>', i), html.size());
      const std::string_view tag = html.substr(i, end - i);
      for (std::string_view attribute : {"title=\"", "aria-label=\""}) {
        const size_t at = tag.find(attribute);
        if (at == std::string_view::npos) continue;
        const size_t from = at + attribute.size();
        out += "\n" + std::string(tag.substr(from, tag.find('"', from) - from)) + "\n";
      }
      out += '\n';
      i = end + 1;
      continue;
    }
    out += html[i++];
  }
  std::string decoded;
  for (size_t j = 0; j < out.size(); ++j) {
    bool replaced = false;
    for (const auto& [entity, text] : {std::pair<std::string_view, std::string_view>{"&amp;", "&"},
                                       {"&lt;", "<"},
                                       {"&gt;", ">"},
                                       {"&quot;", "\""},
                                       {"&#39;", "'"}}) {
      if (std::string_view(out).substr(j).starts_with(entity)) {
        decoded += text;
        j += entity.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) decoded += out[j];
  }
  return decoded;
}

// Lines whose Chinese is set with ASCII punctuation: an ASCII , : ; right after a Chinese
// character or a full-width closing parenthesis, an ASCII ( opening Chinese words, or a space next
// to full-width punctuation.
inline std::vector<std::string> typography_flaws(std::string_view text) {
  static const std::vector<std::string_view> fullwidth = {"：", "，", "；", "。", "、", "（", "）"};
  auto is_cjk_at = [&](std::string_view s, size_t i) {
    // U+4E00..U+9FFF are three bytes, E4 B8 80 .. E9 BF BF.
    return i + 2 < s.size() && static_cast<unsigned char>(s[i]) >= 0xE4 &&
           static_cast<unsigned char>(s[i]) <= 0xE9;
  };
  std::vector<std::string> found;
  size_t line_start = 0;
  while (line_start < text.size()) {
    const size_t line_end = std::min(text.find('\n', line_start), text.size());
    const std::string_view line = text.substr(line_start, line_end - line_start);
    bool flawed = false;
    for (size_t i = 0; i < line.size() && !flawed; ++i) {
      // After a Chinese character or a full-width closing parenthesis (both three bytes).
      const bool chinese_before = is_cjk_at(line, i) || line.substr(i).starts_with("）");
      if (chinese_before && i + 3 < line.size() &&
          std::string_view(",:;").find(line[i + 3]) != std::string_view::npos)
        flawed = true;
      if (line[i] == '(' && is_cjk_at(line, i + 1)) flawed = true;
      for (std::string_view mark : fullwidth) {
        if (line.substr(i).starts_with(mark) && i + mark.size() < line.size() &&
            line[i + mark.size()] == ' ' && mark != "）")
          flawed = true;
        if (line[i] == ' ' && line.substr(i + 1).starts_with(mark) && mark != "（") flawed = true;
      }
    }
    if (flawed) found.emplace_back(line);
    line_start = line_end + 1;
  }
  return found;
}

}  // namespace gpuvet::testing
