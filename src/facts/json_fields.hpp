#pragma once
// A fact's JSON fields, declared once. Every writer and reader of the struct walks this list:
// the check JSON (absent values as null), the snapshot (absent values omitted) and the
// snapshot's strict reader, so that they cannot drift apart.
#include <optional>
#include <tuple>
#include <utility>

#include "facts/facts.hpp"

namespace gpuvet {

template <class T, class M>
struct JsonField {
  const char* name;
  M T::*member;
};

template <class T, class M>
constexpr JsonField<T, M> json_field(const char* name, M T::*member) {
  return {name, member};
}

// Specialised for each fact with JSON: `fields`, a tuple of its JSON fields in output order.
template <class T>
struct JsonFields;

template <>
struct JsonFields<GpuFact> {
  static constexpr auto fields =
      std::make_tuple(json_field("index", &GpuFact::index), json_field("name", &GpuFact::name),
                      json_field("uuid", &GpuFact::uuid), json_field("pci_id", &GpuFact::pci_id),
                      json_field("compute_capability", &GpuFact::compute_capability),
                      json_field("memory_mib", &GpuFact::memory_mib),
                      json_field("driver_model", &GpuFact::driver_model),
                      json_field("compute_mode", &GpuFact::compute_mode));
};

// How a writer shows an unknown (nullopt) value.
enum class Absent { as_null, omitted };

// Calls visit(name, value.*member) for each field, in order.
template <class T, class Visit>
void for_each_json_field(T& value, Visit&& visit) {
  std::apply([&](const auto&... field) { (visit(field.name, value.*(field.member)), ...); },
             JsonFields<std::remove_const_t<T>>::fields);
}

// The fact as a JSON object of the given nlohmann type (json or ordered_json).
template <class Json, class T>
Json fields_to_json(const T& value, Absent absent) {
  Json j = Json::object();
  for_each_json_field(value, [&](const char* name, const auto& v) {
    if constexpr (requires { v.has_value(); }) {
      if (v) {
        j[name] = *v;
      } else if (absent == Absent::as_null) {
        j[name] = nullptr;
      }
    } else {
      j[name] = v;
    }
  });
  return j;
}

}  // namespace gpuvet
