#pragma once
// A struct's JSON fields, declared once (a JsonFields<T> specialisation beside the struct's
// domain), and the one writer and one strict reader that walk them. The check JSON, the
// snapshot and the native child's answers all go through these, so a field added to a list is
// written and read everywhere, and a writer cannot drift from its reader.
//
// Templated on the nlohmann type (json or ordered_json) so that this layer needs no JSON
// library of its own.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/result.hpp"

namespace gpuvet {

template <class T, class M>
struct JsonField {
  const char* name;
  M T::*member;
  bool is_required = false;
  // Written by a snapshot even when false or empty: "installed": false is an answer.
  bool is_always = false;
  // For integer members: what a reader accepts.
  std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::int64_t max = std::numeric_limits<std::int64_t>::max();

  constexpr JsonField required() const {
    JsonField f = *this;
    f.is_required = true;
    return f;
  }
  constexpr JsonField always() const {
    JsonField f = *this;
    f.is_always = true;
    return f;
  }
  constexpr JsonField within(std::int64_t lowest, std::int64_t highest) const {
    JsonField f = *this;
    f.min = lowest;
    f.max = highest;
    return f;
  }
};

template <class T, class M>
constexpr JsonField<T, M> json_field(const char* name, M T::*member) {
  return {name, member};
}

// Specialised for each struct with JSON: `fields`, a tuple of its JSON fields in output order.
template <class T>
struct JsonFields;

template <class T>
concept JsonRecord = requires {
  JsonFields<T>::fields;
};

// How a writer shows what is unknown or empty: the check JSON prints every field (nullopt as
// null); a snapshot leaves out nullopt, false and empty lists (unless a field is always()),
// which its reader reads back as the same values.
enum class Absent { as_null, omitted };

// Calls visit(field, value.*field.member) for each field, in order.
template <class T, class Visit>
void for_each_json_field(T& value, Visit&& visit) {
  std::apply([&](const auto&... field) { (visit(field, value.*(field.member)), ...); },
             JsonFields<std::remove_const_t<T>>::fields);
}

namespace json_detail {

template <class V>
struct is_optional : std::false_type {};
template <class V>
struct is_optional<std::optional<V>> : std::true_type {};

template <class V>
struct is_vector : std::false_type {};
template <class V>
struct is_vector<std::vector<V>> : std::true_type {};

template <class V>
struct is_string_map : std::false_type {};
template <class V>
struct is_string_map<std::map<std::string, V>> : std::true_type {};

template <class V>
struct is_variant : std::false_type {};
template <class... V>
struct is_variant<std::variant<V...>> : std::true_type {};

template <class V>
bool is_empty(const V& v) {
  if constexpr (std::is_same_v<V, bool>) {
    return !v;
  } else if constexpr (is_vector<V>::value) {
    return v.empty();
  } else if constexpr (is_string_map<V>::value) {
    return v.empty();
  } else {
    return false;
  }
}

}  // namespace json_detail

template <class Json, class T>
Json fields_to_json(const T& value, Absent absent);

template <class Json, class V>
Json json_value(const V& v, Absent absent) {
  if constexpr (JsonRecord<V>) {
    return fields_to_json<Json>(v, absent);
  } else if constexpr (json_detail::is_vector<V>::value) {
    Json array = Json::array();
    for (const auto& item : v)
      array.push_back(json_value<Json>(item, absent));
    return array;
  } else if constexpr (json_detail::is_string_map<V>::value) {
    Json object = Json::object();
    for (const auto& [key, item] : v)
      object[key] = json_value<Json>(item, absent);
    return object;
  } else if constexpr (json_detail::is_variant<V>::value) {
    return std::visit([](const auto& alternative) { return Json(alternative); }, v);
  } else {
    return Json(v);
  }
}

// The struct as a JSON object of the given nlohmann type.
template <class Json, class T>
Json fields_to_json(const T& value, Absent absent) {
  Json j = Json::object();
  for_each_json_field(value, [&](const auto& field, const auto& v) {
    using V = std::remove_cvref_t<decltype(v)>;
    if constexpr (json_detail::is_optional<V>::value) {
      if (v) {
        j[field.name] = json_value<Json>(*v, absent);
      } else if (absent == Absent::as_null) {
        j[field.name] = nullptr;
      }
    } else if (absent == Absent::as_null || field.is_always || !json_detail::is_empty(v)) {
      j[field.name] = json_value<Json>(v, absent);
    }
  });
  return j;
}

// ---- reading -------------------------------------------------------------------------------
// A reader is a parser: it throws JsonFieldError ("where: what") and its caller turns that into
// an Error at its edge.

// Its catalog key (json.error.*) words it with {where} and `args`.
struct JsonFieldError : std::runtime_error {
  JsonFieldError(const std::string& english, std::string key_, ErrorArgs args_)
      : std::runtime_error(english), key(std::move(key_)), args(std::move(args_)) {}
  std::string key;
  ErrorArgs args;
};

[[noreturn]] inline void fail_json_field(const std::string& where, const std::string& what,
                                         const std::string& key, ErrorArgs args = {}) {
  const std::string place = where.empty() ? "document" : where;
  args.emplace_back("where", place);
  throw JsonFieldError(fmt::format("{}: {}", place, what), key, std::move(args));
}

inline std::string json_child(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

// A member that is absent or null is not there.
template <class Json>
const Json* json_member(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

template <class T, class Json>
T record_from_json(const Json& j, const std::string& where);

struct IntBounds {
  std::int64_t min;
  std::int64_t max;
};

template <class Json, class V>
void read_json_value(const Json& j, const std::string& where, IntBounds bounds, V& out) {
  if constexpr (JsonRecord<V>) {
    out = record_from_json<V>(j, where);
  } else if constexpr (json_detail::is_optional<V>::value) {
    read_json_value(j, where, bounds, out.emplace());
  } else if constexpr (json_detail::is_vector<V>::value) {
    if (!j.is_array()) fail_json_field(where, "expected an array", "json.error.expected_array");
    out.clear();
    for (size_t i = 0; i < j.size(); ++i) {
      read_json_value(j[i], fmt::format("{}[{}]", where, i), bounds, out.emplace_back());
    }
  } else if constexpr (json_detail::is_string_map<V>::value) {
    if (!j.is_object()) fail_json_field(where, "expected an object", "json.error.expected_object");
    for (const auto& [key, value] : j.items())
      read_json_value(value, json_child(where, key), bounds, out[key]);
  } else if constexpr (std::is_same_v<V, std::variant<std::string, std::int64_t>>) {
    // A value that is a text or a number, as the Windows registry holds them.
    if (j.is_string()) {
      out = j.template get<std::string>();
    } else if (j.is_number_integer()) {
      out = j.template get<std::int64_t>();
    } else {
      fail_json_field(where, "expected a string or an integer",
                      "json.error.expected_string_or_integer");
    }
  } else if constexpr (std::is_same_v<V, std::string>) {
    if (!j.is_string()) fail_json_field(where, "expected a string", "json.error.expected_string");
    out = j.template get<std::string>();
  } else if constexpr (std::is_same_v<V, bool>) {
    if (!j.is_boolean())
      fail_json_field(where, "expected true or false", "json.error.expected_boolean");
    out = j.template get<bool>();
  } else if constexpr (std::is_unsigned_v<V>) {
    if (j.is_number_unsigned()) {
      out = j.template get<V>();
      return;
    }
    if (!j.is_number_integer() || j.template get<std::int64_t>() < 0) {
      fail_json_field(where, "expected a non-negative integer", "json.error.expected_unsigned");
    }
    out = static_cast<V>(j.template get<std::int64_t>());
  } else {
    static_assert(std::is_integral_v<V>, "no JSON reading for this member type");
    if (!j.is_number_integer())
      fail_json_field(where, "expected an integer", "json.error.expected_integer");
    const std::int64_t value = j.template get<std::int64_t>();
    const std::int64_t lowest = std::max<std::int64_t>(bounds.min, std::numeric_limits<V>::min());
    const std::int64_t highest = std::min<std::int64_t>(bounds.max, std::numeric_limits<V>::max());
    if (value < lowest || value > highest)
      fail_json_field(where, "out of range", "json.error.out_of_range");
    out = static_cast<V>(value);
  }
}

// The struct from a JSON object: each field that is there must have its type (and bounds);
// required fields must be there; unknown keys are left for newer writers.
template <class T, class Json>
T record_from_json(const Json& j, const std::string& where) {
  if (!j.is_object()) fail_json_field(where, "expected an object", "json.error.expected_object");
  T value{};
  for_each_json_field(value, [&](const auto& field, auto& member) {
    const Json* found = json_member(j, field.name);
    if (!found) {
      if (field.is_required)
        fail_json_field(where, fmt::format("missing \"{}\"", field.name), "json.error.missing",
                        {{"field", std::string(field.name)}});
      return;
    }
    read_json_value(*found, json_child(where, field.name), IntBounds{field.min, field.max}, member);
  });
  return value;
}

}  // namespace gpuvet
