#include "system/redact.hpp"

#include <array>

#include "core/text.hpp"

namespace gpuvet::redact {

namespace {

// Whole names, compared case-insensitively (Windows spells some of them in mixed case).
constexpr std::array kKeptNames = {"PATH",
                                   "LD_LIBRARY_PATH",
                                   "LIBRARY_PATH",
                                   "LD_PRELOAD",
                                   "CPATH",
                                   "DYLD_LIBRARY_PATH",
                                   "PYTHONPATH",
                                   "PYTHONHOME",
                                   "PYTHONNOUSERSITE",
                                   "PYTHONUSERBASE",
                                   "VIRTUAL_ENV",
                                   "HOME",
                                   "USERPROFILE",
                                   "LOCALAPPDATA",
                                   "APPDATA",
                                   "PROGRAMDATA",
                                   "PROGRAMFILES",
                                   "PROGRAMFILES(X86)",
                                   "PROGRAMW6432",
                                   "SYSTEMROOT",
                                   "SYSTEMDRIVE",
                                   "WINDIR",
                                   "PATHEXT",
                                   "OS",
                                   "PROCESSOR_ARCHITECTURE",
                                   "LANG",
                                   "LC_ALL",
                                   "LC_MESSAGES",
                                   "LANGUAGE",
                                   "XLA_FLAGS",
                                   "OMP_NUM_THREADS",
                                   "WSL_DISTRO_NAME",
                                   "WSL_INTEROP",
                                   "WSLENV",
                                   "CONTAINER",
                                   "SLURM_JOB_GPUS",
                                   "SLURM_STEP_GPUS",
                                   "GPU_DEVICE_ORDINAL",
                                   "ROCR_VISIBLE_DEVICES",
                                   "HIP_VISIBLE_DEVICES",
                                   "KUBERNETES_SERVICE_HOST"};

// Families of variables that configure the GPU stack and the frameworks.
constexpr std::array kKeptPrefixes = {"CUDA_",  "CUDNN_", "NVIDIA_",  "NCCL_",  "TF_",
                                      "XLA_",   "JAX_",   "PYTORCH_", "TORCH_", "CUPY_",
                                      "CONDA_", "MAMBA_", "PYENV",    "PIPX_",  "FLAGS_"};

// Even inside a kept family, a name that says it holds a credential is redacted.
constexpr std::array kSecretWords = {"KEY",  "TOKEN",  "SECRET",  "PASSWORD", "PASSWD",    "CRED",
                                     "AUTH", "COOKIE", "SESSION", "PRIVATE",  "SIGNATURE", "CERT"};

// Terraform and OpenTofu share the TF_ prefix with TensorFlow; these of their variables carry
// credentials, passphrases or whole command lines.
constexpr std::array kDeniedPrefixes = {"TF_VAR_",    "TF_CLI_",   "TF_TOKEN_",    "TF_ENCRYPTION",
                                        "TF_HTTP_",   "TF_CLOUD_", "TF_WORKSPACE", "TF_REGISTRY_",
                                        "TF_PLUGIN_", "TF_STATE_", "TF_DATA_DIR",  "TF_REATTACH_"};

}  // namespace

bool is_kept(std::string_view name) {
  for (const char* prefix : kDeniedPrefixes) {
    if (text::starts_with_icase(name, prefix)) return false;
  }
  for (const char* word : kSecretWords) {
    if (text::contains_icase(name, word)) return false;
  }
  for (const char* kept : kKeptNames) {
    if (text::to_lower(name) == text::to_lower(kept)) return true;
  }
  for (const char* prefix : kKeptPrefixes) {
    if (text::starts_with_icase(name, prefix)) return true;
  }
  return false;
}

std::string scrub_value(std::string_view value) {
  std::string out;
  size_t i = 0;
  while (i < value.size()) {
    const size_t scheme = value.find("://", i);
    if (scheme == std::string_view::npos) break;
    const size_t authority = scheme + 3;
    // The authority ends where the path, query or fragment starts, or the value moves on.
    size_t end = authority;
    while (end < value.size() &&
           std::string_view("/?# ;,\t\n").find(value[end]) == std::string_view::npos) {
      ++end;
    }
    out.append(value.substr(i, authority - i));
    // Credentials run to the last '@' (a password may itself hold one).
    const size_t at = value.substr(authority, end - authority).rfind('@');
    if (at != std::string_view::npos) {
      out.append(kRedacted).append("@");
      out.append(value.substr(authority + at + 1, end - authority - at - 1));
    } else {
      out.append(value.substr(authority, end - authority));
    }
    i = end;
    // anaconda.org channel tokens live in the path: https://conda.anaconda.org/t/<token>/channel
    if (value.substr(i).starts_with("/t/")) {
      const size_t token_end = value.find('/', i + 3);
      out.append("/t/").append(kRedacted);
      i = token_end == std::string_view::npos ? value.size() : token_end;
    }
  }
  out.append(value.substr(std::min(i, value.size())));
  return out;
}

std::map<std::string, std::string> environment(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : env) {
    out[name] = is_kept(name) ? scrub_value(value) : kRedacted;
  }
  return out;
}

}  // namespace gpuvet::redact
