#include "system/redact.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>

#include "core/text.hpp"

namespace gpuvet::redact {

namespace {

// Whole names, compared case-insensitively (Windows spells some of them in mixed case).
constexpr std::array kKeptNames = {"PATH",
                                   "LD_LIBRARY_PATH",
                                   "LIBRARY_PATH",
                                   "LD_PRELOAD",
                                   "GLIBC_TUNABLES",
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
                                   "SLURM_CONF",
                                   "GPU_DEVICE_ORDINAL",
                                   "ROCR_VISIBLE_DEVICES",
                                   "HIP_VISIBLE_DEVICES",
                                   "KUBERNETES_SERVICE_HOST",
                                   "CC",
                                   "CXX",
                                   "CUDAHOSTCXX"};

// Families of variables that configure the GPU stack and the frameworks.
constexpr std::array kKeptPrefixes = {"CUDA_", "CUDNN_",   "NVIDIA_", "NCCL_", "TF_",    "XLA_",
                                      "JAX_",  "PYTORCH_", "TORCH_",  "CUPY_", "CONDA_", "MAMBA_",
                                      "PYENV", "PIPX_",    "FLAGS_",  "NVCC_", "TRITON_"};

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
    if (name.size() == std::string_view(kept).size() && text::starts_with_icase(name, kept)) {
      return true;
    }
  }
  for (const char* prefix : kKeptPrefixes) {
    if (text::starts_with_icase(name, prefix)) return true;
  }
  return false;
}

namespace {

// Well-known token shapes: what each issuer documents its tokens to look like.
struct TokenShape {
  const char* issuer;
  const char* pattern;
  const char* source;
};
constexpr TokenShape kTokenShapes[] = {
    {"GitHub", R"(\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255}))",
     "https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/"},
    {"GitLab", R"(\bglpat-[A-Za-z0-9_-]{20,})",
     "https://docs.gitlab.com/ee/security/token_overview.html"},
    {"Hugging Face", R"(\bhf_[A-Za-z0-9]{30,})", "https://huggingface.co/docs/hub/security-tokens"},
    {"OpenAI, Anthropic", R"(\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{20,}[A-Za-z0-9_-]*)",
     "https://platform.openai.com/docs/api-reference/authentication"},
    {"AWS access key id",
     R"(\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16}\b)",
     "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html"},
    {"Slack", R"(\bxox[abposre]-[A-Za-z0-9-]{10,})",
     "https://api.slack.com/authentication/token-types"},
    {"Slack webhook", R"(hooks\.slack\.com/services/[A-Za-z0-9/_-]+)",
     "https://api.slack.com/messaging/webhooks"},
    {"JWT", R"(\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,})",
     "RFC 7519 section 7.1 (base64url of a JSON header that starts with {\")"},
    {"PyPI", R"(\bpypi-[A-Za-z0-9_-]{50,})", "https://pypi.org/help/#apitoken"},
    {"npm", R"(\bnpm_[A-Za-z0-9]{36}\b)",
     "https://github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format/"},
    {"Google API key", R"(\bAIza[0-9A-Za-z_-]{35})",
     "https://cloud.google.com/docs/authentication/api-keys"},
    {"NVIDIA NGC", R"(\bnvapi-[A-Za-z0-9_-]{20,})",
     "https://docs.nvidia.com/ngc/gpu-cloud/ngc-user-guide/index.html#generating-api-key"},
    {"PEM private key",
     R"(-----BEGIN [A-Z ]*PRIVATE KEY-----[^-]*-----END [A-Z ]*PRIVATE KEY-----)",
     "RFC 7468 section 2"},
};

const std::vector<std::unique_ptr<re2::RE2>>& token_shapes() {
  static const auto compiled = [] {
    std::vector<std::unique_ptr<re2::RE2>> out;
    for (const auto& shape : kTokenShapes)
      out.push_back(std::make_unique<re2::RE2>(shape.pattern));
    return out;
  }();
  return compiled;
}

// Where `pattern` matches, group `replaced` becomes the marker when `decide` says so.
template <typename Decide>
std::string replace_group(std::string_view text, const re2::RE2& pattern, int replaced,
                          std::string_view marker, Decide decide) {
  const int groups = pattern.NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> match(static_cast<size_t>(groups));
  std::string out;
  size_t pos = 0;
  size_t copied = 0;
  while (pos <= text.size() &&
         pattern.Match(re2::StringPiece(text.data(), text.size()), pos, text.size(),
                       re2::RE2::UNANCHORED, match.data(), groups)) {
    const re2::StringPiece& value = match[static_cast<size_t>(replaced)];
    const size_t value_at = static_cast<size_t>(value.data() - text.data());
    const size_t match_end = static_cast<size_t>(match[0].data() - text.data()) + match[0].size();
    if (!value.empty() && decide(match)) {
      out.append(text.substr(copied, value_at - copied)).append(marker);
      copied = value_at + value.size();
      pos = std::max(copied, match_end);
    } else {
      // Go on after the key: the value may itself hold a key=value (a URL's query).
      pos = value.empty() ? match_end : value_at;
      if (match[0].empty() || pos <= static_cast<size_t>(match[0].data() - text.data())) ++pos;
    }
  }
  out.append(text.substr(std::min(copied, text.size())));
  return out;
}

std::vector<std::string> name_words(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alnum = std::isalnum(static_cast<unsigned char>(c)) != 0;
    // camelCase starts a word too: ApiKey -> api, key.
    const bool upper_after_lower = i > 0 && std::isupper(static_cast<unsigned char>(c)) &&
                                   std::islower(static_cast<unsigned char>(name[i - 1]));
    if ((!alnum || upper_after_lower) && !word.empty()) {
      words.push_back(text::to_lower(word));
      word.clear();
    }
    if (alnum) word.push_back(c);
  }
  if (!word.empty()) words.push_back(text::to_lower(word));
  return words;
}

}  // namespace

bool is_secret_name(std::string_view name) {
  const std::string lower = text::to_lower(name);
  for (const char* word : {"password", "passwd", "passphrase", "secret", "credential", "apikey",
                           "accesskey", "privatekey", "cookie"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  const auto words = name_words(name);
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.ends_with("token") || w.ends_with("tokens") || w == "auth" || w == "authorization" ||
        w == "pwd" || w == "bearer") {
      return true;
    }
    // api_key, secret_key, upload_key: "key" after another word (a bare "key" names a lookup).
    if ((w == "key" || w == "keys") && i > 0) return true;
  }
  return false;
}

std::string scrub_text(std::string_view input, std::string_view marker) {
  // user:password@ in any URL: the credentials run to the last '@' of the authority.
  static const re2::RE2 url_credentials(R"([A-Za-z][A-Za-z0-9+.-]*://([^/?#\s"'<>\\]*)@)");
  // anaconda.org channel tokens live in the path: https://conda.anaconda.org/t/<token>/channel
  static const re2::RE2 channel_token(R"(://[^/?#\s"'<>\\]+/t/([^/?#\s"'<>\\]+))");
  // key=value, key: value, --key=value (env values, flags, YAML, INI, query strings).
  static const re2::RE2 key_value(
      R"(([A-Za-z][A-Za-z0-9_.-]*)[ \t]*[:=][ \t]*["']?([^\s"',;&<>\\]+))");
  // "key": "value" in JSON, also as escaped inside another JSON string.
  static const re2::RE2 json_member(
      R"(\\?"([A-Za-z][A-Za-z0-9_.-]*)\\?"\s*:\s*\\?"([^"\\<][^"\\]*))");
  const auto always = [](const auto&) { return true; };
  const auto secret_key = [](const auto& match) {
    return is_secret_name(std::string_view(match[1].data(), match[1].size()));
  };
  std::string out = replace_group(input, url_credentials, 1, marker, always);
  out = replace_group(out, channel_token, 1, marker, always);
  out = replace_group(out, json_member, 2, marker, secret_key);
  // A path's last component before ": message" names a file, not a key: "/etc/passwd: not an
  // ELF file" and "C:\\Users\\me\\secrets.json: No such file" keep their words.
  const std::string keyed = out;
  const auto secret_key_not_in_path = [&keyed, &secret_key](const auto& match) {
    const size_t at = static_cast<size_t>(match[1].data() - keyed.data());
    // After '.', too: a key with a dot inside starts before it, so this one follows a separator
    // (/home/me/.git-credentials).
    if (at > 0 && (keyed[at - 1] == '/' || keyed[at - 1] == '\\' || keyed[at - 1] == '.'))
      return false;
    return secret_key(match);
  };
  out = replace_group(keyed, key_value, 2, marker, secret_key_not_in_path);
  for (const auto& shape : token_shapes()) {
    re2::RE2::GlobalReplace(&out, *shape, re2::StringPiece(marker.data(), marker.size()));
  }
  return out;
}

std::string scrub_value(std::string_view value) {
  return scrub_text(value);
}

std::map<std::string, std::string> environment(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : env) {
    out[name] = is_kept(name) ? scrub_value(value) : kRedacted;
  }
  return out;
}

Identity identity_of(const std::map<std::string, std::string>& env) {
  Identity id;
  for (const char* name : {"USER", "USERNAME", "LOGNAME"}) {
    const auto it = env.find(name);
    if (it != env.end() && !it->second.empty() && it->second != kRedacted) {
      id.user = it->second;
      break;
    }
  }
  for (const char* name : {"HOME", "USERPROFILE"}) {
    const auto it = env.find(name);
    if (it != env.end() && !it->second.empty() && it->second != kRedacted) {
      id.home = it->second;
      break;
    }
  }
  return id;
}

namespace {

bool is_separator(char c) {
  return c == '/' || c == '\\';
}

std::string last_component(std::string_view path) {
  while (!path.empty() && is_separator(path.back()))
    path.remove_suffix(1);
  const size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// The user name where it is a whole path component; names compare case-insensitively, as
// Windows compares its paths.
void replace_component(std::string& text, std::string_view user, std::string_view marker) {
  const std::string lower_user = text::to_lower(user);
  std::string lower = text::to_lower(text);
  size_t at = lower.find(lower_user);
  while (at != std::string::npos) {
    const size_t end = at + user.size();
    const bool starts = at > 0 && is_separator(text[at - 1]);
    const bool ends =
        end == text.size() ||
        std::string_view("/\\\"':;, \t\r\n<>)]}").find(text[end]) != std::string_view::npos;
    if (starts && ends) {
      text.replace(at, user.size(), marker);
      lower.replace(at, user.size(), marker);
      at = lower.find(lower_user, at + marker.size());
    } else {
      at = lower.find(lower_user, at + 1);
    }
  }
}

}  // namespace

std::string redact_user(std::string_view text, const std::vector<Identity>& identities,
                        std::string_view user_marker) {
  std::string out(text);
  for (const auto& id : identities) {
    const std::string user = id.user.empty() ? last_component(id.home) : id.user;
    // A home that does not end in the user's name (/u/a1234) is replaced as a whole.
    if (!id.home.empty() && text::to_lower(last_component(id.home)) != text::to_lower(user)) {
      std::string slashes = id.home;
      std::replace(slashes.begin(), slashes.end(), '\\', '/');
      std::string backslashes = id.home;
      std::replace(backslashes.begin(), backslashes.end(), '/', '\\');
      std::string escaped;
      for (const char c : backslashes)
        escaped += c == '\\' ? std::string("\\\\") : std::string(1, c);
      for (const auto& spelling : {escaped, slashes, backslashes})
        replace_all(out, spelling, "<home>");
    }
    // Names of one or two letters would hit too many unrelated path components.
    if (user.size() > 2) replace_component(out, user, user_marker);
  }
  return out;
}

}  // namespace gpuvet::redact
