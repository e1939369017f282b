// The declared JSON fields are the only mapping of their structs: these tests fail when a member
// is added to a struct and not to its field list, and when a writer and the reader disagree on
// any field of any record.
#include "core/json_fields.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <nlohmann/json.hpp>

#include "bench/bench_json.hpp"
#include "facts/fact_fields.hpp"
#include "system/snapshot_fields.hpp"

namespace gpuvet {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// How many members an aggregate has: the most initialisers of any type it accepts.
struct AnyMember {
  template <class U>
  operator U&() const;
};

template <class T, class... Given>
constexpr size_t member_count() {
  if constexpr (requires { T{std::declval<Given>()..., AnyMember{}}; }) {
    return member_count<T, Given..., AnyMember>();
  } else {
    return sizeof...(Given);
  }
}

template <class T>
constexpr size_t declared_fields() {
  return std::tuple_size_v<std::remove_const_t<decltype(JsonFields<T>::fields)>>;
}

// Every field set to something other than its default, nested records too.
template <class V>
void fill(V& value, std::int64_t lowest, std::int64_t highest);

template <class T>
T filled() {
  T value{};
  for_each_json_field(value,
                      [](const auto& field, auto& member) { fill(member, field.min, field.max); });
  return value;
}

template <class V>
void fill(V& value, std::int64_t lowest, std::int64_t highest) {
  if constexpr (JsonRecord<V>) {
    value = filled<V>();
  } else if constexpr (json_detail::is_optional<V>::value) {
    fill(value.emplace(), lowest, highest);
  } else if constexpr (json_detail::is_vector<V>::value) {
    fill(value.emplace_back(), lowest, highest);
    fill(value.emplace_back(), lowest, highest);
  } else if constexpr (json_detail::is_string_map<V>::value) {
    fill(value["key one"], lowest, highest);
  } else if constexpr (std::is_same_v<V, std::string>) {
    value = "text ✔";
  } else if constexpr (std::is_same_v<V, bool>) {
    value = true;
  } else if constexpr (json_detail::is_variant<V>::value) {
    value = std::int64_t{42};
  } else {
    value = static_cast<V>(std::min<std::int64_t>(std::max<std::int64_t>(lowest, 7), highest));
  }
}

template <class T>
void expect_round_trip(const char* name) {
  SCOPED_TRACE(name);
  EXPECT_EQ(declared_fields<T>(), member_count<T>()) << "a member has no JSON field";
  const T value = filled<T>();
  for (Absent absent : {Absent::as_null, Absent::omitted}) {
    const json written = fields_to_json<json>(value, absent);
    EXPECT_EQ(written.size(), declared_fields<T>()) << "every field of a full record is written";
    const T read = record_from_json<T>(written, "");
    EXPECT_EQ(fields_to_json<json>(read, absent), written);
  }
  // The empty record too: the snapshot's omissions read back as the same values.
  const json empty = fields_to_json<json>(T{}, Absent::omitted);
  EXPECT_EQ(fields_to_json<json>(record_from_json<T>(empty, ""), Absent::as_null),
            fields_to_json<json>(T{}, Absent::as_null));
}

#define ROUND_TRIP(T) expect_round_trip<T>(#T)

TEST(JsonFields, EveryFactIsDeclaredWholeAndReadsBackWhatIsWritten) {
  ROUND_TRIP(OsFacts);
  ROUND_TRIP(EnvFacts);
  ROUND_TRIP(DriverFacts);
  ROUND_TRIP(PciGpuFact);
  ROUND_TRIP(DisplayAdapterFact);
  ROUND_TRIP(HardwareFacts);
  ROUND_TRIP(GpuFact);
  ROUND_TRIP(CudaToolkitFact);
  ROUND_TRIP(CudnnFact);
  ROUND_TRIP(LibraryCopy);
  ROUND_TRIP(LibraryFact);
  ROUND_TRIP(FrameworkFact);
  ROUND_TRIP(NvidiaWheelFact);
  ROUND_TRIP(CondaPackageFact);
  ROUND_TRIP(PythonEnvFact);
  ROUND_TRIP(Facts);
}

TEST(JsonFields, EverySnapshotRecordIsDeclaredWholeAndReadsBackWhatIsWritten) {
  ROUND_TRIP(sys::CpuFeatures);
  ROUND_TRIP(sys::HostInfo);
  ROUND_TRIP(sys::ElfInfo);
  ROUND_TRIP(sys::PeVersion);
  ROUND_TRIP(sys::FileEntry);
  ROUND_TRIP(sys::DriverAnswer);
  ROUND_TRIP(sys::DisplayAdapter);
  ROUND_TRIP(sys::ProgramOutput);
  ROUND_TRIP(sys::LoadAnswer);
  ROUND_TRIP(sys::Snapshot);
}

TEST(JsonFields, TheBenchDeviceIsDeclaredWholeAndReadsBackWhatIsWritten) {
  ROUND_TRIP(bench::DeviceInfo);
  EXPECT_FALSE(bench::device_from_json(json::parse(R"({"name": 3})")));
}

TEST(JsonFields, TheCheckJsonShowsUnknownsAsNullAndASnapshotLeavesThemOut) {
  sys::LoadAnswer failed;
  failed.error = "not found";
  EXPECT_EQ(fields_to_json<ordered_json>(failed, Absent::as_null).dump(),
            R"({"ok":false,"path":null,"version":null,"error":"not found","init_code":null})");
  // "ok": false is the answer itself, so the snapshot keeps it (always()).
  EXPECT_EQ(fields_to_json<json>(failed, Absent::omitted).dump(),
            R"({"error":"not found","ok":false})");
  EXPECT_EQ(fields_to_json<json>(sys::DriverAnswer{}, Absent::omitted).dump(),
            R"({"installed":false})");
  // A list that is there but empty is not an unknown one.
  sys::Snapshot none;
  none.gpus.emplace();
  EXPECT_EQ(fields_to_json<json>(none, Absent::omitted).at("gpus"), json::array());
  EXPECT_FALSE(fields_to_json<json>(sys::Snapshot{}, Absent::omitted).contains("gpus"));
}

std::string read_error(const json& j) {
  try {
    record_from_json<sys::FileEntry>(j, "files./x");
  } catch (const JsonFieldError& e) {
    return e.what();
  }
  return "";
}

TEST(JsonFields, TheReaderNamesWhereAndWhat) {
  EXPECT_EQ(read_error(json::parse(R"({"size": -1})")),
            "files./x.size: expected a non-negative integer");
  EXPECT_EQ(read_error(json::parse(R"({"elf": {"bits": 70000}})")),
            "files./x.elf.bits: out of range");
  EXPECT_EQ(read_error(json::parse(R"({"elf": {"needed": ["a", 3]}})")),
            "files./x.elf.needed[1]: expected a string");
  EXPECT_EQ(read_error(json::parse(R"({"dir": "yes"})")), "files./x.dir: expected true or false");
  EXPECT_EQ(read_error(json::parse("[]")), "files./x: expected an object");
  EXPECT_EQ(read_error(json::parse(R"({"text": null, "future_key": 1})")), "");
  try {
    record_from_json<GpuFact>(json::parse(R"({"name": "T4"})"), "gpus[0]");
    ADD_FAILURE() << "a GPU without an index was read";
  } catch (const JsonFieldError& e) {
    EXPECT_STREQ(e.what(), "gpus[0]: missing \"index\"");
  }
}

TEST(JsonFields, IntegersOutsideTheMemberTypeAreRefused) {
  // No bounds declared: the member's own type bounds it (an int cannot hold 2^40).
  const auto read_cuinit = [](const char* text) {
    return record_from_json<DriverFacts>(json::parse(text), "driver").cuinit_code;
  };
  EXPECT_EQ(read_cuinit(R"({"cuinit_code": -100})"), -100);
  EXPECT_THROW(read_cuinit(R"({"cuinit_code": 1099511627776})"), JsonFieldError);
  EXPECT_EQ(
      record_from_json<sys::LoadAnswer>(json::parse(R"({"init_code": -2147483648})"), "").init_code,
      INT_MIN);
}

}  // namespace
}  // namespace gpuvet
