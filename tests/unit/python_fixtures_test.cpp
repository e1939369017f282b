// The framework-file parsers against real files from real wheels and installs
// (tests/fixtures/python, sources in SOURCES.md there).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/paths.hpp"
#include "python/framework_files.hpp"
#include "python/metadata.hpp"

namespace gpuvet::python {
namespace {

std::string fixture(const std::string& relative) {
  auto text = paths::read_file(std::string(GPUVET_PYTHON_FIXTURES) + "/" + relative, 1 << 20);
  EXPECT_TRUE(text.ok()) << relative;
  return text.ok() ? *text : std::string();
}

struct Expected {
  const char* file;
  std::optional<bool> cuda_build;
  std::optional<std::string> cuda;
  std::optional<std::string> cudnn;
  size_t compute_capabilities = 0;
};

class TensorflowFixture : public ::testing::TestWithParam<Expected> {};

TEST_P(TensorflowFixture, BuildInfo) {
  const Expected& e = GetParam();
  const auto d = parse_tensorflow_build_info(fixture(std::string("tensorflow/") + e.file));
  ASSERT_TRUE(d) << e.file;
  EXPECT_EQ(d->cuda_build, e.cuda_build) << e.file;
  EXPECT_EQ(d->cuda, e.cuda) << e.file;
  EXPECT_EQ(d->cudnn, e.cudnn) << e.file;
  EXPECT_EQ(d->compute_capabilities.size(), e.compute_capabilities) << e.file;
}

INSTANTIATE_TEST_SUITE_P(
    RealFiles, TensorflowFixture,
    ::testing::Values(
        Expected{"build_info_1.x_win_gpu_cuda8.0_cudnn6.py", true, "8.0", "6"},
        Expected{"build_info_1.x_win_cpu.py", false, {}, {}},
        Expected{"build_info_1.x_win_cpu_nomsvcp.py", false, {}, {}},
        // A third-party rebuild that left the version fields empty: CUDA, version unknown.
        Expected{"build_info_1.15.5_tfgpu_win_empty_versions.py", true, {}, {}},
        Expected{"build_info_2.0or2.1_tensorflow_core_posix_cpu.py", false, {}, {}},
        Expected{"build_info_2.0or2.1_tensorflow_core_win_gpu_cuda10.1.py", true, "10.1", "7"},
        Expected{"build_info_dict_linux_gpu_cuda10.1.py", true, "10.1", "7", 6},
        Expected{"build_info_dict_posix_cpu.py", false, {}, {}},
        Expected{"build_info_dict_win_gpu_64_101.py", true, "10.1", "7", 6},
        Expected{"build_info_ordereddict_win_gpu_64_110.py", true, "11.0", "8", 6},
        Expected{"build_info_ordereddict_win_gpu_64_112.py", true, "11.2", "8", 6},
        Expected{"build_info_ordereddict_win_gpu_64_112_future.py", true, "11.2", "8", 6},
        Expected{"build_info_2.9.1_tfgpu_win_gpu_64_116.py", true, "11.6", "8", 7},
        Expected{"build_info_ordereddict_linux_gpu_cuda12.2_cudnn8.py", true, "12.2", "8", 5},
        Expected{"build_info_ordereddict_linux_gpu_cuda12.3_cudnn8.py", true, "12.3", "8", 5},
        Expected{"build_info_ordereddict_linux_gpu_cuda12.5.1_cudnn9.py", true, "12.5", "9", 5},
        Expected{"build_info_ordereddict_posix_cpu.py", false, {}, {}},
        Expected{"build_info_ordereddict_posix_cpu_future.py", false, {}, {}},
        Expected{"build_info_ordereddict_posix_cpu_no_tensorrt_key.py", false, {}, {}},
        Expected{"build_info_ordereddict_win_cpu.py", false, {}, {}}));

TEST(TensorflowFixture, WindowsDllNames) {
  const auto d = parse_tensorflow_build_info(
      fixture("tensorflow/build_info_2.0or2.1_tensorflow_core_win_gpu_cuda10.1.py"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->dll_names, (std::vector<std::string>{"msvcp140.dll", "msvcp140_1.dll", "nvcuda.dll",
                                                    "cudart64_101.dll", "cudnn64_7.dll"}));
}

struct TorchExpected {
  const char* file;
  std::string version;
  bool cuda_build;
  std::optional<std::string> cuda;
  bool rocm_build = false;
};

class TorchFixture : public ::testing::TestWithParam<TorchExpected> {};

TEST_P(TorchFixture, VersionPy) {
  const TorchExpected& e = GetParam();
  const auto d = parse_torch_version(fixture(std::string("torch/") + e.file));
  ASSERT_TRUE(d) << e.file;
  EXPECT_EQ(d->version, e.version) << e.file;
  EXPECT_EQ(d->cuda_build, e.cuda_build) << e.file;
  EXPECT_EQ(d->cuda, e.cuda) << e.file;
  EXPECT_EQ(d->rocm_build.value_or(false), e.rocm_build) << e.file;
}

INSTANTIATE_TEST_SUITE_P(
    RealFiles, TorchFixture,
    ::testing::Values(
        TorchExpected{"version_1.7.1+cu110_win.py", "1.7.1+cu110", true, "11.0"},
        TorchExpected{"version_1.8.2+cpu_win.py", "1.8.2+cpu", false, {}},
        TorchExpected{"version_1.10.2+cu113_linux.py", "1.10.2+cu113", true, "11.3"},
        TorchExpected{"version_1.12.1+cpu_win.py", "1.12.1+cpu", false, {}},
        TorchExpected{
            "version_1.13.0a0_debian_python3-torch_1.13.1+dfsg-4.py", "1.13.0a0", false, {}},
        TorchExpected{"version_2.1.0+cu118_win.py", "2.1.0+cu118", true, "11.8"},
        TorchExpected{"version_2.1.2+cu121_win.py", "2.1.2+cu121", true, "12.1"},
        TorchExpected{"version_2.2.2+cu118_win.py", "2.2.2+cu118", true, "11.8"},
        TorchExpected{"version_2.3.0+cu121_win.py", "2.3.0+cu121", true, "12.1"},
        TorchExpected{"version_2.5.1+cu124_linux.py", "2.5.1+cu124", true, "12.4"},
        TorchExpected{"version_2.6.0+cpu_win.py", "2.6.0+cpu", false, {}},
        TorchExpected{"version_2.7.1+cu126_linux.py", "2.7.1+cu126", true, "12.6"},
        TorchExpected{"version_2.8.0+cpu_win.py", "2.8.0+cpu", false, {}},
        TorchExpected{"version_2.11.0_nolocal_cudaNone.py", "2.11.0", false, {}},
        TorchExpected{"version_2.11.0.dev20251221+cu128_win.py", "2.11.0.dev20251221+cu128", true,
                      "12.8"},
        TorchExpected{"version_2.14.0+cpu_win.py", "2.14.0+cpu", false, {}},
        TorchExpected{
            "version_2.3.0.dev20240308+rocm6.0.py", "2.3.0.dev20240308+rocm6.0", false, {}, true}));

TEST(PaddleFixture, GpuAndCpuBuilds) {
  auto d = parse_paddle_version(
      fixture("paddle/version_init_paddlepaddle-gpu-2.2.1_linux_cuda10.2_cudnn7.6.5.py"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->version, "2.2.1");
  EXPECT_EQ(d->cuda_build, true);
  EXPECT_EQ(d->cuda, "10.2");
  EXPECT_EQ(d->cudnn, "7.6");
  d = parse_paddle_version(
      fixture("paddle/version_init_paddlepaddle-gpu-2.2.1_win_cuda10.2_cudnn7.6.5.py"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuda, "10.2");
  d = parse_paddle_version(fixture("paddle/version_init_dev_build_cuda11.2_cudnn8.1.1.py"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuda, "11.2");
  EXPECT_EQ(d->cudnn, "8.1");
  for (const char* cpu : {"paddle/version_init_paddlepaddle-2.2.1_win_cpu.py",
                          "paddle/version_init_paddlepaddle-3.2.2_win_cpu.py"}) {
    d = parse_paddle_version(fixture(cpu));
    ASSERT_TRUE(d) << cpu;
    EXPECT_EQ(d->cuda_build, false) << cpu;
    EXPECT_FALSE(d->cuda) << cpu;
  }
}

TEST(CupyFixture, WheelJson) {
  auto d = parse_cupy_wheel_json(fixture("cupy/_wheel.json_cupy-cuda12x_win.json"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuda, "12");
  EXPECT_EQ(d->cudnn, "8.8");
  d = parse_cupy_wheel_json(fixture("cupy/_wheel.json_cupy-cuda102_linux.json"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuda, "10.2");
  EXPECT_EQ(d->cudnn, "8.5");
  EXPECT_FALSE(parse_cupy_wheel_json("not json"));
}

TEST(MetadataFixture, HeadersOfRealDistributions) {
  const std::pair<const char*, NameVersion> cases[] = {
      {"metadata/METADATA_tensorflow-2.15.0.post1_linux_header.txt",
       {"tensorflow", "2.15.0.post1"}},
      {"metadata/METADATA_tensorflow_gpu-2.9.1_win_header.txt", {"tensorflow-gpu", "2.9.1"}},
      {"metadata/METADATA_torch-2.1.0+cu118_win_header.txt", {"torch", "2.1.0+cu118"}},
      {"metadata/METADATA_nvidia_cudnn_cu12-9.1.0.70_full.txt", {"nvidia-cudnn-cu12", "9.1.0.70"}},
      {"metadata/METADATA_nvidia_cuda_runtime_cu12-12.4.127_full.txt",
       {"nvidia-cuda-runtime-cu12", "12.4.127"}},
      {"metadata/METADATA_nvidia_cuda_runtime-13.0.96_header.txt",
       {"nvidia-cuda-runtime", "13.0.96"}},
      {"metadata/METADATA_nvidia_cudnn_cu13-9.19.0.56_header.txt",
       {"nvidia-cudnn-cu13", "9.19.0.56"}},
      {"metadata/METADATA_pip-23.2.1_pyenv3.12.1_header.txt", {"pip", "23.2.1"}},
      {"metadata/PKG-INFO_six-1.16.0.egg-info_debian_header.txt", {"six", "1.16.0"}},
      {"metadata/PKG-INFO_torch-1.13.0a0+gitunknown.egg-info_debian_header.txt",
       {"torch", "1.13.0a0+gitunknown"}},
      {"jax/METADATA_jax_cuda12_plugin-0.4.30_cp312_full.txt", {"jax-cuda12-plugin", "0.4.30"}},
      {"jax/METADATA_jax_cuda12_pjrt-0.4.30_full.txt", {"jax-cuda12-pjrt", "0.4.30"}},
  };
  for (const auto& [file, expected] : cases) {
    const auto nv = parse_core_metadata(fixture(file));
    ASSERT_TRUE(nv) << file;
    EXPECT_EQ(normalize_name(nv->name), expected.name) << file;
    EXPECT_EQ(nv->version, expected.version) << file;
  }
}

TEST(EnvFixture, PyvenvCfgAndPatchlevel) {
  EXPECT_EQ(pyvenv_python_version(parse_cfg(fixture("env/pyvenv.cfg_venv_cpython3.12.1"))),
            "3.12.1");
  EXPECT_EQ(pyvenv_python_version(parse_cfg(fixture("env/pyvenv.cfg_venv_cpython3.8.18"))),
            "3.8.18");
  EXPECT_EQ(patchlevel_version(fixture("env/patchlevel.h_pyenv_3.12.1")), "3.12.1");
  EXPECT_TRUE(
      patchlevel_version(fixture("env/patchlevel.h_debian_python3.11-dev"))->starts_with("3.11."));
}

TEST(CondaFixture, RecordsAndChannels) {
  const std::pair<const char*, const char*> cases[] = {
      {"cudatoolkit-10.1.243-h6bb024c_0.json", "10.1.243"},
      {"cudnn-7.6.5-cuda10.1_0.json", "7.6.5"},
      {"python-3.9.18-h955ad1f_0.json", "3.9.18"},
      {"pytorch-cuda-12.1-ha16c6d3_5.json", "12.1"},
      {"tensorflow-gpu-2.4.1-h30adc30_0.json", "2.4.1"},
  };
  for (const auto& [file, version] : cases) {
    const auto record = parse_conda_record_name(file);
    ASSERT_TRUE(record) << file;
    EXPECT_EQ(record->version, version);
    const std::string text = fixture(std::string("conda-meta/") + file);
    EXPECT_TRUE(conda_channel(text.substr(0, 4096))) << file;
  }
}

}  // namespace
}  // namespace gpuvet::python
