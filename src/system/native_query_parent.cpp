// Parent side of the native query: runs `gpuvet __native-query` with a deadline and turns a
// crash, a hang or garbage into an answer that says what happened.
#include <fmt/format.h>

#include "core/text.hpp"
#include "platform/child_process.hpp"
#include "system/native_query.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::sys {

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

// What a child's output (a whole run's, or one session reply's) says, or what happened to it.
Result<NativeAnswers> interpret(const platform::ChildOutcome& outcome, const std::string& helper,
                                std::chrono::milliseconds timeout) {
  const std::string stage = last_stage(outcome.output);
  switch (outcome.kind) {
    case platform::ChildOutcome::Kind::failed_to_start:
      return make_error(
          fmt::format("could not start the native query ({}: {})", helper, outcome.detail));
    case platform::ChildOutcome::Kind::timed_out:
      return make_error(fmt::format("the driver query hung{} and was stopped after {} ms",
                                    where(stage), timeout.count()));
    case platform::ChildOutcome::Kind::signalled:
      return make_error(
          fmt::format("the driver query crashed ({}){}", outcome.detail, where(stage)));
    case platform::ChildOutcome::Kind::exited:
      break;
  }
  if (outcome.exit_code != 0) {
    return make_error(
        fmt::format("the driver query exited with status {}{}", outcome.exit_code, where(stage)));
  }
  const size_t result = outcome.output.rfind(kResult);
  if (result == std::string::npos) {
    return make_error(fmt::format("the driver query gave no answer{}", where(stage)));
  }
  std::string_view fragment = std::string_view(outcome.output).substr(result + kResult.size());
  // A session reply ends with its own line.
  if (const size_t end = fragment.rfind(kReplyEnd); end != std::string_view::npos) {
    fragment = fragment.substr(0, end);
  }
  auto parsed = sys::parse_snapshot(fragment);
  if (!parsed) {
    return make_error(
        fmt::format("the driver query answered garbage ({})", parsed.error().message));
  }
  return NativeAnswers{parsed->driver, parsed->gpus, parsed->loads};
}

NativeAnswers failed_driver(const Error& error) {
  NativeAnswers failed;
  failed.driver = DriverAnswer{false, std::nullopt, std::nullopt, error.message};
  return failed;
}

LoadAnswer failed_load(const std::string& why) {
  return LoadAnswer{false, std::nullopt, std::nullopt, why, std::nullopt};
}

LoadAnswer load_of(const Result<NativeAnswers>& answers, const std::string& library) {
  if (!answers) return failed_load(answers.error().message);
  const auto it = answers->loads.find(library);
  if (it != answers->loads.end()) return it->second;
  return failed_load("the driver query did not report on " + library);
}

}  // namespace

Result<NativeAnswers> NativeQuery::run(const std::vector<std::string>& arguments) const {
  return interpret(platform::run_child(helper_, arguments, timeout_), helper_, timeout_);
}

NativeAnswers NativeQuery::query_driver() const {
  auto answers = run({kNativeQueryVerb});
  if (answers) return std::move(*answers);
  return failed_driver(answers.error());
}

LoadAnswer NativeQuery::load(const std::string& library) const {
  return load_of(run({kNativeQueryVerb, "--load", library}), library);
}

NativeSession::NativeSession(std::string helper, std::chrono::milliseconds timeout)
    : helper_(std::move(helper)), timeout_(timeout) {
  child_ = platform::start_child_session(helper_, {kNativeQueryVerb, kNativeServeFlag}, why_not_);
}

NativeSession::~NativeSession() = default;

Result<NativeAnswers> NativeSession::reply() {
  if (!child_) {
    platform::ChildOutcome failed;
    failed.detail = why_not_;
    return interpret(failed, helper_, timeout_);
  }
  auto answers = interpret(child_->read_reply(kReplyEnd, timeout_), helper_, timeout_);
  // A child that died or hung is gone; what it had not answered gets children of its own.
  if (!child_->alive()) child_.reset();
  return answers;
}

// The child answers the driver query first: every request waits for it.
const NativeAnswers& NativeSession::driver_locked() {
  if (!driver_) {
    auto answers = reply();
    driver_ = answers ? std::move(*answers) : failed_driver(answers.error());
  }
  return *driver_;
}

NativeAnswers NativeSession::query_driver() {
  std::lock_guard lock(mutex_);
  return driver_locked();
}

LoadAnswer NativeSession::load(const std::string& library) {
  std::lock_guard lock(mutex_);
  driver_locked();
  // Only whole paths share the child: a bare name would find a library the session has loaded
  // already instead of the one the loader's search would pick.
  const bool path =
      library.find('/') != std::string::npos || library.find('\\') != std::string::npos;
  if (!child_ || !path || !child_->send("load " + library)) {
    child_.reset();
    return NativeQuery(helper_, timeout_).load(library);
  }
  return load_of(reply(), library);
}

}  // namespace gpuvet::sys
