#include "plan/steps.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/shell.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "core/windows_paths.hpp"
#include "frameworks/framework.hpp"
#include "kb/queries.hpp"
#include "plan/cuda_releases.hpp"

namespace gpuvet::plan {

namespace {

constexpr const char* kToolkitArchive = "https://developer.nvidia.com/cuda-toolkit-archive";
constexpr const char* kCudnnArchive = "https://developer.nvidia.com/rdp/cudnn-archive";
constexpr const char* kDriverDownload = "https://www.nvidia.com/Download/index.aspx";
constexpr const char* kVcRedist =
    "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist";

class StepWriter {
 public:
  StepWriter(Option& option, const Request& request, const kb::Kb& kb, const kb::Messages& messages)
      : o_(option), r_(request), kb_(kb), messages_(messages), b_(option.build) {}

  Result<bool> write();

 private:
  std::string text(std::string_view key, const kb::MessageArgs& args = {}) const {
    return messages_.text(key, args);
  }
  bool windows() const { return o_.platform == "windows"; }
  // Commands both of Windows' shells run as written (pip, conda, python -c "…"), or sh's.
  void add(std::string title, std::vector<std::string> commands) {
    std::vector<std::string> powershell = windows() ? commands : std::vector<std::string>{};
    o_.steps.push_back({std::move(title), std::move(commands), std::move(powershell)});
  }
  // Windows commands, each spelled for cmd and for PowerShell.
  void add(std::string title, const std::vector<shell::WindowsCommand>& commands) {
    Step step{std::move(title), {}, {}};
    for (const auto& c : commands) {
      step.commands.push_back(c.cmd);
      step.powershell.push_back(c.powershell);
    }
    o_.steps.push_back(std::move(step));
  }
  Result<bool> package_spec();
  void driver_step();
  Result<bool> toolkit_step();
  Result<bool> cudnn_step();
  Result<bool> runtime_step();
  void environment_step();
  void existing_environment_step();
  void path_step();
  void install_step();
  void verify_step();

  Option& o_;
  const Request& r_;
  const kb::Kb& kb_;
  const kb::Messages& messages_;
  const Build& b_;
  std::string cuda_;
  std::string folder_;
  frameworks::InstallSpec install_;
};

Result<bool> StepWriter::package_spec() {
  const frameworks::Framework* framework = frameworks::find(b_.framework);
  if (framework && framework->install) {
    auto spec = framework->install(b_, kb_, messages_);
    if (!spec) return spec.error();
    install_ = std::move(*spec);
  } else {
    install_ = frameworks::default_install(b_);
  }
  o_.package_spec = install_.package_spec;
  o_.index_option = install_.index_option;
  o_.index_url = install_.index_url;
  o_.notes.insert(o_.notes.end(), install_.notes.begin(), install_.notes.end());
  o_.build.sources.insert(o_.build.sources.end(), install_.sources.begin(), install_.sources.end());
  return true;
}

void StepWriter::driver_step() {
  // PowerShell would read name,driver_version as an array: the argument is quoted there.
  const shell::WindowsCommand check =
      shell::run("nvidia-smi", {"--query-gpu=name,driver_version", "--format=csv"});
  const auto commands = [&](bool download) {
    std::vector<shell::WindowsCommand> out;
    if (download) out.push_back(shell::comment(kDriverDownload));
    out.push_back(check);
    return out;
  };
  const auto add_driver = [&](std::string title, bool download) {
    if (windows()) {
      add(std::move(title), commands(download));
      return;
    }
    std::vector<std::string> lines;
    if (download) lines.push_back(std::string("# ") + kDriverDownload);
    lines.push_back(check.cmd);
    add(std::move(title), lines);
  };
  if (!o_.min_driver) {
    add_driver(text("plan.step.driver_unknown_min", {{"cuda", cuda_}}), true);
    return;
  }
  const std::string& min = *o_.min_driver;
  if (r_.driver && o_.min_driver && !older(*r_.driver, *o_.min_driver)) {
    add_driver(text("plan.step.driver_ok", {{"driver", *r_.driver}, {"min", min}}), false);
    return;
  }
  add_driver(
      text(o_.platform == "wsl2" ? "plan.step.driver_wsl" : "plan.step.driver", {{"min", min}}),
      true);
}

Result<bool> StepWriter::toolkit_step() {
  const std::string column = o_.platform == "linux" ? "min_driver_linux" : "min_driver_windows";
  auto releases = releases_of(kb_, cuda_);
  if (!releases) return releases.error();
  const kb::Row* chosen = nullptr;
  for (const auto& row : *releases) {
    const std::string need = row.get(column);
    if (!r_.driver || need.empty() || !older(*r_.driver, need)) chosen = &row;
  }
  if (chosen == nullptr && !releases->empty()) chosen = &releases->front();
  const std::string label = chosen ? chosen->get("label") : cuda_;
  const std::string exact = chosen ? chosen->get("version") : "";
  const std::string what = exact.empty() ? label : label + " (" + exact + ")";
  const std::string title = text("plan.step.toolkit", {{"cuda", what}, {"folder", folder_}});
  if (windows()) {
    add(title, {shell::comment(text("plan.note.toolkit_menu.windows",
                                    {{"archive", kToolkitArchive}, {"label", label}})),
                shell::comment(text("plan.note.default_folder", {{"folder", folder_}}))});
  } else {
    const std::string menu =
        o_.platform == "wsl2" ? "plan.note.toolkit_menu.wsl2" : "plan.note.toolkit_menu.linux";
    add(title,
        {"# " + text(menu, {{"archive", kToolkitArchive}, {"label", label}}),
         fmt::format("sudo sh cuda_{}_*_linux.run --toolkit --silent   # {}",
                     exact.empty() ? cuda_ : exact, text("plan.note.runfile_toolkit_only"))});
  }
  if (chosen) o_.build.sources.push_back("cuda_releases: " + chosen->get("source"));
  return true;
}

Result<bool> StepWriter::cudnn_step() {
  if (!b_.cudnn) return true;
  const std::string wanted = *b_.cudnn;
  auto rows = kb::rows_if(kb_, "cudnn_releases", [&](const kb::Row& row) {
    const bool in_series = kb::version_has_prefix(row.get("cudnn_to"), wanted);
    const auto cudas = text::split(row.get("cuda_versions"), ';');
    return in_series && std::find(cudas.begin(), cudas.end(), cuda_) != cudas.end();
  });
  if (!rows) return rows.error();
  std::string release = wanted + ".x";
  if (!rows->empty()) {
    release = rows->back().get("cudnn_to");
    for (const auto& row : *rows) {
      if (older(release, row.get("cudnn_to"))) release = row.get("cudnn_to");
    }
    o_.build.sources.push_back("cudnn_releases: " + rows->back().get("source"));
  } else {
    o_.notes.push_back(
        text("plan.note.cudnn_cuda_unconfirmed", {{"cudnn", wanted}, {"cuda", cuda_}}));
  }
  const std::string title =
      text("plan.step.cudnn", {{"cudnn", release}, {"cuda", cuda_}, {"folder", folder_}});
  if (windows()) {
    // <cudnn> is the folder the zip was unpacked to.
    add(title, {shell::comment(fmt::format("{} -> cuDNN {} for CUDA {}, Windows (zip)",
                                           kCudnnArchive, release, cuda_)),
                shell::copy("<cudnn>\\bin\\cudnn*.dll", folder_ + "\\bin"),
                shell::copy("<cudnn>\\include\\cudnn*.h", folder_ + "\\include"),
                shell::copy("<cudnn>\\lib\\x64\\cudnn*.lib", folder_ + "\\lib\\x64")});
  } else {
    add(title,
        {fmt::format("# {} -> cuDNN {} for CUDA {}, Linux (tar)", kCudnnArchive, release, cuda_),
         fmt::format("sudo cp <cudnn>/include/cudnn*.h {}/include/", folder_),
         fmt::format("sudo cp -P <cudnn>/lib*/libcudnn* {}/lib64/", folder_),
         fmt::format("sudo chmod a+r {0}/include/cudnn*.h {0}/lib64/libcudnn*", folder_)});
  }
  if (!windows() || rows->empty()) return true;
  auto dlls = kb::rows_if(kb_, "cudnn_windows_dlls", [&](const kb::Row& row) {
    return kb::version_in_range(release, row.get("cudnn_from"), row.get("cudnn_to"));
  });
  if (!dlls) return dlls.error();
  for (const auto& row : *dlls) {
    add(text("plan.step.cudnn_dll",
             {{"cudnn", release}, {"dll", row.get("dll")}, {"folder", folder_ + "\\bin"}}),
        std::vector<shell::WindowsCommand>{shell::comment(row.get("source"))});
  }
  return true;
}

Result<bool> StepWriter::runtime_step() {
  if (!windows()) return true;
  auto rows = kb::rows_if(kb_, "windows_runtime_requirements", [&](const kb::Row& row) {
    return row.get("family") == b_.framework &&
           kb::version_in_range(b_.version, row.get("version_from"), row.get("version_to"));
  });
  if (!rows) return rows.error();
  for (const auto& row : *rows) {
    std::string dlls = row.get("dlls");
    std::replace(dlls.begin(), dlls.end(), ';', ' ');
    add(text("plan.step.vc_runtime", {{"what", row.get("redistributable")}, {"dlls", dlls}}),
        std::vector<shell::WindowsCommand>{shell::comment(kVcRedist)});
    o_.build.sources.push_back("windows_runtime_requirements: " + row.get("source"));
  }
  return true;
}

void StepWriter::environment_step() {
  if (r_.env_path) {
    existing_environment_step();
    return;
  }
  const std::string python = environment_python(o_, r_);
  const std::string name = environment_name(o_);
  o_.environment_python = python;
  const auto installed = r_.python ? r_.python : r_.preferred_python;
  const bool machine_python = installed && version::prefix(*installed, 2) == python;
  // This machine's Python is outside the build's range: say why the environment gets another.
  if (!r_.python && r_.preferred_python && !machine_python && !python.empty()) {
    o_.notes.push_back(
        text("plan.note.other_python", {{"machine", *r_.preferred_python}, {"python", python}}));
  }
  const std::string title =
      text(python.empty() ? "plan.step.environment_any" : "plan.step.environment",
           {{"python", python}, {"name", name}});
  if (python.empty() || machine_python) {
    if (windows()) {
      const std::string venv = "%USERPROFILE%\\venvs\\" + name;
      add(title, {shell::run("py", {python.empty() ? "-3" : "-" + python, "-m", "venv", venv}),
                  shell::activate_venv(venv)});
      o_.notes.push_back(text("plan.note.powershell_scripts"));
    } else {
      add(title, {fmt::format("python{} -m venv ~/venvs/{}", python.empty() ? "3" : python, name),
                  fmt::format(". ~/venvs/{}/bin/activate", name)});
    }
  } else {
    add(title, {fmt::format("conda create -n {} python={} pip -y", name, python),
                fmt::format("conda activate {}", name)});
  }
}

// --env / --here: the packages go into the environment the user has.
void StepWriter::existing_environment_step() {
  const std::string& path = *r_.env_path;
  o_.environment_python = r_.python.value_or("");
  const std::string title =
      text("plan.step.environment_existing",
           {{"env", path}, {"python", r_.python.value_or(text("plan.text.unknown"))}});
  if (r_.env_is_conda) {
    add(title, {fmt::format("conda activate \"{}\"", path)});
  } else if (windows()) {
    add(title, {shell::activate_venv(windows_paths::native(path))});
    o_.notes.push_back(text("plan.note.powershell_scripts"));
  } else {
    add(title, {fmt::format(". \"{}/bin/activate\"", path)});
  }
}

void StepWriter::path_step() {
  if (windows()) {
    add(text("plan.step.path", {{"cuda", cuda_}}),
        {shell::prepend_path({folder_ + "\\bin", folder_ + "\\libnvvp"})});
  } else {
    add(text("plan.step.path", {{"cuda", cuda_}}),
        {fmt::format("export PATH={}/bin:$PATH", folder_),
         fmt::format("export LD_LIBRARY_PATH={}/lib64${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}",
                     folder_)});
  }
}

void StepWriter::install_step() {
  std::string command = std::string(install_.upgrade ? "pip install -U \"" : "pip install \"") +
                        o_.package_spec + "\"";
  if (o_.index_url) command += " " + o_.index_option + " " + *o_.index_url;
  add(text("plan.step.install", {{"package", o_.package_spec}}), {command});
}

void StepWriter::verify_step() {
  const frameworks::Framework* framework = frameworks::find(b_.framework);
  std::vector<std::string> commands = {"gpuvet verify"};
  if (framework && framework->verify_command) commands.push_back(framework->verify_command(b_));
  add(text("plan.step.verify"), commands);
}

Result<bool> StepWriter::write() {
  cuda_ = b_.cuda ? cuda_minor(*b_.cuda) : "";
  folder_ = toolkit_folder(o_.platform, cuda_);
  if (auto ok = package_spec(); !ok) return ok;
  if (o_.platform == "wsl2") add(text("plan.step.wsl"), {"wsl --install -d Ubuntu"});
  driver_step();
  if (!b_.wheels_bring_cuda) {
    if (auto ok = toolkit_step(); !ok) return ok;
    if (auto ok = cudnn_step(); !ok) return ok;
  }
  if (auto ok = runtime_step(); !ok) return ok;
  environment_step();
  if (!b_.wheels_bring_cuda) path_step();
  install_step();
  verify_step();
  if (b_.wheels_bring_cuda) {
    o_.notes.push_back(text("plan.note.no_toolkit",
                            {{"package", o_.package_spec}, {"cuda", b_.cuda.value_or("?")}}));
  }
  const frameworks::Framework* framework = frameworks::find(b_.framework);
  if (framework && framework->plan_notes) {
    for (const auto& note : framework->plan_notes(b_, o_.platform))
      o_.notes.push_back(text(note.key, note.args));
  }
  return true;
}

}  // namespace

std::string toolkit_folder(const std::string& platform, const std::string& cuda) {
  return platform == "windows" ? "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v" + cuda
                               : "/usr/local/cuda-" + cuda;
}

std::string environment_python(const Option& option, const Request& request) {
  const Build& b = option.build;
  const auto in_range = [&](const std::string& python) {
    return (!b.python_min || !older(python, *b.python_min)) &&
           (!b.python_max || !older(*b.python_max, python));
  };
  for (const auto& wish : {request.python, request.preferred_python}) {
    if (wish && in_range(version::prefix(*wish, 2))) return version::prefix(*wish, 2);
  }
  return b.python_max.value_or("");
}

std::string environment_name(const Option& option) {
  const Build& b = option.build;
  const frameworks::Framework* framework = frameworks::find(b.framework);
  const std::string short_name = framework ? std::string(framework->short_name) : b.framework;
  if (b.version.empty()) return short_name + "-" + b.variant;
  return b.variant.empty() ? short_name + "-" + b.version
                           : short_name + "-" + b.version + "-" + b.variant;
}

Result<bool> add_install_steps(Option& option, const Request& request, const kb::Kb& kb,
                               const kb::Messages& messages) {
  StepWriter writer(option, request, kb, messages);
  return writer.write();
}

}  // namespace gpuvet::plan
