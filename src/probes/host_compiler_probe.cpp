// The host C++ compiler nvcc would run on Linux, and the newest GCC each toolkit's nvcc accepts.
// Both come from files and from the compiler's own `-dumpversion`: nothing is compiled.
#include <map>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "probes/probes.hpp"
#include "system/real_path.hpp"

namespace gpuvet::probes {

namespace {

bool is_program(const sys::System& system, const std::string& path) {
  const auto info = system.file_info(path);
  return info && info->kind == sys::FileKind::regular;
}

// The first `name` in the PATH's directories.
std::optional<std::string> on_path(const sys::System& system, const Facts& facts,
                                   std::string_view name) {
  for (const auto& dir : facts.env.path) {
    const std::string program = paths::join(dir, name);
    if (is_program(system, program)) return program;
  }
  return std::nullopt;
}

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
    if (const auto text =
            system.read_text(paths::join(toolkit.root, "include/crt/host_config.h"))) {
      toolkit.host_gcc_max = host_config_gcc_max(*text);
    }
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

void probe_host_compiler(const sys::System& system, const kb::Kb& /*kb*/, Facts& facts) {
  // nvcc's host compiler on Windows is Visual Studio's cl.exe, found by vcvars: not read here.
  if (facts.os.family != "linux") return;
  read_toolkit_limits(system, facts);
  if (facts.cuda_toolkits.empty()) return;
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
