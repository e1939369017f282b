// `plan --write DIR`: the environment files of a plan option. The activation script changes PATH
// (and LD_LIBRARY_PATH) only in the shell that sources it, never for the whole machine.
#include <fmt/format.h>

#include <filesystem>

#include "core/new_file.hpp"
#include "core/paths.hpp"
#include "core/shell.hpp"
#include "plan/plan.hpp"
#include "plan/steps.hpp"

namespace gpuvet::plan {

namespace {

std::string index_line(const Option& o) {
  if (!o.index_url) return "";
  const std::string option = o.index_option == "-f" ? "--find-links" : o.index_option;
  return option + " " + *o.index_url + "\n";
}

std::string requirements(const Option& o) {
  return fmt::format("# gpuvet plan: {} on {}\n{}{}\n", o.package_spec, o.platform, index_line(o),
                     o.package_spec);
}

std::string environment_yml(const Option& o, const std::string& python) {
  std::string out = fmt::format("# gpuvet plan: {} on {}\nname: {}\ndependencies:\n",
                                o.package_spec, o.platform, environment_name(o));
  if (!python.empty()) out += fmt::format("  - python={}\n", python);
  out += "  - pip\n  - pip:\n";
  if (o.index_url) out += "    - " + index_line(o);
  out += fmt::format("    - \"{}\"\n", o.package_spec);
  return out;
}

std::string activate_sh(const Option& o) {
  std::string out = fmt::format(
      "# gpuvet plan: {} on {}. Source it in the environment's shell: . ./activate-gpu.sh\n",
      o.package_spec, o.platform);
  if (o.build.wheels_bring_cuda) {
    out +=
        "# The wheels bring CUDA and cuDNN: no toolkit is put on the paths, and an\n"
        "# LD_LIBRARY_PATH pointing at another toolkit would override their libraries.\n"
        "unset LD_LIBRARY_PATH\n";
    return out;
  }
  const std::string folder = toolkit_folder(o.platform, *o.build.cuda);
  out += fmt::format(
      "export CUDA_HOME={0}\nexport PATH={0}/bin:$PATH\n"
      "export LD_LIBRARY_PATH={0}/lib64${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\n",
      folder);
  return out;
}

std::string activate_bat(const Option& o) {
  std::string out = fmt::format(
      "@rem gpuvet plan: {} on {}. Run it in the environment's console: activate-gpu.bat\r\n",
      o.package_spec, o.platform);
  if (o.build.wheels_bring_cuda) {
    out += "@rem The wheels bring CUDA and cuDNN: nothing to put on PATH.\r\n";
    return out;
  }
  const std::string folder = toolkit_folder(o.platform, *o.build.cuda);
  out += shell::set_variable("CUDA_PATH", folder).cmd + "\r\n";
  out += shell::prepend_path({folder + "\\bin", folder + "\\libnvvp"}).cmd + "\r\n";
  return out;
}

// The same for PowerShell, made from the same commands as the .bat. PowerShell runs a script
// only where its execution policy allows (Windows clients refuse every script by default).
std::string activate_ps1(const Option& o) {
  std::string out = fmt::format(
      "# gpuvet plan: {} on {}. Dot-source it in the environment's PowerShell: "
      ". .\\activate-gpu.ps1\r\n"
      "# If PowerShell refuses to run scripts: Set-ExecutionPolicy -Scope CurrentUser "
      "RemoteSigned\r\n",
      o.package_spec, o.platform);
  if (o.build.wheels_bring_cuda) {
    out += "# The wheels bring CUDA and cuDNN: nothing to put on PATH.\r\n";
    return out;
  }
  const std::string folder = toolkit_folder(o.platform, *o.build.cuda);
  out += shell::set_variable("CUDA_PATH", folder).powershell + "\r\n";
  out += shell::prepend_path({folder + "\\bin", folder + "\\libnvvp"}).powershell + "\r\n";
  return out;
}

}  // namespace

Result<std::vector<std::string>> write_environment_files(const Option& option,
                                                         const std::string& directory, bool force) {
  const std::filesystem::path dir = paths::to_fs(directory);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(fmt::format("cannot create {}: {}", directory, ec.message()));
  const std::string& python = option.environment_python;
  const bool windows = option.platform == "windows";
  std::vector<std::pair<std::string, std::string>> files = {
      {"requirements.txt", requirements(option)},
      {"environment.yml", environment_yml(option, python)}};
  if (windows) {
    files.emplace_back("activate-gpu.bat", activate_bat(option));
    files.emplace_back("activate-gpu.ps1", activate_ps1(option));
  } else {
    files.emplace_back("activate-gpu.sh", activate_sh(option));
  }
  if (!force) {
    for (const auto& [name, contents] : files) {
      const auto path = dir / name;
      // symlink_status: a link counts as there, dangling or not.
      if (std::filesystem::symlink_status(path, ec).type() !=
          std::filesystem::file_type::not_found) {
        return make_error(
            fmt::format("{} already exists; pass --force to replace it", paths::from_fs(path)));
      }
    }
  }
  std::vector<std::string> written;
  for (const auto& [name, contents] : files) {
    const std::string path = paths::from_fs(dir / name);
    if (auto ok = write_new_file(path, contents, force); !ok) {
      return make_error(fmt::format("cannot write {}", ok.error().message));
    }
    written.push_back(path);
  }
  return written;
}

}  // namespace gpuvet::plan
