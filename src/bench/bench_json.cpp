#include "bench/bench_json.hpp"

namespace gpuvet::bench {

nlohmann::ordered_json device_to_json(const DeviceInfo& d) {
  return fields_to_json<nlohmann::ordered_json>(d, Absent::as_null);
}

std::optional<DeviceInfo> device_from_json(const nlohmann::json& j) {
  try {
    return record_from_json<DeviceInfo>(j, "device");
  } catch (const JsonFieldError&) {
    return std::nullopt;
  }
}

namespace {

nlohmann::json args_to_json(const ErrorArgs& args) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : args)
    out[name] = value;
  return out;
}

// Only string values count: a child that printed something else said nothing usable.
std::optional<ErrorArgs> args_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  ErrorArgs args;
  for (const auto& [name, value] : j.items()) {
    if (!value.is_string()) return std::nullopt;
    args.emplace_back(name, value.get<std::string>());
  }
  return args;
}

}  // namespace

nlohmann::json words_to_json(const Error& words) {
  nlohmann::json context = nlohmann::json::array();
  for (const ErrorContext& around : words.context)
    context.push_back({{"key", around.key}, {"args", args_to_json(around.args)}});
  return {{"key", words.key}, {"args", args_to_json(words.args)}, {"context", context}};
}

Error words_from_json(const nlohmann::json& j, std::string english) {
  Error plain(english);
  if (!j.is_object() || !j.contains("key") || !j["key"].is_string()) return plain;
  const auto args = args_from_json(j.value("args", nlohmann::json::object()));
  if (!args) return plain;
  Error words(std::move(english), j["key"].get<std::string>(), *args);
  const nlohmann::json context = j.value("context", nlohmann::json::array());
  if (!context.is_array()) return plain;
  for (const nlohmann::json& around : context) {
    if (!around.is_object() || !around.contains("key") || !around["key"].is_string()) return plain;
    const auto around_args = args_from_json(around.value("args", nlohmann::json::object()));
    if (!around_args) return plain;
    words.context.push_back({around["key"].get<std::string>(), *around_args});
  }
  return words;
}

}  // namespace gpuvet::bench
