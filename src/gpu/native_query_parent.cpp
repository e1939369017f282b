// Parent side of the native query: runs `gpuvet __native-query` with a deadline and turns a
// crash, a hang or garbage into an answer that says what happened.
#include <fmt/format.h>

#include "core/text.hpp"
#include "gpu/child_process.hpp"
#include "gpu/native_query.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::gpu {

namespace {

constexpr std::string_view kStage = "@stage ";
constexpr std::string_view kResult = "@result\n";

// The last stage the child announced before the output ended.
std::string last_stage(std::string_view output) {
  std::string stage;
  for (const auto& line : text::split(output, '\n')) {
    if (line.starts_with(kStage)) stage = line.substr(kStage.size());
  }
  return stage;
}

std::string where(const std::string& stage) {
  return stage.empty() ? std::string() : fmt::format(" during {}", stage);
}

}  // namespace

Result<NativeAnswers> NativeQuery::run(const std::vector<std::string>& arguments) const {
  const ChildOutcome outcome = run_child(helper_, arguments, timeout_);
  const std::string stage = last_stage(outcome.output);
  switch (outcome.kind) {
    case ChildOutcome::Kind::failed_to_start:
      return make_error(
          fmt::format("could not start the native query ({}: {})", helper_, outcome.detail));
    case ChildOutcome::Kind::timed_out:
      return make_error(fmt::format("the driver query hung{} and was stopped after {} ms",
                                    where(stage), timeout_.count()));
    case ChildOutcome::Kind::signalled:
      return make_error(
          fmt::format("the driver query crashed ({}){}", outcome.detail, where(stage)));
    case ChildOutcome::Kind::exited:
      break;
  }
  if (outcome.exit_code != 0) {
    return make_error(
        fmt::format("the driver query exited with status {}{}", outcome.exit_code, where(stage)));
  }
  const size_t result = outcome.output.find(kResult);
  if (result == std::string::npos) {
    return make_error(fmt::format("the driver query gave no answer{}", where(stage)));
  }
  auto fragment =
      sys::parse_snapshot(std::string_view(outcome.output).substr(result + kResult.size()));
  if (!fragment) {
    return make_error(
        fmt::format("the driver query answered garbage ({})", fragment.error().message));
  }
  return NativeAnswers{fragment->driver, fragment->gpus, fragment->loads};
}

NativeAnswers NativeQuery::query_driver() const {
  auto answers = run({kNativeQueryVerb});
  if (answers) return std::move(*answers);
  NativeAnswers failed;
  failed.driver = sys::DriverAnswer{false, std::nullopt, std::nullopt, answers.error().message};
  return failed;
}

sys::LoadAnswer NativeQuery::load(const std::string& library) const {
  auto answers = run({kNativeQueryVerb, "--load", library});
  if (answers) {
    const auto it = answers->loads.find(library);
    if (it != answers->loads.end()) return it->second;
    return sys::LoadAnswer{false, std::nullopt, std::nullopt,
                           "the driver query did not report on " + library, std::nullopt};
  }
  return sys::LoadAnswer{false, std::nullopt, std::nullopt, answers.error().message, std::nullopt};
}

}  // namespace gpuvet::gpu
