// Every status the CUDA driver API, the CUDA runtime, cuDNN, cuBLAS, NCCL, NVML and the math
// libraries can report, as
// data/cuda_library_errors.csv lists it, against what `explain` makes of that message alone: a
// status that names a setup cause must be explained by it, and one that reports the program's own
// use of the library must not be blamed on the setup.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "explain_support.hpp"
#include "test_support.hpp"

namespace gpuvet::explain {
namespace {

// The library's message as applications print it: Numba's failed driver call, CuPy's NVRTC
// error, PyTorch's "CUDA
// error: <text>" and "cuDNN error: <name>", cuBLAS's status name, nvidia-smi's NVML line, the
// other math libraries' status names, and torch.distributed's NCCL line.
std::string as_printed(const kb::Table& t, size_t row) {
  const std::string& library = t.cell(row, "library");
  const std::string& name = t.cell(row, "name");
  const std::string& message = t.cell(row, "message");
  if (library == "nvrtc")
    return "cupy_backends.cuda.libs.nvrtc.NVRTCError: " + name + " (" + t.cell(row, "code") + ")\n";
  if (library == "cuda_driver")
    return "numba.cuda.cudadrv.driver.CudaAPIError: [" + t.cell(row, "code") +
           "] Call to cuCtxSynchronize results in " + name + "\n";
  if (library == "cudart") return "RuntimeError: CUDA error: " + message + "\n";
  if (library == "cudnn") return "RuntimeError: cuDNN error: " + name + "\n";
  if (library == "cublas")
    return "RuntimeError: CUDA error: " + name + " when calling `cublasCreate(handle)`\n";
  if (library == "nvml") return "Failed to initialize NVML: " + message + "\n";
  if (library == "cufft" || library == "curand" || library == "cusolver" || library == "cusparse")
    return "RuntimeError: " + name + "\n";
  return "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, " +
         message + ", NCCL version 2.28.9\n";
}

// The first cause, as a signature names it: an answer only the reported cases' vote gave would
// change as the corpus grows.
std::string first_cause(const std::string& log) {
  const auto causes = testing::explain_text(log);
  if (causes.empty()) return "(nothing)";
  if (causes.front().similar) return "(by the reported cases only) " + causes.front().id;
  return causes.front().id;
}

// The table's rows of `library` whose status names a setup cause; a test of none fails.
std::vector<size_t> setup_rows(const kb::Table& t, std::string_view library) {
  std::vector<size_t> rows;
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string& cause = t.cell(row, "cause");
    if (t.cell(row, "library") == library && !cause.empty() && cause != "program")
      rows.push_back(row);
  }
  EXPECT_FALSE(rows.empty()) << library;
  return rows;
}

// Every form of one status, each explained by its cause first.
void expect_each_explained_as(const std::vector<std::string>& logs, const std::string& cause) {
  for (const std::string& log : logs)
    EXPECT_EQ(first_cause(log), cause) << log;
}

TEST(LibraryErrors, EveryStatusThatNamesASetupCauseIsExplainedByIt) {
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  ASSERT_GT(t.size(), 150u);
  size_t checked = 0;
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string& cause = t.cell(row, "cause");
    if (cause.empty() || cause == "program") continue;
    const std::string log = as_printed(t, row);
    EXPECT_EQ(first_cause(log), cause) << log;
    ++checked;
  }
  EXPECT_GT(checked, 50u);
}

// The same runtime status as other programs print it: by its name alone (what prints
// cudaGetErrorName()), name and text (CuPy, Thrust, PaddlePaddle's parallel_for), PaddlePaddle's
// "CUDA error(N), text." and the TH/THC era's "cuda runtime error (N) : text at file:line".
TEST(LibraryErrors, EveryWayTheRuntimesStatusesArePrintedIsExplainedAlike) {
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  for (size_t row : setup_rows(t, "cudart")) {
    const std::string& code = t.cell(row, "code");
    const std::string& name = t.cell(row, "name");
    const std::string& message = t.cell(row, "message");
    expect_each_explained_as(
        {"CUDA call failed: " + name + "\n",
         "cupy_backends.cuda.api.runtime.CUDARuntimeError: " + name + ": " + message + "\n",
         "RuntimeError: parallel_for failed: " + name + ": " + message + "\n",
         "OSError: (External) CUDA error(" + code + "), " + message + ".\n",
         "RuntimeError: cuda runtime error (" + code + ") : " + message +
             " at /pytorch/aten/src/THC/THCGeneral.cpp:50\n"},
        t.cell(row, "cause"));
  }
}

// The runtime's text as the other programs that run on the runtime print a failed call, each in
// the format of its own source (and seen so in the corpus' dev threads): ONNX Runtime's CudaCall
// (cuda_call.cc), TensorFlow's device factory (gpu_device.cc), NCCL's CUDACHECK (checks.h),
// ggml's init and its older CUDA_CHECK (ggml-cuda.cu), CTranslate2 (src/cuda/utils.h), Caffe's
// CUDA_CHECK (device_alternate.hpp, through glog), OpenCV's cudaSafeCall in the formats of
// OpenCV 4 and of 2/3, Warp's check_cuda_result (warp.cu), Darknet's check_error (cuda.c),
// MXNet's CUDA_CALL (utils.h), faiss's CUDA_VERIFY (DeviceUtils.h), AMReX's abort; TensorRT's
// logger, whose source is not public, as NVIDIA/TensorRT's issues print it (#3025).
std::vector<std::string> other_programs_forms(const std::string& code, const std::string& text) {
  return {
      "CUDA failure " + code + ": " + text +
          " ; GPU=0 ; hostname=gpu01 ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/"
          "cuda_execution_provider.cc ; line=245 ; expr=cudaSetDevice(info_.device_id); \n",
      "tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit "
      "initialization on GPU:0 failed. Status: " +
          text + "\n",
      "gpu01:2336:2336 [0] init.cc:426 NCCL WARN Cuda failure '" + text + "'\n",
      "ggml_cuda_init: failed to initialize CUDA: " + text + "\n",
      "CUDA error " + code + " at /llama.cpp/ggml-cuda.cu:495: " + text + "\n",
      "RuntimeError: CUDA failed with error " + text + "\n",
      "F0408 15:16:28.126595 23712 common.cpp:141] Check failed: error == cudaSuccess (" + code +
          " vs. 0)  " + text + "\n",
      "cv2.error: OpenCV(4.8.0) /opencv/modules/core/src/cuda_info.cpp:62: error: (-217:Gpu API "
      "call) " +
          text + " in function 'cv::cuda::getCudaEnabledDeviceCount'\n",
      "OpenCV Error: Gpu API call (" + text +
          ") in allocate, file /opencv/modules/core/src/cuda/gpu_mat.cu, line 116\n",
      "Warp CUDA error " + code + ": " + text +
          " (in function cuda_context_create, /warp/native/warp.cu:2200)\n",
      "CUDA Error: " + text + "\ndarknet: ./src/cuda.c:36: check_error: Assertion `0' failed.\n",
      "src/storage/storage.cc:59: Check failed: e == cudaSuccess || e == "
      "cudaErrorCudartUnloading CUDA: " +
          text + "\n",
      "Faiss assertion 'err__ == cudaSuccess' failed in int faiss::gpu::getNumDevices() at "
      "gpu/utils/DeviceUtils.cu:32; details: CUDA error " +
          code + " " + text + "\n",
      "amrex::Abort::0::CUDA error " + code +
          " in file /amrex/Src/Base/AMReX_GpuDevice.cpp line 189: " + text + " !!!\n",
      "[TRT] [E] 1: [defaultAllocator.cpp::allocate::20] Error Code 1: Cuda Runtime (" + text +
          ")\n",
  };
}

TEST(LibraryErrors, TheRuntimesStatusesAreExplainedAlikeInEveryProgramsFormat) {
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  for (size_t row : setup_rows(t, "cudart")) {
    std::vector<std::string> forms =
        other_programs_forms(t.cell(row, "code"), t.cell(row, "message"));
    // ggml's "failed to initialize CUDA: unknown error" has its own signature: its threads were
    // fixed by reloading nvidia_uvm or by giving the container the GPU.
    std::erase(forms, "ggml_cuda_init: failed to initialize CUDA: unknown error\n");
    expect_each_explained_as(forms, t.cell(row, "cause"));
  }
}

// The same driver API status as other programs print it: TensorFlow's failed cuInit, OpenMM's
// module load, FFmpeg's and OBS's CUDA call, JAX's failed operation, cuda-python's CUresult.
TEST(LibraryErrors, EveryWayTheDriversStatusesArePrintedIsExplainedAlike) {
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  for (size_t row : setup_rows(t, "cuda_driver")) {
    const std::string& code = t.cell(row, "code");
    const std::string& name = t.cell(row, "name");
    expect_each_explained_as(
        {"E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: " + name +
             "\n",
         "CUDA platform error: Error loading CUDA module: " + name + " (" + code + ")\n",
         "init_cuda_ctx: CUDA call \"cu->cuInit(0)\" failed with " + name + " (" + code + ")\n",
         "CUDA backend failed to initialize: jaxlib/cuda/versions_helpers.cc:90: operation "
         "cuInit(0) failed: " +
             name + " (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n",
         "(<CUresult." + name + ": " + code + ">, <CUcontext 0x0>)\n"},
        t.cell(row, "cause"));
  }
}

// cuDNN's and cuBLAS's statuses as other programs print a failed call, each in the format of its
// own source and seen so in the corpus' dev threads: ONNX Runtime's CudaCall ("CUDNN failure N:
// <cudnnGetErrorString>", "CUBLAS failure N: <status name>", cuda_call.cc), Caffe's CUDNN_CHECK
// and CUBLAS_CHECK through glog (cudnn.hpp, device_alternate.hpp), PaddlePaddle's "CUDNN
// error(N), <text>." (enforce.h), cuDNN's frontend through PyTorch ("cudnn_status: <name>"),
// CTranslate2's "cuBLAS failed with status <name>" (src/cuda/utils.h).
std::vector<std::string> math_library_forms(const std::string& library, const std::string& code,
                                            const std::string& name, const std::string& text) {
  const std::string upper = library == "cudnn" ? "CUDNN" : "CUBLAS";
  std::vector<std::string> forms = {
      upper + " failure " + code + ": " + (library == "cudnn" ? text : name) +
          " ; GPU=0 ; hostname=gpu01 ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/"
          "cuda_execution_provider.cc ; line=180 ; expr=" +
          (library == "cudnn" ? "cudnnCreate(&cudnn_handle_)" : "cublasCreate(&cublas_handle_)") +
          "; \n",
      "F0817 22:53:22.694056 24820 conv_layer.cpp:32] Check failed: status == " + upper +
          "_STATUS_SUCCESS (" + code + " vs. 0)  " + name + "\n",
  };
  if (library == "cudnn") {
    forms.push_back("ExternalError: CUDNN error(" + code + "), " + text + ".\n");
    forms.push_back(
        "RuntimeError: CUDNN_BACKEND_TENSOR_DESCRIPTOR cudnnFinalize failedptrDesc->finalize() "
        "cudnn_status: " +
        name + "\n");
  } else {
    forms.push_back("RuntimeError: cuBLAS failed with status " + name + "\n");
  }
  return forms;
}

TEST(LibraryErrors, CudnnAndCublasStatusesAreExplainedAlikeInEveryProgramsFormat) {
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  for (const char* library : {"cudnn", "cublas"}) {
    for (size_t row : setup_rows(t, library)) {
      expect_each_explained_as(math_library_forms(library, t.cell(row, "code"), t.cell(row, "name"),
                                                  t.cell(row, "message")),
                               t.cell(row, "cause"));
    }
  }
}

// NVRTC's statuses as Numba ("Failed to call nvrtcCompileProgram: <name>", numba-cuda's
// cudadrv/nvrtc.py) and ArrayFire ("NVRTC Error(N): <name>", src/backend/cuda/compile_module.cpp)
// print them.
TEST(LibraryErrors, NvrtcStatusesAreExplainedAlikeInEveryProgramsFormat) {
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  for (size_t row : setup_rows(t, "nvrtc")) {
    const std::string& name = t.cell(row, "name");
    expect_each_explained_as(
        {"numba.cuda.cudadrv.error.NvrtcError: Failed to call nvrtcCompileProgram: " + name + "\n",
         "In file src/backend/cuda/compile_module.cpp:277\nNVRTC Error(" + t.cell(row, "code") +
             "): " + name + "\n"},
        t.cell(row, "cause"));
  }
}

// pynvml's exception for an NVML status (gpustat, nvitop, Ray): "NVMLError_" and the status
// name's words capitalised, then the text: NVML_ERROR_DRIVER_NOT_LOADED is
// "pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded".
std::string pynvml_exception(std::string_view status) {
  std::string name = "NVMLError_";
  bool word_start = true;
  for (char c : status.substr(std::string_view("NVML_ERROR_").size())) {
    if (c == '_') {
      word_start = true;
      continue;
    }
    name += word_start ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    word_start = false;
  }
  return name;
}

TEST(LibraryErrors, NvmlStatusesAreExplainedAsPynvmlRaisesThem) {
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  for (size_t row : setup_rows(t, "nvml")) {
    // pynvml raises these from any query, not only from nvmlInit: NoPermission from a memory
    // query is the parent GPU hidden in a MIG container (signature nvml_query_no_permission),
    // and Unknown says nothing of which call failed.
    const std::string& name = t.cell(row, "name");
    if (name == "NVML_ERROR_NO_PERMISSION" || name == "NVML_ERROR_UNKNOWN") continue;
    const std::string log = "    raise NVMLError(ret)\npynvml.nvml." + pynvml_exception(name) +
                            ": " + t.cell(row, "message") + "\n";
    EXPECT_EQ(first_cause(log), t.cell(row, "cause")) << log;
  }
}

// cuBLAS's texts, as llama.cpp's ggml prints a failed cuBLAS call ("CUDA error: <text>").
TEST(LibraryErrors, CublasTextsAreExplainedLikeTheirNames) {
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  for (size_t row : setup_rows(t, "cublas")) {
    const std::string log = "CUDA error: " + t.cell(row, "message") +
                            "\n  current device: 0, in function ggml_cuda_op_mul_mat_cublas\n";
    EXPECT_EQ(first_cause(log), t.cell(row, "cause")) << log;
  }
}

TEST(LibraryErrors, TheProgramsOwnErrorsAreNotBlamedOnTheSetup) {
  const kb::Table& t = testing::kb_table("cuda_library_errors");
  size_t checked = 0;
  for (size_t row = 0; row < t.size(); ++row) {
    if (t.cell(row, "cause") != "program") continue;
    const std::string log = as_printed(t, row);
    const auto causes = testing::explain_text(log);
    ASSERT_FALSE(causes.empty()) << log;
    EXPECT_EQ(causes.front().id, "other") << log;
    EXPECT_FALSE(causes.front().similar) << log;
    const std::string why = testing::messages().text("explain.why.other.cuda_program_error", {});
    EXPECT_EQ(causes.front().why, why) << log;
    ++checked;
  }
  EXPECT_GT(checked, 80u);
}

}  // namespace
}  // namespace gpuvet::explain
