#pragma once
// What a framework's own generated files say about how it was built, read as text.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::python {

struct BuildDeclaration {
  std::optional<std::string> version;  // the framework's version, where the file carries it
  std::optional<bool> cuda_build;      // built with CUDA
  std::optional<bool> rocm_build;      // built with ROCm (HIP) instead
  std::optional<std::string> cuda;     // dotted major.minor, or a bare major
  std::optional<std::string> cudnn;    // dotted, or a bare major ("8")
  std::optional<std::string> rocm;     // the ROCm/HIP version of a ROCm build
  std::vector<std::string> compute_capabilities;  // "sm_70", "compute_80" as the build lists them
  std::vector<std::string> dll_names;             // Windows DLLs the build loads by name
};

// tensorflow/python/platform/build_info.py, every generation: module variables
// (cuda_version_number ...), a `build_info = {...}` dict, `collections.OrderedDict([...])`.
// Windows spells versions "64_112" (CUDA 11.2) and "64_8" (cuDNN 8).
std::optional<BuildDeclaration> parse_tensorflow_build_info(std::string_view source);

// torch/version.py: __version__ ('2.1.0+cu121'), cuda ('12.1' or None), hip.
std::optional<BuildDeclaration> parse_torch_version(std::string_view source);

// paddle/version/__init__.py: full_version, with_gpu, cuda_version / cudnn_version ('False' for
// a CPU build).
std::optional<BuildDeclaration> parse_paddle_version(std::string_view source);

// cupy/.data/_wheel.json: {"cuda": "12.x", "cudnn": {"version": "8.8.1", ...}, ...}.
std::optional<BuildDeclaration> parse_cupy_wheel_json(std::string_view text);

// onnxruntime/capi/build_and_package_info.py, written by onnxruntime's setup.py: package_name,
// __version__, cuda_version ('12.2' in a CUDA build), cudnn_version, rocm_version.
std::optional<BuildDeclaration> parse_onnxruntime_build_info(std::string_view source);

// TensorFlow's Windows "64_112" -> "11.2"; "11.8" stays; "12.5.1" -> "12.5".
std::optional<std::string> tensorflow_cuda_version(std::string_view value);
// "64_8" -> "8"; "8" stays; "9.3.0" -> "9.3".
std::optional<std::string> tensorflow_cudnn_version(std::string_view value);

// The CUDA a local version label or name suffix declares: "cu121" -> "12.1", "cu92" -> "9.2",
// "cu100" -> "10.0", "cu130" -> "13.0"; nullopt for anything else.
std::optional<std::string> cuda_from_cu_tag(std::string_view tag);
// The local version label: "2.1.0+cu121" -> "cu121"; empty when there is none.
std::string local_version_label(std::string_view version);
// jaxlib's local label "cuda12.cudnn89" -> cuda "12", cudnn "8.9".
std::optional<BuildDeclaration> parse_jaxlib_label(std::string_view label);

}  // namespace gpuvet::python
