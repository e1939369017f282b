#include "report/render_fleet.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/hostlist.hpp"
#include "core/text.hpp"
#include "report/fleet_columns.hpp"
#include "report/paint.hpp"

namespace gpuvet::report {

namespace {

using json = nlohmann::ordered_json;

json optional_json(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

json facts_json(const fleet::NodeFacts& facts) {
  json out = json::object();
  for (const auto& [name, value] : facts)
    out[name] = value;
  return out;
}

json node_json(const fleet::Node& node) {
  json out = {{"host", node.host},
              {"source", node.source},
              {"verdict", std::string(fleet::to_string(node.verdict))},
              {"first_error", optional_json(node.first_error)}};
  if (node.verdict == fleet::Verdict::unreadable) {
    out["reason"] = optional_json(node.first_error);
  } else {
    out["first_error_title"] = optional_json(node.first_error_title);
  }
  out["collected"] = node.collected;
  out["errors"] = node.errors;
  out["warnings"] = node.warnings;
  out["gpus"] = node.gpus;
  out["driver"] = optional_json(node.driver);
  out["cuda_toolkits"] = node.toolkits;
  out["cudnn"] = node.cudnn;
  out["frameworks"] = node.frameworks;
  out["facts"] = facts_json(node.facts);
  return out;
}

// The nodes that differ, grouped by their value in the order values first appear, each group's
// hosts as a Slurm host list: "gpu[12,15] (none), gpu07 (470.82.01)" stays short on 1,000 nodes.
std::string outliers_text(const fleet::Drift& drift, const kb::Messages& messages) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_value;
  for (const fleet::Outlier& outlier : drift.outliers) {
    auto it = std::find_if(by_value.begin(), by_value.end(),
                           [&](const auto& entry) { return entry.first == outlier.value; });
    if (it == by_value.end()) {
      by_value.emplace_back(outlier.value, std::vector<std::string>{});
      it = by_value.end() - 1;
    }
    it->second.push_back(outlier.host);
  }
  std::vector<std::string> parts;
  for (const auto& [value, hosts] : by_value) {
    parts.push_back(messages.text(
        "fleet.text.outlier",
        {{"host", hostlist::compress(hosts)}, {"value", display_value(value, messages)}}));
  }
  return text::join(parts, messages.text("fleet.text.list_separator"));
}

std::string drift_line(const fleet::Drift& drift, size_t readable, const kb::Messages& messages) {
  std::string line =
      messages.text("fleet.text.drift_row", {{"fact", drift.fact},
                                             {"majority", display_value(drift.majority, messages)},
                                             {"count", std::to_string(drift.majority_count)},
                                             {"nodes", std::to_string(readable)},
                                             {"outliers", outliers_text(drift, messages)}});
  if (drift.tie) line += " " + messages.text("fleet.text.tie");
  return line;
}

size_t readable_count(const fleet::Report& report) {
  return report.nodes.size() - static_cast<size_t>(report.unreadable);
}

std::string attention_line(const fleet::Node& node, const kb::Messages& messages) {
  const std::string verdict = messages.text(verdict_key(node.verdict));
  if (node.first_error && node.first_error_title) {
    return messages.text("fleet.text.attention_finding", {{"host", node.host},
                                                          {"verdict", verdict},
                                                          {"title", *node.first_error_title},
                                                          {"id", *node.first_error}});
  }
  return messages.text(
      "fleet.text.attention_reason",
      {{"host", node.host}, {"verdict", verdict}, {"reason", node.first_error.value_or("")}});
}

// A text table: columns as wide as their widest cell (in terminal columns), two spaces apart.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], text::display_width(row[i]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = "  ";
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - text::display_width(row[i]) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string md_cell(std::string_view text) {
  std::string out = text::replace_all(text, "|", "\\|");
  return text::replace_all(out, "\n", " ");
}

}  // namespace

std::string summary_line(const fleet::Report& report, const kb::Messages& messages) {
  return messages.text("fleet.text.summary", {{"nodes", std::to_string(report.nodes.size())},
                                              {"ready", std::to_string(report.ready)},
                                              {"warning", std::to_string(report.warning)},
                                              {"error", std::to_string(report.error)},
                                              {"unreadable", std::to_string(report.unreadable)}});
}

std::string group_line(const fleet::Group& group, const kb::Messages& messages) {
  return messages.text("fleet.text.group_row", {{"count", std::to_string(group.hosts.size())},
                                                {"key", group.key},
                                                {"hosts", hostlist::compress(group.hosts)}});
}

std::string display_value(const std::string& value, const kb::Messages& messages) {
  if (value.empty()) return messages.text("fleet.value.empty");
  for (const char* sentinel :
       {"none", "unknown", "absent", "unset", "enabled", "disabled", "mixed"}) {
    if (value == sentinel) return messages.text(std::string("fleet.value.") + sentinel);
  }
  return value;
}

std::string verdict_key(fleet::Verdict verdict) {
  return "fleet.verdict." + std::string(fleet::to_string(verdict));
}

std::vector<std::string> column_keys() {
  return {"fleet.column.host",       "fleet.column.verdict",    "fleet.column.gpus",
          "fleet.column.driver",     "fleet.column.cuda",       "fleet.column.cudnn",
          "fleet.column.frameworks", "fleet.column.first_error"};
}

std::vector<std::string> node_cells(const fleet::Node& node, const kb::Messages& messages) {
  const std::string none = messages.text("fleet.text.none");
  const auto list = [&](const std::vector<std::string>& values) {
    return values.empty() ? none : text::join(values, ", ");
  };
  std::string gpus = none;
  if (!node.gpus.empty()) {
    // "8 × NVIDIA H100 80GB HBM3" when they are all alike.
    const bool alike = std::all_of(node.gpus.begin(), node.gpus.end(), [&](const std::string& gpu) {
      return gpu == node.gpus.front();
    });
    gpus = alike ? fmt::format("{} × {}", node.gpus.size(), node.gpus.front()) : list(node.gpus);
  }
  if (node.verdict == fleet::Verdict::unreadable) {
    return {node.host, messages.text(verdict_key(node.verdict)),
            "",        "",
            "",        "",
            "",        node.first_error.value_or("")};
  }
  return {node.host,
          messages.text(verdict_key(node.verdict)),
          gpus,
          node.driver.value_or(none),
          list(node.toolkits),
          list(node.cudnn),
          list(node.frameworks),
          node.first_error.value_or("")};
}

std::string render_fleet_json(const fleet::Report& report) {
  json nodes = json::array();
  for (const fleet::Node& node : report.nodes)
    nodes.push_back(node_json(node));
  json drift = json::array();
  for (const fleet::Drift& row : report.drift) {
    json outliers = json::array();
    for (const fleet::Outlier& outlier : row.outliers)
      outliers.push_back({{"host", outlier.host}, {"value", outlier.value}});
    drift.push_back({{"fact", row.fact},
                     {"majority", row.majority},
                     {"majority_count", row.majority_count},
                     {"tie", row.tie},
                     {"outliers", std::move(outliers)}});
  }
  json groups = json::array();
  for (const fleet::Group& group : report.groups)
    groups.push_back(
        {{"hosts", group.hosts}, {"key", group.key}, {"facts", facts_json(group.facts)}});
  json out = {{"schema", "gpuvet.fleet/1"},
              {"summary",
               {{"nodes", report.nodes.size()},
                {"ready", report.ready},
                {"warning", report.warning},
                {"error", report.error},
                {"unreadable", report.unreadable}}},
              {"collected_at", optional_json(report.collected_at)},
              {"nodes", std::move(nodes)},
              {"drift", std::move(drift)},
              {"groups", std::move(groups)}};
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string render_fleet_text(const fleet::Report& report, const kb::Messages& messages,
                              bool color) {
  const Painter paint(color);
  std::string out = paint(summary_line(report, messages), fmt::emphasis::bold) + "\n";
  if (report.collected_at && !report.collected_at->empty())
    out += messages.text("fleet.text.collected_at", {{"when", *report.collected_at}}) + "\n";

  std::vector<const fleet::Node*> attention;
  for (const fleet::Node& node : report.nodes) {
    if (node.verdict == fleet::Verdict::error || node.verdict == fleet::Verdict::unreadable)
      attention.push_back(&node);
  }
  if (!attention.empty()) {
    out += "\n" + paint(messages.text("fleet.text.attention"), fmt::emphasis::bold) + "\n";
    for (const fleet::Node* node : attention) {
      out += "  " + paint("✖", fg(fmt::terminal_color::red)) + " " +
             attention_line(*node, messages) + "\n";
    }
  }

  out += "\n" + paint(messages.text("fleet.text.drift"), fmt::emphasis::bold) + "\n";
  if (report.drift.empty()) out += "  " + messages.text("fleet.text.no_drift") + "\n";
  for (const fleet::Drift& drift : report.drift)
    out += "  " + paint("≠", fg(fmt::terminal_color::yellow)) + " " +
           drift_line(drift, readable_count(report), messages) + "\n";

  out += "\n" + paint(messages.text("fleet.text.nodes"), fmt::emphasis::bold) + "\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header;
  for (const std::string& key : column_keys())
    header.push_back(messages.text(key));
  rows.push_back(std::move(header));
  for (const fleet::Node& node : report.nodes)
    rows.push_back(node_cells(node, messages));
  out += table(rows);

  out += "\n" + paint(messages.text("fleet.text.groups"), fmt::emphasis::bold) + "\n";
  for (const fleet::Group& group : report.groups) {
    out += "  " + group_line(group, messages) + "\n";
  }
  return out;
}

std::string render_fleet_md(const fleet::Report& report, const kb::Messages& messages) {
  std::string out =
      "# " + messages.text("fleet.md.title") + "\n\n" + summary_line(report, messages) + "\n";
  if (report.collected_at && !report.collected_at->empty())
    out += "\n" + messages.text("fleet.text.collected_at", {{"when", *report.collected_at}}) + "\n";
  out += "\n## " + messages.text("fleet.text.drift") + "\n\n";
  if (report.drift.empty()) {
    out += messages.text("fleet.text.no_drift") + "\n";
  } else {
    out +=
        fmt::format("| {} | {} | {} |\n| --- | --- | --- |\n", messages.text("fleet.column.fact"),
                    messages.text("fleet.column.majority"), messages.text("fleet.column.outliers"));
    for (const fleet::Drift& drift : report.drift) {
      std::string majority = fmt::format("{} ({}/{})", display_value(drift.majority, messages),
                                         drift.majority_count, readable_count(report));
      if (drift.tie) majority += " " + messages.text("fleet.text.tie");
      out += fmt::format("| `{}` | {} | {} |\n", md_cell(drift.fact), md_cell(majority),
                         md_cell(outliers_text(drift, messages)));
    }
  }
  out += "\n## " + messages.text("fleet.text.nodes") + "\n\n|";
  for (const std::string& key : column_keys())
    out += " " + messages.text(key) + " |";
  out += "\n|";
  for (size_t i = 0; i < column_keys().size(); ++i)
    out += " --- |";
  out += "\n";
  for (const fleet::Node& node : report.nodes) {
    out += "|";
    for (const std::string& cell : node_cells(node, messages))
      out += " " + md_cell(cell) + " |";
    out += "\n";
  }
  out += "\n## " + messages.text("fleet.text.groups") + "\n\n";
  for (const fleet::Group& group : report.groups) {
    out += "- " + md_cell(group_line(group, messages)) + "\n";
  }
  return out;
}

}  // namespace gpuvet::report
