#include "facts/facts.hpp"

#include <nlohmann/json.hpp>

#include "facts/fact_fields.hpp"

namespace gpuvet {

nlohmann::ordered_json facts_to_json(const Facts& facts) {
  return fields_to_json<nlohmann::ordered_json>(facts, Absent::as_null);
}

}  // namespace gpuvet
