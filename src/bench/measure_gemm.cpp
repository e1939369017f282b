// The bench child's GEMMs: cublasGemmEx per precision, each checked against exact sums on the
// host, and a CPU BLAS's sgemm against the GPU's FP32 GEMM of the same size.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_child_internal.hpp"
#include "bench/libraries.hpp"
#include "bench/measure.hpp"

namespace gpuvet::bench::child {

namespace {

struct Precision {
  const char* name;
  int data_type;
  int compute_type;
  const char* min_cc;
};

constexpr Precision kPrecisions[] = {
    {"gemm_fp32", gpu::kCudaR32F, gpu::kCublasCompute32F, "3.0"},
    {"gemm_tf32", gpu::kCudaR32F, gpu::kCublasCompute32FFastTf32, "8.0"},
    {"gemm_fp16", gpu::kCudaR16F, gpu::kCublasCompute32F, "5.3"},
    {"gemm_bf16", gpu::kCudaR16BF, gpu::kCublasCompute32F, "8.0"},
};

bool cc_below(const std::string& cc, const std::string& minimum) {
  const double a = std::atof(cc.c_str());
  const double b = std::atof(minimum.c_str());
  return a + 1e-9 < b;
}

std::vector<unsigned char> encode(const std::vector<float>& values, int data_type) {
  std::vector<unsigned char> out;
  if (data_type == gpu::kCudaR32F) {
    out.resize(values.size() * 4);
    std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  out.resize(values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t bits =
        data_type == gpu::kCudaR16F ? float_to_half(values[i]) : float_to_bfloat16(values[i]);
    std::memcpy(out.data() + 2 * i, &bits, 2);
  }
  return out;
}

struct GemmRun {
  double ms = 0;
  std::string check;  // empty when the spot check passed
};

// C = A·B, column-major, n×n, inputs exact in every precision; 16 elements checked against
// double sums on the host.
gpuvet::Result<GemmRun> run_gemm(Gpu& g, const CublasApi& blas, CUhandle handle, const Precision& p,
                                 int n, int repetitions) {
  const CudaApi& cu = g.cu();
  const std::size_t count = static_cast<std::size_t>(n) * n;
  std::vector<float> a(count);
  std::vector<float> b(count);
  for (std::size_t i = 0; i < count; ++i) {
    a[i] = gemm_input(i, 1);
    b[i] = gemm_input(i, 2);
  }
  const auto a_bytes = encode(a, p.data_type);
  const auto b_bytes = encode(b, p.data_type);
  DeviceMemory da(cu, a_bytes.size());
  DeviceMemory db(cu, b_bytes.size());
  DeviceMemory dc(cu, count * sizeof(float));
  if (!da || !db || !dc) return make_error("not enough device memory for the matrices");
  if (auto ok =
          g.check(cu.cuMemcpyHtoD_v2(da.get(), a_bytes.data(), a_bytes.size()), "cuMemcpyHtoD");
      !ok) {
    return ok.error();
  }
  if (auto ok =
          g.check(cu.cuMemcpyHtoD_v2(db.get(), b_bytes.data(), b_bytes.size()), "cuMemcpyHtoD");
      !ok) {
    return ok.error();
  }
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const auto a_ptr = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(da.get()));
  const auto b_ptr = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(db.get()));
  const auto c_ptr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(dc.get()));
  int status = 0;
  const auto gemm = [&] {
    status = blas.cublasGemmEx(handle, gpu::kCublasOpN, gpu::kCublasOpN, n, n, n, &alpha, a_ptr,
                               p.data_type, n, b_ptr, p.data_type, n, &beta, c_ptr, gpu::kCudaR32F,
                               n, p.compute_type, gpu::kCublasGemmDefault);
    return 0;
  };
  stage(fmt::format("cublasGemmEx {} {}", p.name, n));
  gemm();
  if (status != 0) return make_error(fmt::format("cublasGemmEx: cublasStatus {}", status));
  auto ms = g.time_ms(repetitions, gemm);
  if (!ms) return ms.error();
  if (status != 0) return make_error(fmt::format("cublasGemmEx: cublasStatus {}", status));
  std::vector<float> c(count);
  if (auto ok =
          g.check(cu.cuMemcpyDtoH_v2(c.data(), dc.get(), count * sizeof(float)), "cuMemcpyDtoH");
      !ok) {
    return ok.error();
  }
  GemmRun run{*ms, ""};
  for (int s = 0; s < 16; ++s) {
    const int i = (s * 7919) % n;
    const int j = (s * 104729 + 13) % n;
    double want = 0;
    for (int k = 0; k < n; ++k) {
      want +=
          static_cast<double>(a[static_cast<std::size_t>(i) + static_cast<std::size_t>(k) * n]) *
          b[static_cast<std::size_t>(k) + static_cast<std::size_t>(j) * n];
    }
    const double got = c[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n];
    if (std::fabs(got - want) > 1e-3 * (1.0 + std::fabs(want))) {
      run.check = fmt::format("C[{},{}] = {} but the exact value is {}", i, j, got, want);
      break;
    }
  }
  return run;
}

}  // namespace

void measure_gemms(Gpu& g, Mode mode, const DeviceInfo& device,
                   const std::vector<std::string>& extra, int cpu_size, GemmOutcome& outcome) {
  std::vector<std::string> names = cublas_names();
  names.insert(names.end(), extra.begin(), extra.end());
  Loaded lib = open_first(names);
  if (!lib.library) {
    for (const auto& p : kPrecisions) {
      if (mode == Mode::verify && std::string(p.name) != "gemm_fp32") continue;
      emit_result(failed(p.name, "TFLOP/s",
                         kb::catalog_error("bench.detail.not_found",
                                           {{"library", "cuBLAS"}, {"tried", lib.tried}})));
    }
    return;
  }
  const CublasApi blas = CublasApi::bind(*lib.library);
  CUhandle handle = nullptr;
  stage("cublasCreate_v2");
  const int created = blas.missing.empty() ? blas.cublasCreate_v2(&handle) : -1;
  if (created != 0) {
    const std::string why =
        blas.missing.empty()
            ? fmt::format("cublasCreate: cublasStatus {} ({})", created, lib.name)
            : lib.name + " lacks " + blas.missing.front() + " (cuBLAS 11 or newer is needed)";
    for (const auto& p : kPrecisions) {
      if (mode == Mode::verify && std::string(p.name) != "gemm_fp32") continue;
      emit_result(failed(p.name, "TFLOP/s", why));
    }
    return;
  }
  const int n = mode == Mode::full ? 8192 : mode == Mode::quick ? 4096 : 1024;
  const int repetitions = mode == Mode::full ? 10 : 3;
  for (const auto& p : kPrecisions) {
    if (mode == Mode::verify && std::string(p.name) != "gemm_fp32") continue;
    if (cc_below(device.compute_capability, p.min_cc)) {
      emit_result(
          failed(p.name, "TFLOP/s",
                 kb::catalog_error("bench.detail.needs_cc",
                                   {{"needed", p.min_cc}, {"cc", device.compute_capability}})));
      continue;
    }
    progress(fmt::format("{} {}^3", p.name, n));
    auto run = run_gemm(g, blas, handle, p, n, repetitions);
    if (!run) {
      emit_result(failed(p.name, "TFLOP/s", run.error().message));
      continue;
    }
    Result r;
    r.name = p.name;
    r.unit = "TFLOP/s";
    r.value = gemm_tflops(n, n, n, run->ms);
    r.ok = run->check.empty();
    const std::string size = fmt::format("{0}x{0}x{0}", n);
    describe(r, run->check.empty()
                    ? kb::catalog_error("bench.detail.gemm_checked",
                                        {{"size", size}, {"library", lib.name}})
                    : kb::catalog_error(
                          "bench.detail.gemm_wrong",
                          {{"size", size}, {"library", lib.name}, {"reason", run->check}}));
    emit_result(r);
  }
  if (cpu_size > 0) {
    auto run = run_gemm(g, blas, handle, kPrecisions[0], cpu_size, 5);
    if (run && run->check.empty()) outcome.fp32_ms_at_cpu_size = run->ms;
  }
  blas.cublasDestroy_v2(handle);
}

// --- CPU against GPU ---------------------------------------------------------------------------

void measure_cpu_vs_gpu_gemm(const GemmOutcome& gpu_side, int n) {
  Loaded lib;
  std::string label;
  for (const auto& [name, what] : cpu_blas_names()) {
    Loaded tried = open_first({name});
    if (tried.library) {
      lib = std::move(tried);
      label = what;
      break;
    }
  }
  if (!lib.library) {
    emit_result(
        failed("cpu_vs_gpu_gemm_speedup", "x", kb::catalog_error("bench.detail.no_cpu_blas")));
    return;
  }
  const CblasApi cblas = CblasApi::bind(*lib.library);
  if (!cblas.missing.empty()) {
    emit_result(failed("cpu_vs_gpu_gemm_speedup", "x", lib.name + " has no cblas_sgemm"));
    return;
  }
  if (!gpu_side.fp32_ms_at_cpu_size) {
    emit_result(
        failed("cpu_vs_gpu_gemm_speedup", "x", kb::catalog_error("bench.detail.no_gpu_gemm")));
    return;
  }
  const std::size_t count = static_cast<std::size_t>(n) * n;
  std::vector<float> a(count), b(count), c(count);
  for (std::size_t i = 0; i < count; ++i) {
    a[i] = gemm_input(i, 1);
    b[i] = gemm_input(i, 2);
  }
  stage("cblas_sgemm");
  progress(fmt::format("CPU sgemm {}^3", n));
  std::vector<double> samples;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    cblas.cblas_sgemm(gpu::kCblasColMajor, gpu::kCblasNoTrans, gpu::kCblasNoTrans, n, n, n, 1.0f,
                      a.data(), n, b.data(), n, 0.0f, c.data(), n);
    samples.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const double cpu_ms = *median(samples);
  const int threads = cblas.openblas_get_num_threads ? cblas.openblas_get_num_threads() : 1;
  Result r;
  r.name = "cpu_vs_gpu_gemm_speedup";
  r.unit = "x";
  r.value = cpu_ms / *gpu_side.fp32_ms_at_cpu_size;
  r.ok = true;
  describe(r, kb::catalog_error(
                  "bench.detail.speedup",
                  {{"size", fmt::format("{0}x{0}x{0}", n)},
                   {"cpu", label},
                   {"library", lib.name},
                   {"threads", std::to_string(threads)},
                   {"cpu_gflops", fmt::format("{:.1f}", gemm_tflops(n, n, n, cpu_ms) * 1000)},
                   {"gpu_tflops",
                    fmt::format("{:.2f}", gemm_tflops(n, n, n, *gpu_side.fp32_ms_at_cpu_size))}}));
  emit_result(r);
}

}  // namespace gpuvet::bench::child
