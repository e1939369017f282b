#include "system/live_common.hpp"

#include <fmt/format.h>

#include <utility>

#include "kb/messages.hpp"

namespace gpuvet::sys {

NativeAnswerCache::NativeAnswerCache(const LiveOptions& options) {
  if (!options.native_helper) return;
  if (options.native_session) {
    session_ = std::make_unique<sys::NativeSession>(*options.native_helper, options.native_timeout);
  } else {
    native_.emplace(*options.native_helper, options.native_timeout);
  }
}

std::optional<DriverAnswer> NativeAnswerCache::driver() const {
  const auto* all = answers();
  return all ? all->driver : std::nullopt;
}

std::optional<std::vector<GpuAnswer>> NativeAnswerCache::gpus() const {
  const auto* all = answers();
  return all ? all->gpus : std::nullopt;
}

std::optional<LoadAnswer> NativeAnswerCache::load(const std::string& library) const {
  if (!native_ && !session_) return std::nullopt;
  // The driver query already loaded NVML and the CUDA driver; ask a child again only for others.
  if (const auto* all = answers()) {
    const auto known = all->loads.find(library);
    if (known != all->loads.end()) return known->second;
  }
  std::lock_guard lock(loads_mutex_);
  const auto it = loads_.find(library);
  if (it != loads_.end()) return it->second;
  return loads_.emplace(library, session_ ? session_->load(library) : native_->load(library))
      .first->second;
}

const sys::NativeAnswers* NativeAnswerCache::answers() const {
  if (!native_ && !session_) return nullptr;
  std::call_once(
      once_, [this] { answers_ = session_ ? session_->query_driver() : native_->query_driver(); });
  return &answers_;
}

ProgramOutput program_output(const platform::ChildOutcome& run) {
  ProgramOutput out;
  out.output = run.output;
  switch (run.kind) {
    case platform::ChildOutcome::Kind::exited:
      out.exit_code = run.exit_code;
      break;
    case platform::ChildOutcome::Kind::signalled:
      out.error = "crashed (" + run.detail + ")";
      break;
    case platform::ChildOutcome::Kind::timed_out:
      out.error = "hung and was stopped";
      break;
    case platform::ChildOutcome::Kind::failed_to_start:
      out.error = run.detail;
      break;
  }
  return out;
}

Result<std::string> whole_text(const std::string& path, Result<std::string> prefix) {
  if (prefix && prefix->size() > kMaxTextBytes) {
    return make_error(fmt::format("{}: larger than {} bytes", path, kMaxTextBytes));
  }
  return prefix;
}

Error not_a_regular_file(const std::string& path) {
  return in_file(kb::catalog_error("error.os.not_regular_file"), path);
}

Error unreadable_binary(Error error, const std::string& path) {
  return in_file(kb::within(std::move(error), "binary.error.unreadable"), path);
}

}  // namespace gpuvet::sys
