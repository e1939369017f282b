#include <gtest/gtest.h>

#include "python/framework_files.hpp"
#include "python/metadata.hpp"
#include "python/python_literal.hpp"

namespace gpuvet::python {
namespace {

// --- names and metadata ---------------------------------------------------------------------

TEST(NormalizeName, FollowsPep503) {
  EXPECT_EQ(normalize_name("Tensorflow_GPU"), "tensorflow-gpu");
  EXPECT_EQ(normalize_name("nvidia_cudnn_cu12"), "nvidia-cudnn-cu12");
  EXPECT_EQ(normalize_name("a.-_b"), "a-b");
  EXPECT_EQ(normalize_name("PyYAML"), "pyyaml");
}

TEST(CoreMetadata, ReadsNameAndVersionFromTheHeadersOnly) {
  const auto nv = parse_core_metadata(
      "Metadata-Version: 2.1\r\nName: tensorflow-gpu\r\nVersion: 2.1.0\r\nSummary: x\r\n\r\n"
      "Name: not-this\n");
  ASSERT_TRUE(nv);
  EXPECT_EQ(nv->name, "tensorflow-gpu");
  EXPECT_EQ(nv->version, "2.1.0");
  // The body after the blank line is never read as a header.
  EXPECT_FALSE(parse_core_metadata("Metadata-Version: 2.1\n\nName: x\nVersion: 1\n"));
  EXPECT_FALSE(parse_core_metadata(""));
  EXPECT_FALSE(parse_core_metadata("Name: only-a-name\n"));
}

TEST(DistDirName, ParsesDistInfoAndEggInfo) {
  auto d = parse_dist_dir_name("nvidia_cudnn_cu12-8.9.2.26.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id.name, "nvidia_cudnn_cu12");
  EXPECT_EQ(d->id.version, "8.9.2.26");
  EXPECT_EQ(d->kind, DistKind::dist_info);

  d = parse_dist_dir_name("torch-2.1.0+cu121.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id.version, "2.1.0+cu121");

  d = parse_dist_dir_name("PyGObject-3.42.2.egg-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id.name, "PyGObject");
  EXPECT_EQ(d->kind, DistKind::egg_info);

  d = parse_dist_dir_name("dbus-python-1.3.2-py3.11.egg-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id.name, "dbus-python");
  EXPECT_EQ(d->id.version, "1.3.2");

  EXPECT_FALSE(parse_dist_dir_name("numpy"));
  EXPECT_FALSE(parse_dist_dir_name("noversion.dist-info"));
  EXPECT_FALSE(parse_dist_dir_name("-1.0.dist-info"));
}

// pip's "Successfully installed" words: the name may hold dashes, the version starts with a digit.
TEST(NameVersion, SplitsAtTheFirstDashBeforeADigit) {
  auto id = split_name_version("onnxruntime-gpu-1.23.2");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->name, "onnxruntime-gpu");
  EXPECT_EQ(id->version, "1.23.2");
  id = split_name_version("nvidia-cublas-cu12-12.1.3.1");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->name, "nvidia-cublas-cu12");
  for (const char* bad : {"numpy", "-1.0", "onnxruntime-", "opencv-python"})
    EXPECT_FALSE(split_name_version(bad)) << bad;
}

TEST(CondaRecord, SplitsNameVersionAndBuildFromTheRight) {
  auto r = parse_conda_record_name("python-dateutil-2.8.2-pyhd8ed1ab_0.json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "python-dateutil");
  EXPECT_EQ(r->version, "2.8.2");
  EXPECT_EQ(r->build, "pyhd8ed1ab_0");
  r = parse_conda_record_name("cudatoolkit-10.1.243-h6bb024c_0.json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "cudatoolkit");
  EXPECT_EQ(r->version, "10.1.243");
  EXPECT_FALSE(parse_conda_record_name("history"));
  EXPECT_FALSE(parse_conda_record_name("a-b.json"));
  EXPECT_FALSE(parse_conda_record_name("-1-2.json"));
}

TEST(CondaRecord, ChannelIsTheShortName) {
  EXPECT_EQ(conda_channel(
                R"({"build": "x", "channel": "https://conda.anaconda.org/conda-forge/linux-64", )"),
            "conda-forge");
  EXPECT_EQ(conda_channel(R"({"channel": "pkgs/main/linux-64"})"), "pkgs/main");
  EXPECT_EQ(conda_channel(R"({"channel": "https://repo.anaconda.com/pkgs/main/noarch"})"),
            "pkgs/main");
  EXPECT_FALSE(conda_channel(R"({"build": "x"})"));
  EXPECT_FALSE(conda_channel(R"({"channel": "unterminated)"));
}

TEST(PythonVersion, FromPyvenvCfgPatchlevelAndLibDir) {
  EXPECT_EQ(pyvenv_python_version(parse_cfg("home = /usr/bin\nversion = 3.11.2\n")), "3.11.2");
  EXPECT_EQ(pyvenv_python_version(parse_cfg("version_info = 3.10.12.final.0\n")), "3.10.12");
  EXPECT_EQ(pyvenv_python_version(parse_cfg("Version_Info = 3.12.1\n")), "3.12.1");
  EXPECT_FALSE(pyvenv_python_version(parse_cfg("home = /usr/bin\n")));
  EXPECT_EQ(patchlevel_version("/* x */\n#define PY_VERSION              \"3.12.1\"\n"), "3.12.1");
  EXPECT_FALSE(patchlevel_version("#define PY_VERSION\n\"3.1\""));
  EXPECT_EQ(lib_dir_version("python3.11"), "3.11");
  EXPECT_EQ(lib_dir_version("python3.13t"), "3.13");
  EXPECT_FALSE(lib_dir_version("python3"));
  EXPECT_FALSE(lib_dir_version("pythonx.y"));
}

TEST(Condarc, ReadsBlockAndFlowEnvsDirs) {
  EXPECT_EQ(condarc_envs_dirs("channels:\n  - conda-forge\nenvs_dirs:\n  - /data/envs  # big disk\n"
                              "  - '~/more'\npkgs_dirs:\n  - /x\n"),
            (std::vector<std::string>{"/data/envs", "~/more"}));
  EXPECT_EQ(condarc_envs_dirs("envs_dirs: [/a, \"/b\"]\n"), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(condarc_envs_dirs("envs_dirs:\n- /c\n"), (std::vector<std::string>{"/c"}));
  EXPECT_TRUE(condarc_envs_dirs("channels: [defaults]\n").empty());
}

// --- Python literals ------------------------------------------------------------------------

TEST(PythonLiteral, ReadsTopLevelLiteralAssignments) {
  const auto vars = module_assignments(
      "\"\"\"doc = 'not this'\"\"\"\nimport collections\n"
      "a = 'x' \"y\"\nb: Optional[str] = None\nc = [1, (2, 'z'), {'k': True}]\n"
      "d = collections.OrderedDict([('k', 'v'), ('n', -3)])\n"
      "e = some_call()\nf = r'C:\\path'\n  indented = 1\nif x:\n    g = 2\n"
      "h = {'long': [\n  'sm_35',  # comment\n  'sm_50',\n]}\n");
  ASSERT_TRUE(vars.count("a"));
  EXPECT_EQ(vars.at("a").text, "xy");
  EXPECT_EQ(vars.at("b").kind, PyValue::Kind::none);
  EXPECT_EQ(vars.at("c").items.size(), 3u);
  EXPECT_EQ(vars.at("c").items[2].get("k")->as_bool(), true);
  EXPECT_EQ(vars.at("d").get("n")->as_string(), "-3");
  EXPECT_FALSE(vars.count("e"));
  EXPECT_EQ(vars.at("f").text, "C:\\path");
  EXPECT_FALSE(vars.count("doc"));
  EXPECT_FALSE(vars.count("indented"));
  EXPECT_FALSE(vars.count("g"));
  ASSERT_TRUE(vars.count("h"));
  EXPECT_EQ(vars.at("h").get("long")->items.size(), 2u);
}

TEST(PythonLiteral, SurvivesBrokenInput) {
  for (const char* source :
       {"a = [", "a = '", "a = {1: }", "a = (((((", "a: = 1", "= 1", "a = OrderedDict(1)",
        "a = \"\"\"never closed", "a = -", "\\\n", "a = [1,,2]", "a = 'x\ny'"}) {
    EXPECT_NO_THROW((void)module_assignments(source)) << source;
  }
  EXPECT_EQ(module_assignments("a = [\nb = 1\n").count("b"), 0u);
  EXPECT_EQ(module_assignments(std::string(10000, '[')).size(), 0u);
}

// --- framework files ------------------------------------------------------------------------

TEST(TensorflowVersions, NormalisesWindowsSpellings) {
  EXPECT_EQ(tensorflow_cuda_version("64_112"), "11.2");
  EXPECT_EQ(tensorflow_cuda_version("64_101"), "10.1");
  EXPECT_EQ(tensorflow_cuda_version("64_100"), "10.0");
  EXPECT_EQ(tensorflow_cuda_version("64_90"), "9.0");
  EXPECT_EQ(tensorflow_cuda_version("11.8"), "11.8");
  EXPECT_EQ(tensorflow_cuda_version("12.5.1"), "12.5");
  EXPECT_FALSE(tensorflow_cuda_version("64_x"));
  EXPECT_EQ(tensorflow_cudnn_version("64_8"), "8");
  EXPECT_EQ(tensorflow_cudnn_version("8"), "8");
  EXPECT_EQ(tensorflow_cudnn_version("9.3.0"), "9.3");
  EXPECT_FALSE(tensorflow_cudnn_version(""));
}

TEST(CuTags, DecodeLocalLabels) {
  EXPECT_EQ(cuda_from_cu_tag("cu121"), "12.1");
  EXPECT_EQ(cuda_from_cu_tag("cu92"), "9.2");
  EXPECT_EQ(cuda_from_cu_tag("cu100"), "10.0");
  EXPECT_EQ(cuda_from_cu_tag("cu130"), "13.0");
  EXPECT_FALSE(cuda_from_cu_tag("cpu"));
  EXPECT_FALSE(cuda_from_cu_tag("cu1"));
  EXPECT_EQ(local_version_label("2.1.0+cu121"), "cu121");
  EXPECT_EQ(local_version_label("2.1.0"), "");
  auto jax = parse_jaxlib_label("cuda12.cudnn89");
  ASSERT_TRUE(jax);
  EXPECT_EQ(jax->cuda, "12");
  EXPECT_EQ(jax->cudnn, "8.9");
  EXPECT_EQ(parse_jaxlib_label("cuda111")->cuda, "11.1");
  EXPECT_FALSE(parse_jaxlib_label("cpu"));
}

TEST(TorchVersion, AnnotatedAndPlainGenerations) {
  auto d = parse_torch_version(
      "from typing import Optional\n__version__ = '2.4.0+cu121'\ndebug = False\n"
      "cuda: Optional[str] = '12.1'\ngit_version = 'abc'\nhip: Optional[str] = None\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->version, "2.4.0+cu121");
  EXPECT_EQ(d->cuda_build, true);
  EXPECT_EQ(d->cuda, "12.1");
  EXPECT_EQ(d->rocm_build, false);

  d = parse_torch_version("__version__ = '1.7.1+cpu'\ndebug = False\ncuda = None\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuda_build, false);
  EXPECT_FALSE(d->cuda);

  d = parse_torch_version(
      "__version__ = '2.13.0+rocm10.0.0'\ncuda: Optional[str] = None\n"
      "hip: Optional[str] = '7.15.26333'\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuda_build, false);
  EXPECT_EQ(d->rocm_build, true);
  EXPECT_EQ(d->rocm, "7.15.26333");

  // Only a version: its label decides.
  EXPECT_EQ(parse_torch_version("__version__ = '2.0.1+cu118'\n")->cuda, "11.8");
  EXPECT_EQ(parse_torch_version("__version__ = '2.0.1+cpu'\n")->cuda_build, false);
  EXPECT_FALSE(parse_torch_version("__version__ = '2.0.1'\n")->cuda_build);
  EXPECT_FALSE(parse_torch_version("nothing here"));
}

TEST(TensorflowBuildInfo, CpuBuildDeclaresNoCuda) {
  auto d = parse_tensorflow_build_info(
      "import collections\nbuild_info = collections.OrderedDict([('cpu_compiler', '/x/gcc'), "
      "('is_cuda_build', False), ('is_rocm_build', False), ('is_tensorrt_build', False)])\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuda_build, false);
  EXPECT_FALSE(d->cuda);
  EXPECT_FALSE(parse_tensorflow_build_info("# nothing\n"));
}

TEST(PaddleVersion, GpuAndCpuBuilds) {
  auto d = parse_paddle_version(
      "full_version    = '2.5.1'\nmajor = '2'\ncuda_version    = '11.2'\n"
      "cudnn_version   = '8.2.1'\nwith_gpu = 'ON'\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->version, "2.5.1");
  EXPECT_EQ(d->cuda_build, true);
  EXPECT_EQ(d->cuda, "11.2");
  EXPECT_EQ(d->cudnn, "8.2");
  d = parse_paddle_version(
      "full_version = '2.6.0'\ncuda_version = 'False'\ncudnn_version = 'False'\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuda_build, false);
  EXPECT_FALSE(d->cuda);
}

}  // namespace
}  // namespace gpuvet::python
