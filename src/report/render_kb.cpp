// `gpuvet kb`: knowledge-base answers as text tables or JSON (gpuvet.kb/1).
#include "report/render_kb.hpp"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "report/paint.hpp"

namespace gpuvet::report {

namespace {

// The columns worth a line of their own, per table; notes and source follow every row.
const std::vector<std::string>& shown_columns(const std::string& table) {
  static const std::map<std::string, std::vector<std::string>> columns = {
      {"gpus", {"name", "compute_capability", "architecture", "family"}},
      {"cuda_releases",
       {"version", "label", "release_date", "min_driver_linux", "min_driver_windows"}},
      {"cuda_minor_compat",
       {"cuda_major", "min_driver", "min_driver_linux", "min_driver_windows",
        "max_driver_exclusive"}},
      {"cuda_arch_support", {"cuda_from", "cuda_to", "min_sm", "max_sm", "deprecated_sm"}},
      {"cudnn_releases",
       {"cudnn_from", "cudnn_to", "cuda_versions", "windows_dll", "linux_soname"}},
      {"library_names", {"cuda", "library", "windows_dll", "linux_soname"}},
      {"tensorflow_builds", {"platform", "version", "python_min", "python_max", "cuda", "cudnn"}},
      {"pytorch_builds",
       {"torch_version", "cuda_variants", "python_min", "python_max", "default_pip_cuda",
        "min_cc_compiled"}},
      {"jax_releases",
       {"jax_version", "jaxlib_version", "variant", "install", "cuda", "cudnn", "python_min",
        "python_max", "min_driver_linux", "min_cc"}},
      {"cupy_builds",
       {"version_from", "version_to", "package", "cuda_from", "cuda_to", "python_min", "python_max",
        "platforms"}},
      {"paddle_builds",
       {"version_from", "version_to", "platform", "variant", "cuda", "cudnn", "python_min",
        "python_max", "index_url"}},
      {"onnxruntime_builds",
       {"version_from", "version_to", "variant", "package", "cuda", "cudnn", "python_min",
        "python_max", "index_url"}},
      {"framework_min_cc", {"family", "version_from", "version_to", "min_cc"}},
      {"gpu_arch_drivers",
       {"architecture", "compute_capabilities", "current_drivers", "last_driver_branch"}},
      {"python_packages", {"ecosystem", "package", "family", "role", "build", "cuda"}},
  };
  static const std::vector<std::string> none;
  const auto it = columns.find(table);
  return it == columns.end() ? none : it->second;
}

std::string label(const std::string& column, const kb::Messages& m) {
  const std::string key = "kb.column." + column;
  return m.has(key) ? m.text(key) : column;
}

}  // namespace

std::string render_kb_json(const KbAnswer& answer) {
  nlohmann::ordered_json results = nlohmann::ordered_json::object();
  for (const auto& section : answer.sections) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& row : section.rows) {
      nlohmann::ordered_json object = nlohmann::ordered_json::object();
      for (const auto& [column, value] : row.cells)
        object[column] =
            value.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(value);
      rows.push_back(std::move(object));
    }
    results[section.table] = std::move(rows);
  }
  nlohmann::ordered_json doc = {{"schema", "gpuvet.kb/1"},
                                {"kb_version", answer.kb_version},
                                {"query", {{"topic", answer.topic}, {"argument", answer.argument}}},
                                {"results", results}};
  nlohmann::ordered_json verdict = nlohmann::ordered_json::array();
  for (const auto& line : answer.verdict) {
    nlohmann::ordered_json args = nlohmann::ordered_json::object();
    for (const auto& [name, value] : line.args)
      args[name] = value.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(value);
    verdict.push_back({{"status", line.status}, {"key", line.key}, {"args", std::move(args)}});
  }
  doc["verdict"] = std::move(verdict);
  if (!answer.matched.empty()) doc["matched"] = answer.matched;
  if (!answer.closest.empty()) doc["closest"] = answer.closest;
  if (answer.topic == "gpu" && !answer.sections.empty()) {
    doc["compute_capability"] = answer.compute_capability.empty()
                                    ? nlohmann::ordered_json(nullptr)
                                    : nlohmann::ordered_json(answer.compute_capability);
    doc["matched_by"] = answer.matched_by;
    doc["candidates"] = answer.candidates;
  }
  return doc.dump(2) + "\n";
}

namespace {

std::string verdict_text(const std::vector<VerdictLine>& verdict, const kb::Messages& m,
                         const Painter& paint) {
  std::string out;
  for (const auto& line : verdict) {
    kb::MessageArgs args = line.args;
    for (auto& [name, value] : args) {
      if (value.empty()) value = m.text("report.unknown_value");
    }
    const std::string words = m.text(line.key, args);
    std::string mark = "  ";
    if (line.status == "ok") mark = paint("✔", fmt::fg(fmt::terminal_color::green)) + " ";
    if (line.status == "no") mark = paint("✖", fmt::fg(fmt::terminal_color::red)) + " ";
    if (line.status == "unknown") mark = paint("?", fmt::fg(fmt::terminal_color::yellow)) + " ";
    out += std::string(2 + 2 * static_cast<size_t>(line.indent), ' ') + mark + words + "\n";
  }
  return out;
}

std::string rows_text(const KbAnswer& answer, const kb::Messages& m, const Painter& paint) {
  std::string out;
  for (const auto& section : answer.sections) {
    out += "\n" + paint(m.text("kb.table." + section.table), fmt::emphasis::bold) + "\n";
    if (section.rows.empty()) {
      out += "  " + paint(m.text("kb.no_rows"), fmt::emphasis::faint) + "\n";
      continue;
    }
    for (const auto& row : section.rows) {
      std::vector<std::string> parts;
      for (const auto& column : shown_columns(section.table)) {
        const std::string& value = row.get(column);
        parts.push_back(label(column, m) + " " +
                        (value.empty() ? m.text("report.unknown_value") : value));
      }
      out += "  " + text::join(parts, " · ") + "\n";
      if (!row.get("notes").empty()) {
        out += "    " +
               paint(m.text("kb.note", {{"notes", row.get("notes")}}), fmt::emphasis::faint) + "\n";
      }
      out += "    " +
             paint(m.text("common.source", {{"source", row.get("source")}}), fmt::emphasis::faint) +
             "\n";
    }
  }
  return out;
}

}  // namespace

std::string render_kb_text(const KbAnswer& answer, const kb::Messages& m, bool color) {
  const Painter paint(color);
  std::string out = m.text("kb.header", {{"topic", answer.topic},
                                         {"argument", answer.argument},
                                         {"version", answer.kb_version}}) +
                    "\n\n";
  out += verdict_text(answer.verdict, m, paint);
  if (answer.show_sources) return out + rows_text(answer, m, paint);
  return out + "\n" + paint(m.text("kb.hint.sources"), fmt::emphasis::faint) + "\n";
}

}  // namespace gpuvet::report
