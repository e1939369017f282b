// The bench child's convolution: cuDNN's forward convolution of the seeds' benchmark layer,
// timed and one output checked on the host.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench_child_internal.hpp"
#include "bench/libraries.hpp"
#include "bench/measure.hpp"

namespace gpuvet::bench::child {

namespace {

// The seeds' benchmark layer: Conv2D(32 filters, 3x3) on 256x256 RGB images, padding "same".
struct Layer {
  int batch = 8;
  int channels = 3, height = 256, width = 256, filters = 32, r = 3, s = 3;
  int on = 0, oc = 0, oh = 0, ow = 0;  // the output's shape, as cuDNN gives it
  std::size_t workspace_bytes = 0;

  std::size_t x_count() const {
    return static_cast<std::size_t>(batch) * channels * height * width;
  }
  std::size_t w_count() const { return static_cast<std::size_t>(filters) * channels * r * s; }
  std::size_t y_count() const { return static_cast<std::size_t>(on) * oc * oh * ow; }
};

// cuDNN's handle and the convolution's descriptors, with the status of the last call.
struct Cudnn {
  const CudnnApi& api;
  const std::string& library;
  CUhandle handle = nullptr, x_desc = nullptr, y_desc = nullptr, w_desc = nullptr, conv = nullptr;
  int status = 0;

  // The failed call as the result, with its status and the library.
  void fail(const std::string& what) const {
    emit_result(failed("cudnn_conv_fwd", "TFLOP/s",
                       fmt::format("{}: cudnnStatus {} ({})", what, status, library)));
  }
  void create_descriptors() {
    api.cudnnCreateTensorDescriptor(&x_desc);
    api.cudnnCreateTensorDescriptor(&y_desc);
    api.cudnnCreateFilterDescriptor(&w_desc);
    api.cudnnCreateConvolutionDescriptor(&conv);
  }
  void destroy() const {
    api.cudnnDestroyConvolutionDescriptor(conv);
    api.cudnnDestroyFilterDescriptor(w_desc);
    api.cudnnDestroyTensorDescriptor(y_desc);
    api.cudnnDestroyTensorDescriptor(x_desc);
    api.cudnnDestroy(handle);
  }
};

// The input, filter and convolution descriptors, the output's shape and the workspace the
// implicit precomputed GEMM needs; stops at the first call that fails (see dnn.status).
void describe(Cudnn& dnn, Layer& layer) {
  const CudnnApi& api = dnn.api;
  int& status = dnn.status;
  status = api.cudnnSetTensor4dDescriptor(dnn.x_desc, gpu::kCudnnTensorNchw, gpu::kCudnnDataFloat,
                                          layer.batch, layer.channels, layer.height, layer.width);
  if (status == 0) {
    status = api.cudnnSetFilter4dDescriptor(dnn.w_desc, gpu::kCudnnDataFloat, gpu::kCudnnTensorNchw,
                                            layer.filters, layer.channels, layer.r, layer.s);
  }
  if (status == 0) {
    status = api.cudnnSetConvolution2dDescriptor(dnn.conv, 1, 1, 1, 1, 1, 1,
                                                 gpu::kCudnnCrossCorrelation, gpu::kCudnnDataFloat);
  }
  if (status == 0) {
    status = api.cudnnGetConvolution2dForwardOutputDim(dnn.conv, dnn.x_desc, dnn.w_desc, &layer.on,
                                                       &layer.oc, &layer.oh, &layer.ow);
  }
  if (status == 0) {
    status = api.cudnnSetTensor4dDescriptor(dnn.y_desc, gpu::kCudnnTensorNchw, gpu::kCudnnDataFloat,
                                            layer.on, layer.oc, layer.oh, layer.ow);
  }
  if (status == 0) {
    status = api.cudnnGetConvolutionForwardWorkspaceSize(
        dnn.handle, dnn.x_desc, dnn.w_desc, dnn.conv, dnn.y_desc,
        gpu::kCudnnFwdAlgoImplicitPrecompGemm, &layer.workspace_bytes);
  }
}

// Output (n=0, k=0, p=1, q=1) on the host: padding 1, stride 1, cross-correlation.
double host_output(const std::vector<float>& x, const std::vector<float>& w, const Layer& layer) {
  double want = 0;
  for (int c = 0; c < layer.channels; ++c) {
    for (int i = 0; i < layer.r; ++i) {
      for (int j = 0; j < layer.s; ++j) {
        want += static_cast<double>(
                    x[(static_cast<std::size_t>(c) * layer.height + i) * layer.width + j]) *
                w[(static_cast<std::size_t>(c) * layer.r + i) * layer.s + j];
      }
    }
  }
  return want;
}

Result convolution_result(const Layer& l, double ms, double got, double want,
                          const std::string& library) {
  Result result;
  result.name = "cudnn_conv_fwd";
  result.unit = "TFLOP/s";
  result.value = convolution_flops(l.batch, l.channels, l.filters, l.r, l.s, l.oh, l.ow) /
                 (ms / 1000.0) / 1e12;
  result.ok = std::fabs(got - want) <= 1e-4 * (1.0 + std::fabs(want));
  const ErrorArgs args = {
      {"input", fmt::format("{}x{}x{}x{}", l.batch, l.channels, l.height, l.width)},
      {"filters", std::to_string(l.filters)},
      {"filter", fmt::format("{}x{}", l.r, l.s)},
      {"library", library}};
  const Error check =
      result.ok ? kb::catalog_error("bench.detail.conv_checked")
                : kb::catalog_error("bench.detail.conv_wrong", {{"got", fmt::format("{}", got)},
                                                                {"want", fmt::format("{}", want)}});
  child::describe(result, kb::within(check, "bench.detail.conv", args));
  return result;
}

// Runs the described convolution on exact inputs, times it, checks one output and emits the
// result; the descriptors are destroyed on every path.
void forward(Gpu& g, Cudnn& dnn, const Layer& layer, Mode mode) {
  const CudaApi& cu = g.cu();
  const std::size_t x_count = layer.x_count();
  const std::size_t w_count = layer.w_count();
  const std::size_t y_count = layer.y_count();
  std::vector<float> x(x_count), w(w_count), y(y_count);
  for (std::size_t i = 0; i < x_count; ++i)
    x[i] = gemm_input(i, 3);
  for (std::size_t i = 0; i < w_count; ++i)
    w[i] = gemm_input(i, 4);
  DeviceMemory dx(cu, x_count * 4), dw(cu, w_count * 4), dy(cu, y_count * 4),
      dwork(cu, std::max<std::size_t>(layer.workspace_bytes, 256));
  if (!dx || !dw || !dy || !dwork) {
    emit_result(
        failed("cudnn_conv_fwd", "TFLOP/s", kb::catalog_error("bench.detail.no_device_memory")));
    return dnn.destroy();
  }
  cu.cuMemcpyHtoD_v2(dx.get(), x.data(), x_count * 4);
  cu.cuMemcpyHtoD_v2(dw.get(), w.data(), w_count * 4);
  const float alpha = 1.0f, beta = 0.0f;
  const auto ptr = [](const DeviceMemory& m) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(m.get()));
  };
  const auto run = [&] {
    dnn.status = dnn.api.cudnnConvolutionForward(dnn.handle, &alpha, dnn.x_desc, ptr(dx),
                                                 dnn.w_desc, ptr(dw), dnn.conv,
                                                 gpu::kCudnnFwdAlgoImplicitPrecompGemm, ptr(dwork),
                                                 layer.workspace_bytes, &beta, dnn.y_desc, ptr(dy));
    return 0;
  };
  stage("cudnnConvolutionForward");
  progress("cudnn_conv_fwd");
  auto ms = g.time_ms(mode == Mode::full ? 10 : 3, run);
  if (!ms || dnn.status != 0) {
    if (!ms) {
      emit_result(failed("cudnn_conv_fwd", "TFLOP/s", ms.error().message));
    } else {
      dnn.fail("cudnnConvolutionForward");
    }
    return dnn.destroy();
  }
  cu.cuMemcpyDtoH_v2(y.data(), dy.get(), y_count * 4);
  const double got = y[static_cast<std::size_t>(layer.ow) + 1];
  emit_result(convolution_result(layer, *ms, got, host_output(x, w, layer), dnn.library));
  dnn.destroy();
}

}  // namespace

void measure_convolution(Gpu& g, Mode mode, const std::vector<std::string>& extra) {
  std::vector<std::string> names = cudnn_names();
  names.insert(names.end(), extra.begin(), extra.end());
  Loaded lib = open_first(names);
  if (!lib.library) {
    emit_result(failed(
        "cudnn_conv_fwd", "TFLOP/s",
        kb::catalog_error("bench.detail.not_found", {{"library", "cuDNN"}, {"tried", lib.tried}})));
    return;
  }
  const CudnnApi api = CudnnApi::bind(*lib.library);
  if (!api.missing.empty()) {
    emit_result(failed("cudnn_conv_fwd", "TFLOP/s", lib.name + " lacks " + api.missing.front()));
    return;
  }
  Layer layer;
  layer.batch = mode == Mode::full ? 32 : 8;
  Cudnn dnn{api, lib.name};
  stage("cudnnCreate");
  dnn.status = api.cudnnCreate(&dnn.handle);
  if (dnn.status != 0) return dnn.fail("cudnnCreate");
  dnn.create_descriptors();
  describe(dnn, layer);
  if (dnn.status != 0) {
    dnn.fail("describing the convolution");
    return dnn.destroy();
  }
  forward(g, dnn, layer, mode);
}

}  // namespace gpuvet::bench::child
