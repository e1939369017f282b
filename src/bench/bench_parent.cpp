#include "bench/bench_parent.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "bench/bench_json.hpp"
#include "bench/measure.hpp"
#include "core/text.hpp"
#include "kb/messages.hpp"
#include "kb/queries.hpp"

namespace gpuvet::bench {

namespace {

using json = nlohmann::json;

template <class T>
std::optional<T> optional_field(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<T>();
}

Result result_from(const json& j) {
  Result r;
  r.name = j.at("name").get<std::string>();
  r.unit = j.value("unit", "");
  r.ok = j.value("ok", false);
  r.detail = j.value("detail", "");
  r.detail_words = words_from_json(j.value("detail_words", json()), r.detail);
  r.value = optional_field<double>(j, "value");
  if (j.contains("series") && j["series"].is_array()) {
    for (const auto& p : j["series"]) {
      if (p.is_array() && p.size() == 2)
        r.series.push_back({p[0].get<double>(), p[1].get<double>()});
    }
  }
  return r;
}

Error how_it_ended(const platform::ChildOutcome& outcome) {
  switch (outcome.kind) {
    case platform::ChildOutcome::Kind::signalled:
      return kb::catalog_error("bench.child.crashed", {{"reason", outcome.detail}});
    case platform::ChildOutcome::Kind::timed_out:
      return kb::catalog_error("bench.child.timed_out");
    case platform::ChildOutcome::Kind::failed_to_start:
      return kb::catalog_error("bench.child.did_not_start", {{"reason", outcome.detail}});
    case platform::ChildOutcome::Kind::exited:
      return kb::catalog_error("bench.child.exited",
                               {{"status", std::to_string(outcome.exit_code)}});
  }
  return kb::catalog_error("bench.child.ended");
}

std::string unit_of(const std::string& name) {
  if (name == "kernel_launch") return "ms";
  if (name.starts_with("gemm_") || name == "cudnn_conv_fwd") return "TFLOP/s";
  if (name == "cpu_vs_gpu_gemm_speedup") return "x";
  return "GB/s";
}

// Words of a GPU name, without the board's form factor, which gpu_peaks names may carry.
bool is_form_factor(const std::string& word) {
  return word == "sxm" || word.starts_with("sxm") || word == "pcie" || word == "nvl";
}

std::optional<kb::Row> peaks_row(const kb::Kb& kb, const std::string& device_name) {
  auto rows = kb::rows_if(kb, "gpu_peaks", [](const kb::Row&) { return true; });
  if (!rows || device_name.empty()) return std::nullopt;
  const auto device_words = text::split(kb::gpu_key(device_name), ' ');
  const auto has = [&](const std::string& w) {
    return std::find(device_words.begin(), device_words.end(), w) != device_words.end();
  };
  const bool device_form = std::any_of(device_words.begin(), device_words.end(), is_form_factor);
  std::optional<kb::Row> best;
  int best_score = -1;
  for (const auto& row : *rows) {
    int score = 0;
    bool fits = true;
    bool row_form = false;
    for (const auto& w : text::split(kb::gpu_key(row.get("name")), ' ')) {
      if (is_form_factor(w)) {
        row_form = true;
        if (has(w) || (w.starts_with("sxm") &&
                       std::any_of(device_words.begin(), device_words.end(),
                                   [](const std::string& d) { return d.starts_with("sxm"); }))) {
          score += 10;
        } else if (device_form || w != "sxm") {
          fits = false;  // a PCIe board is not the SXM row, nor the other way round
        }
        continue;
      }
      if (!has(w)) fits = false;
      score += 1;
    }
    if (!row_form) score += 5;
    if (fits && score > best_score) {
      best = row;
      best_score = score;
    }
  }
  return best;
}

std::optional<double> number(const kb::Row& row, const char* column) {
  const std::string cell = row.get(column);
  if (cell.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  return end && *end == '\0' && value > 0 ? std::optional<double>(value) : std::nullopt;
}

std::optional<double> pcie_peak(const kb::Kb& kb, const DeviceInfo& d) {
  if (!d.pcie_generation || !d.pcie_width) return std::nullopt;
  auto rows = kb::rows_where(kb, "pcie_links", "generation", std::to_string(*d.pcie_generation));
  if (!rows || rows->empty()) return std::nullopt;
  const auto lane = number(rows->front(), "lane_gbs");
  if (!lane) return std::nullopt;
  return *lane * *d.pcie_width;
}

}  // namespace

std::vector<std::string> contract_names(Mode mode) {
  if (mode == Mode::verify)
    return {"kernel_launch", "h2d_pinned", "d2h_pinned", "d2d_copy", "gemm_fp32"};
  return {"kernel_launch", "h2d_pinned", "d2h_pinned",     "h2d_pageable",
          "d2h_pageable",  "d2d_copy",   "gemm_fp32",      "gemm_tf32",
          "gemm_fp16",     "gemm_bf16",  "cudnn_conv_fwd", "cpu_vs_gpu_gemm_speedup"};
}

Report parse_child_output(const platform::ChildOutcome& outcome, Mode mode) {
  Report report;
  std::string last_stage;
  for (const auto& raw : text::split(outcome.output, '\n')) {
    const std::string_view line = raw;
    const auto payload = [&](std::string_view tag) -> std::optional<json> {
      if (!line.starts_with(tag)) return std::nullopt;
      const json parsed = json::parse(line.substr(tag.size()), nullptr, false);
      return parsed.is_object() ? std::optional<json>(parsed) : std::nullopt;
    };
    if (line.starts_with("@stage ")) {
      last_stage = std::string(line.substr(7));
    } else if (auto d = payload("@device ")) {
      report.device = device_from_json(*d);
    } else if (auto r = payload("@result ")) {
      if (r->contains("name") && (*r)["name"].is_string())
        report.results.push_back(result_from(*r));
    } else if (auto f = payload("@failure ")) {
      report.failure_id = f->value("id", "other");
      report.failure = f->value("why", "");
      report.failure_words = words_from_json(f->value("words", json()), *report.failure);
    }
  }
  const bool finished = last_stage == "done" || report.failure.has_value();
  if (!finished) {
    report.failure_id = "device.busy_or_init_failed";
    report.failure_words = last_stage.empty()
                               ? kb::within(how_it_ended(outcome), "bench.child.ended_at_start")
                               : kb::within(how_it_ended(outcome), "bench.child.ended_during",
                                            {{"stage", last_stage}});
    report.failure = report.failure_words.message;
  }
  for (const auto& name : contract_names(mode)) {
    const bool present = std::any_of(report.results.begin(), report.results.end(),
                                     [&](const Result& r) { return r.name == name; });
    if (present) continue;
    Result missing;
    missing.name = name;
    missing.unit = unit_of(name);
    missing.ran = false;
    missing.detail_words =
        report.failure ? kb::within(report.failure_words, "bench.detail.did_not_run_because")
                       : kb::catalog_error("bench.did_not_run");
    missing.detail = missing.detail_words.message;
    report.results.push_back(std::move(missing));
  }
  return report;
}

void attach_peaks(Report& report, const kb::Kb& kb) {
  if (!report.device) return;
  const DeviceInfo& d = *report.device;
  const auto row = peaks_row(kb, d.name);
  std::optional<double> memory = row ? number(*row, "memory_bandwidth_gbs") : std::nullopt;
  // Where each peak comes from, said after the result's own detail.
  using PeakSource = std::pair<std::string, kb::MessageArgs>;
  PeakSource memory_source;
  if (row) memory_source = {"bench.detail.peak_from_table", {{"gpu", row->get("name")}}};
  if (!memory && d.memory_clock_mhz && d.memory_bus_width && *d.memory_clock_mhz > 0) {
    memory = memory_bandwidth_from_clocks(*d.memory_clock_mhz, *d.memory_bus_width);
    memory_source = {"bench.detail.peak_from_clocks", {}};
  }
  const auto link = pcie_peak(kb, d);
  for (auto& r : report.results) {
    std::optional<double> peak;
    PeakSource from;
    if (r.name == "d2d_copy" || r.name == "stream_triad") {
      peak = memory;
      from = memory_source;
    } else if (r.name.starts_with("h2d_") || r.name.starts_with("d2h_")) {
      peak = link;
      from = {"bench.detail.peak_from_link",
              {{"generation", std::to_string(d.pcie_generation.value_or(0))},
               {"width", std::to_string(d.pcie_width.value_or(0))}}};
    } else if (row && (r.name == "gemm_fp32" || r.name == "cudnn_conv_fwd")) {
      peak = number(*row, "fp32_tflops");
    } else if (row && r.name == "gemm_tf32") {
      peak = number(*row, "tf32_tflops");
    } else if (row && r.name == "gemm_fp16") {
      peak = number(*row, "fp16_tflops");
    } else if (row && r.name == "gemm_bf16") {
      peak = number(*row, "bf16_tflops");
    }
    if (!peak) continue;
    r.peak = peak;
    r.fraction_of_peak = fraction_of(r.value, peak);
    if (!from.first.empty()) {
      r.detail_words = kb::within(r.detail_words, from.first, from.second);
      r.detail = r.detail_words.message;
    }
  }
}

void put_in_words(Report& report, const kb::Messages& messages) {
  if (report.failure && !report.failure_words.key.empty())
    report.failure = kb::render_error(report.failure_words, messages);
  for (Result& r : report.results) {
    if (!r.detail_words.key.empty()) r.detail = kb::render_error(r.detail_words, messages);
  }
}

bool verify_passed(const Report& report) {
  if (report.failure) return false;
  for (const char* name : {"kernel_launch", "h2d_pinned", "d2h_pinned", "d2d_copy"}) {
    const auto it = std::find_if(report.results.begin(), report.results.end(),
                                 [&](const Result& r) { return r.name == name; });
    if (it == report.results.end() || !it->ok) return false;
  }
  return true;
}

Report run(const RunOptions& options) {
  std::vector<std::string> arguments = {kBenchVerb, "--mode",
                                        options.mode == Mode::verify  ? "verify"
                                        : options.mode == Mode::quick ? "quick"
                                                                      : "full"};
  if (options.progress) arguments.push_back("--progress");
  for (const auto& path : options.cublas) {
    arguments.push_back("--cublas");
    arguments.push_back(path);
  }
  for (const auto& path : options.cudnn) {
    arguments.push_back("--cudnn");
    arguments.push_back(path);
  }
  const auto outcome = platform::run_child(options.helper, arguments, options.timeout);
  return parse_child_output(outcome, options.mode);
}

}  // namespace gpuvet::bench
