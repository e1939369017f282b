#include "python/framework_files.hpp"

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "core/version.hpp"
#include "python/metadata.hpp"
#include "python/python_literal.hpp"

namespace gpuvet::python {

namespace {

using Assignments = std::map<std::string, PyValue>;

const PyValue* find(const Assignments& vars, const PyValue* dict, std::string_view key) {
  if (dict) {
    if (const PyValue* v = dict->get(key)) return v;
  }
  const auto it = vars.find(std::string(key));
  return it == vars.end() ? nullptr : &it->second;
}

std::optional<std::string> string_of(const PyValue* v) {
  if (!v) return std::nullopt;
  auto s = v->as_string();
  if (!s || s->empty()) return std::nullopt;
  return s;
}

std::optional<bool> bool_of(const PyValue* v) {
  return v ? v->as_bool() : std::nullopt;
}

void add_strings(const PyValue* v, std::vector<std::string>& out) {
  if (!v) return;
  if (v->kind == PyValue::Kind::list) {
    for (const auto& item : v->items) {
      if (auto s = item.as_string()) out.push_back(*s);
    }
  } else if (auto s = string_of(v)) {
    // "msvcp140.dll,msvcp140_1.dll"; TF's CMake-era builds wrote "sm_35,sm_50".
    for (const auto& part : text::split(*s, ',')) {
      if (!text::trim(part).empty()) out.emplace_back(text::trim(part));
    }
  }
}

}  // namespace

std::optional<std::string> tensorflow_cuda_version(std::string_view value) {
  value = text::trim(value);
  if (value.starts_with("64_")) {
    const std::string_view digits = value.substr(3);
    if (digits.size() < 2 || !text::is_digits(digits)) return std::nullopt;
    return std::string(digits.substr(0, digits.size() - 1)) + "." +
           std::string(digits.substr(digits.size() - 1));
  }
  if (!version::is_dotted(value)) return std::nullopt;
  return major_minor(value);
}

std::optional<std::string> tensorflow_cudnn_version(std::string_view value) {
  value = text::trim(value);
  if (value.starts_with("64_")) value = value.substr(3);
  if (!version::is_dotted(value)) return std::nullopt;
  return major_minor(value);
}

std::optional<BuildDeclaration> parse_tensorflow_build_info(std::string_view source) {
  const Assignments vars = module_assignments(source);
  const auto dict_it = vars.find("build_info");
  const PyValue* dict = dict_it != vars.end() && dict_it->second.kind == PyValue::Kind::dict
                            ? &dict_it->second
                            : nullptr;
  BuildDeclaration d;
  d.cuda_build = bool_of(find(vars, dict, "is_cuda_build"));
  d.rocm_build = bool_of(find(vars, dict, "is_rocm_build"));
  // "cuda_version" since the dict generations, "cuda_version_number" before.
  for (const char* key : {"cuda_version", "cuda_version_number"}) {
    if (auto v = string_of(find(vars, dict, key))) {
      d.cuda = tensorflow_cuda_version(*v);
      if (d.cuda) break;
    }
  }
  for (const char* key : {"cudnn_version", "cudnn_version_number"}) {
    if (auto v = string_of(find(vars, dict, key))) {
      d.cudnn = tensorflow_cudnn_version(*v);
      if (d.cudnn) break;
    }
  }
  if (auto v = string_of(find(vars, dict, "rocm_version"))) d.rocm = *v;
  add_strings(find(vars, dict, "cuda_compute_capabilities"), d.compute_capabilities);
  for (const char* key : {"msvcp_dll_names", "msvcp_dll_name", "nvcuda_dll_name", "cudart_dll_name",
                          "cudnn_dll_name"}) {
    add_strings(find(vars, dict, key), d.dll_names);
  }
  // The oldest generation says only which libraries it names: a CUDA version means CUDA.
  if (!d.cuda_build && d.cuda) d.cuda_build = true;
  if (!d.cuda_build && !d.rocm_build && !d.cuda && !d.cudnn) return std::nullopt;
  if (d.cuda_build == false) {
    d.cuda.reset();
    d.cudnn.reset();
  }
  return d;
}

std::string local_version_label(std::string_view version) {
  const size_t plus = version.find('+');
  return plus == std::string_view::npos ? std::string() : std::string(version.substr(plus + 1));
}

std::optional<std::string> cuda_from_cu_tag(std::string_view tag) {
  if (!tag.starts_with("cu")) return std::nullopt;
  const std::string_view digits = tag.substr(2);
  if (digits.size() < 2 || digits.size() > 3 || !text::is_digits(digits)) return std::nullopt;
  return std::string(digits.substr(0, digits.size() - 1)) + "." +
         std::string(digits.substr(digits.size() - 1));
}

std::optional<BuildDeclaration> parse_torch_version(std::string_view source) {
  const Assignments vars = module_assignments(source);
  BuildDeclaration d;
  d.version = string_of(find(vars, nullptr, "__version__"));
  const PyValue* cuda = find(vars, nullptr, "cuda");
  const PyValue* hip = find(vars, nullptr, "hip");
  if (!d.version && !cuda && !hip) return std::nullopt;
  if (auto v = string_of(cuda); v && version::is_dotted(*v)) d.cuda = major_minor(*v);
  if (auto v = string_of(hip)) d.rocm = *v;
  // The file names both: a value means that build, None means not.
  if (cuda) d.cuda_build = d.cuda.has_value();
  if (hip) d.rocm_build = d.rocm.has_value();
  // Files without a cuda line: the local label still tells (+cu121, +cpu, +rocm5.6).
  if (!cuda && d.version) {
    const std::string label = local_version_label(*d.version);
    if (auto from_tag = cuda_from_cu_tag(label)) {
      d.cuda = from_tag;
      d.cuda_build = true;
    } else if (label == "cpu") {
      d.cuda_build = false;
    }
  }
  return d;
}

std::optional<BuildDeclaration> parse_paddle_version(std::string_view source) {
  const Assignments vars = module_assignments(source);
  BuildDeclaration d;
  d.version = string_of(find(vars, nullptr, "full_version"));
  // A CPU build writes 'False' where a GPU build writes the version.
  if (auto v = string_of(find(vars, nullptr, "cuda_version"))) {
    if (version::is_dotted(*v)) d.cuda = major_minor(*v);
  }
  if (auto v = string_of(find(vars, nullptr, "cudnn_version"))) {
    if (version::is_dotted(*v)) d.cudnn = major_minor(*v);
  }
  if (auto gpu = bool_of(find(vars, nullptr, "with_gpu"))) {
    d.cuda_build = *gpu;
  } else if (find(vars, nullptr, "cuda_version")) {
    d.cuda_build = d.cuda.has_value();
  }
  if (!d.version && !d.cuda_build) return std::nullopt;
  return d;
}

std::optional<BuildDeclaration> parse_onnxruntime_build_info(std::string_view source) {
  const Assignments vars = module_assignments(source);
  BuildDeclaration d;
  d.version = string_of(find(vars, nullptr, "__version__"));
  const auto package = string_of(find(vars, nullptr, "package_name"));
  if (!d.version && !package) return std::nullopt;
  if (auto v = string_of(find(vars, nullptr, "cuda_version")); v && version::is_dotted(*v)) {
    d.cuda = major_minor(*v);
  }
  if (auto v = string_of(find(vars, nullptr, "cudnn_version")); v && version::is_dotted(*v)) {
    d.cudnn = major_minor(*v);
  }
  if (auto v = string_of(find(vars, nullptr, "rocm_version")); v && version::is_dotted(*v)) {
    d.rocm_build = true;
    d.rocm = *v;
  }
  // Only a CUDA build writes cuda_version; a package without it runs on the CPU (or DirectML,
  // OpenVINO ...), never on CUDA.
  d.cuda_build = d.cuda.has_value();
  return d;
}

std::optional<BuildDeclaration> parse_cupy_wheel_json(std::string_view text) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  BuildDeclaration d;
  d.cuda_build = true;
  if (const auto it = doc.find("cuda"); it != doc.end() && it->is_string()) {
    // "12.x" is any CUDA 12; "10.2" that release.
    std::string cuda = it->get<std::string>();
    if (cuda.ends_with(".x")) cuda.resize(cuda.size() - 2);
    if (version::is_dotted(cuda)) d.cuda = major_minor(cuda);
  }
  if (const auto it = doc.find("cudnn"); it != doc.end() && it->is_object()) {
    const auto version = it->find("version");
    if (version != it->end() && version->is_string() &&
        version::is_dotted(version->get<std::string>())) {
      d.cudnn = major_minor(version->get<std::string>());
    }
  }
  return d;
}

std::optional<BuildDeclaration> parse_jaxlib_label(std::string_view label) {
  // "cuda12.cudnn89", "cuda11.cudnn82", "cuda111"
  if (!label.starts_with("cuda")) return std::nullopt;
  BuildDeclaration d;
  d.cuda_build = true;
  for (const auto& part : text::split(label, '.')) {
    if (part.starts_with("cudnn")) {
      const std::string digits = part.substr(5);
      if (digits.size() >= 2 && text::is_digits(digits)) {
        d.cudnn = digits.substr(0, 1) + "." + digits.substr(1);
      }
    } else if (part.starts_with("cuda")) {
      const std::string digits = part.substr(4);
      if (!text::is_digits(digits)) return std::nullopt;
      // "cuda12" is a major; "cuda111" is 11.1 and "cuda92" 9.2 (no CUDA major is above 19).
      if (digits.size() == 3) {
        d.cuda = digits.substr(0, 2) + "." + digits.substr(2);
      } else if (digits.size() == 2 && digits[0] >= '2') {
        d.cuda = digits.substr(0, 1) + "." + digits.substr(1);
      } else {
        d.cuda = digits;
      }
    }
  }
  if (!d.cuda) return std::nullopt;
  return d;
}

}  // namespace gpuvet::python
