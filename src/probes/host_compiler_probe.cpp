// The host C++ compiler nvcc would run, and the host compilers each toolkit's nvcc accepts: on
// Linux GCC (the compiler's own `-dumpversion`), on Windows Visual Studio's MSVC (its toolset
// folders). Only files are read and `gcc -dumpversion` run: nothing is compiled.
#include <algorithm>
#include <map>
#include <tuple>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "probes/probes.hpp"
#include "probes/programs.hpp"
#include "system/real_path.hpp"

namespace gpuvet::probes {

namespace {

// NVCC_CCBIN names a compiler, or the directory nvcc looks for gcc in; a bare name is looked up on
// PATH, as nvcc -ccbin does.
std::optional<std::string> ccbin_program(const sys::System& system, const Facts& facts,
                                         const std::string& value) {
  if (!paths::is_absolute(value)) return on_path(system, facts, value);
  const std::string given = paths::normalize(value);
  if (system.is_directory(given)) {
    const std::string program = paths::join(given, "gcc");
    return is_program(system, program) ? std::optional(program) : std::nullopt;
  }
  return is_program(system, given) ? std::optional(given) : std::nullopt;
}

// The major of a program called gcc-12, g++-12 or x86_64-linux-gnu-gcc-12 (Debian's names).
std::optional<std::string> major_from_name(std::string_view path) {
  const std::string_view name = path.substr(path.find_last_of('/') + 1);
  const size_t dash = name.rfind('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const std::string_view stem = name.substr(0, dash);
  const std::string_view number = name.substr(dash + 1);
  const bool gnu = stem.ends_with("gcc") || stem.ends_with("g++");
  if (!gnu || number.empty() || number.size() > 3 || !text::is_digits(number)) {
    return std::nullopt;
  }
  return std::string(number);
}

// `gcc -dumpversion` prints "12" (GCC 7 and later) or "6.3.0"; anything else is not a GCC's word.
std::optional<std::string> dumped_version(const sys::System& system, const std::string& program) {
  const auto run = system.run_program(program, {"-dumpversion"});
  if (!run || run->exit_code != 0) return std::nullopt;
  const std::string value(text::trim(run->output));
  if (value.empty() || value.size() > 16) return std::nullopt;
  for (const auto& part : text::split(value, '.')) {
    if (part.empty() || !text::is_digits(part)) return std::nullopt;
  }
  return value;
}

// gcc-N programs in the PATH's directories other than the one nvcc runs: the first of each
// major, by major ascending.
std::vector<std::string> other_gcc(const sys::System& system, const Facts& facts,
                                   const std::optional<std::string>& own) {
  std::map<int, std::string> by_major;
  for (const auto& dir : facts.env.path) {
    const auto entries = system.list_dir(dir);
    if (!entries) continue;
    for (const auto& entry : *entries) {
      if (!entry.name.starts_with("gcc-")) continue;
      const auto major = major_from_name(entry.name);
      if (major && major != own) by_major.emplace(std::stoi(*major), paths::join(dir, entry.name));
    }
  }
  std::vector<std::string> out;
  for (const auto& [major, path] : by_major)
    out.push_back(path);
  return out;
}

// By the program's name, links followed or not: /usr/bin/cc may lead to either.
std::string compiler_family(const HostCompilerFact& fact) {
  const auto name = [](std::string_view path) { return path.substr(path.find_last_of('/') + 1); };
  for (const std::string_view path : {fact.real_path, fact.path}) {
    const std::string_view base = name(path);
    if (base.find("clang") != std::string_view::npos) return "clang";
    if (base.find("gcc") != std::string_view::npos || base.find("g++") != std::string_view::npos) {
      return "gcc";
    }
  }
  return "other";
}

void add_compiler(const sys::System& system, Facts& facts,
                  const std::optional<std::string>& program, std::string_view source) {
  if (!program) return;
  HostCompilerFact fact;
  fact.source = std::string(source);
  fact.path = *program;
  fact.real_path = sys::real_path(system, *program);
  fact.family = compiler_family(fact);
  if (fact.family == "gcc") {
    fact.version = dumped_version(system, *program);
    if (!fact.version) fact.version = major_from_name(fact.real_path);
    if (!fact.version) fact.version = major_from_name(fact.path);
    const auto own = fact.version ? std::optional(fact.version->substr(0, fact.version->find('.')))
                                  : std::nullopt;
    fact.other_gcc = other_gcc(system, facts, own);
  }
  facts.host_compilers.push_back(std::move(fact));
}

void read_toolkit_limits(const sys::System& system, Facts& facts) {
  for (auto& toolkit : facts.cuda_toolkits) {
    const auto text = system.read_text(paths::join(toolkit.root, "include/crt/host_config.h"));
    if (!text) continue;
    toolkit.host_gcc_max = host_config_gcc_max(*text);
    if (const auto range = host_config_msc_range(*text)) {
      toolkit.host_msc_min = range->first;
      toolkit.host_msc_below = range->second;
    }
    toolkit.host_msvc_names = host_config_msvc_names(*text);
  }
}

// Visual Studio keeps each MSVC toolset in <install>/VC/Tools/MSVC/<14.YY.ZZZZZ>: 2017 and 2019
// under Program Files (x86), 2022 and later under Program Files, every edition and Build Tools.
constexpr const char* kVisualStudioRoots[] = {"C:/Program Files/Microsoft Visual Studio",
                                              "C:/Program Files (x86)/Microsoft Visual Studio"};

// The toolset folder in a path like .../VC/Tools/MSVC/14.44.35207/bin/Hostx64/x64/cl.exe.
std::optional<std::string> toolset_of(std::string path) {
  std::replace(path.begin(), path.end(), '\\', '/');
  const std::string lower = text::to_lower(path);
  const size_t at = lower.find("/vc/tools/msvc/");
  if (at == std::string::npos) return std::nullopt;
  const size_t start = at + 15;
  const std::string version = path.substr(start, path.find('/', start) - start);
  if (!msc_ver_of_toolset(version)) return std::nullopt;
  return version;
}

void add_msvc(const sys::System& system, Facts& facts, const std::string& cl,
              std::string_view source) {
  HostCompilerFact fact;
  fact.source = std::string(source);
  fact.path = cl;
  fact.real_path = sys::real_path(system, cl);
  fact.family = "msvc";
  fact.version = toolset_of(cl);
  if (fact.version) fact.msc_ver = msc_ver_of_toolset(*fact.version);
  facts.host_compilers.push_back(std::move(fact));
}

std::vector<sys::DirEntry> children(const sys::System& system, const std::string& dir) {
  return system.list_dir(dir).value_or(std::vector<sys::DirEntry>{});
}

// Every installed toolset's 64-bit cl.exe, oldest first.
std::vector<std::string> installed_msvc(const sys::System& system) {
  std::vector<std::tuple<int, std::string, std::string>> found;  // _MSC_VER, toolset, cl.exe
  for (const char* root : kVisualStudioRoots) {
    for (const auto& release : children(system, root)) {
      const std::string release_dir = paths::join(root, release.name);
      for (const auto& edition : children(system, release_dir)) {
        const std::string tools = paths::join(release_dir, edition.name + "/VC/Tools/MSVC");
        for (const auto& toolset : children(system, tools)) {
          const std::string cl = paths::join(tools, toolset.name + "/bin/Hostx64/x64/cl.exe");
          const auto msc = msc_ver_of_toolset(toolset.name);
          if (msc && is_program(system, cl)) found.emplace_back(*msc, toolset.name, cl);
        }
      }
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& entry : found)
    out.push_back(std::move(std::get<2>(entry)));
  return out;
}

// nvcc runs the cl.exe on Path (a Developer Command Prompt puts it there); CMake's Visual Studio
// generators hand it the newest Visual Studio's instead (-ccbin). Both are recorded.
void probe_windows(const sys::System& system, Facts& facts) {
  const auto on_path_cl = on_path(system, facts, "cl.exe");
  if (on_path_cl) add_msvc(system, facts, *on_path_cl, "PATH");
  for (const auto& cl : installed_msvc(system)) {
    if (on_path_cl && paths::comparison_key(cl, true) == paths::comparison_key(*on_path_cl, true)) {
      continue;
    }
    add_msvc(system, facts, cl, "VISUAL_STUDIO");
  }
}

}  // namespace

std::optional<std::string> host_config_gcc_max(std::string_view header) {
  constexpr std::string_view kMark = "gcc versions later than ";
  const size_t at = header.find(kMark);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = header.substr(at + kMark.size());
  const size_t end = rest.find_first_not_of("0123456789.");
  rest = rest.substr(0, end);
  while (rest.ends_with('.'))
    rest.remove_suffix(1);
  if (rest.empty() || rest.size() > 8 || rest.front() == '.') return std::nullopt;
  for (const auto& part : text::split(rest, '.')) {
    if (part.empty()) return std::nullopt;
  }
  return std::string(rest);
}

std::optional<std::pair<int, int>> host_config_msc_range(std::string_view header) {
  // "#if _MSC_VER < 1920 || _MSC_VER >= 1950"; older headers "_MSC_VER < 1600 || _MSC_VER > 1911".
  constexpr std::string_view kLow = "_MSC_VER < ";
  const size_t low = header.find(kLow);
  if (low == std::string_view::npos) return std::nullopt;
  const auto number_at = [&](size_t pos) -> std::optional<int> {
    const std::string_view rest = header.substr(pos);
    const size_t end = rest.find_first_not_of("0123456789");
    const std::string_view digits = rest.substr(0, end);
    if (digits.empty() || digits.size() > 5) return std::nullopt;
    return std::stoi(std::string(digits));
  };
  const auto min = number_at(low + kLow.size());
  const size_t line_end = header.find('\n', low);
  const std::string_view line = header.substr(
      low, line_end == std::string_view::npos ? std::string_view::npos : line_end - low);
  const size_t high = line.find("|| _MSC_VER >");
  if (!min || high == std::string_view::npos) return std::nullopt;
  size_t pos = low + high + 13;
  const bool inclusive = pos < header.size() && header[pos] == '=';
  if (inclusive) ++pos;
  while (pos < header.size() && header[pos] == ' ')
    ++pos;
  const auto max = number_at(pos);
  if (!max || *max <= *min) return std::nullopt;
  return std::make_pair(*min, inclusive ? *max : *max + 1);
}

std::optional<std::string> host_config_msvc_names(std::string_view header) {
  constexpr std::string_view kMark =
      "unsupported Microsoft Visual Studio version! Only the versions ";
  const size_t at = header.find(kMark);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = header.substr(at + kMark.size());
  rest = rest.substr(0, rest.find_first_of("!\n"));
  if (rest.starts_with("between ")) rest.remove_prefix(8);
  for (const std::string_view tail : {" (inclusive) are supported", " are supported"}) {
    if (rest.ends_with(tail)) rest.remove_suffix(tail.size());
  }
  if (rest.empty() || rest.size() > 64) return std::nullopt;
  return std::string(rest);
}

std::optional<int> msc_ver_of_toolset(std::string_view toolset) {
  const auto parts = text::split(toolset, '.');
  if (parts.size() < 2 || parts[0] != "14" || parts[1].size() != 2 || !text::is_digits(parts[1])) {
    return std::nullopt;
  }
  const int minor = std::stoi(parts[1]);
  if (minor < 10) return std::nullopt;  // 14.0 is Visual Studio 2015's, _MSC_VER 1900
  return 1900 + minor;
}

void probe_host_compiler(const sys::System& system, const kb::Kb& /*kb*/, Facts& facts) {
  if (facts.os.family != "linux" && facts.os.family != "windows") return;
  read_toolkit_limits(system, facts);
  if (facts.cuda_toolkits.empty()) return;
  if (facts.os.family == "windows") return probe_windows(system, facts);
  if (const auto ccbin = system.env("NVCC_CCBIN"); ccbin && !ccbin->empty()) {
    add_compiler(system, facts, ccbin_program(system, facts, *ccbin), "NVCC_CCBIN");
  } else {
    add_compiler(system, facts, on_path(system, facts, "gcc"), "PATH");
  }
  for (const char* variable : {"CC", "CUDAHOSTCXX"}) {
    const auto value = system.env(variable);
    // A value with flags ("ccache gcc") is not a program name.
    if (!value || value->empty() || value->find(' ') != std::string::npos) continue;
    add_compiler(system, facts, ccbin_program(system, facts, *value), variable);
  }
}

}  // namespace gpuvet::probes
