// `which` against the real dynamic loader. Each case arranges copies of real libraries (built by
// CMakeLists.txt beside this file) in a temporary tree, asks the oracle process which file
// dlopen() loads (from the executable, or from a loading module with its own RPATH/RUNPATH) with a
// controlled environment, and asks the resolver the same question on the live System with the
// same LD_LIBRARY_PATH. Both the name the loader opened (link_map l_name) and its realpath() must
// agree. The loader cache case compares with `ldconfig -p` on a cache built by the real
// `ldconfig`, and then dlopen()s the path the cache names.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "resolve/which.hpp"
#include "system/ld_cache.hpp"
#include "test_support.hpp"

namespace gpuvet::resolve {
namespace {

namespace fs = std::filesystem;

// The live System, except for the environment (only what the case sets, as `env -i` gives the
// oracle) and, where a case has one, a loader cache read from a test file.
class CaseSystem final : public sys::System {
 public:
  CaseSystem(std::optional<std::string> llp, std::optional<sys::LdCache> cache = std::nullopt,
             std::optional<std::string> tunables = std::nullopt)
      : live_(sys::make_live_system()),
        llp_(std::move(llp)),
        cache_(std::move(cache)),
        tunables_(std::move(tunables)) {}

  sys::HostInfo host() const override { return live_->host(); }
  std::optional<std::string> env(std::string_view name) const override {
    if (name == "GLIBC_TUNABLES") return tunables_;
    return name == "LD_LIBRARY_PATH" ? llp_ : std::nullopt;
  }
  std::map<std::string, std::string> environment() const override {
    std::map<std::string, std::string> all;
    if (llp_) all["LD_LIBRARY_PATH"] = *llp_;
    if (tunables_) all["GLIBC_TUNABLES"] = *tunables_;
    return all;
  }
  std::optional<sys::FileInfo> file_info(const std::string& path) const override {
    return live_->file_info(path);
  }
  std::optional<std::vector<sys::DirEntry>> list_dir(const std::string& path) const override {
    return live_->list_dir(path);
  }
  Result<std::string> read_text(const std::string& path) const override {
    return live_->read_text(path);
  }
  Result<std::string> read_head(const std::string& path, size_t max_bytes) const override {
    return live_->read_head(path, max_bytes);
  }
  Result<sys::ElfInfo> elf_info(const std::string& path) const override {
    return live_->elf_info(path);
  }
  Result<sys::PeVersion> pe_version(const std::string& path) const override {
    return live_->pe_version(path);
  }
  Result<sys::GpuCode> gpu_code(const std::string& path) const override {
    return live_->gpu_code(path);
  }
  std::optional<sys::RegistryValues> registry_values(const std::string& key) const override {
    return live_->registry_values(key);
  }
  std::vector<std::string> registry_subkeys(const std::string& key) const override {
    return live_->registry_subkeys(key);
  }
  std::optional<std::vector<std::string>> ld_cache_lookup(
      const std::string& soname) const override {
    if (!cache_) return live_->ld_cache_lookup(soname);
    return sys::ld_cache_lookup(*cache_, soname, sys::native_ld_cache_flags().value_or(0));
  }
  std::optional<sys::DriverAnswer> driver() const override { return std::nullopt; }
  std::optional<std::vector<sys::GpuAnswer>> gpus() const override { return std::nullopt; }
  std::optional<std::vector<sys::DisplayAdapter>> display_adapters() const override {
    return std::nullopt;
  }
  std::optional<sys::LoadAnswer> load(const std::string&) const override { return std::nullopt; }
  std::optional<sys::ProgramOutput> run_program(const std::string&,
                                                const std::vector<std::string>&) const override {
    return std::nullopt;
  }

 private:
  std::unique_ptr<sys::System> live_;
  std::optional<std::string> llp_;
  std::optional<sys::LdCache> cache_;
  std::optional<std::string> tunables_;
};

std::string run_command(const std::string& command) {
  return testing::run_command(command).output;
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// What ld.so says about itself (`ld.so --help`, glibc 2.33+): its trusted directories, the
// glibc-hwcaps subdirectories it searches on this CPU, and its $PLATFORM (AT_PLATFORM).
struct LdSoFacts {
  bool found = false;
  std::vector<std::string> default_dirs;
  std::vector<std::string> hwcaps;
  std::optional<std::string> platform;
};

// With exactly the GLIBC_TUNABLES given (none when empty), whatever the test runs under.
LdSoFacts read_ld_so_help(const std::string& tunables = "") {
  LdSoFacts facts;
  const std::string env =
      "env -u GLIBC_TUNABLES " + (tunables.empty() ? "" : "GLIBC_TUNABLES=" + tunables + " ");
  for (const char* ld_so : {"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"}) {
    if (!fs::exists(ld_so)) continue;
    for (const auto& line : text::split(run_command(env + ld_so + " --help"), '\n')) {
      const std::string trimmed(text::trim(line));
      if (trimmed.ends_with("(system search path)")) {
        facts.found = true;
        facts.default_dirs.push_back(trimmed.substr(0, trimmed.find(' ')));
      } else if (trimmed.starts_with("x86-64-v") && trimmed.ends_with("(supported, searched)")) {
        facts.hwcaps.push_back(trimmed.substr(0, trimmed.find(' ')));
      } else if (trimmed.find("(AT_PLATFORM") != std::string::npos) {
        facts.platform = trimmed.substr(0, trimmed.find(' '));
      }
    }
    break;
  }
  return facts;
}

const LdSoFacts& ld_so() {
  static const LdSoFacts facts = read_ld_so_help();
  return facts;
}

// The platform `which` detects; DetectedPlatformMatchesLdSo checks it against ld.so itself.
Platform oracle_platform(const sys::System& system) {
  return detect_platform(system);
}

struct OracleAnswer {
  std::optional<std::string> opened;  // l_name
  std::optional<std::string> real;    // realpath(l_name)
  std::string raw;
};

OracleAnswer ask_oracle(const std::string& cwd, const std::optional<std::string>& llp,
                        const std::optional<std::string>& from, const std::string& name) {
  std::string command = "cd " + quoted(cwd) + " && env -i";
  if (llp) command += " LD_LIBRARY_PATH=" + quoted(*llp);
  command += std::string(" ") + GVO_ORACLE;
  if (from) command += " --from " + quoted(*from);
  command += " " + quoted(name) + " 2>&1";
  OracleAnswer answer;
  answer.raw = run_command(command);
  const auto lines = text::split(answer.raw, '\n');
  if (lines.size() >= 2 && lines[0] != "NULL") {
    answer.opened = lines[0];
    answer.real = lines[1];
  }
  return answer;
}

// The temporary tree of one case. "@" in a case's strings stands for its root.
class Tree {
 public:
  std::string root() const { return dir_.path(); }
  std::string at(const std::string& relative) const { return root() + "/" + relative; }

  // A copy of a built file in a directory of the tree, with a link to it under link_name.
  void install(const std::string& built, const std::string& dir, const std::string& link_name) {
    const std::string file = fs::path(built).filename().string();
    fs::create_directories(at(dir));
    fs::copy_file(built, at(dir + "/" + file), fs::copy_options::overwrite_existing);
    if (!link_name.empty() && link_name != file)
      fs::create_symlink(file, at(dir + "/" + link_name));
  }
  void install_a(const std::string& built, const std::string& dir) {
    install(built, dir, "libgvo_a.so.1");
  }
  // A built module copied to app/bin, where its $ORIGIN/../lib is app/lib.
  void install_module(const std::string& built) { install(built, "app/bin", ""); }
  void write(const std::string& relative, const std::string& contents) {
    fs::create_directories(fs::path(at(relative)).parent_path());
    std::ofstream(at(relative), std::ios::binary) << contents;
  }
  void link(const std::string& relative, const std::string& target) {
    fs::create_directories(fs::path(at(relative)).parent_path());
    fs::create_symlink(target, at(relative));
  }
  // A copy of the library whose ELF header says another machine (AArch64, e_machine 183).
  void install_other_machine(const std::string& dir) {
    install_a(GVO_A_1_0, dir);
    std::fstream file(at(dir + "/libgvo_a.so.1.0.0"),
                      std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(18);  // e_machine, little-endian
    const char aarch64[2] = {static_cast<char>(183), 0};
    file.write(aarch64, 2);
  }

 private:
  testing::TempDir dir_;
};

std::string with_root(const std::string& s, const std::string& root) {
  std::string out;
  for (char c : s)
    out += c == '@' ? root : std::string(1, c);
  return out;
}

struct Case {
  Case(std::string id_, std::function<void(Tree&)> arrange_, std::string name_ = "libgvo_a.so.1",
       std::optional<std::string> llp_ = std::nullopt,
       std::optional<std::string> from_ = std::nullopt, std::string cwd_ = "")
      : id(std::move(id_)),
        arrange(std::move(arrange_)),
        name(std::move(name_)),
        llp(std::move(llp_)),
        from(std::move(from_)),
        cwd(std::move(cwd_)) {}

  std::string id;
  std::function<void(Tree&)> arrange;
  std::string name = "libgvo_a.so.1";
  std::optional<std::string> llp;
  std::optional<std::string> from;  // the loading module, "@"-relative
  std::string cwd;                  // relative to the root
  bool needs_32bit = false;
  // What the case is built to load: the real file, relative to the root; nullopt for nothing.
  std::optional<std::string> expected;

  Case loads(std::string relative) && {
    expected = std::move(relative);
    return std::move(*this);
  }
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.id;
}

bool ld_so_searches(const std::string& level) {
  const auto& levels = ld_so().hwcaps;
  return std::find(levels.begin(), levels.end(), level) != levels.end();
}

// $LIB as `which` detects it on this machine: the tokens case fails when it is wrong.
std::string lib_token() {
  return detect_platform(CaseSystem(std::nullopt)).lib;
}

std::string platform_token() {
  return oracle_platform(CaseSystem(std::nullopt)).platform;
}

const std::string kRunpathModule = "@/app/bin/libgvo_mod_runpath.so";
const std::string kRpathModule = "@/app/bin/libgvo_mod_rpath.so";

std::vector<Case> direct_cases() {
  return {
      {"not_found_anywhere", [](Tree&) {}},
      Case{"llp_single_dir", [](Tree& t) { t.install_a(GVO_A_1_0, "l1"); }, "libgvo_a.so.1", "@/l1"}
          .loads("l1/libgvo_a.so.1.0.0"),
      Case{"llp_first_of_two",
           [](Tree& t) {
             t.install_a(GVO_A_1_0, "l1");
             t.install_a(GVO_A_1_1, "l2");
           },
           "libgvo_a.so.1", "@/l1:@/l2"}
          .loads("l1/libgvo_a.so.1.0.0"),
      Case{"llp_order_reversed",
           [](Tree& t) {
             t.install_a(GVO_A_1_0, "l1");
             t.install_a(GVO_A_1_1, "l2");
           },
           "libgvo_a.so.1", "@/l2:@/l1"}
          .loads("l2/libgvo_a.so.1.1.0"),
      Case{"llp_semicolon_separates",
           [](Tree& t) {
             t.install_a(GVO_A_1_0, "l1");
             t.install_a(GVO_A_1_2, "l3");
           },
           "libgvo_a.so.1", "@/l3;@/l1"}
          .loads("l3/libgvo_a.so.1.2.0"),
      Case{"llp_missing_dir_skipped", [](Tree& t) { t.install_a(GVO_A_1_1, "l2"); },
           "libgvo_a.so.1", "@/nope:@/l2"}
          .loads("l2/libgvo_a.so.1.1.0"),
      Case{"llp_trailing_slashes", [](Tree& t) { t.install_a(GVO_A_1_1, "l2"); }, "libgvo_a.so.1",
           "@/l2//"}
          .loads("l2/libgvo_a.so.1.1.0"),
      Case{"llp_empty_entry_is_cwd",
           [](Tree& t) {
             t.install_a(GVO_A_1_0, "l1");
             t.install_a(GVO_A_1_2, "l3");
           },
           "libgvo_a.so.1", ":@/l1", std::nullopt, "l3"}
          .loads("l3/libgvo_a.so.1.2.0"),
      {"llp_set_but_empty", [](Tree& t) { t.install_a(GVO_A_1_0, "l1"); }, "libgvo_a.so.1", ""},
      Case{"llp_repeated_dir",
           [](Tree& t) {
             t.install_a(GVO_A_1_1, "l2");
             t.install_a(GVO_A_1_0, "l1");
           },
           "libgvo_a.so.1", "@/l2:@/l2:@/l1"}
          .loads("l2/libgvo_a.so.1.1.0"),
      {"dev_link_name_absent", [](Tree& t) { t.install_a(GVO_A_1_0, "l1"); }, "libgvo_a.so",
       "@/l1"},
      Case{"full_file_name",
           [](Tree& t) {
             t.install_a(GVO_A_1_0, "l1");
             t.install_a(GVO_A_1_1, "l2");
           },
           "libgvo_a.so.1.1.0", "@/l1:@/l2"}
          .loads("l2/libgvo_a.so.1.1.0"),
      Case{"other_soname_major",
           [](Tree& t) {
             t.install_a(GVO_A_1_0, "l1");
             t.install(GVO_A_2_0, "l4", "libgvo_a.so.2");
           },
           "libgvo_a.so.2", "@/l1:@/l4"}
          .loads("l4/libgvo_a.so.2.0.0"),
      Case{"wrong_machine_skipped",
           [](Tree& t) {
             t.install_other_machine("larm");
             t.install_a(GVO_A_1_1, "l2");
           },
           "libgvo_a.so.1", "@/larm:@/l2"}
          .loads("l2/libgvo_a.so.1.1.0"),
      {"linker_script_stops",
       [](Tree& t) {
         t.write("ltxt/libgvo_a.so.1", "/* GNU ld script */\nINPUT(libgvo_a.so.1.0.0)\n");
         t.install_a(GVO_A_1_1, "l2");
       },
       "libgvo_a.so.1", "@/ltxt:@/l2"},
      {"empty_file_stops",
       [](Tree& t) {
         t.write("lempty/libgvo_a.so.1", "");
         t.install_a(GVO_A_1_1, "l2");
       },
       "libgvo_a.so.1", "@/lempty:@/l2"},
      {"directory_stops",
       [](Tree& t) {
         fs::create_directories(t.at("ldir/libgvo_a.so.1"));
         t.install_a(GVO_A_1_1, "l2");
       },
       "libgvo_a.so.1", "@/ldir:@/l2"},
      Case{"dangling_link_skipped",
           [](Tree& t) {
             t.link("ldang/libgvo_a.so.1", "libgvo_a.so.1.9.9");
             t.install_a(GVO_A_1_1, "l2");
           },
           "libgvo_a.so.1", "@/ldang:@/l2"}
          .loads("l2/libgvo_a.so.1.1.0"),
      Case{"absolute_path_name",
           [](Tree& t) {
             t.install_a(GVO_A_1_0, "l1");
             t.install_a(GVO_A_1_1, "l2");
           },
           "@/l2/libgvo_a.so.1", "@/l1"}
          .loads("l2/libgvo_a.so.1.1.0"),
      {"absolute_path_missing", [](Tree& t) { t.install_a(GVO_A_1_0, "l1"); },
       "@/nope/libgvo_a.so.1", "@/l1"},
      Case{"relative_path_name", [](Tree& t) { t.install_a(GVO_A_1_1, "l2"); },
           "./l2/libgvo_a.so.1"}
          .loads("l2/libgvo_a.so.1.1.0"),
      Case{"hwcaps_subdirectory_first",
           [](Tree& t) {
             t.install_a(GVO_A_1_0, "l1");
             t.install_a(GVO_A_1_1, "l1/glibc-hwcaps/x86-64-v2");
           },
           "libgvo_a.so.1", "@/l1"}
          .loads(ld_so_searches("x86-64-v2") ? "l1/glibc-hwcaps/x86-64-v2/libgvo_a.so.1.1.0"
                                             : "l1/libgvo_a.so.1.0.0"),
  };
}

std::vector<Case> module_cases() {
  return {
      Case{"runpath_origin",
           [](Tree& t) {
             t.install_module(GVO_MOD_RUNPATH);
             t.install_a(GVO_A_1_2, "app/lib");
           },
           "libgvo_a.so.1", std::nullopt, kRunpathModule}
          .loads("app/lib/libgvo_a.so.1.2.0"),
      Case{"llp_before_runpath",
           [](Tree& t) {
             t.install_module(GVO_MOD_RUNPATH);
             t.install_a(GVO_A_1_2, "app/lib");
             t.install_a(GVO_A_1_0, "l1");
           },
           "libgvo_a.so.1", "@/l1", kRunpathModule}
          .loads("l1/libgvo_a.so.1.0.0"),
      Case{"rpath_before_llp",
           [](Tree& t) {
             t.install_module(GVO_MOD_RPATH);
             t.install_a(GVO_A_1_2, "app/lib");
             t.install_a(GVO_A_1_0, "l1");
           },
           "libgvo_a.so.1", "@/l1", kRpathModule}
          .loads("app/lib/libgvo_a.so.1.2.0"),
      Case{"rpath_falls_through_to_llp",
           [](Tree& t) {
             t.install_module(GVO_MOD_RPATH);
             t.install_a(GVO_A_1_0, "l1");
           },
           "libgvo_a.so.1", "@/l1", kRpathModule}
          .loads("l1/libgvo_a.so.1.0.0"),
      {"runpath_dir_missing", [](Tree& t) { t.install_module(GVO_MOD_RUNPATH); }, "libgvo_a.so.1",
       std::nullopt, kRunpathModule},
      Case{"origin_of_linked_module_is_the_link_dir",
           [](Tree& t) {
             t.install_module(GVO_MOD_RUNPATH);
             t.link("other/mod.so", "../app/bin/libgvo_mod_runpath.so");
             t.install_a(GVO_A_1_2, "app/lib");
             t.install_a(GVO_A_1_0, "lib");
           },
           "libgvo_a.so.1", std::nullopt, "@/other/mod.so"}
          .loads("lib/libgvo_a.so.1.0.0"),
      Case{"rpath_list_skips_missing_entries",
           [](Tree& t) {
             t.install_module(GVO_MOD_MULTI);
             fs::create_directories(t.at("app/bin/r1"));
             t.install_a(GVO_A_1_1, "app/bin/r2");
           },
           "libgvo_a.so.1", std::nullopt, "@/app/bin/libgvo_mod_multi.so"}
          .loads("app/bin/r2/libgvo_a.so.1.1.0"),
      Case{"rpath_list_first_hit",
           [](Tree& t) {
             t.install_module(GVO_MOD_MULTI);
             t.install_a(GVO_A_1_0, "app/bin/r1");
             t.install_a(GVO_A_1_1, "app/bin/r2");
           },
           "libgvo_a.so.1", std::nullopt, "@/app/bin/libgvo_mod_multi.so"}
          .loads("app/bin/r1/libgvo_a.so.1.0.0"),
      Case{"runpath_lib_token",
           [](Tree& t) {
             t.install_module(GVO_MOD_TOKENS);
             t.install_a(GVO_A_1_1, "app/" + lib_token());
             t.install_a(GVO_A_1_2, "app/bin/plat/" + platform_token());
           },
           "libgvo_a.so.1", std::nullopt, "@/app/bin/libgvo_mod_tokens.so"}
          .loads("app/" + lib_token() + "/libgvo_a.so.1.1.0"),
      Case{"runpath_platform_token",
           [](Tree& t) {
             t.install_module(GVO_MOD_TOKENS);
             t.install_a(GVO_A_1_2, "app/bin/plat/" + platform_token());
           },
           "libgvo_a.so.1", std::nullopt, "@/app/bin/libgvo_mod_tokens.so"}
          .loads("app/bin/plat/" + platform_token() + "/libgvo_a.so.1.2.0"),
      Case{"path_name_with_origin_of_module",
           [](Tree& t) {
             t.install_module(GVO_MOD_RUNPATH);
             t.install_a(GVO_A_1_2, "app/lib");
           },
           "$ORIGIN/../lib/libgvo_a.so.1", std::nullopt, kRunpathModule}
          .loads("app/lib/libgvo_a.so.1.2.0"),
  };
}

std::vector<Case> class_cases() {
  Case skipped{"wrong_class_skipped",
               [](Tree& t) {
                 t.install(GVO_A32, "l32", "");
                 t.install_a(GVO_A_1_1, "l2");
               },
               "libgvo_a.so.1", "@/l32:@/l2"};
  skipped.needs_32bit = true;
  skipped.expected = "l2/libgvo_a.so.1.1.0";
  Case only{"only_wrong_class", [](Tree& t) { t.install(GVO_A32, "l32", ""); }, "libgvo_a.so.1",
            "@/l32"};
  only.needs_32bit = true;
  return {skipped, only};
}

std::vector<Case> all_cases() {
  std::vector<Case> cases = direct_cases();
  for (auto& c : module_cases())
    cases.push_back(std::move(c));
  for (auto& c : class_cases())
    cases.push_back(std::move(c));
  return cases;
}

// Runs the resolver in the case's working directory (empty LD_LIBRARY_PATH entries and
// relative names mean it), with the real path taken there too.
struct Answer {
  std::optional<std::string> opened;
  std::optional<std::string> real;
  Resolution resolution;
};

Answer ask_which(const Case& c, const std::string& root) {
  const fs::path before = fs::current_path();
  fs::current_path(root + "/" + c.cwd);
  std::optional<std::string> llp;
  if (c.llp) llp = with_root(*c.llp, root);
  const CaseSystem system(llp);
  WhichRequest request;
  request.names = {with_root(c.name, root)};
  if (c.from) request.from = with_root(*c.from, root);
  WhichOptions options;
  options.platform = oracle_platform(system);
  Answer answer;
  auto report = which(system, request, options);
  if (report) {
    answer.resolution = report->results.at(0);
    answer.opened = answer.resolution.resolved;
    std::error_code ec;
    if (answer.opened) answer.real = fs::canonical(*answer.opened, ec).string();
  } else {
    ADD_FAILURE() << report.error().message;
  }
  fs::current_path(before);
  return answer;
}

std::string describe(const Resolution& r) {
  std::string out = "which: " + r.resolved.value_or("null") + " error: " + r.error.value_or("-");
  for (const auto& step : r.steps)
    out += "\n  " + step.path.value_or(step.where) + " " + std::string(to_string(step.skipped)) +
           (step.found ? " FOUND" : "");
  return out;
}

class LoaderOracle : public ::testing::TestWithParam<Case> {};

TEST_P(LoaderOracle, WhichAgreesWithTheRealLoader) {
  const Case& c = GetParam();
  if (c.needs_32bit && std::string(GVO_A32_SKIP).size() > 0) GTEST_SKIP() << GVO_A32_SKIP;
  Tree tree;
  c.arrange(tree);
  const std::string root = tree.root();
  std::optional<std::string> llp;
  if (c.llp) llp = with_root(*c.llp, root);
  std::optional<std::string> from;
  if (c.from) from = with_root(*c.from, root);
  const OracleAnswer oracle = ask_oracle(root + "/" + c.cwd, llp, from, with_root(c.name, root));
  const Answer which = ask_which(c, root);
  SCOPED_TRACE("oracle said: " + oracle.raw + describe(which.resolution));
  EXPECT_EQ(which.opened, oracle.opened);
  EXPECT_EQ(which.real, oracle.real);
  // And the case tests what it means to: the loader took the file it was built to take.
  std::optional<std::string> expected;
  if (c.expected) expected = fs::canonical(root).string() + "/" + *c.expected;
  EXPECT_EQ(oracle.real, expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, LoaderOracle, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.id; });

TEST(LoaderOracleCases, AtLeastTwentyDistinctCases) {
  EXPECT_GE(all_cases().size(), 20u);
}

// The resolver's own view of the platform against what this machine's ld.so prints.
TEST(LoaderOracleCases, DetectedPlatformMatchesLdSo) {
  if (!ld_so().found)
    GTEST_SKIP() << "this ld.so --help prints no system search path (glibc < 2.33?)";
  const Platform platform = detect_platform(CaseSystem(std::nullopt));
  EXPECT_EQ(platform.default_dirs, ld_so().default_dirs);
  if (platform.arch == "x86_64") {
    EXPECT_EQ(platform.hwcaps, ld_so().hwcaps);
  }
  if (ld_so().platform) {
    EXPECT_EQ(platform.platform, *ld_so().platform);
  }
}

// GLIBC_TUNABLES=glibc.cpu.hwcaps=-X turns features off for the loader: every name glibc takes
// (and a few it ignores) against what ld.so then searches.
TEST(LoaderOracleCases, TunablesThatTurnFeaturesOffMatchLdSo) {
  if (!ld_so().found || ld_so().hwcaps.empty())
    GTEST_SKIP() << "this ld.so --help lists no glibc-hwcaps subdirectories";
  for (const char* name :
       {"AVX",    "AVX2",   "AVX512F", "AVX512BW", "AVX512CD", "AVX512DQ", "AVX512VL",
        "BMI1",   "BMI2",   "F16C",    "FMA",      "LZCNT",    "MOVBE",    "OSXSAVE",
        "POPCNT", "SSE4_1", "SSE4_2",  "SSSE3",    "SSE3",     "CX16",     "NOSUCH"}) {
    const std::string tunables = std::string("glibc.malloc.check=0:glibc.cpu.hwcaps=-") + name;
    const Platform platform = detect_platform(CaseSystem(std::nullopt, std::nullopt, tunables));
    const LdSoFacts facts = read_ld_so_help(tunables);
    EXPECT_EQ(platform.hwcaps, facts.hwcaps) << tunables;
    if (facts.platform) {
      EXPECT_EQ(platform.platform, *facts.platform) << tunables;
    }
  }
}

// A library only the loader cache knows: a cache built by the real ldconfig from a test
// configuration, read by the resolver through the System, compared with `ldconfig -p` on that
// cache and then loaded for real by the path the cache names. (ld.so reads only
// /etc/ld.so.cache, so the oracle cannot be pointed at the test cache itself.)
TEST(LoaderOracleCache, LibraryReachedOnlyThroughTheCache) {
  const std::string ldconfig =
      fs::exists("/sbin/ldconfig") ? "/sbin/ldconfig" : "/usr/sbin/ldconfig";
  if (!fs::exists(ldconfig)) GTEST_SKIP() << "no ldconfig on this machine";
  Tree tree;
  tree.install(GVO_C_5_0, "c1", "libgvo_c.so.5");
  tree.install(GVO_C_5_0, "c2", "libgvo_c.so.5");
  tree.write("ld.so.conf", tree.at("c1") + "\n" + tree.at("c2") + "\n");
  const std::string cache_file = tree.at("ld.so.cache");
  run_command(ldconfig + " -X -C " + quoted(cache_file) + " -f " + quoted(tree.at("ld.so.conf")) +
              " 2>&1");
  auto bytes = paths::read_file(cache_file, 64 << 20);
  ASSERT_TRUE(bytes.ok()) << "ldconfig wrote no cache";
  auto cache = sys::parse_ld_cache(*bytes);
  ASSERT_TRUE(cache.ok()) << cache.error().message;

  // ldconfig's own listing: the first line for the name is the entry ld.so takes.
  std::optional<std::string> listed;
  for (const auto& line :
       text::split(run_command(ldconfig + " -C " + quoted(cache_file) + " -p"), '\n')) {
    const std::string trimmed(text::trim(line));
    if (!trimmed.starts_with("libgvo_c.so.5 ")) continue;
    listed = trimmed.substr(trimmed.find("=> ") + 3);
    break;
  }
  ASSERT_TRUE(listed.has_value());

  const CaseSystem system(std::nullopt, *cache);
  const Resolution r = resolve_name(system, "libgvo_c.so.5", std::nullopt, oracle_platform(system));
  ASSERT_TRUE(r.resolved.has_value()) << describe(r);
  EXPECT_EQ(*r.resolved, *listed);
  ASSERT_FALSE(r.steps.empty());
  EXPECT_EQ(r.steps.back().source, Source::ld_cache);
  EXPECT_TRUE(r.steps.back().found);
  ASSERT_EQ(r.shadowed.size(), 1u);  // the other directory's copy, also in the cache
  EXPECT_EQ(r.shadowed[0].source, Source::ld_cache);

  const OracleAnswer oracle = ask_oracle(tree.root(), std::nullopt, std::nullopt, *r.resolved);
  EXPECT_EQ(oracle.opened, r.resolved) << oracle.raw;

  // Without the cache nothing loads, for the resolver as for the real loader.
  const CaseSystem no_cache(std::nullopt);
  EXPECT_FALSE(resolve_name(no_cache, "libgvo_c.so.5", std::nullopt, oracle_platform(no_cache))
                   .resolved.has_value());
  EXPECT_FALSE(ask_oracle(tree.root(), std::nullopt, std::nullopt, "libgvo_c.so.5").opened);
}

// This machine's own CUDA and driver libraries, as the real loader finds them without any
// LD_LIBRARY_PATH: `which libcudnn.so.9` must name the file dlopen() opens. A name whose dlopen()
// fails on a dependency (not on the name itself) says nothing about the search and is left out.
TEST(LoaderOracleMachine, CudaLibrariesOnThisMachine) {
  const CaseSystem system(std::nullopt);
  const Platform platform = oracle_platform(system);
  int compared = 0;
  for (const char* name :
       {"libcudnn.so.9", "libcudnn.so.8", "libcudart.so.13", "libcudart.so.12", "libcublas.so.13",
        "libcublas.so.12", "libcuda.so.1", "libnvidia-ml.so.1", "libz.so.1"}) {
    const OracleAnswer oracle = ask_oracle("/", std::nullopt, std::nullopt, name);
    const bool own_failure = oracle.raw.find(std::string("\n") + name + ":") != std::string::npos;
    if (!oracle.opened && !own_failure) {
      std::printf("[ note     ] %s: dlopen failed on something else: %s", name, oracle.raw.c_str());
      continue;
    }
    const Resolution r = resolve_name(system, name, std::nullopt, platform);
    EXPECT_EQ(r.resolved, oracle.opened) << name << ": oracle said " << oracle.raw << describe(r);
    ++compared;
  }
  EXPECT_GT(compared, 0);
}

// The real gpuvet binary on a case, as a user runs it: env -i with LD_LIBRARY_PATH, --from.
TEST(LoaderOracleCli, GpuvetBinaryAgreesWithTheOracle) {
  Tree tree;
  tree.install_module(GVO_MOD_RUNPATH);
  tree.install_a(GVO_A_1_2, "app/lib");
  tree.install_a(GVO_A_1_0, "l1");
  tree.install_a(GVO_A_1_1, "l2");
  const std::string module = tree.at("app/bin/libgvo_mod_runpath.so");
  const std::string llp = tree.at("l2") + ":" + tree.at("l1");
  const std::string out =
      run_command("env -i LD_LIBRARY_PATH=" + quoted(llp) + " " + GPUVET_BINARY +
                  " which --json --from " + quoted(module) + " libgvo_a.so.1");
  const auto json = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(json.is_discarded()) << out;
  const auto& result = json["results"][0];
  const OracleAnswer oracle = ask_oracle(tree.root(), llp, module, "libgvo_a.so.1");
  ASSERT_TRUE(oracle.opened.has_value()) << oracle.raw;
  EXPECT_EQ(result["resolved"], *oracle.opened);
  EXPECT_EQ(result["version"], "1.1.0");
  ASSERT_EQ(result["shadowed"].size(), 2u) << out;
  EXPECT_EQ(result["shadowed"][0]["version"], "1.0.0");
  EXPECT_EQ(result["shadowed"][1]["version"], "1.2.0");
  EXPECT_EQ(result["shadowed"][1]["why"], "RUNPATH of " + module);
}

}  // namespace
}  // namespace gpuvet::resolve
