#pragma once
// Module-level literal assignments of a Python source file, read without running it:
// TensorFlow's build_info.py, torch/version.py, paddle/version/__init__.py are generated files of
// `name = <literal>` lines. Understood: strings (prefixes, escapes, implicit concatenation),
// numbers, True/False/None, lists, tuples, dicts and `[collections.]OrderedDict([...])` /
// `dict([...])` of pairs; annotated assignments (`cuda: Optional[str] = '12.1'`). Anything else
// is skipped, never an error.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuvet::python {

struct PyValue {
  enum class Kind { none, boolean, number, string, list, dict };
  Kind kind = Kind::none;
  bool boolean = false;
  std::string text;                                  // string value, or a number as written
  std::vector<PyValue> items;                        // list and tuple
  std::vector<std::pair<PyValue, PyValue>> entries;  // dict, in source order

  const PyValue* get(std::string_view key) const;  // a dict entry with a string key
  std::optional<std::string> as_string() const;    // strings and numbers
  std::optional<bool> as_bool() const;             // True/False, 'true'/'false', 'ON'/'OFF'
};

// The literal value of every top-level `NAME = literal` (the last one wins).
std::map<std::string, PyValue> module_assignments(std::string_view source);

}  // namespace gpuvet::python
