#include "fleet/collect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "core/gzip.hpp"
#include "core/hostlist.hpp"
#include "core/new_file.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "fleet/fleet.hpp"
#include "fleet/shared_filesystem.hpp"
#include "fleet/wire.hpp"
#include "gpu/library_names.hpp"
#include "platform/child_process.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::fleet {

namespace fs = std::filesystem;

namespace {

// The scheduler's output is kept whole while it is read: a snapshot is some 100 KiB as text.
constexpr size_t kMaxSchedulerOutput = size_t{2} << 30;
// The scheduler's own messages the record keeps (its last lines).
constexpr size_t kKeptMessages = 40;

std::optional<std::string> find_program(const std::string& name) {
  for (const auto& dir : text::split(gpu::executable_search_path(), gpu::path_list_separator())) {
    if (dir.empty()) continue;
    const std::string candidate = paths::join(dir, name);
    std::error_code error;
    if (fs::is_regular_file(paths::to_fs(candidate), error)) return candidate;
  }
  return std::nullopt;
}

bool gives_option(const std::vector<std::string>& args, std::string_view long_name,
                  std::string_view short_name) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& arg) {
    return arg == long_name || arg.starts_with(std::string(long_name) + "=") ||
           (!short_name.empty() && arg.starts_with(short_name));
  });
}

// A name no other collection uses at the same time: for the staged copy and for the job, so that
// cancelling this collection's job cannot touch another's.
std::string unique_suffix() {
  std::random_device random;
  return fmt::format("{:08x}", random());
}

std::vector<std::string> srun_arguments(const CollectOptions& options, bool staged,
                                        const std::string& job_name,
                                        std::chrono::seconds deadline) {
  std::vector<std::string> args = {"--ntasks-per-node=1", "--kill-on-bad-exit=0",
                                   "--job-name=" + job_name};
  // A job still queued when gpuvet gives up would stay queued: srun gives up first.
  if (!gives_option(options.srun_args, "--immediate", "-I")) {
    const auto queue = std::max<long long>(1, (deadline - options.node_timeout).count() - 30);
    args.push_back(fmt::format("--immediate={}", queue));
  }
  // Slurm ends a node's task that outlives gpuvet's own timeout (minutes, rounded up).
  if (!gives_option(options.srun_args, "--time", "-t")) {
    const auto minutes = (options.node_timeout.count() + 60 + 59) / 60;
    args.push_back(fmt::format("--time={}", minutes));
  }
  if (staged) args.push_back("--bcast=/tmp/" + job_name);
  args.insert(args.end(), options.srun_args.begin(), options.srun_args.end());
  args.push_back(options.self);
  args.insert(args.end(),
              {"fleet", "node", "--timeout", std::to_string(options.node_timeout.count())});
  if (staged) args.push_back("--remove-self");
  return args;
}

// A file name for the node's snapshot: its host name, else the scheduler's name for it; a second
// node of the same name gets the scheduler's name added.
std::string file_name_for(const std::optional<std::string>& host, const std::string& node,
                          std::set<std::string>& taken) {
  std::string name = file_safe_host(host.value_or(node));
  if (!taken.insert(name).second) {
    name = file_safe_host(name + "-" + node);
    taken.insert(name);
  }
  return name + ".json.gz";
}

CollectedNode store(const WireNode& answer, const std::string& out_dir,
                    std::set<std::string>& taken) {
  CollectedNode node{answer.node, answer.status.value_or(CollectStatus::failed), std::nullopt,
                     std::nullopt, answer.reason};
  if (node.status != CollectStatus::ok) return node;
  auto snapshot = sys::parse_snapshot(answer.snapshot);
  if (!snapshot) {
    node.status = CollectStatus::failed;
    node.reason = fmt::format("its snapshot is unreadable: {}", snapshot.error().message);
    return node;
  }
  node.host = snapshot->host.hostname;
  const std::string name = file_name_for(node.host, answer.node, taken);
  auto written = write_new_file(paths::join(out_dir, name), answer.snapshot, true);
  if (!written) {
    node.status = CollectStatus::failed;
    node.reason = written.error().message;
    return node;
  }
  node.file = name;
  return node;
}

std::string ended_how(const platform::ChildOutcome& run, std::chrono::seconds deadline) {
  switch (run.kind) {
    case platform::ChildOutcome::Kind::timed_out:
      return fmt::format("srun was stopped at the deadline ({} s)", deadline.count());
    case platform::ChildOutcome::Kind::signalled:
      return fmt::format("srun was killed by {}", run.detail);
    case platform::ChildOutcome::Kind::exited:
      return fmt::format("srun exited with status {}", run.exit_code);
    case platform::ChildOutcome::Kind::failed_to_start:
      return fmt::format("srun could not start: {}", run.detail);
  }
  return "srun ended";
}

}  // namespace

Result<Collected> collect_slurm(const CollectOptions& options) {
  const std::optional<std::string> srun =
      options.srun.empty() ? find_program("srun") : std::optional<std::string>(options.srun);
  if (!srun) return make_error("no srun on PATH: fleet collect --slurm runs on a Slurm login node");
  std::error_code error;
  fs::create_directories(paths::to_fs(options.out_dir), error);
  if (error)
    return make_error(fmt::format("cannot create {}: {}", options.out_dir, error.message()));

  Collected collected;
  collected.shared_filesystem = network_filesystem(options.self);
  collected.staged = options.stage == Stage::always ||
                     (options.stage == Stage::automatic && !collected.shared_filesystem);
  const std::chrono::seconds deadline = options.deadline.count() > 0
                                            ? options.deadline
                                            : options.node_timeout + std::chrono::seconds(600);
  const std::string job_name = "gpuvet-fleet-" + unique_suffix();
  const std::vector<std::string> args =
      srun_arguments(options, collected.staged, job_name, deadline);
  const platform::ChildOutcome run =
      platform::run_child(*srun, args, deadline, kMaxSchedulerOutput, platform::ChildStderr::merge);
  if (run.kind == platform::ChildOutcome::Kind::failed_to_start) {
    return make_error(fmt::format("cannot run {}: {}", *srun, run.detail));
  }
  // srun stopped at the deadline cannot end its own job: cancel it by its name.
  if (run.kind == platform::ChildOutcome::Kind::timed_out) {
    const std::string scancel = paths::join(paths::parent(*srun), "scancel");
    platform::run_child(scancel, {"--name=" + job_name}, std::chrono::seconds(30));
  }

  WireReader reader;
  for (const std::string& line : text::split(run.output, '\n'))
    reader.feed_line(line);

  CollectRecord& record = collected.record;
  record.collected_at = options.collected_at;
  record.engine = "slurm";
  record.command = {*srun};
  record.command.insert(record.command.end(), args.begin(), args.end());
  if (run.kind == platform::ChildOutcome::Kind::exited) record.exit_code = run.exit_code;
  const auto& other = reader.other_lines();
  const size_t first = other.size() > kKeptMessages ? other.size() - kKeptMessages : 0;
  record.messages = text::join(
      std::vector<std::string>(other.begin() + static_cast<std::ptrdiff_t>(first), other.end()),
      "\n");

  // Every node of the allocation, as the nodes that answered name it: one that never answered is
  // still a row.
  std::vector<std::string> expected;
  std::set<std::string> unanswered;
  std::vector<WireNode> answers = reader.nodes();
  for (const WireNode& answer : answers) {
    if (!answer.nodelist) continue;
    if (auto names = hostlist::expand(*answer.nodelist)) {
      for (std::string& name : *names) {
        if (unanswered.insert(name).second) expected.push_back(std::move(name));
      }
    }
  }
  // In the allocation's order, whatever order the nodes answered in.
  const auto position = [&expected](const std::string& node) {
    return std::find(expected.begin(), expected.end(), node) - expected.begin();
  };
  std::stable_sort(answers.begin(), answers.end(), [&](const WireNode& a, const WireNode& b) {
    return position(a.node) < position(b.node);
  });
  std::set<std::string> taken;
  const std::string how = ended_how(run, deadline);
  for (const WireNode& answer : answers) {
    unanswered.erase(answer.node);
    CollectedNode node = store(answer, options.out_dir, taken);
    if (!answer.status) {
      node.status = run.kind == platform::ChildOutcome::Kind::timed_out ? CollectStatus::timed_out
                                                                        : CollectStatus::failed;
      node.reason = fmt::format("it began but did not finish: {}", how);
    }
    record.nodes.push_back(std::move(node));
  }
  for (const std::string& name : expected) {
    if (!unanswered.count(name)) continue;
    record.nodes.push_back({name, CollectStatus::no_answer, std::nullopt, std::nullopt,
                            fmt::format("no answer from it: {}", how)});
  }
  auto written = write_new_file(paths::join(options.out_dir, kCollectRecordName),
                                serialize_collect_record(record), true);
  if (!written) return written.error();
  return collected;
}

std::vector<std::string> node_answer(const std::string& self, std::chrono::seconds timeout,
                                     const std::string& node, const std::string& nodelist) {
  const platform::ChildOutcome run =
      platform::run_child(self, {"snapshot"}, timeout, sys::kMaxSnapshotBytes);
  if (run.kind == platform::ChildOutcome::Kind::timed_out) {
    return wire_failure(node, nodelist, CollectStatus::timed_out,
                        fmt::format("gpuvet snapshot did not finish within {} s", timeout.count()));
  }
  if (run.kind != platform::ChildOutcome::Kind::exited || run.exit_code != 0) {
    const std::string why = run.kind == platform::ChildOutcome::Kind::exited
                                ? fmt::format("exited with status {}", run.exit_code)
                                : run.detail;
    return wire_failure(node, nodelist, CollectStatus::failed,
                        fmt::format("gpuvet snapshot failed: {}", why));
  }
  auto compressed = gzip::compress(run.output);
  if (!compressed) {
    return wire_failure(node, nodelist, CollectStatus::failed, compressed.error().message);
  }
  return wire_lines(node, nodelist, *compressed);
}

}  // namespace gpuvet::fleet
