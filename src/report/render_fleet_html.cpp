// `fleet report --html`: one self-contained page. Its only script sorts the node table; every
// text in the page is escaped, and the policy allows no outside resource at all.
#include <fmt/format.h>

#include "core/text.hpp"
#include "report/fleet_columns.hpp"
#include "report/render_bench_html.hpp"
#include "report/render_fleet.hpp"

namespace gpuvet::report {

namespace {

constexpr const char* kHead = R"(<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<style>
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans CJK SC", "Microsoft YaHei", "DejaVu Sans", Arial, sans-serif;
       margin: 0 auto; padding: 24px 32px 48px; max-width: 1400px; color: #1d232b; background: #fff; line-height: 1.45; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.2em; margin: 28px 0 10px; border-bottom: 1px solid #d8dde3; padding-bottom: 4px; }
.muted { color: #66707c; }
table { border-collapse: collapse; font-size: 0.92em; width: 100%; }
th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid #e3e7eb; vertical-align: top; }
thead th { background: #f2f4f6; white-space: nowrap; }
th button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer; color: inherit; }
th[aria-sort="ascending"] button::after { content: " ▲"; }
th[aria-sort="descending"] button::after { content: " ▼"; }
code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.v-error td, .v-unreadable td { background: #fff4f2; }
.v-warning td { background: #fffbea; }
.verdict-error, .verdict-unreadable { color: #c62828; font-weight: 700; }
.verdict-warning { color: #9a6700; font-weight: 700; }
.verdict-ready { color: #2e7d32; font-weight: 700; }
.drift td.out { color: #9a3412; }
</style>
)";

constexpr const char* kSortScript = R"(<script>
(function () {
  var table = document.getElementById("nodes");
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  function key(row, i) {
    var cell = row.cells[i];
    return cell.getAttribute("data-sort") || cell.textContent;
  }
  function sortBy(i, descending) {
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var order = key(a, i).localeCompare(key(b, i), undefined, {numeric: true});
      if (order === 0) order = key(a, 0).localeCompare(key(b, 0), undefined, {numeric: true});
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    for (var k = 0; k < heads.length; k++)
      heads[k].setAttribute("aria-sort", k === i ? (descending ? "descending" : "ascending") : "none");
  }
  Array.prototype.forEach.call(heads, function (head, i) {
    head.querySelector("button").addEventListener("click", function () {
      sortBy(i, head.getAttribute("aria-sort") === "ascending");
    });
  });
  var wanted = /^#sort=([a-z_]+)(-desc)?$/.exec(window.location.hash);
  if (wanted) {
    Array.prototype.forEach.call(heads, function (head, i) {
      if (head.getAttribute("data-column") === wanted[1]) sortBy(i, !!wanted[2]);
    });
  }
})();
</script>
)";

// The column names #sort= takes, in column order (column_keys() without the prefix).
std::string column_id(const std::string& key) {
  return key.substr(key.rfind('.') + 1);
}

// Worst first when sorted ascending by verdict.
std::string verdict_rank(fleet::Verdict verdict) {
  switch (verdict) {
    case fleet::Verdict::unreadable:
      return "0";
    case fleet::Verdict::error:
      return "1";
    case fleet::Verdict::warning:
      return "2";
    case fleet::Verdict::ready:
      return "3";
  }
  return "0";
}

std::string drift_section(const fleet::Report& report, const kb::Messages& messages) {
  std::string out =
      "<section id=\"drift\">\n<h2>" + html_escape(messages.text("fleet.text.drift")) + "</h2>\n";
  if (report.drift.empty())
    return out + "<p>" + html_escape(messages.text("fleet.text.no_drift")) + "</p>\n</section>\n";
  const size_t readable = report.nodes.size() - static_cast<size_t>(report.unreadable);
  out += "<table class=\"drift\">\n<thead><tr><th>" +
         html_escape(messages.text("fleet.column.fact")) + "</th><th>" +
         html_escape(messages.text("fleet.column.majority")) + "</th><th>" +
         html_escape(messages.text("fleet.column.outliers")) + "</th></tr></thead>\n<tbody>\n";
  for (const fleet::Drift& drift : report.drift) {
    std::string majority = fmt::format("{} ({}/{})", display_value(drift.majority, messages),
                                       drift.majority_count, readable);
    if (drift.tie) majority += " " + messages.text("fleet.text.tie");
    std::vector<std::string> outliers;
    for (const fleet::Outlier& outlier : drift.outliers)
      outliers.push_back("<b>" + html_escape(outlier.host) + "</b> " +
                         html_escape(display_value(outlier.value, messages)));
    out += "<tr><td><code>" + html_escape(drift.fact) + "</code></td><td>" + html_escape(majority) +
           "</td><td class=\"out\">" + text::join(outliers, "<br>") + "</td></tr>\n";
  }
  return out + "</tbody>\n</table>\n</section>\n";
}

std::string nodes_section(const fleet::Report& report, const kb::Messages& messages) {
  std::string out = "<section>\n<h2>" + html_escape(messages.text("fleet.text.nodes")) +
                    "</h2>\n<table id=\"nodes\">\n<thead><tr>";
  for (const std::string& key : column_keys()) {
    out += "<th data-column=\"" + column_id(key) +
           "\" aria-sort=\"none\"><button type=\"button\">" + html_escape(messages.text(key)) +
           "</button></th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const fleet::Node& node : report.nodes) {
    const std::string verdict(fleet::to_string(node.verdict));
    const std::vector<std::string> cells = node_cells(node, messages);
    out += "<tr class=\"v-" + verdict + "\">";
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i == 1) {
        out += "<td class=\"verdict-" + verdict + "\" data-sort=\"" + verdict_rank(node.verdict) +
               "\">" + html_escape(cells[i]) + "</td>";
      } else {
        out += "<td>" + html_escape(cells[i]) + "</td>";
      }
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n</section>\n";
}

std::string groups_section(const fleet::Report& report, const kb::Messages& messages) {
  std::string out =
      "<section>\n<h2>" + html_escape(messages.text("fleet.text.groups")) + "</h2>\n<ul>\n";
  for (const fleet::Group& group : report.groups) {
    out += "<li>" + html_escape(group_line(group, messages)) + "</li>\n";
  }
  return out + "</ul>\n</section>\n";
}

}  // namespace

std::string render_fleet_html(const fleet::Report& report, const kb::Messages& messages) {
  const std::string lang = messages.lang() == kb::Lang::zh ? "zh-CN" : "en";
  const std::string title = messages.text("fleet.md.title");
  std::string out = "<!DOCTYPE html>\n<html lang=\"" + lang + "\">\n<head>\n";
  out += kHead;
  out += "<title>" + html_escape(title) + "</title>\n</head>\n<body>\n<header>\n<h1>" +
         html_escape(title) + "</h1>\n<p>" + html_escape(summary_line(report, messages)) + "</p>\n";
  if (report.collected_at && !report.collected_at->empty()) {
    out += "<p class=\"muted\">" +
           html_escape(messages.text("fleet.text.collected_at", {{"when", *report.collected_at}})) +
           "</p>\n";
  }
  out += "</header>\n<main>\n";
  out += drift_section(report, messages);
  out += nodes_section(report, messages);
  out += groups_section(report, messages);
  out += "</main>\n";
  out += kSortScript;
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace gpuvet::report
