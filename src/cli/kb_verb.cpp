// `gpuvet kb gpu NAME | cuda VERSION | cudnn VERSION | framework NAME[==VERSION]`.
#include "cli/kb_verb.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli/common.hpp"
#include "cli/kb_verdicts.hpp"
#include "cli/verb.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "kb/arch_support.hpp"
#include "kb/gpu_names.hpp"
#include "kb/queries.hpp"
#include "report/render_kb.hpp"

namespace gpuvet::cli {

namespace {

using report::KbAnswer;

Result<bool> add(KbAnswer& answer, const std::string& table, Result<std::vector<kb::Row>> rows) {
  if (!rows) return rows.error();
  answer.sections.push_back({table, std::move(*rows)});
  return true;
}

Result<bool> answer_gpu(const kb::Kb& kb, const std::string& name, KbAnswer& answer) {
  auto match = kb::find_gpu(kb, name);
  if (!match) return match.error();
  answer.closest = match->closest;
  if (match->rows.empty()) return false;
  for (const auto& row : match->rows) {
    // One name per product: the driver's "NVIDIA A40" and lspci's "A40" are one GPU.
    const std::string key = kb::gpu_key(row.get("name"));
    if (std::none_of(answer.matched.begin(), answer.matched.end(),
                     [&](const std::string& name) { return kb::gpu_key(name) == key; }))
      answer.matched.push_back(row.get("name"));
  }
  answer.candidates = match->candidates;
  answer.compute_capability = match->compute_capability;
  answer.matched_by = match->matched_by;
  const std::string& cc = match->compute_capability;
  answer.sections.push_back({"gpus", match->rows});
  // The toolkits that can build for it, and the framework builds that run on it.
  auto range = kb::cuda_range_for_cc(kb, cc);
  if (!range) return range.error();
  answer.sections.push_back({"cuda_arch_support", range->rows});
  if (auto r = add(answer, "framework_min_cc",
                   kb::rows_if(kb, "framework_min_cc",
                               [&](const kb::Row& row) {
                                 const std::string& minimum = row.get("min_cc");
                                 return version::is_dotted(minimum) && version::is_dotted(cc) &&
                                        version::compare(cc, minimum) >= 0;
                               }));
      !r) {
    return r;
  }
  if (auto r = add_gpu_verdict(kb, answer); !r) return r;
  return true;
}

Result<bool> answer_cuda(const kb::Kb& kb, const std::string& v, KbAnswer& answer) {
  // Releases whose full version is not sourced are found by their label ("11.4 Update 1").
  if (auto r = add(answer, "cuda_releases",
                   kb::rows_if(kb, "cuda_releases",
                               [&](const kb::Row& row) {
                                 const std::string& version = row.get("version");
                                 const std::string label =
                                     text::split(row.get("label"), ' ').front();
                                 return kb::version_has_prefix(version, v) ||
                                        (version.empty() && kb::version_has_prefix(label, v));
                               }));
      !r) {
    return r;
  }
  const bool known = !answer.sections.back().rows.empty();
  const std::string major = text::split(v, '.').front();
  if (auto r = add(answer, "cuda_minor_compat",
                   kb::rows_where(kb, "cuda_minor_compat", "cuda_major", major));
      !r) {
    return r;
  }
  if (auto r = add(answer, "cuda_arch_support",
                   kb::rows_for_range(kb, "cuda_arch_support", "cuda_from", "cuda_to", v));
      !r) {
    return r;
  }
  if (auto r = add(answer, "library_names", kb::rows_for_version(kb, "library_names", "cuda", v));
      !r) {
    return r;
  }
  add_cuda_verdict(answer);
  return known;
}

Result<bool> answer_cudnn(const kb::Kb& kb, const std::string& v, KbAnswer& answer) {
  if (auto r = add(answer, "cudnn_releases",
                   kb::rows_for_range(kb, "cudnn_releases", "cudnn_from", "cudnn_to", v));
      !r) {
    return r;
  }
  add_cudnn_verdict(answer);
  return !answer.sections.back().rows.empty();
}

// The framework's build table: the rows of the release asked for, or all.
Result<std::vector<kb::Row>> build_rows(const kb::Kb& kb, const frameworks::Framework& framework,
                                        const std::string& v) {
  const std::string table(framework.kb_table);
  if (!framework.kb_version_column.empty()) {
    return kb::rows_for_version(kb, table, std::string(framework.kb_version_column), v);
  }
  return kb::rows_if(kb, table, [&](const kb::Row& row) {
    return v.empty() || kb::version_in_range(v, row.get("version_from"), row.get("version_to"));
  });
}

Result<bool> answer_framework(const kb::Kb& kb, const std::string& spec_text, KbAnswer& answer) {
  auto spec = frameworks::parse_spec(spec_text, kb);
  if (!spec) return spec.error();
  const std::string family(spec->framework->family);
  const std::string v = spec->version.value_or("");
  bool known = true;
  if (!spec->framework->kb_table.empty()) {
    if (auto r = add(answer, std::string(spec->framework->kb_table),
                     build_rows(kb, *spec->framework, v));
        !r) {
      return r;
    }
    known = !answer.sections.back().rows.empty();
  }
  // Minimum compute capability of the family's builds (jax-cuda12, jax-cuda13 for JAX).
  if (auto r =
          add(answer, "framework_min_cc",
              kb::rows_if(kb, "framework_min_cc",
                          [&](const kb::Row& row) {
                            const std::string& row_family = row.get("family");
                            return (family == row_family || row_family.starts_with(family + "-")) &&
                                   (v.empty() || kb::version_in_range(v, row.get("version_from"),
                                                                      row.get("version_to")));
                          }));
      !r) {
    return r;
  }
  if (auto r =
          add(answer, "python_packages", kb::rows_where(kb, "python_packages", "family", family));
      !r) {
    return r;
  }
  if (auto r = add_framework_verdict(kb, *spec, answer); !r) return r;
  return known;
}

}  // namespace

int run_kb(const KbArgs& args, const kb::Kb& kb, const kb::Messages& messages, bool color) {
  KbAnswer answer;
  answer.kb_version = kb.version();
  answer.topic = args.topic;
  answer.argument = args.argument;
  answer.show_sources = args.sources;
  if ((args.topic == "cuda" || args.topic == "cudnn") && !version::is_dotted(args.argument)) {
    std::fprintf(stderr, "gpuvet: %s\n",
                 messages.text("kb.error.version", {{"argument", args.argument}}).c_str());
    return 2;
  }
  Result<bool> found = false;
  if (args.topic == "gpu") found = answer_gpu(kb, args.argument, answer);
  if (args.topic == "cuda") found = answer_cuda(kb, args.argument, answer);
  if (args.topic == "cudnn") found = answer_cudnn(kb, args.argument, answer);
  if (args.topic == "framework") found = answer_framework(kb, args.argument, answer);
  if (!found) {
    return fail(found.error());
  }
  if (!*found) {
    const std::string closest =
        answer.closest.empty()
            ? std::string()
            : messages.text("kb.error.closest", {{"names", text::join(answer.closest, "; ")}});
    std::fprintf(stderr, "gpuvet: %s%s\n",
                 messages
                     .text("kb.error.unknown." + args.topic,
                           {{"argument", args.argument}, {"version", kb.version()}})
                     .c_str(),
                 closest.c_str());
    return 2;
  }
  const std::string out =
      args.json ? report::render_kb_json(answer) : report::render_kb_text(answer, messages, color);
  print(out);
  return 0;
}

namespace {

struct KbOptions {
  KbArgs args;
  CommonOptions common;
};

int run_kb_verb(const KbOptions& options) {
  auto context = open_context(options.common);
  if (!context) return fail(context.error());
  return run_kb(options.args, context->kb, context->messages, context->color);
}

}  // namespace

VerbRun declare_kb(CLI::App& command) {
  auto options = std::make_shared<KbOptions>();
  command.require_subcommand(1);
  // A topic and what its argument is.
  const std::vector<std::pair<std::string, std::string>> topics = {
      {"gpu", "NAME"},
      {"cuda", "VERSION"},
      {"cudnn", "VERSION"},
      {"framework", "FRAMEWORK[==VERSION]"}};
  for (const auto& [topic, metavar] : topics) {
    CLI::App* sub = command.add_subcommand(topic);
    sub->add_option("ARGUMENT", options->args.argument)->required()->type_name(metavar);
    sub->fallthrough();
    sub->callback([options, name = topic] { options->args.topic = name; });
  }
  command.add_flag("--json", options->args.json);
  command.add_flag("--sources", options->args.sources);
  add_common_options(command, options->common);
  command.fallthrough();
  return [options] { return run_kb_verb(*options); };
}

}  // namespace gpuvet::cli
