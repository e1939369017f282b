#pragma once
// Errors as values across module boundaries (a small std::expected until C++23 is available).
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gpuvet {

using ErrorArgs = std::vector<std::pair<std::string, std::string>>;

// A catalog text around an error's own: its key and arguments, the error's words as {detail}.
struct ErrorContext {
  std::string key;
  ErrorArgs args;
};

struct Error {
  Error() = default;
  explicit Error(std::string message_) : message(std::move(message_)) {}
  Error(std::string message_, std::string key_, ErrorArgs args_)
      : message(std::move(message_)), key(std::move(key_)), args(std::move(args_)) {}

  std::string message;  // English, whole: for logs, tests, and where no catalog is at hand
  // The same in the catalogs' words (kb/messages.hpp render_error): the key of the cause with
  // its arguments, inside the texts it was met in, innermost first. No key: `message` is all.
  std::string key;
  ErrorArgs args;
  std::vector<ErrorContext> context;
};

template <typename T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design, like std::expected
  Result(Error error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

inline Error make_error(std::string message) {
  return Error{std::move(message)};
}

// An error the catalogs can word: `english` as en.csv words `key` with these arguments.
inline Error keyed_error(std::string english, std::string key, ErrorArgs args = {}) {
  return Error{std::move(english), std::move(key), std::move(args)};
}

// Words without a key (a system's message) as the centre of a context: kept as they are
// (common.verbatim), so that the catalog texts around them are still said in the run's language.
inline Error keyed_verbatim(Error error) {
  if (error.key.empty()) {
    error.key = "common.verbatim";
    error.args = {{"text", error.message}};
  }
  return error;
}

// `error` met in `file`: "file: message" (error.in_file).
inline Error in_file(Error error, const std::string& file) {
  error = keyed_verbatim(std::move(error));
  error.message = file + ": " + error.message;
  error.context.push_back({"error.in_file", {{"file", file}}});
  return error;
}

}  // namespace gpuvet
