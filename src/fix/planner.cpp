#include "fix/planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/paths.hpp"
#include "core/shell.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "fix/origins.hpp"
#include "fix/owners.hpp"
#include "fix/target_files.hpp"
#include "system/real_path.hpp"

namespace gpuvet::fix {

namespace {

class Planner {
 public:
  Planner(const Facts& facts, const std::vector<Finding>& findings, const sys::System& system,
          const RegistryReader& registry, const kb::Kb& kb, const kb::Messages& messages,
          const PlanRequest& request)
      : facts_(facts),
        findings_(findings),
        system_(system),
        registry_(registry),
        kb_(kb),
        messages_(messages),
        request_(request),
        windows_(facts.os.family == "windows") {
    plan_.stamp = request.stamp;
    plan_.windows = windows_;
    scripts_ = startup_scripts(system, facts);
  }

  Result<FixPlan> run() {
    for (const auto& finding : findings_) {
      if (finding.severity < Severity::warning) continue;
      auto planned = plan_for(finding);
      if (!planned) return planned.error();
      if (!*planned) {
        plan_.manual.push_back({finding.id, finding.title, finding.fix});
      }
    }
    for (const auto& id : request_.requested) {
      if (id == kAllowGrowthFix) allow_growth();
    }
    return plan_;
  }

 private:
  // True when the finding has an automatic fix (made, or refused with a reason).
  Result<bool> plan_for(const Finding& finding) {
    if (finding.id == "gpu.not_visible" && system_.env("CUDA_VISIBLE_DEVICES")) {
      env_origin("CUDA_VISIBLE_DEVICES", finding.id);
      return true;
    }
    if (finding.id == "env.log_level_hides_errors") {
      env_origin("TF_CPP_MIN_LOG_LEVEL", finding.id);
      return true;
    }
    if (finding.id == "cuda.path_order" && finding.details.count("old_entry")) {
      path_order(finding);
      return true;
    }
    if (finding.id == "cuda.nvvm_libdevice_missing" && finding.details.count("toolkit")) {
      libdevice_hook(finding);
      return true;
    }
    if (finding.id == "cuda.host_compiler_unsupported" && finding.details.count("accepted_gcc") &&
        !windows_) {
      nvcc_ccbin(finding);
      return true;
    }
    if (finding.details.count("stray")) return stray_copy(finding);
    return false;
  }

  std::string text(std::string_view key, const kb::MessageArgs& args = {}) const {
    return messages_.text(key, args);
  }

  bool needs_admin(const std::string& target) const {
    return !running_as_admin() && !may_write_beside(target);
  }

  void refuse(const std::string& finding, const std::string& target, std::string reason) {
    plan_.refused.push_back({finding, target, std::move(reason)});
  }

  Action comment_out(const Origin& origin) const {
    Action a;
    a.kind = ActionKind::edit_line;
    a.target = origin.script->target;
    a.line = origin.line;
    a.before = origin.text;
    a.after = commented_out(origin.text, origin.script->kind, fix_marker(plan_.stamp));
    return a;
  }

  std::string where(const Origin& o) const { return fmt::format("{}:{}", o.script->path, o.line); }

  // The lines that set the variable to the value this process sees are commented out where they
  // are; on Windows the saved variable is removed.
  void env_origin(const std::string& name, const std::string& finding) {
    const std::string value = system_.env(name).value_or("");
    Fix fix{"env.origin." + name,
            finding,
            text("fix.env_origin.summary", {{"name", name}}),
            false,
            {},
            {name}};
    std::vector<std::string> elsewhere;
    for (const auto& origin : origins_of(scripts_, name)) {
      if (origin.assignment.value != value) {
        elsewhere.push_back(
            fmt::format("{} ({}={})", where(origin), name, origin.assignment.value));
        continue;
      }
      if (!origin.assignment.sole) {
        refuse(finding, where(origin), text("fix.refused.not_sole", {{"name", name}}));
        continue;
      }
      fix.actions.push_back(comment_out(origin));
      fix.needs_admin = fix.needs_admin || needs_admin(origin.script->target);
    }
    conda_state_removal(name, value, fix);
    if (windows_) saved_variable_removal(name, fix);
    if (!fix.actions.empty()) {
      plan_.fixes.push_back(std::move(fix));
      return;
    }
    const bool refused_here = std::any_of(plan_.refused.begin(), plan_.refused.end(),
                                          [&](const Refusal& r) { return r.finding == finding; });
    if (refused_here) return;
    refuse(finding, name,
           elsewhere.empty()
               ? text("fix.refused.no_origin", {{"name", name}, {"value", value}})
               : text("fix.refused.other_value",
                      {{"name", name}, {"value", value}, {"lines", text::join(elsewhere, ", ")}}));
  }

  // `conda env config vars set` keeps its variables in the environment's conda-meta/state
  // (conda/base/constants.py PREFIX_STATE_FILE), which conda activate exports.
  void conda_state_removal(const std::string& name, const std::string& value, Fix& fix) {
    for (const auto& env : facts_.python_envs) {
      if (env.kind != "conda") continue;
      const std::string path = paths::join(env.path, "conda-meta/state");
      auto bytes = system_.read_text(path);
      if (!bytes) continue;
      auto state = nlohmann::ordered_json::parse(*bytes, nullptr, false);
      if (!state.is_object() || !state.contains("env_vars") || !state["env_vars"].is_object()) {
        continue;
      }
      auto& vars = state["env_vars"];
      if (!vars.contains(name) || !vars[name].is_string() || vars[name] != value) continue;
      vars.erase(name);
      Action a;
      a.kind = ActionKind::write_file;
      a.target = path;
      a.before = "\"" + name + "\": \"" + value + "\"";
      a.after = text("fix.conda_state.after", {{"name", name}});
      a.old_bytes = *bytes;
      a.new_bytes = state.dump(2) + "\n";
      fix.actions.push_back(std::move(a));
      fix.needs_admin = fix.needs_admin || needs_admin(path);
    }
  }

  void saved_variable_removal(const std::string& name, Fix& fix) {
    for (const auto& saved : saved_environments()) {
      auto value = registry_.read(saved.key, name);
      if (!value || !*value) continue;
      Action a;
      a.kind = ActionKind::set_env_persistent;
      a.target = saved.key;
      a.value_name = name;
      a.before = (*value)->data;
      a.after = "";
      a.old_value = *value;
      fix.actions.push_back(std::move(a));
      fix.needs_admin = fix.needs_admin || (saved.machine && !running_as_admin());
    }
  }

  // Linux: the start-up line that puts the older toolkit first is commented out, when it only
  // adds that toolkit. (Windows' saved Path is reordered in place.)
  void path_order(const Finding& finding) {
    const std::string& variable = finding.details.at("variable");
    const std::string& old_entry = finding.details.at("old_entry");
    const std::string& new_entry = finding.details.at("new_entry");
    if (windows_) {
      saved_path_order(finding, old_entry, new_entry);
      path_hooks(finding);
      return;
    }
    Fix fix{"path.order." + variable,
            finding.id,
            text("fix.path_order.summary", {{"variable", variable}, {"old_entry", old_entry}}),
            false,
            {},
            {}};
    for (const auto& origin : origins_of(scripts_, variable)) {
      const auto parts = text::split(origin.assignment.value, ':');
      const auto has = [&](const std::string& entry) {
        return std::any_of(parts.begin(), parts.end(), [&](const std::string& p) {
          return paths::normalize(p) == paths::normalize(entry);
        });
      };
      if (!has(old_entry)) continue;
      if (has(new_entry) || !origin.assignment.sole) {
        refuse(finding.id, where(origin), text("fix.refused.mixed_path", {{"variable", variable}}));
        continue;
      }
      fix.actions.push_back(comment_out(origin));
      fix.needs_admin = fix.needs_admin || needs_admin(origin.script->target);
    }
    // CUDA_HOME set to the older toolkit beside it sends build tools there too.
    const auto old_root = finding.details.find("old_root");
    if (!fix.actions.empty() && old_root != finding.details.end()) {
      for (const auto& origin : origins_of(scripts_, "CUDA_HOME")) {
        if (paths::normalize(origin.assignment.value) != paths::normalize(old_root->second) ||
            !origin.assignment.sole) {
          continue;
        }
        fix.actions.push_back(comment_out(origin));
        fix.needs_admin = fix.needs_admin || needs_admin(origin.script->target);
      }
    }
    if (!fix.actions.empty()) {
      plan_.fixes.push_back(std::move(fix));
    } else {
      refuse(
          finding.id, variable,
          text("fix.refused.no_path_origin", {{"variable", variable}, {"old_entry", old_entry}}));
    }
    path_hooks(finding);
  }

  // The seeds' "safe island": each environment with a GPU framework puts the right toolkit first
  // for itself, on activation, and takes it back on deactivation. The default only where the
  // machine-wide order could not be fixed.
  void path_hooks(const Finding& finding) {
    const auto new_root = finding.details.find("new_root");
    if (new_root == finding.details.end()) return;
    const bool machine_fixed = std::any_of(
        plan_.fixes.begin(), plan_.fixes.end(),
        [&](const Fix& f) { return f.finding == finding.id && f.id.starts_with("path.order."); });
    for (const auto& env : facts_.python_envs) {
      const auto gpu = std::find_if(env.frameworks.begin(), env.frameworks.end(),
                                    [](const FrameworkFact& fw) { return fw.gpu_build == true; });
      if (gpu == env.frameworks.end()) continue;
      const CudaToolkitFact* toolkit = toolkit_for(*gpu, new_root->second);
      if (!toolkit) continue;
      const std::string root = windows_ ? native(toolkit->root) : toolkit->root;
      Hook hook;
      hook.name = "gpuvet-cuda";
      if (windows_) {
        hook.activate = {"@set \"GPUVET_SAVED_PATH=%PATH%\"",
                         "@" + shell::prepend_path({root + "\\bin"}).cmd};
        hook.deactivate = {"@set \"PATH=%GPUVET_SAVED_PATH%\"", "@set GPUVET_SAVED_PATH="};
        hook.activate_ps1 = {"$env:GPUVET_SAVED_PATH = $env:Path",
                             shell::prepend_path({root + "\\bin"}).powershell};
        hook.deactivate_ps1 = {"$env:Path = $env:GPUVET_SAVED_PATH",
                               shell::clear_variable("GPUVET_SAVED_PATH").powershell};
      } else {
        hook.activate = {
            "export GPUVET_SAVED_PATH=\"$PATH\"",
            "export GPUVET_SAVED_LD_LIBRARY_PATH=\"${LD_LIBRARY_PATH-}\"",
            "export PATH=\"" + root + "/bin:$PATH\"",
            "export LD_LIBRARY_PATH=\"" + root + "/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\""};
        hook.deactivate = {
            "export PATH=\"$GPUVET_SAVED_PATH\"",
            "if [ -n \"$GPUVET_SAVED_LD_LIBRARY_PATH\" ]; then export "
            "LD_LIBRARY_PATH=\"$GPUVET_SAVED_LD_LIBRARY_PATH\"; else unset LD_LIBRARY_PATH; fi",
            "unset GPUVET_SAVED_PATH GPUVET_SAVED_LD_LIBRARY_PATH"};
      }
      const std::string summary =
          text("fix.hook.path_summary", {{"env", env.path}, {"version", *toolkit->version}});
      env_hook(env, "path.hook." + env_name(env), finding.id, summary, hook, machine_fixed);
    }
  }

  // The toolkit a framework build wants (its CUDA major.minor), else the newer one of the
  // finding.
  const CudaToolkitFact* toolkit_for(const FrameworkFact& fw, const std::string& fallback) const {
    const CudaToolkitFact* chosen = nullptr;
    for (const auto& t : facts_.cuda_toolkits) {
      if (!t.version || t.source == "pip" || t.source == "conda") continue;
      if (fw.cuda && version::prefix(*t.version, 2) == version::prefix(*fw.cuda, 2)) return &t;
      if (paths::comparison_key(t.root, windows_) == paths::comparison_key(fallback, windows_)) {
        chosen = &t;
      }
    }
    return chosen;
  }

  // XLA finds libdevice in the toolkit the finding names, for this environment only.
  void libdevice_hook(const Finding& finding) {
    const std::string& env_path = finding.details.at("env");
    const auto env = std::find_if(facts_.python_envs.begin(), facts_.python_envs.end(),
                                  [&](const PythonEnvFact& e) { return e.path == env_path; });
    if (env == facts_.python_envs.end()) return;
    const std::string root =
        windows_ ? native(finding.details.at("toolkit")) : finding.details.at("toolkit");
    const std::string flag = "--xla_gpu_cuda_data_dir=" + root;
    Hook hook;
    hook.name = "gpuvet-xla";
    if (windows_) {
      hook.activate = {"@set \"GPUVET_SAVED_XLA_FLAGS=%XLA_FLAGS%\"",
                       "@set \"XLA_FLAGS=%XLA_FLAGS% " + flag + "\""};
      hook.deactivate = {"@set \"XLA_FLAGS=%GPUVET_SAVED_XLA_FLAGS%\"",
                         "@set GPUVET_SAVED_XLA_FLAGS="};
      hook.activate_ps1 = {
          "$env:GPUVET_SAVED_XLA_FLAGS = $env:XLA_FLAGS",
          "$env:XLA_FLAGS = (\"$env:XLA_FLAGS \" + " + shell::powershell_string(flag) + ").Trim()"};
      hook.deactivate_ps1 = {"$env:XLA_FLAGS = $env:GPUVET_SAVED_XLA_FLAGS",
                             shell::clear_variable("GPUVET_SAVED_XLA_FLAGS").powershell};
    } else {
      hook.activate = {"export GPUVET_SAVED_XLA_FLAGS=\"${XLA_FLAGS-}\"",
                       "export XLA_FLAGS=\"${XLA_FLAGS:+$XLA_FLAGS }" + flag + "\""};
      hook.deactivate = {
          "if [ -n \"$GPUVET_SAVED_XLA_FLAGS\" ]; then export "
          "XLA_FLAGS=\"$GPUVET_SAVED_XLA_FLAGS\"; else unset XLA_FLAGS; fi",
          "unset GPUVET_SAVED_XLA_FLAGS"};
    }
    env_hook(*env, "xla.hook." + env_name(*env), finding.id,
             text("fix.hook.xla_summary", {{"env", env->path}, {"toolkit", root}}), hook, false);
  }

  struct Hook {
    std::string name;  // the scripts' file name without extension
    std::vector<std::string> activate;
    std::vector<std::string> deactivate;
    // Windows: the same for PowerShell, whose conda activation runs activate.d\*.ps1.
    std::vector<std::string> activate_ps1;
    std::vector<std::string> deactivate_ps1;
  };

  static std::string native(std::string path) {
    std::replace(path.begin(), path.end(), '/', '\\');
    return path;
  }

  static std::string env_name(const PythonEnvFact& env) {
    const std::string path = paths::normalize(env.path);
    return path.substr(path.find_last_of('/') + 1);
  }

  // conda: new activate.d and deactivate.d scripts; a venv: lines added to its activate script
  // (whose deactivate gives PATH back). Other environments have no activation of their own.
  void env_hook(const PythonEnvFact& env, const std::string& id, const std::string& finding,
                const std::string& summary, const Hook& hook, bool only_by_id) {
    const std::string marker = (windows_ ? "@rem " : "# ") + fix_marker(plan_.stamp);
    Fix fix{id, finding, summary, false, {}, {}, only_by_id};
    const auto new_script = [&](const std::string& folder, const std::vector<std::string>& lines,
                                const std::string& extension) {
      const std::string path =
          paths::join(env.path, "etc/conda/" + folder + "/" + hook.name + extension);
      if (system_.exists(path)) return false;
      const std::string eol = windows_ ? "\r\n" : "\n";
      std::string bytes = (extension == ".ps1" ? "# " + fix_marker(plan_.stamp) : marker) + eol;
      for (const auto& line : lines)
        bytes += line + eol;
      Action a;
      a.kind = ActionKind::write_file;
      a.target = path;
      a.after = text::join(lines, " ; ");
      a.new_bytes = bytes;
      fix.needs_admin = fix.needs_admin || needs_admin(paths::join(env.path, "x"));
      fix.actions.push_back(std::move(a));
      return true;
    };
    if (env.kind == "conda") {
      // Made by an earlier fix: gpuvet undo takes that one back.
      const std::string extension = windows_ ? ".bat" : ".sh";
      if (!new_script("activate.d", hook.activate, extension)) return;
      if (!new_script("deactivate.d", hook.deactivate, extension)) return;
      // PowerShell's conda activation runs the .ps1 scripts instead of the .bat ones.
      if (windows_ && !hook.activate_ps1.empty()) {
        new_script("activate.d", hook.activate_ps1, ".ps1");
        new_script("deactivate.d", hook.deactivate_ps1, ".ps1");
      }
    } else if (env.kind == "venv") {
      // On Windows only activate.bat: a venv's Activate.ps1 ends in an Authenticode signature
      // block that any change would break, so PowerShell users of a venv get the plan's
      // activate-gpu.ps1 (or the saved Path fix) instead.
      const std::string path =
          paths::join(env.path, windows_ ? "Scripts/activate.bat" : "bin/activate");
      auto now = read_target(path, size_t{1} << 20);
      if (!now || now->find(hook.name) != std::string::npos) return;
      const std::string eol = now->find("\r\n") != std::string::npos ? "\r\n" : "\n";
      std::string bytes = *now;
      if (!bytes.empty() && bytes.back() != '\n') bytes += eol;
      bytes += marker + " (" + hook.name + ")" + eol;
      // venv's deactivate gives PATH back by itself; what it does not know of is not saved.
      for (const auto& line : hook.activate) {
        if (line.find("GPUVET_SAVED") == std::string::npos) bytes += line + eol;
      }
      Action a;
      a.kind = ActionKind::write_file;
      a.target = path;
      a.after = text::join(hook.activate, " ; ");
      a.old_bytes = *now;
      a.new_bytes = bytes;
      fix.needs_admin = needs_admin(path);
      fix.actions.push_back(std::move(a));
    } else {
      return;
    }
    plan_.fixes.push_back(std::move(fix));
  }

  // Windows: within one saved Path (the user's or the machine's), the newer toolkit's entry is
  // moved before the older one's; each entry keeps its spelling (%CUDA_PATH_V10_1%\bin stays so)
  // and the value its type.
  void saved_path_order(const Finding& finding, const std::string& old_entry,
                        const std::string& new_entry) {
    for (const auto& saved : saved_environments()) {
      auto value = registry_.read(saved.key, "Path");
      if (!value || !*value) continue;
      std::vector<std::string> parts = text::split((*value)->data, ';');
      const auto position = [&](const std::string& entry) -> std::optional<size_t> {
        for (size_t i = 0; i < parts.size(); ++i) {
          if (paths::comparison_key(expand(parts[i]), true) == paths::comparison_key(entry, true)) {
            return i;
          }
        }
        return std::nullopt;
      };
      const auto old_at = position(old_entry);
      const auto new_at = position(new_entry);
      if (!old_at || !new_at || *new_at < *old_at) continue;
      const std::string moved = parts[*new_at];
      parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(*new_at));
      parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(*old_at), moved);
      Action a;
      a.kind = ActionKind::set_registry;
      a.target = saved.key;
      a.value_name = "Path";
      a.before = (*value)->data;
      a.old_value = *value;
      a.new_value = RegistryData{(*value)->type, text::join(parts, ";")};
      a.after = a.new_value->data;
      plan_.fixes.push_back({"path.order.Path",
                             finding.id,
                             text("fix.path_order.windows_summary",
                                  {{"new_entry", new_entry}, {"old_entry", old_entry}}),
                             saved.machine && !running_as_admin(),
                             {std::move(a)},
                             {}});
      return;
    }
    refuse(finding.id, "Path",
           text("fix.refused.path_split", {{"old_entry", old_entry}, {"new_entry", new_entry}}));
  }

  // %NAME% expanded from this process's environment, as Windows expands REG_EXPAND_SZ.
  std::string expand(const std::string& raw) const {
    std::string out;
    size_t i = 0;
    while (i < raw.size()) {
      const size_t open = raw.find('%', i);
      const size_t close = open == std::string::npos ? open : raw.find('%', open + 1);
      if (close == std::string::npos) {
        out += raw.substr(i);
        break;
      }
      out += raw.substr(i, open - i);
      const auto value = system_.env(raw.substr(open + 1, close - open - 1));
      out += value ? *value : raw.substr(open, close - open + 1);
      i = close + 1;
    }
    return out;
  }

  // A stray copy that the loader takes instead of the right one moves to the journal's
  // quarantine, unless someone owns it: the name the loader opens (libcudnn.so.8, a link) and
  // the file it leads to when that lies beside it.
  Result<bool> stray_copy(const Finding& finding) {
    const std::string& path = finding.details.at("stray");
    const auto named = finding.details.find("name");
    const std::string name =
        named != finding.details.end() ? named->second : path.substr(path.find_last_of('/') + 1);
    std::vector<std::string> targets;
    const std::string link = paths::join(paths::parent(path), name);
    if (link != path && system_.file_info(link) && system_.file_info(link)->link_target) {
      targets.push_back(link);
    }
    targets.push_back(path);
    for (const auto& fix : plan_.fixes) {
      for (const auto& a : fix.actions) {
        if (a.target == path) return true;  // one copy, several findings: one move
      }
    }
    if (windows_ && in_windows_folder(path) && !movable_from_windows_folder(name)) {
      refuse(finding.id, path, text("fix.refused.windows_folder", {{"path", path}}));
      return true;
    }
    for (const auto& target : targets) {
      auto owner = owner_of(system_, facts_, kb_, target);
      if (!owner) return owner.error();
      if (*owner) {
        const kb::MessageArgs args = {
            {"path", target}, {"owner", (*owner)->who}, {"package", (*owner)->package}};
        refuse(finding.id, target,
               text("fix.refused.owned", args) + "; " + text((*owner)->instead_key, args));
        return true;
      }
    }
    Fix fix{"lib.move." + name,
            finding.id,
            text("fix.stray.summary", {{"path", targets.front()}}),
            false,
            {},
            {}};
    for (const auto& target : targets) {
      Action a;
      a.kind = ActionKind::move_file;
      a.target = target;
      a.before = target;
      a.after = text("fix.stray.quarantine");
      fix.actions.push_back(std::move(a));
      fix.needs_admin = fix.needs_admin || needs_admin(target);
    }
    plan_.fixes.push_back(std::move(fix));
    return true;
  }

  bool in_windows_folder(const std::string& path) const {
    const std::string root =
        paths::comparison_key(system_.env("SystemRoot").value_or("C:/Windows"), true) + "/";
    return paths::comparison_key(path, true).starts_with(root);
  }

  // TF_FORCE_GPU_ALLOW_GROWTH=true for new shells: TensorFlow then takes GPU memory as it needs
  // it instead of all at once, the usual way out of cudnn.init_failed_oom.
  void allow_growth() {
    const std::string name = "TF_FORCE_GPU_ALLOW_GROWTH";
    Fix fix{kAllowGrowthFix,
            "cudnn.init_failed_oom",
            text("fix.allow_growth.summary"),
            false,
            {},
            {},
            true};
    if (windows_) {
      auto value = registry_.read("HKCU/Environment", name);
      if (!value) return;
      Action a;
      a.kind = ActionKind::set_env_persistent;
      a.target = "HKCU/Environment";
      a.value_name = name;
      a.old_value = *value;
      a.new_value = RegistryData{"REG_SZ", "true"};
      a.before = *value ? (*value)->data : "";
      a.after = "true";
      fix.actions.push_back(std::move(a));
    } else if (!append_export(fix, name, "true")) {
      return;
    }
    plan_.fixes.push_back(std::move(fix));
  }

  // NVCC_CCBIN for new shells: nvcc runs the installed GCC its toolkit takes instead of the
  // default one it refuses (cuda.host_compiler_unsupported names it in its details).
  void nvcc_ccbin(const Finding& finding) {
    const std::string& path = finding.details.at("accepted_gcc");
    Fix fix{"env.set.NVCC_CCBIN",
            finding.id,
            text("fix.nvcc_ccbin.summary", {{"path", path}}),
            false,
            {},
            {},
            false};
    if (append_export(fix, "NVCC_CCBIN", path)) plan_.fixes.push_back(std::move(fix));
  }

  // `export NAME=VALUE` at the end of the start-up file of the user's shell; false when a start-up
  // file already sets that value, or there is no home to write in.
  bool append_export(Fix& fix, const std::string& name, const std::string& value) {
    const auto named = own_startup_file(system_);
    if (!named) return false;
    const std::string file = sys::real_path(system_, *named);
    for (const auto& origin : origins_of(scripts_, name)) {
      if (origin.assignment.value == value) return false;  // already set where the shell reads it
    }
    auto now = read_target(file, size_t{16} << 20);
    std::optional<std::string> old_bytes;
    if (now) old_bytes = *now;
    std::string bytes = old_bytes.value_or("");
    if (!bytes.empty() && bytes.back() != '\n') bytes += "\n";
    const std::string line =
        assignment_line(name, value, script_kind_of(file)) + "  # " + fix_marker(plan_.stamp);
    Action a;
    a.kind = ActionKind::write_file;
    a.target = file;
    a.before = "";
    a.after = line;
    a.old_bytes = old_bytes;
    a.new_bytes = bytes + line + "\n";
    fix.needs_admin = needs_admin(file);
    fix.actions.push_back(std::move(a));
    return true;
  }

  const Facts& facts_;
  const std::vector<Finding>& findings_;
  const sys::System& system_;
  const RegistryReader& registry_;
  const kb::Kb& kb_;
  const kb::Messages& messages_;
  const PlanRequest& request_;
  const bool windows_;
  std::vector<Script> scripts_;
  FixPlan plan_;
};

}  // namespace

const RegistryReader& live_registry() {
  class Live final : public RegistryReader {
   public:
    Result<std::optional<RegistryData>> read(const std::string& key,
                                             const std::string& name) const override {
      return read_registry_text(key, name);
    }
  };
  static const Live live;
  return live;
}

Result<FixPlan> plan_fixes(const Facts& facts, const std::vector<Finding>& findings,
                           const sys::System& system, const RegistryReader& registry,
                           const kb::Kb& kb, const kb::Messages& messages,
                           const PlanRequest& request) {
  return Planner(facts, findings, system, registry, kb, messages, request).run();
}

}  // namespace gpuvet::fix
