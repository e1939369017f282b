// The Python probe over snapshots (every discovery row, every framework family) and over a real
// directory tree through the live System.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <tuple>

#include "checks/checks.hpp"
#include "probes/probes.hpp"
#include "system/overlay_system.hpp"
#include "system/recording_system.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

using nlohmann::json;
using testing::linux_snapshot;

std::string metadata(const std::string& name, const std::string& version) {
  return "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version +
         "\nSummary: s\n\nA long description.\n";
}

// Files of a snapshot: path -> text ("" for an empty file).
struct Tree {
  json files = json::object();
  Tree& text(const std::string& path, const std::string& contents) {
    files[path] = {{"text", contents}};
    return *this;
  }
  Tree& dir(const std::string& path) {
    files[path] = {{"dir", true}};
    return *this;
  }
  Tree& dist(const std::string& site, const std::string& name, const std::string& version) {
    std::string dir_name = name;
    std::replace(dir_name.begin(), dir_name.end(), '-', '_');
    return text(site + "/" + dir_name + "-" + version + ".dist-info/METADATA",
                metadata(name, version));
  }
  // A virtual environment: pyvenv.cfg and an empty site-packages.
  Tree& venv(const std::string& prefix, const std::string& version = "3.11.4") {
    return text(prefix + "/pyvenv.cfg", "version = " + version + "\n")
        .dir(prefix + "/lib/python" + version.substr(0, version.rfind('.')) + "/site-packages");
  }
  Tree& conda(const std::string& prefix, const std::string& name, const std::string& version,
              const std::string& build, const std::string& channel = "conda-forge") {
    return text(prefix + "/conda-meta/" + name + "-" + version + "-" + build + ".json",
                R"({"build": ")" + build + R"(", "channel": "https://conda.anaconda.org/)" +
                    channel + R"(/linux-64", "name": ")" + name + "\"}");
  }
};

Facts facts_of(const Tree& tree, const json& env = json::object(), const json& host = {}) {
  json extra = {{"files", tree.files}, {"env", env}};
  if (!host.is_null()) extra["host"] = host;
  const sys::ReplaySystem system(linux_snapshot(extra));
  return collect_facts(system);
}

const PythonEnvFact* env_at(const Facts& f, const std::string& path) {
  for (const auto& env : f.python_envs) {
    if (env.path == path) return &env;
  }
  return nullptr;
}

std::vector<std::string> ids(const Facts& facts) {
  const checks::CheckContext context(facts, testing::embedded_kb(), testing::messages());
  auto findings = checks::run_checks(context);
  EXPECT_TRUE(findings.ok());
  std::vector<std::string> out;
  if (!findings.ok()) return out;
  for (const auto& f : *findings)
    out.push_back(f.id);
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& id) {
  return std::find(list.begin(), list.end(), id) != list.end();
}

constexpr const char* kSite310 = "/home/u/miniconda3/envs/tf/lib/python3.7/site-packages";

// --- discovery ------------------------------------------------------------------------------

TEST(PythonProbe, FindsCondaInstallsTheirEnvsAndListedEnvs) {
  Tree t;
  t.conda("/home/u/miniconda3", "python", "3.11.5", "h955ad1f_0")
      .dir("/home/u/miniconda3/lib/python3.11/site-packages")
      .conda("/home/u/miniconda3/envs/tf", "python", "3.7.16", "h7a1cb2a_0")
      .dir(kSite310)
      .text("/home/u/.conda/environments.txt", "/home/u/miniconda3\n/data/envs/other\n\n")
      .conda("/data/envs/other", "python", "3.10.13", "h955ad1f_0")
      .dir("/data/envs/other/lib/python3.10/site-packages")
      .text("/home/u/.condarc", "envs_dirs:\n  - /scratch/envs\n")
      .conda("/scratch/envs/big", "python", "3.9.18", "h955ad1f_0")
      .dir("/scratch/envs/big/lib/python3.9/site-packages");
  const Facts f = facts_of(t, {{"HOME", "/home/u"}});
  for (const auto& [path, python] :
       std::vector<std::pair<std::string, std::string>>{{"/home/u/miniconda3", "3.11.5"},
                                                        {"/home/u/miniconda3/envs/tf", "3.7.16"},
                                                        {"/data/envs/other", "3.10.13"},
                                                        {"/scratch/envs/big", "3.9.18"}}) {
    const auto* env = env_at(f, path);
    ASSERT_TRUE(env) << path;
    EXPECT_EQ(env->kind, "conda");
    EXPECT_EQ(env->python, python);
    EXPECT_EQ(env->python_source, "conda-meta");
  }
  EXPECT_EQ(env_at(f, "/scratch/envs/big")->found_by, "~/.condarc");
}

TEST(PythonProbe, VenvFromVirtualEnvIsActiveWithoutPythonOnPath) {
  Tree t;
  t.text("/work/proj/.venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.2\n")
      .dir("/work/proj/.venv/lib/python3.11/site-packages");
  const Facts f = facts_of(t, {{"VIRTUAL_ENV", "/work/proj/.venv"}});
  ASSERT_EQ(f.python_envs.size(), 1u);
  EXPECT_EQ(f.python_envs[0].kind, "venv");
  EXPECT_EQ(f.python_envs[0].python, "3.11.2");
  EXPECT_EQ(f.python_envs[0].python_source, "pyvenv.cfg");
  EXPECT_TRUE(f.python_envs[0].active);
  EXPECT_EQ(f.python_envs[0].found_by, "$VIRTUAL_ENV");
}

TEST(PythonProbe, DotVenvInTheWorkingDirectory) {
  Tree t;
  t.text("/work/proj/.venv/pyvenv.cfg", "version_info = 3.12.1\n")
      .dir("/work/proj/.venv/lib/python3.12/site-packages");
  const Facts f = facts_of(t, json::object(), {{"os", "linux"}, {"cwd", "/work/proj"}});
  ASSERT_EQ(f.python_envs.size(), 1u);
  EXPECT_EQ(f.python_envs[0].found_by, "@cwd/.venv");
  EXPECT_FALSE(f.python_envs[0].active);
}

TEST(PythonProbe, PyenvShimsRunTheSelectedVersion) {
  Tree t;
  t.text("/home/u/.pyenv/shims/python3", "#!/bin/bash\n")
      .text("/home/u/.pyenv/version", "3.10.13\n")
      .text("/home/u/.pyenv/versions/3.10.13/include/python3.10/patchlevel.h",
            "#define PY_VERSION \"3.10.13\"\n")
      .dir("/home/u/.pyenv/versions/3.10.13/lib/python3.10/site-packages")
      .dir("/home/u/.pyenv/versions/3.12.1/lib/python3.12/site-packages")
      .text("/home/u/.pyenv/versions/3.10.13/envs/proj/pyvenv.cfg", "version = 3.10.13\n")
      .dir("/home/u/.pyenv/versions/3.10.13/envs/proj/lib/python3.10/site-packages")
      .text("/usr/bin/python3", "")
      .dir("/usr/lib/python3/dist-packages")
      .dir("/usr/lib/python3.11");
  const json env = {{"HOME", "/home/u"}, {"PATH", "/home/u/.pyenv/shims:/usr/bin"}};
  Facts f = facts_of(t, env);
  const auto* selected = env_at(f, "/home/u/.pyenv/versions/3.10.13");
  ASSERT_TRUE(selected);
  EXPECT_EQ(selected->kind, "pyenv");
  EXPECT_TRUE(selected->active);
  EXPECT_EQ(selected->python_source, "patchlevel.h");
  ASSERT_TRUE(env_at(f, "/home/u/.pyenv/versions/3.12.1"));
  EXPECT_EQ(env_at(f, "/home/u/.pyenv/versions/3.12.1")->python_source, "lib-dir");
  ASSERT_TRUE(env_at(f, "/home/u/.pyenv/versions/3.10.13/envs/proj"));
  EXPECT_EQ(env_at(f, "/home/u/.pyenv/versions/3.10.13/envs/proj")->kind, "venv");
  const auto* system = env_at(f, "/usr");
  ASSERT_TRUE(system);
  EXPECT_EQ(system->kind, "system");
  EXPECT_FALSE(system->active);
  EXPECT_EQ(system->site_packages, (std::vector<std::string>{"/usr/lib/python3/dist-packages"}));

  // PYENV_VERSION=system hands over to the rest of PATH: Debian's python3.
  json system_env = env;
  system_env["PYENV_VERSION"] = "system";
  f = facts_of(t, system_env);
  EXPECT_TRUE(env_at(f, "/usr")->active);
  EXPECT_FALSE(env_at(f, "/home/u/.pyenv/versions/3.10.13")->active);
}

TEST(PythonProbe, PipxVenvsAndUserSite) {
  Tree t;
  t.text("/home/u/.local/share/pipx/venvs/black/pyvenv.cfg", "version = 3.11.2\n")
      .dir("/home/u/.local/share/pipx/venvs/black/lib/python3.11/site-packages")
      .dist("/home/u/.local/lib/python3.11/site-packages", "torch", "2.1.0");
  const Facts f = facts_of(t, {{"HOME", "/home/u"}});
  ASSERT_TRUE(env_at(f, "/home/u/.local/share/pipx/venvs/black"));
  const auto* user = env_at(f, "/home/u/.local");
  ASSERT_TRUE(user);
  EXPECT_EQ(user->kind, "user");
  EXPECT_EQ(user->python, "3.11");
  ASSERT_EQ(user->frameworks.size(), 1u);
}

TEST(PythonProbe, OneEnvironmentFoundTwiceIsListedOnce) {
  Tree t;
  t.conda("/opt/conda", "python", "3.11.5", "h0")
      .dir("/opt/conda/lib/python3.11/site-packages")
      .text("/opt/conda/bin/python3", "");
  const Facts f = facts_of(t, {{"CONDA_PREFIX", "/opt/conda"},
                               {"CONDA_EXE", "/opt/conda/bin/conda"},
                               {"PATH", "/opt/conda/bin"}});
  ASSERT_EQ(f.python_envs.size(), 1u);
  EXPECT_TRUE(f.python_envs[0].active);
  EXPECT_EQ(f.python_envs[0].found_by, "$CONDA_PREFIX");
}

// Each environment manager's own directory, with the row that found it.
void expect_found(const Facts& f, const std::string& path, const std::string& kind,
                  const std::string& found_by) {
  const auto* env = env_at(f, path);
  ASSERT_TRUE(env) << path;
  EXPECT_EQ(env->kind, kind) << path;
  EXPECT_EQ(env->found_by, found_by) << path;
}

TEST(PythonProbe, VirtualenvwrapperAndPipenvDirectories) {
  Tree t;
  t.venv("/home/u/.virtualenvs/wrapped")
      .venv("/home/u/.local/share/virtualenvs/proj-wyUfYPqE")
      .venv("/srv/workon/shared");
  Facts f = facts_of(t, {{"HOME", "/home/u"}});
  expect_found(f, "/home/u/.virtualenvs/wrapped", "venv", "~/.virtualenvs");
  expect_found(f, "/home/u/.local/share/virtualenvs/proj-wyUfYPqE", "venv",
               "~xdg-data/virtualenvs");
  EXPECT_FALSE(env_at(f, "/srv/workon/shared"));

  // WORKON_HOME (virtualenvwrapper's and pipenv's) comes first; XDG_DATA_HOME moves pipenv's
  // default.
  Tree xdg = t;
  xdg.venv("/xdg/data/virtualenvs/other-AbCd1234");
  f = facts_of(
      xdg, {{"HOME", "/home/u"}, {"WORKON_HOME", "/srv/workon"}, {"XDG_DATA_HOME", "/xdg/data"}});
  expect_found(f, "/srv/workon/shared", "venv", "$WORKON_HOME");
  expect_found(f, "/xdg/data/virtualenvs/other-AbCd1234", "venv", "~xdg-data/virtualenvs");
  EXPECT_FALSE(env_at(f, "/home/u/.local/share/virtualenvs/proj-wyUfYPqE"));
}

TEST(PythonProbe, PoetryVirtualenvsInItsCacheDirectory) {
  Tree t;
  t.venv("/home/u/.cache/pypoetry/virtualenvs/app-Xy12AbCd-py3.11")
      .venv("/xdg/cache/pypoetry/virtualenvs/lib-Zz99AbCd-py3.12", "3.12.1")
      .venv("/poetry/cache/virtualenvs/svc-Qq11AbCd-py3.10", "3.10.13")
      .venv("/poetry/envs/tool-Ww22AbCd-py3.11");
  Facts f = facts_of(t, {{"HOME", "/home/u"}});
  expect_found(f, "/home/u/.cache/pypoetry/virtualenvs/app-Xy12AbCd-py3.11", "venv",
               "~xdg-cache/pypoetry/virtualenvs");
  EXPECT_EQ(f.python_envs.size(), 1u);

  f = facts_of(t, {{"HOME", "/home/u"},
                   {"XDG_CACHE_HOME", "/xdg/cache"},
                   {"POETRY_CACHE_DIR", "/poetry/cache"},
                   {"POETRY_VIRTUALENVS_PATH", "/poetry/envs"}});
  expect_found(f, "/poetry/envs/tool-Ww22AbCd-py3.11", "venv", "$POETRY_VIRTUALENVS_PATH");
  expect_found(f, "/poetry/cache/virtualenvs/svc-Qq11AbCd-py3.10", "venv",
               "$POETRY_CACHE_DIR/virtualenvs");
  expect_found(f, "/xdg/cache/pypoetry/virtualenvs/lib-Zz99AbCd-py3.12", "venv",
               "~xdg-cache/pypoetry/virtualenvs");
  EXPECT_FALSE(env_at(f, "/home/u/.cache/pypoetry/virtualenvs/app-Xy12AbCd-py3.11"));

  // A relative XDG_CACHE_HOME is ignored (XDG Base Directory specification).
  f = facts_of(t, {{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "cache"}});
  EXPECT_TRUE(env_at(f, "/home/u/.cache/pypoetry/virtualenvs/app-Xy12AbCd-py3.11"));
}

TEST(PythonProbe, HatchNestedEnvironmentsAreFoundToABoundedDepth) {
  const std::string virt = "/home/u/.local/share/hatch/env/virtual";
  Tree t;
  t.venv(virt + "/my-app/Ab3dE_f1/my-app")   // <project>/<hash>/<env>
      .venv(virt + "/my-app/Ab3dE_f1/test")  // a second env of the project
      .venv(virt + "/my-app/Ab3dE_f1/my-app-build")
      .venv(virt + "/old-app-Zx9yW8v7/default")  // Hatch < 1.8: <project>-<hash>/<env>
      .venv(virt + "/a/b/c/too-deep")
      .dir(virt + "/my-app/Ab3dE_f1/my-app/lib/python3.11/site-packages/inner")
      .venv("/hatch-data/env/virtual/other/Qw3eR_t1/other");
  Facts f = facts_of(t, {{"HOME", "/home/u"}});
  for (const auto* env : {"/my-app/Ab3dE_f1/my-app", "/my-app/Ab3dE_f1/test",
                          "/my-app/Ab3dE_f1/my-app-build", "/old-app-Zx9yW8v7/default"}) {
    expect_found(f, virt + env, "venv", "~xdg-data/hatch/env/virtual");
  }
  EXPECT_FALSE(env_at(f, virt + "/a/b/c/too-deep"));
  EXPECT_EQ(f.python_envs.size(), 4u);

  f = facts_of(t, {{"HOME", "/home/u"}, {"HATCH_DATA_DIR", "/hatch-data"}});
  expect_found(f, "/hatch-data/env/virtual/other/Qw3eR_t1/other", "venv",
               "$HATCH_DATA_DIR/env/virtual");
}

TEST(PythonProbe, PdmVenvsAndTheProjectVenvAboveTheWorkingDirectory) {
  Tree t;
  t.venv("/home/u/.local/share/pdm/venvs/proj-Ab12Cd34-3.11")
      .venv("/work/proj/.venv", "3.12.1")
      .dir("/work/proj/src/pkg/sub")
      .venv("/work/.venv", "3.10.13");
  const Facts f =
      facts_of(t, {{"HOME", "/home/u"}}, {{"os", "linux"}, {"cwd", "/work/proj/src/pkg/sub"}});
  expect_found(f, "/home/u/.local/share/pdm/venvs/proj-Ab12Cd34-3.11", "venv",
               "~xdg-data/pdm/venvs");
  // uv, Poetry and PDM find the project's .venv from any subdirectory of the project.
  expect_found(f, "/work/proj/.venv", "venv", "@cwd/.venv");
  expect_found(f, "/work/.venv", "venv", "@cwd/.venv");
  EXPECT_EQ(env_at(f, "/work/proj/.venv")->python, "3.12.1");
}

TEST(PythonProbe, UvToolsAndManagedPythons) {
  const std::string managed = "/home/u/.local/share/uv/python/cpython-3.12.4-linux-x86_64-gnu";
  Tree t;
  t.venv("/home/u/.local/share/uv/tools/ruff", "3.12.4")
      .text(managed + "/bin/python3.12", "")
      .text(managed + "/include/python3.12/patchlevel.h", "#define PY_VERSION \"3.12.4\"\n")
      .dir(managed + "/lib/python3.12/site-packages")
      .dir("/home/u/.local/share/uv/python/.cache")
      .venv("/opt/uv-tools/black")
      .dir("/opt/uv-python/cpython-3.11.9-linux-x86_64-gnu/lib/python3.11/site-packages");
  Facts f = facts_of(t, {{"HOME", "/home/u"}});
  expect_found(f, "/home/u/.local/share/uv/tools/ruff", "venv", "~xdg-data/uv/tools");
  expect_found(f, managed, "uv", "~xdg-data/uv/python");
  EXPECT_EQ(env_at(f, managed)->python, "3.12.4");
  EXPECT_EQ(f.python_envs.size(), 2u);

  f = facts_of(t, {{"HOME", "/home/u"},
                   {"UV_TOOL_DIR", "/opt/uv-tools"},
                   {"UV_PYTHON_INSTALL_DIR", "/opt/uv-python"}});
  expect_found(f, "/opt/uv-tools/black", "venv", "$UV_TOOL_DIR");
  expect_found(f, "/opt/uv-python/cpython-3.11.9-linux-x86_64-gnu", "uv", "$UV_PYTHON_INSTALL_DIR");
}

TEST(PythonProbe, PipxHomesOldNewAndGlobal) {
  Tree t;
  t.venv("/xdg/data/pipx/venvs/black")
      .venv("/home/u/.local/pipx/venvs/httpie")
      .venv("/opt/pipx/venvs/pycowsay");
  const Facts f = facts_of(t, {{"HOME", "/home/u"}, {"XDG_DATA_HOME", "/xdg/data"}});
  expect_found(f, "/xdg/data/pipx/venvs/black", "venv", "~xdg-data/pipx/venvs");
  expect_found(f, "/home/u/.local/pipx/venvs/httpie", "venv", "~/.local/pipx/venvs");
  expect_found(f, "/opt/pipx/venvs/pycowsay", "venv", "/opt/pipx/venvs");
}

TEST(PythonProbe, CondaEnvsDirsVariablesAndMicromambaRoots) {
  Tree t;
  t.conda("/scratch/a/torch", "python", "3.11.5", "h0")
      .dir("/scratch/a/torch/lib/python3.11/site-packages")
      .conda("/scratch/b/jax", "python", "3.12.1", "h0")
      .dir("/scratch/b/jax/lib/python3.12/site-packages")
      .conda("/scratch/c/tf", "python", "3.10.13", "h0")
      .dir("/scratch/c/tf/lib/python3.10/site-packages")
      .conda("/home/u/.local/share/mamba", "python", "3.12.1", "h0")
      .dir("/home/u/.local/share/mamba/lib/python3.12/site-packages")
      .conda("/home/u/.local/share/mamba/envs/ml", "python", "3.11.5", "h0")
      .dir("/home/u/.local/share/mamba/envs/ml/lib/python3.11/site-packages");
  // conda splits CONDA_ENVS_DIRS on the path separator, mamba on commas.
  const Facts f = facts_of(t, {{"HOME", "/home/u"},
                               {"CONDA_ENVS_DIRS", "/scratch/a:/scratch/b, relative"},
                               {"CONDA_ENVS_PATH", "/scratch/c"}});
  expect_found(f, "/scratch/a/torch", "conda", "$CONDA_ENVS_DIRS");
  expect_found(f, "/scratch/b/jax", "conda", "$CONDA_ENVS_DIRS");
  expect_found(f, "/scratch/c/tf", "conda", "$CONDA_ENVS_PATH");
  expect_found(f, "/home/u/.local/share/mamba", "conda", "~xdg-data/mamba");
  expect_found(f, "/home/u/.local/share/mamba/envs/ml", "conda", "~xdg-data/mamba");
}

TEST(PythonProbe, AManagersEnvironmentFoundTwiceIsListedOnce) {
  // WORKON_HOME pointing at virtualenvwrapper's default, and the project .venv activated.
  Tree t;
  t.venv("/home/u/.virtualenvs/api").venv("/work/proj/.venv");
  const Facts f = facts_of(t,
                           {{"HOME", "/home/u"},
                            {"WORKON_HOME", "/home/u/.virtualenvs/"},
                            {"VIRTUAL_ENV", "/work/proj/.venv"}},
                           {{"os", "linux"}, {"cwd", "/work/proj"}});
  ASSERT_EQ(f.python_envs.size(), 2u);
  expect_found(f, "/home/u/.virtualenvs/api", "venv", "$WORKON_HOME");
  expect_found(f, "/work/proj/.venv", "venv", "$VIRTUAL_ENV");
}

TEST(PythonProbe, DirectoriesWithoutPythonAreNoEnvironment) {
  Tree t;
  t.dir("/home/u/miniconda3/envs/empty/bin").dir("/home/u/.conda/envs/broken");
  EXPECT_TRUE(facts_of(t, {{"HOME", "/home/u"}}).python_envs.empty());
}

// --- packages and framework builds ----------------------------------------------------------

TEST(PythonProbe, MetadataHeadersWinOverTheDirectoryName) {
  Tree t;
  t.text(std::string(kSite310) + "/tensorflow_gpu-2.1.0.dist-info/METADATA",
         metadata("tensorflow-gpu", "2.1.0"))
      .text(std::string(kSite310) + "/Tensorflow_GPU-2.1.dist-info/METADATA",
            metadata("tensorflow-gpu", "2.1.0"))
      .dist(kSite310, "numpy", "1.21.6")
      .text(std::string(kSite310) + "/six-1.16.0.egg-info", "Metadata-Version: 1.1\n")
      .conda("/home/u/miniconda3/envs/tf", "python", "3.7.16", "h0");
  const Facts f = facts_of(t, {{"HOME", "/home/u"}});
  const auto* env = env_at(f, "/home/u/miniconda3/envs/tf");
  ASSERT_TRUE(env);
  EXPECT_EQ(env->distributions, 4);
  ASSERT_EQ(env->frameworks.size(), 2u);
  for (const auto& fw : env->frameworks) {
    EXPECT_EQ(fw.package, "tensorflow-gpu");
    EXPECT_EQ(fw.version, "2.1.0");
    EXPECT_EQ(fw.gpu_build, true);  // by its name: no build_info.py here
    EXPECT_EQ(fw.declared_by, "package name");
  }
}

TEST(PythonProbe, TorchCudaBuildWithNvidiaWheels) {
  const std::string site = "/srv/venv/lib/python3.11/site-packages";
  Tree t;
  t.text("/srv/venv/pyvenv.cfg", "version = 3.11.2\n")
      .dist(site, "torch", "2.1.0")
      .text(site + "/torch/version.py",
            "__version__ = '2.1.0+cu121'\ndebug = False\ncuda: Optional[str] = '12.1'\n"
            "hip: Optional[str] = None\n")
      .dist(site, "nvidia-cudnn-cu12", "8.9.2.26")
      .dir(site + "/nvidia/cudnn/lib")
      .dist(site, "nvidia-cuda-runtime-cu12", "12.1.105")
      .text(site + "/nvidia/cuda_runtime/lib/libcudart.so.12", "")
      .dist(site, "nvidia-cublas-cu12", "12.1.3.1")
      .dir(site + "/nvidia/cublas/lib");
  const Facts f = facts_of(t, {{"VIRTUAL_ENV", "/srv/venv"}});
  ASSERT_EQ(f.python_envs.size(), 1u);
  const auto& env = f.python_envs[0];
  ASSERT_EQ(env.frameworks.size(), 1u);
  const auto& torch = env.frameworks[0];
  EXPECT_EQ(torch.name, "torch");
  EXPECT_EQ(torch.gpu_build, true);
  EXPECT_EQ(torch.cuda, "12.1");
  EXPECT_EQ(torch.cudnn, "8.9");  // from the cuDNN wheel it links against
  EXPECT_EQ(torch.declared_by, "torch/version.py");
  ASSERT_EQ(env.nvidia_wheels.size(), 3u);
  EXPECT_EQ(env.nvidia_wheels[0].component, "cublas");
  EXPECT_EQ(env.nvidia_wheels[0].lib_dir, site + "/nvidia/cublas/lib");
  // The wheels' CUDA runtime and cuDNN are copies the library resolution sees.
  const auto toolkit = std::find_if(f.cuda_toolkits.begin(), f.cuda_toolkits.end(),
                                    [](const CudaToolkitFact& t) { return t.source == "pip"; });
  ASSERT_NE(toolkit, f.cuda_toolkits.end());
  EXPECT_EQ(toolkit->version, "12.1.105");
  EXPECT_EQ(toolkit->root, site + "/nvidia/cuda_runtime");
  const auto cudnn = std::find_if(f.cudnn.begin(), f.cudnn.end(),
                                  [](const CudnnFact& c) { return c.source == "pip"; });
  ASSERT_NE(cudnn, f.cudnn.end());
  EXPECT_EQ(cudnn->version, "8.9.2");
  EXPECT_TRUE(std::any_of(f.libraries.begin(), f.libraries.end(),
                          [](const LibraryFact& l) { return l.name == "libcudart.so.12"; }));
  EXPECT_FALSE(has(ids(f), "framework.cpu_only_build"));
}

TEST(PythonProbe, TorchLoadsTheWheelsThroughItsRpath) {
  const std::string site = "/srv/venv/lib/python3.11/site-packages";
  Tree t;
  t.text("/srv/venv/pyvenv.cfg", "version = 3.11.2\n")
      .dist(site, "torch", "2.1.0")
      .text(site + "/torch/version.py", "__version__ = '2.1.0+cu121'\ncuda = '12.1'\n")
      .dist(site, "nvidia-cudnn-cu12", "8.9.2.26")
      .text(site + "/nvidia/cudnn/lib/libcudnn.so.8", "")
      .text("/usr/local/cuda/lib64/libcudnn.so.8", "");
  t.files[site + "/torch/lib/libtorch_cuda.so"] = {
      {"size", 1000},
      {"elf",
       {{"bits", 64},
        {"machine", 62},
        {"needed", {"libcudnn.so.8", "libcublas.so.12", "libc.so.6"}},
        {"rpath", {"$ORIGIN/../../nvidia/cudnn/lib", "$ORIGIN/../../nvidia/cublas/lib"}}}}};
  const Facts f =
      facts_of(t, {{"VIRTUAL_ENV", "/srv/venv"}, {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64"}});
  const auto& torch = f.python_envs.at(0).frameworks.at(0);
  EXPECT_EQ(torch.module, site + "/torch/lib/libtorch_cuda.so");
  ASSERT_EQ(torch.libraries.size(), 2u);
  // DT_RPATH comes before LD_LIBRARY_PATH: the wheel's cuDNN wins over the toolkit's.
  EXPECT_EQ(torch.libraries[0].name, "libcudnn.so.8");
  EXPECT_EQ(torch.libraries[0].resolved, site + "/nvidia/cudnn/lib/libcudnn.so.8");
  ASSERT_EQ(torch.libraries[0].shadowed.size(), 1u);
  EXPECT_EQ(torch.libraries[0].shadowed[0].path, "/usr/local/cuda/lib64/libcudnn.so.8");
  // No cuBLAS wheel installed: nothing loads.
  EXPECT_EQ(torch.libraries[1].name, "libcublas.so.12");
  EXPECT_FALSE(torch.libraries[1].resolved);
}

TEST(PythonProbe, TorchBundledCudnnAndCpuBuild) {
  const std::string site = "/opt/conda/lib/python3.10/site-packages";
  Tree t;
  t.conda("/opt/conda", "python", "3.10.13", "h0")
      .dist(site, "torch", "1.13.1+cu117")
      .text(site + "/torch/version.py",
            "__version__ = '1.13.1+cu117'\ndebug = False\ncuda = '11.7'\nhip = None\n")
      .text(site + "/torch/lib/libcudnn.so.8", "");
  Facts f = facts_of(t);
  ASSERT_EQ(f.python_envs.at(0).frameworks.size(), 1u);
  EXPECT_EQ(f.python_envs[0].frameworks[0].cudnn, "8");

  Tree cpu;
  cpu.conda("/opt/conda", "python", "3.10.13", "h0")
      .dist(site, "torch", "2.2.0+cpu")
      .text(site + "/torch/version.py", "__version__ = '2.2.0+cpu'\ncuda = None\n");
  f = facts_of(cpu);
  const auto& torch = f.python_envs.at(0).frameworks.at(0);
  EXPECT_EQ(torch.gpu_build, false);
  EXPECT_FALSE(torch.cuda);
  EXPECT_TRUE(has(ids(f), "framework.cpu_only_build"));
}

TEST(PythonProbe, JaxPluginStandsForJaxlib) {
  const std::string site = "/srv/jax/lib/python3.12/site-packages";
  Tree t;
  t.text("/srv/jax/pyvenv.cfg", "version = 3.12.1\n")
      .dist(site, "jax", "0.4.30")
      .dist(site, "jaxlib", "0.4.30")
      .dist(site, "jax-cuda12-plugin", "0.4.30")
      .dist(site, "jax-cuda12-pjrt", "0.4.30");
  Facts f = facts_of(t, {{"VIRTUAL_ENV", "/srv/jax"}});
  ASSERT_EQ(f.python_envs.at(0).frameworks.size(), 1u);
  const auto& jax = f.python_envs[0].frameworks[0];
  EXPECT_EQ(jax.name, "jax");
  EXPECT_EQ(jax.package, "jax-cuda12-plugin");
  EXPECT_EQ(jax.gpu_build, true);
  EXPECT_EQ(jax.cuda, "12");

  // The plugin's precompiled kernels are read and shown, but XLA compiles the model's kernels for
  // the GPU at run time: a T4 (7.5) beside a plugin with Ampere cubins only is not an error.
  t.files[site + "/jax_plugins/xla_cuda12/xla_cuda_plugin.so"] = {
      {"size", 1000}, {"gpu_code", {{"sass", {"sm_80"}}}}};
  f = facts_of(t, {{"VIRTUAL_ENV", "/srv/jax"}});
  ASSERT_EQ(f.python_envs.at(0).frameworks.at(0).gpu_code.size(), 1u);
  EXPECT_EQ(f.python_envs[0].frameworks[0].gpu_code[0].sass, std::vector<std::string>{"sm_80"});
  GpuFact t4;
  t4.name = "Tesla T4";
  t4.compute_capability = "7.5";
  f.gpus.push_back(t4);
  EXPECT_FALSE(has(ids(f), "gpu.compute_capability_unsupported"));

  Tree cpu;
  cpu.text("/srv/jax/pyvenv.cfg", "version = 3.12.1\n")
      .dist(site, "jax", "0.4.30")
      .dist(site, "jaxlib", "0.4.30");
  f = facts_of(cpu, {{"VIRTUAL_ENV", "/srv/jax"}});
  EXPECT_EQ(f.python_envs.at(0).frameworks.at(0).gpu_build, false);

  Tree old;
  old.text("/srv/jax/pyvenv.cfg", "version = 3.12.1\n")
      .dist(site, "jaxlib", "0.4.23+cuda12.cudnn89");
  f = facts_of(old, {{"VIRTUAL_ENV", "/srv/jax"}});
  EXPECT_EQ(f.python_envs.at(0).frameworks.at(0).cudnn, "8.9");
}

TEST(PythonProbe, CupyAndPaddleFromTheirNames) {
  const std::string site = "/srv/v/lib/python3.10/site-packages";
  Tree t;
  t.text("/srv/v/pyvenv.cfg", "version = 3.10.12\n")
      .dist(site, "cupy-cuda12x", "13.3.0")
      .dist(site, "cupy-cuda102", "10.6.0")
      .dist(site, "paddlepaddle-gpu", "2.5.2.post112");
  const Facts f = facts_of(t, {{"VIRTUAL_ENV", "/srv/v"}});
  const auto& fw = f.python_envs.at(0).frameworks;
  ASSERT_EQ(fw.size(), 3u);
  EXPECT_EQ(fw[0].package, "cupy-cuda102");
  EXPECT_EQ(fw[0].cuda, "10.2");
  EXPECT_EQ(fw[1].cuda, "12");
  EXPECT_EQ(fw[2].name, "paddle");
  EXPECT_EQ(fw[2].cuda, "11.2");
  EXPECT_EQ(fw[2].gpu_build, true);
  // Two CuPy builds in one environment.
  EXPECT_TRUE(has(ids(f), "framework.conflicting_packages"));

  // Paddle 1.x's .post97 is CUDA 9 with cuDNN 7, not CUDA 9.7: without its version file's CUDA,
  // the CUDA is unknown.
  Tree old;
  old.text("/srv/v/pyvenv.cfg", "version = 3.7.9\n")
      .dist("/srv/v/lib/python3.7/site-packages", "paddlepaddle-gpu", "1.8.5.post97");
  const Facts one = facts_of(old, {{"VIRTUAL_ENV", "/srv/v"}});
  ASSERT_EQ(one.python_envs.at(0).frameworks.size(), 1u);
  EXPECT_EQ(one.python_envs[0].frameworks[0].name, "paddle");
  EXPECT_FALSE(one.python_envs[0].frameworks[0].cuda.has_value());
}

// onnxruntime-gpu 1.21+ declares its CUDA in build_and_package_info.py; older wheels only in the
// CUDA provider's DT_NEEDED, which also tells which cuDNN and cuBLAS the provider loads.
TEST(PythonProbe, OnnxRuntimeGpuFromItsBuildFileAndItsCudaProvider) {
  const std::string site = "/srv/ort/lib/python3.12/site-packages";
  Tree t;
  t.text("/srv/ort/pyvenv.cfg", "version = 3.12.3\n")
      .dist(site, "onnxruntime-gpu", "1.22.0")
      .text(site + "/onnxruntime/capi/build_and_package_info.py",
            "package_name = 'onnxruntime-gpu'\n__version__ = '1.22.0'\ncuda_version = '12.2'\n")
      .dist(site, "nvidia-cudnn-cu12", "9.1.0.70")
      .text(site + "/nvidia/cudnn/lib/libcudnn.so.9", "");
  t.files[site + "/onnxruntime/capi/libonnxruntime_providers_cuda.so"] = {
      {"size", 1000},
      {"elf",
       {{"bits", 64},
        {"machine", 62},
        {"needed", {"libcublasLt.so.12", "libcudnn.so.9", "libcudart.so.12", "libc.so.6"}},
        {"runpath", {"$ORIGIN"}}}}};
  Facts f = facts_of(t, {{"VIRTUAL_ENV", "/srv/ort"}});
  ASSERT_EQ(f.python_envs.at(0).frameworks.size(), 1u);
  const auto& ort = f.python_envs[0].frameworks[0];
  EXPECT_EQ(ort.name, "onnxruntime");
  EXPECT_EQ(ort.package, "onnxruntime-gpu");
  EXPECT_EQ(ort.gpu_build, true);
  EXPECT_EQ(ort.cuda, "12.2");
  EXPECT_EQ(ort.declared_by, "onnxruntime/capi/build_and_package_info.py");
  EXPECT_EQ(ort.module, site + "/onnxruntime/capi/libonnxruntime_providers_cuda.so");
  ASSERT_EQ(ort.libraries.size(), 3u);  // cuBLASLt, cuDNN, cudart: none on the search path
  EXPECT_EQ(ort.libraries[1].name, "libcudnn.so.9");
  EXPECT_FALSE(ort.libraries[1].resolved);
  EXPECT_TRUE(has(ids(f), "cudnn.missing") || has(ids(f), "cuda.runtime_missing"));

  // 1.18: no build file in the GPU wheel; the provider's DT_NEEDED names the majors.
  Tree old;
  old.text("/srv/ort/pyvenv.cfg", "version = 3.12.3\n").dist(site, "onnxruntime-gpu", "1.18.1");
  old.files[site + "/onnxruntime/capi/libonnxruntime_providers_cuda.so"] =
      t.files[site + "/onnxruntime/capi/libonnxruntime_providers_cuda.so"];
  f = facts_of(old, {{"VIRTUAL_ENV", "/srv/ort"}});
  const auto& ort118 = f.python_envs.at(0).frameworks.at(0);
  EXPECT_EQ(ort118.gpu_build, true);
  EXPECT_EQ(ort118.cuda, "12");
  EXPECT_EQ(ort118.cudnn, "9");
  EXPECT_EQ(ort118.declared_by, "onnxruntime/capi/libonnxruntime_providers_cuda.so");

  // The CPU package on a GPU machine cannot use the GPU.
  Tree cpu;
  cpu.text("/srv/ort/pyvenv.cfg", "version = 3.12.3\n")
      .dist(site, "onnxruntime", "1.22.0")
      .text(site + "/onnxruntime/capi/build_and_package_info.py",
            "package_name = 'onnxruntime'\n__version__ = '1.22.0'\n");
  f = facts_of(cpu, {{"VIRTUAL_ENV", "/srv/ort"}});
  EXPECT_EQ(f.python_envs.at(0).frameworks.at(0).gpu_build, false);
  EXPECT_TRUE(has(ids(f), "framework.cpu_only_build"));
}

TEST(PythonProbe, PaddleAndCupyFromTheirBuildFiles) {
  const std::string site = "/srv/p/lib/python3.10/site-packages";
  Tree t;
  t.text("/srv/p/pyvenv.cfg", "version = 3.10.12\n")
      .dist(site, "paddlepaddle-gpu", "3.0.0")
      .text(site + "/paddle/version/__init__.py",
            "full_version = '3.0.0'\nwith_gpu = 'ON'\ncuda_version = '12.6'\n"
            "cudnn_version = '9.5.1'\n")
      .dist(site, "cupy-cuda12x", "13.3.0")
      .text(site + "/cupy/.data/_wheel.json", R"({"cuda": "12.x", "packaging": "pip"})");
  const Facts f = facts_of(t, {{"VIRTUAL_ENV", "/srv/p"}});
  const auto& fw = f.python_envs.at(0).frameworks;
  ASSERT_EQ(fw.size(), 2u);
  EXPECT_EQ(fw[0].name, "cupy");
  EXPECT_EQ(fw[0].cuda, "12");
  EXPECT_EQ(fw[0].declared_by, "cupy/.data/_wheel.json");
  EXPECT_EQ(fw[1].name, "paddle");
  EXPECT_EQ(fw[1].cuda, "12.6");
  EXPECT_EQ(fw[1].cudnn, "9.5");
  EXPECT_EQ(fw[1].declared_by, "paddle/version/__init__.py");
}

TEST(PythonProbe, CondaFrameworkAndRuntimes) {
  const std::string prefix = "/home/u/anaconda3/envs/tf21";
  Tree t;
  t.conda(prefix, "python", "3.7.16", "h0", "pkgs/main")
      .conda(prefix, "tensorflow-gpu", "2.1.0", "h0d30ee6_0", "pkgs/main")
      .conda(prefix, "tensorflow-base", "2.1.0", "gpu_py37h6c5654b_0", "pkgs/main")
      .conda(prefix, "cudatoolkit", "10.1.243", "h6bb024c_0", "pkgs/main")
      .conda(prefix, "cudnn", "7.6.5", "cuda10.1_0", "pkgs/main")
      .text(prefix + "/lib/libcudart.so.10.1", "")
      .dir(prefix + "/lib/python3.7/site-packages");
  const Facts f = facts_of(t, {{"HOME", "/home/u"}});
  const auto* env = env_at(f, prefix);
  ASSERT_TRUE(env);
  ASSERT_EQ(env->conda_packages.size(), 4u);
  EXPECT_EQ(env->conda_packages[0].channel, "pkgs/main");
  ASSERT_EQ(env->frameworks.size(), 1u);
  EXPECT_EQ(env->frameworks[0].package, "tensorflow-base");
  EXPECT_EQ(env->frameworks[0].gpu_build, true);
  EXPECT_EQ(env->frameworks[0].installer, "conda");
  const auto toolkit = std::find_if(f.cuda_toolkits.begin(), f.cuda_toolkits.end(),
                                    [](const CudaToolkitFact& c) { return c.source == "conda"; });
  ASSERT_NE(toolkit, f.cuda_toolkits.end());
  EXPECT_EQ(toolkit->version, "10.1.243");
  EXPECT_EQ(toolkit->root, prefix);
  const auto cudnn = std::find_if(f.cudnn.begin(), f.cudnn.end(),
                                  [](const CudnnFact& c) { return c.source == "conda"; });
  ASSERT_NE(cudnn, f.cudnn.end());
  EXPECT_EQ(cudnn->version, "7.6.5");
}

// --- findings -------------------------------------------------------------------------------

TEST(FrameworkChecks, CondaAndPipBuildsOfOneFramework) {
  const std::string prefix = "/opt/conda";
  const std::string site = prefix + "/lib/python3.10/site-packages";
  Tree t;
  t.conda(prefix, "python", "3.10.13", "h0")
      .conda(prefix, "pytorch", "1.13.1", "py3.10_cuda11.7_cudnn8.5.0_0", "pytorch")
      .dist(site, "torch", "2.1.0")
      .text(site + "/torch/version.py", "__version__ = '2.1.0+cu121'\ncuda = '12.1'\n");
  const Facts f = facts_of(t);
  EXPECT_TRUE(has(ids(f), "framework.conflicting_packages"));
}

TEST(FrameworkChecks, StaleCu11WheelsBesideACu12Build) {
  const std::string site = "/srv/venv/lib/python3.11/site-packages";
  Tree t;
  t.text("/srv/venv/pyvenv.cfg", "version = 3.11.2\n")
      .dist(site, "torch", "2.1.0")
      .text(site + "/torch/version.py", "__version__ = '2.1.0+cu121'\ncuda = '12.1'\n")
      .dist(site, "nvidia-cudnn-cu12", "8.9.2.26")
      .dist(site, "nvidia-cudnn-cu11", "8.5.0.96");
  const Facts f = facts_of(t, {{"VIRTUAL_ENV", "/srv/venv"}});
  const checks::CheckContext context(f, testing::embedded_kb(), testing::messages());
  auto findings = checks::run_checks(context);
  ASSERT_TRUE(findings.ok());
  const auto it = std::find_if(findings->begin(), findings->end(), [](const Finding& x) {
    return x.id == "framework.conflicting_packages";
  });
  ASSERT_NE(it, findings->end());
  ASSERT_FALSE(it->fix.empty());
  EXPECT_NE(it->fix[0].find("nvidia-cudnn-cu11"), std::string::npos) << it->fix[0];
  EXPECT_EQ(it->fix[0].find("nvidia-cudnn-cu12"), std::string::npos) << it->fix[0];
}

TEST(FrameworkChecks, WindowsTensorflowMetaPairIsNoConflict) {
  const std::string site = "/srv/venv/lib/python3.10/site-packages";
  Tree t;
  t.text("/srv/venv/pyvenv.cfg", "version = 3.10.11\n")
      .dist(site, "tensorflow", "2.10.1")
      .dist(site, "tensorflow-intel", "2.10.1");
  EXPECT_FALSE(
      has(ids(facts_of(t, {{"VIRTUAL_ENV", "/srv/venv"}})), "framework.conflicting_packages"));
  t.dist(site, "tensorflow-gpu", "2.10.0");
  EXPECT_TRUE(
      has(ids(facts_of(t, {{"VIRTUAL_ENV", "/srv/venv"}})), "framework.conflicting_packages"));
}

std::vector<Finding> known_bugs_of(const Facts& facts) {
  const checks::CheckContext context(facts, testing::embedded_kb(), testing::messages());
  std::vector<Finding> findings;
  EXPECT_TRUE(checks::check_known_release_bugs(context, findings).ok());
  return findings;
}

// A release with a known bug (data/known_release_bugs.csv) installed: the finding names the
// release, what the bug does and the release that fixes it; one before or after it, nothing.
TEST(FrameworkChecks, ReleasesWithAKnownBugInstalled) {
  const std::string site = "/srv/venv/lib/python3.11/site-packages";
  Tree t;
  t.venv("/srv/venv").dist(site, "jaxlib", "0.4.26");
  auto findings = known_bugs_of(facts_of(t, {{"VIRTUAL_ENV", "/srv/venv"}}));
  ASSERT_EQ(findings.size(), 1u);
  const Finding& jax = findings[0];
  EXPECT_EQ(jax.id, "framework.known_bug");
  EXPECT_EQ(jax.severity, Severity::info);
  EXPECT_EQ(jax.layer, Layer::framework);
  EXPECT_NE(jax.title.find("jaxlib 0.4.26"), std::string::npos) << jax.title;
  ASSERT_EQ(jax.evidence.size(), 2u);
  EXPECT_NE(jax.evidence[0].find("/srv/venv"), std::string::npos) << jax.evidence[0];
  EXPECT_NE(jax.evidence[1].find("compute capability"), std::string::npos) << jax.evidence[1];
  ASSERT_EQ(jax.fix.size(), 1u);
  EXPECT_NE(jax.fix[0].find("jaxlib 0.4.27 or later"), std::string::npos) << jax.fix[0];
  EXPECT_NE(jax.fix[0].find("0.4.25"), std::string::npos) << jax.fix[0];
  EXPECT_EQ(jax.details.at("signature"), "jaxlib_cc_query_before_cuinit");
  EXPECT_EQ(jax.details.at("version"), "0.4.26");

  for (const char* release : {"0.4.25", "0.4.27"}) {
    Tree other;
    other.venv("/srv/venv").dist(site, "jaxlib", release);
    EXPECT_TRUE(known_bugs_of(facts_of(other, {{"VIRTUAL_ENV", "/srv/venv"}})).empty()) << release;
  }
}

// A bug of the Windows builds only is said on Windows only, and of the distributions that have
// it: CuPy's source build, not its prebuilt wheels.
TEST(FrameworkChecks, AKnownBugOfOnePlatformAndOneDistribution) {
  const std::string site = "/srv/venv/lib/python3.11/site-packages";
  Tree t;
  t.venv("/srv/venv").dist(site, "torch", "2.4.0").dist(site, "cupy", "13.0.0");
  Facts facts = facts_of(t, {{"VIRTUAL_ENV", "/srv/venv"}});
  EXPECT_TRUE(known_bugs_of(facts).empty());
  facts.os.family = "windows";
  auto findings = known_bugs_of(facts);
  ASSERT_EQ(findings.size(), 2u);
  for (const auto& f : findings) {
    EXPECT_EQ(f.severity, Severity::warning);
    EXPECT_EQ(f.id, "framework.known_bug");
  }
  EXPECT_NE(findings[0].fix[0].find("PyTorch 2.4.1 or later"), std::string::npos);
  EXPECT_NE(findings[1].fix[0].find("CuPy 13.1.0 or later"), std::string::npos);

  Tree wheels;
  wheels.venv("/srv/venv").dist(site, "cupy-cuda12x", "13.0.0");
  facts = facts_of(wheels, {{"VIRTUAL_ENV", "/srv/venv"}});
  facts.os.family = "windows";
  EXPECT_TRUE(known_bugs_of(facts).empty());
}

// --- the live System over a real tree -------------------------------------------------------

bool live_host_is(const std::string& os) {
  return sys::make_live_system()->host().os == os;
}

TEST(PythonProbeLive, ReadsARealTreeAndRecordsOnlyMetadataHeaders) {
  if (!live_host_is("linux")) GTEST_SKIP() << "a Linux layout; the Windows twin follows";
  testing::TempDir dir;
  const std::string prefix = dir.path() + "/home/miniconda3/envs/torch";
  const std::string site = prefix + "/lib/python3.11/site-packages";
  dir.file("home/miniconda3/envs/torch/conda-meta/python-3.11.7-h955ad1f_0.json", "{}");
  dir.file("home/miniconda3/envs/torch/lib/python3.11/site-packages/torch-2.3.0.dist-info/METADATA",
           metadata("torch", "2.3.0") + std::string(100000, 'x'));
  dir.file("home/miniconda3/envs/torch/lib/python3.11/site-packages/torch/version.py",
           "__version__ = '2.3.0+cu121'\ncuda: Optional[str] = '12.1'\n");
  dir.file("home/miniconda3/envs/torch/lib/python3.11/site-packages/six-1.16.0.dist-info/METADATA",
           metadata("six", "1.16.0"));
  const auto live = sys::make_live_system();
  const sys::EnvOverlaySystem overlay(*live, {{"HOME", dir.path() + "/home"}});
  const sys::RecordingSystem system(overlay);
  const Facts f = collect_facts(system);
  const auto* env = env_at(f, prefix);
  ASSERT_TRUE(env);
  EXPECT_EQ(env->python, "3.11.7");
  EXPECT_EQ(env->distributions, 2);
  ASSERT_EQ(env->frameworks.size(), 1u);
  EXPECT_EQ(env->frameworks[0].cuda, "12.1");
  // The 100 kB description never enters the snapshot; six's METADATA is not read at all.
  const sys::Snapshot recorded = system.recorded();
  const auto& metadata_entry = recorded.files.at(site + "/torch-2.3.0.dist-info/METADATA");
  EXPECT_TRUE(metadata_entry.head);
  ASSERT_TRUE(metadata_entry.text);
  EXPECT_LE(metadata_entry.text->size(), 8192u);
  EXPECT_FALSE(recorded.files.count(site + "/six-1.16.0.dist-info/METADATA"));
  // Replayed, the recording gives the same environment.
  const sys::ReplaySystem replay(recorded);
  const Facts replayed = collect_facts(replay);
  const auto* again = env_at(replayed, prefix);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->frameworks.size(), 1u);
  EXPECT_EQ(again->distributions, 2);
}

// The build's own kernel library, a real file with nvcc's fat binary (tests/gpu_code): its
// architectures reach the facts, the recording and its replay.
TEST(PythonProbeLive, ReadsTheGpuCodeOfTheBuildsKernelLibrary) {
  const bool windows = live_host_is("windows");
  const std::string fixtures = windows ? GPUVET_GPU_CODE_PE_DIR : GPUVET_GPU_CODE_ELF_DIR;
  if (fixtures.empty()) GTEST_SKIP() << "no GPU-code fixture libraries in this build";
  testing::TempDir dir;
  const std::string prefix = dir.path() + "/home/venvs/torch";
  const std::string site =
      prefix + (windows ? "/Lib/site-packages" : "/lib/python3.11/site-packages");
  const std::string relative_site = site.substr(dir.path().size() + 1);
  dir.file("home/venvs/torch/pyvenv.cfg", "version = 3.11.7\n");
  dir.file(relative_site + "/torch-2.3.0.dist-info/METADATA", metadata("torch", "2.3.0"));
  dir.file(relative_site + "/torch/version.py",
           "__version__ = '2.3.0+cu121'\ncuda: Optional[str] = '12.1'\n");
  const std::string library = windows ? "torch/lib/torch_cuda.dll" : "torch/lib/libtorch_cuda.so";
  std::ifstream fixture(
      paths::to_fs(fixtures + (windows ? "/sass_and_ptx.dll" : "/sass_and_ptx.so")),
      std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(fixture)),
                          std::istreambuf_iterator<char>());
  ASSERT_FALSE(bytes.empty());
  dir.file(relative_site + "/" + library, bytes);
  const auto live = sys::make_live_system();
  const sys::EnvOverlaySystem overlay(*live,
                                      {{"VIRTUAL_ENV", prefix}, {"HOME", dir.path() + "/home"}});
  const sys::RecordingSystem system(overlay);
  const Facts f = collect_facts(system);
  const auto* env = env_at(f, prefix);
  ASSERT_TRUE(env) << facts_to_json(f)["python_envs"].dump(1);
  ASSERT_EQ(env->frameworks.size(), 1u);
  ASSERT_EQ(env->frameworks[0].gpu_code.size(), 1u);
  const GpuCodeFact& code = env->frameworks[0].gpu_code[0];
  EXPECT_EQ(code.file, site + "/" + library);
  EXPECT_EQ(code.sass, (std::vector<std::string>{"sm_75", "sm_86"}));
  EXPECT_EQ(code.ptx, std::vector<std::string>{"compute_90"});
  const sys::ReplaySystem replay(system.recorded());
  const Facts replayed = collect_facts(replay);
  const auto* again = env_at(replayed, prefix);
  ASSERT_TRUE(again);
  ASSERT_EQ(again->frameworks.at(0).gpu_code.size(), 1u);
  EXPECT_EQ(again->frameworks[0].gpu_code[0].sass, code.sass);
  EXPECT_EQ(again->frameworks[0].gpu_code[0].ptx, code.ptx);
}

// The same on the live Windows System: a Miniconda env in a user profile with a Chinese name,
// found through %USERPROFILE%, its packages under Lib\\site-packages.
TEST(PythonProbeLive, ReadsARealWindowsTree) {
  if (!live_host_is("windows")) GTEST_SKIP() << "the Windows layout";
  testing::TempDir dir;
  const std::string profile = dir.path() + "/张伟";
  const std::string prefix = profile + "/miniconda3/envs/torch";
  dir.file("张伟/miniconda3/python.exe", "MZ");
  dir.file("张伟/miniconda3/conda-meta/history", "");
  dir.file("张伟/miniconda3/envs/torch/python.exe", "MZ");
  dir.file("张伟/miniconda3/envs/torch/conda-meta/python-3.11.7-h4de0772_0.json", "{}");
  dir.file("张伟/miniconda3/envs/torch/Lib/site-packages/torch-2.3.0+cu121.dist-info/METADATA",
           metadata("torch", "2.3.0+cu121"));
  dir.file("张伟/miniconda3/envs/torch/Lib/site-packages/torch/version.py",
           "__version__ = '2.3.0+cu121'\ncuda: Optional[str] = '12.1'\n");
  const auto live = sys::make_live_system();
  const sys::EnvOverlaySystem overlay(*live, {{"USERPROFILE", profile}, {"HOME", profile}});
  const Facts f = collect_facts(overlay);
  const auto* env = env_at(f, prefix);
  ASSERT_TRUE(env) << facts_to_json(f)["python_envs"].dump(1);
  EXPECT_EQ(env->python, "3.11.7");
  ASSERT_EQ(env->frameworks.size(), 1u);
  EXPECT_EQ(env->frameworks[0].cuda, "12.1");
}

}  // namespace
}  // namespace gpuvet::probes

namespace gpuvet::probes {
namespace {

// The machine the suite runs on: Debian's Python, every pyenv version, and Debian's
// python3-torch (a CPU build) when it is installed.
TEST(PythonProbeLive, ThisMachine) {
  if (!live_host_is("linux")) GTEST_SKIP() << "describes the Linux build machine";
  const auto live = sys::make_live_system();
  const Facts f = collect_facts(*live);
  namespace fs = std::filesystem;
  if (fs::is_directory("/usr/lib/python3/dist-packages")) {
    const auto* debian = env_at(f, "/usr");
    ASSERT_TRUE(debian) << "Debian's Python was not found";
    EXPECT_EQ(debian->kind, "system");
    ASSERT_TRUE(debian->python);
    EXPECT_TRUE(debian->python->starts_with("3.")) << *debian->python;
    const std::string torch = "/usr/lib/python3/dist-packages/torch/version.py";
    if (fs::exists(torch)) {
      const auto it = std::find_if(debian->frameworks.begin(), debian->frameworks.end(),
                                   [](const FrameworkFact& fw) { return fw.name == "torch"; });
      ASSERT_NE(it, debian->frameworks.end());
      EXPECT_EQ(it->gpu_build, false);
    }
  }
  const char* home = std::getenv("HOME");
  const char* pyenv_root = std::getenv("PYENV_ROOT");
  const fs::path versions =
      fs::path(pyenv_root ? pyenv_root : (home ? std::string(home) + "/.pyenv" : "")) / "versions";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(versions, ec)) {
    if (!entry.is_directory() || entry.is_symlink()) continue;
    if (!fs::is_directory(entry.path() / "lib")) continue;
    const auto* env = env_at(f, fs::canonical(entry.path()).string());
    ASSERT_TRUE(env) << entry.path();
    EXPECT_TRUE(env->python) << entry.path();
  }
}

}  // namespace
}  // namespace gpuvet::probes

namespace gpuvet::probes {
namespace {

// Windows rows: PEP 514 registry keys, python.org's per-user folder, a venv's Scripts on Path,
// conda in the user profile; Lib/site-packages and the version from python3X.dll.
TEST(PythonProbeWindows, RegistryLocalAppDataVenvAndConda) {
  json files = {
      {"C:/Python/Py311/python.exe", {{"size", 1}}},
      {"C:/Python/Py311/python311.dll", {{"size", 1}}},
      {"C:/Python/Py311/Lib/site-packages/pip-23.2.1.dist-info/METADATA",
       {{"text", "Name: pip\nVersion: 23.2.1\n\n"}}},
      {"C:/Users/李雷/AppData/Local/Programs/Python/Python310/python.exe", {{"size", 1}}},
      {"C:/Users/李雷/AppData/Local/Programs/Python/Python310/include/patchlevel.h",
       {{"text", "#define PY_VERSION \"3.10.11\"\n"}}},
      {"C:/Users/李雷/AppData/Local/Programs/Python/Python310/Lib/site-packages", {{"dir", true}}},
      {"C:/work/proj/venv/pyvenv.cfg", {{"text", "version = 3.10.11\n"}}},
      {"C:/work/proj/venv/Scripts/python.exe", {{"size", 1}}},
      {"C:/work/proj/venv/Lib/site-packages/torch-2.1.0+cu118.dist-info/METADATA",
       {{"text", "Name: torch\nVersion: 2.1.0+cu118\n\n"}}},
      {"C:/Users/李雷/miniconda3/conda-meta/python-3.11.5-he1021f5_0.json", {{"text", "{}"}}},
      {"C:/Users/李雷/miniconda3/Lib/site-packages", {{"dir", true}}},
  };
  const json registry = {
      {"HKCU/Software/Python/PythonCore/3.11/InstallPath",
       {{"", "C:\\Python\\Py311"}, {"ExecutablePath", "C:\\Python\\Py311\\python.exe"}}}};
  const json env = {{"Path", "C:\\work\\proj\\venv\\Scripts;C:\\Windows\\system32"},
                    {"USERPROFILE", "C:\\Users\\李雷"},
                    {"LOCALAPPDATA", "C:\\Users\\李雷\\AppData\\Local"}};
  const sys::ReplaySystem system(
      testing::windows_snapshot({{"files", files}, {"registry", registry}, {"env", env}}));
  const Facts f = collect_facts(system);
  const auto* venv = env_at(f, "C:/work/proj/venv");
  ASSERT_TRUE(venv);
  EXPECT_EQ(venv->kind, "venv");
  EXPECT_TRUE(venv->active);
  ASSERT_EQ(venv->frameworks.size(), 1u);
  EXPECT_EQ(venv->frameworks[0].cuda, "11.8");
  const auto* registered = env_at(f, "C:/Python/Py311");
  ASSERT_TRUE(registered);
  EXPECT_EQ(registered->python, "3.11");
  EXPECT_EQ(registered->found_by, "HKCU/Software/Python");
  const auto* user = env_at(f, "C:/Users/李雷/AppData/Local/Programs/Python/Python310");
  ASSERT_TRUE(user);
  EXPECT_EQ(user->python, "3.10.11");
  const auto* conda = env_at(f, "C:/Users/李雷/miniconda3");
  ASSERT_TRUE(conda);
  EXPECT_EQ(conda->kind, "conda");
  EXPECT_EQ(conda->python, "3.11.5");
}

// The environment managers' Windows folders ("~" is USERPROFILE).
TEST(PythonProbeWindows, EnvironmentManagersDefaultFolders) {
  json files = json::object();
  auto venv = [&](const std::string& prefix) {
    files[prefix + "/pyvenv.cfg"] = {{"text", "version = 3.11.4\n"}};
    files[prefix + "/Lib/site-packages"] = {{"dir", true}};
  };
  auto conda = [&](const std::string& prefix) {
    files[prefix + "/conda-meta/python-3.11.5-he1021f5_0.json"] = {{"text", "{}"}};
    files[prefix + "/Lib/site-packages"] = {{"dir", true}};
  };
  const std::string home = "C:/Users/李雷";
  const std::string local = home + "/AppData/Local";
  const std::string roaming = home + "/AppData/Roaming";
  venv(home + "/pipx/venvs/black");
  venv(home + "/Envs/wrapped");
  venv(home + "/.virtualenvs/proj-wyUfYPqE");
  venv(local + "/pypoetry/Cache/virtualenvs/app-Xy12AbCd-py3.11");
  venv(local + "/hatch/env/virtual/my-app/Ab3dE_f1/my-app");
  venv(local + "/hatch/env/virtual/a/b/c/too-deep");
  venv(local + "/pdm/pdm/venvs/proj-Ab12Cd34-3.11");
  venv(roaming + "/uv/tools/ruff");
  venv(roaming + "/uv/data/tools/httpie");
  files[roaming + "/uv/python/cpython-3.12.4-windows-x86_64-none/python.exe"] = {{"size", 1}};
  files[roaming + "/uv/python/cpython-3.12.4-windows-x86_64-none/python312.dll"] = {{"size", 1}};
  files[roaming + "/uv/python/cpython-3.12.4-windows-x86_64-none/Lib/site-packages"] = {
      {"dir", true}};
  conda(home + "/micromamba");
  conda(home + "/mambaforge/envs/tf");
  conda(roaming + "/mamba/envs/jax");
  conda("C:/ProgramData/miniforge3");
  conda("D:/envs/torch");
  conda("E:/more/rapids");
  venv("C:/work/proj/.venv");
  files["C:/work/proj/src/pkg"] = {{"dir", true}};
  const json env = {{"Path", "C:\\Windows\\system32"},
                    {"USERPROFILE", "C:\\Users\\李雷"},
                    {"LOCALAPPDATA", "C:\\Users\\李雷\\AppData\\Local"},
                    {"APPDATA", "C:\\Users\\李雷\\AppData\\Roaming"},
                    {"CONDA_ENVS_DIRS", "D:\\envs;E:\\more"}};
  const sys::ReplaySystem system(testing::windows_snapshot(
      {{"files", files}, {"env", env}, {"host", {{"cwd", "C:/work/proj/src/pkg"}}}}));
  const Facts f = collect_facts(system);
  for (const auto& [path, kind, found_by] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {home + "/pipx/venvs/black", "venv", "~/pipx/venvs"},
           {home + "/Envs/wrapped", "venv", "~/Envs"},
           {home + "/.virtualenvs/proj-wyUfYPqE", "venv", "~/.virtualenvs"},
           {local + "/pypoetry/Cache/virtualenvs/app-Xy12AbCd-py3.11", "venv",
            "$LOCALAPPDATA/pypoetry/Cache/virtualenvs"},
           {local + "/hatch/env/virtual/my-app/Ab3dE_f1/my-app", "venv",
            "$LOCALAPPDATA/hatch/env/virtual"},
           {local + "/pdm/pdm/venvs/proj-Ab12Cd34-3.11", "venv", "$LOCALAPPDATA/pdm/pdm/venvs"},
           {roaming + "/uv/tools/ruff", "venv", "$APPDATA/uv/tools"},
           {roaming + "/uv/data/tools/httpie", "venv", "$APPDATA/uv/data/tools"},
           {roaming + "/uv/python/cpython-3.12.4-windows-x86_64-none", "uv", "$APPDATA/uv/python"},
           {home + "/micromamba", "conda", "~/micromamba"},
           {home + "/mambaforge/envs/tf", "conda", "~/mambaforge"},
           {roaming + "/mamba/envs/jax", "conda", "$APPDATA/mamba"},
           {"C:/ProgramData/miniforge3", "conda", "C:/ProgramData/miniforge3"},
           {"D:/envs/torch", "conda", "$CONDA_ENVS_DIRS"},
           {"E:/more/rapids", "conda", "$CONDA_ENVS_DIRS"},
           {"C:/work/proj/.venv", "venv", "@cwd/.venv"},
       }) {
    const auto* found = env_at(f, path);
    ASSERT_TRUE(found) << path;
    EXPECT_EQ(found->kind, kind) << path;
    EXPECT_EQ(found->found_by, found_by) << path;
  }
  EXPECT_EQ(env_at(f, roaming + "/uv/python/cpython-3.12.4-windows-x86_64-none")->python, "3.12");
  EXPECT_FALSE(env_at(f, local + "/hatch/env/virtual/a/b/c/too-deep"));
  EXPECT_EQ(f.python_envs.size(), 16u);
}

}  // namespace
}  // namespace gpuvet::probes

namespace gpuvet::probes {
namespace {

// A machine-wide failure below explains what goes wrong above it.
// A missing CUDA runtime is a problem of its own: a GPU would not bring it (data/fault_tree.csv).
TEST(FaultTree, MissingRuntimeDoesNotFollowFromNoGpu) {
  const std::string site = "/srv/tf/lib/python3.11/site-packages";
  Tree t;
  t.text("/srv/tf/pyvenv.cfg", "version = 3.11.4\n")
      .dist(site, "tensorflow", "2.15.0")
      .text(site + "/tensorflow/python/platform/build_info.py",
            "build_info = {'cuda_version': '12.2', 'cudnn_version': '8', 'is_cuda_build': True}\n")
      .dir("/sys/bus/pci/devices");
  const Facts f = facts_of(t, {{"VIRTUAL_ENV", "/srv/tf"}});
  const checks::CheckContext context(f, testing::embedded_kb(), testing::messages());
  auto findings = checks::run_checks(context);
  ASSERT_TRUE(findings.ok());
  bool saw_root = false;
  bool saw_follower = false;
  for (const auto& finding : *findings) {
    if (finding.id == "gpu.none") {
      saw_root = true;
      EXPECT_FALSE(finding.follows_from);
    }
    if (finding.id == "cuda.runtime_missing") {
      saw_follower = true;
      EXPECT_FALSE(finding.follows_from);
    }
  }
  EXPECT_TRUE(saw_root);
  EXPECT_TRUE(saw_follower);
}

}  // namespace
}  // namespace gpuvet::probes
