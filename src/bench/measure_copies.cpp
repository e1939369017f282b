// The bench child's first measurements: a kernel launch through the driver's PTX JIT, copies
// between host and device swept over transfer sizes, and the STREAM triad.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_child_internal.hpp"
#include "bench/kernels.hpp"
#include "bench/measure.hpp"

namespace gpuvet::bench::child {

namespace {

constexpr unsigned kBlock = 256;

unsigned grid_for(std::size_t n) {
  return static_cast<unsigned>((n + kBlock - 1) / kBlock);
}

struct Buffers {
  std::size_t bytes = 0;
  std::unique_ptr<DeviceMemory> a, b, c;
  std::unique_ptr<PinnedMemory> pinned;
  std::vector<unsigned char> pageable;
};

// Plain device allocations within what is free, halving the size until they fit.
std::optional<Buffers> allocate(const CudaApi& cu, std::size_t wanted) {
  std::size_t free_bytes = 0;
  std::size_t total = 0;
  if (cu.cuMemGetInfo_v2(&free_bytes, &total) != 0) return std::nullopt;
  for (std::size_t bytes = wanted; bytes >= (std::size_t{4} << 20); bytes /= 2) {
    if (3 * bytes + (std::size_t{256} << 20) > free_bytes) continue;
    Buffers buffers;
    buffers.bytes = bytes;
    buffers.a = std::make_unique<DeviceMemory>(cu, bytes);
    buffers.b = std::make_unique<DeviceMemory>(cu, bytes);
    buffers.c = std::make_unique<DeviceMemory>(cu, bytes);
    buffers.pinned = std::make_unique<PinnedMemory>(cu, bytes);
    if (!*buffers.a || !*buffers.b || !*buffers.c || !*buffers.pinned) continue;
    try {
      buffers.pageable.assign(bytes, 0);
    } catch (const std::bad_alloc&) {
      continue;
    }
    return buffers;
  }
  return std::nullopt;
}

Result copy_sweep(Gpu& g, Buffers& buf, const std::string& name, bool quick,
                  const std::function<int(std::size_t)>& copy, double bytes_factor,
                  const Error& what) {
  Result r;
  r.name = name;
  r.unit = "GB/s";
  for (const std::size_t size : transfer_sizes(buf.bytes)) {
    stage(fmt::format("{} {}", name, size));
    progress(fmt::format("{} {} KiB", name, size >> 10));
    auto ms = g.time_ms(repetitions_for(size, quick), [&] { return copy(size); });
    if (!ms) return failed(name, "GB/s", ms.error().message);
    r.series.push_back({static_cast<double>(size), gigabytes_per_second(bytes_factor * size, *ms)});
  }
  r.value = r.series.empty() ? std::nullopt : std::optional<double>(r.series.back().y);
  r.ok = r.value.has_value();
  describe(r, kb::within(what, "bench.detail.copy_sweep",
                         {{"from", "4 KiB"}, {"to", fmt::format("{} MiB", buf.bytes >> 20)}}));
  return r;
}

// host (pinned) -> a -> b (device to device) -> host (pageable): the bytes must come back.
std::optional<std::string> verify_round_trip(Gpu& g, Buffers& buf) {
  const CudaApi& cu = g.cu();
  auto* words = reinterpret_cast<unsigned*>(buf.pinned->get());
  const std::size_t count = buf.bytes / sizeof(unsigned);
  for (std::size_t i = 0; i < count; ++i)
    words[i] = fill_value(static_cast<unsigned>(i)) ^ 0x5A5A5A5Au;
  stage("round trip");
  if (auto ok =
          g.check(cu.cuMemcpyHtoD_v2(buf.a->get(), buf.pinned->get(), buf.bytes), "cuMemcpyHtoD");
      !ok) {
    return ok.error().message;
  }
  if (auto ok = g.check(cu.cuMemcpyDtoDAsync_v2(buf.b->get(), buf.a->get(), buf.bytes, nullptr),
                        "cuMemcpyDtoD");
      !ok) {
    return ok.error().message;
  }
  if (auto ok =
          g.check(cu.cuMemcpyDtoH_v2(buf.pageable.data(), buf.b->get(), buf.bytes), "cuMemcpyDtoH");
      !ok) {
    return ok.error().message;
  }
  if (std::memcmp(buf.pageable.data(), buf.pinned->get(), buf.bytes) != 0) {
    return std::string("the data copied host -> device -> device -> host came back different");
  }
  return std::nullopt;
}

Result triad(Gpu& g, Buffers& buf, bool quick) {
  const CudaApi& cu = g.cu();
  CUhandle function = nullptr;
  if (!g.module() || cu.cuModuleGetFunction(&function, g.module(), kTriadKernel) != 0) {
    return failed("stream_triad", "GB/s", kb::catalog_error("bench.detail.kernels_not_loaded"));
  }
  unsigned n = static_cast<unsigned>(std::min<std::size_t>(buf.bytes / sizeof(float), 1u << 30));
  auto* floats = reinterpret_cast<float*>(buf.pinned->get());
  for (unsigned i = 0; i < n; ++i)
    floats[i] = 1.0f;
  if (cu.cuMemcpyHtoD_v2(buf.b->get(), floats, n * sizeof(float)) != 0) {
    return failed("stream_triad", "GB/s", "cuMemcpyHtoD failed");
  }
  for (unsigned i = 0; i < n; ++i)
    floats[i] = 2.0f;
  if (cu.cuMemcpyHtoD_v2(buf.c->get(), floats, n * sizeof(float)) != 0) {
    return failed("stream_triad", "GB/s", "cuMemcpyHtoD failed");
  }
  CUdeviceptr a = buf.a->get();
  CUdeviceptr b = buf.b->get();
  CUdeviceptr c = buf.c->get();
  float scalar = 3.0f;
  void* args[] = {&a, &b, &c, &scalar, &n};
  stage("cuLaunchKernel gpuvet_triad");
  auto ms = g.time_ms(repetitions_for(buf.bytes, quick), [&] {
    return cu.cuLaunchKernel(function, grid_for(n), 1, 1, kBlock, 1, 1, 0, nullptr, args, nullptr);
  });
  if (!ms) return failed("stream_triad", "GB/s", ms.error().message);
  if (cu.cuMemcpyDtoH_v2(floats, a, n * sizeof(float)) != 0) {
    return failed("stream_triad", "GB/s", "cuMemcpyDtoH failed");
  }
  for (unsigned i = 0; i < n; i += 4099) {
    if (floats[i] != 7.0f) {
      return failed(
          "stream_triad", "GB/s",
          kb::catalog_error("bench.detail.triad_wrong", {{"index", std::to_string(i)},
                                                         {"value", fmt::format("{}", floats[i])}}));
    }
  }
  Result r;
  r.name = "stream_triad";
  r.unit = "GB/s";
  r.value = gigabytes_per_second(3.0 * n * sizeof(float), *ms);
  r.ok = true;
  describe(r, kb::catalog_error("bench.detail.triad", {{"count", std::to_string(n)}}));
  return r;
}

}  // namespace

// JIT-compiles the PTX, launches gpuvet_fill and checks every value it wrote.
Result measure_kernel_launch(Gpu& g) {
  const CudaApi& cu = g.cu();
  stage("cuModuleLoadData (PTX JIT)");
  const auto t0 = std::chrono::steady_clock::now();
  const int loaded = cu.cuModuleLoadData(&g.module(), kKernelsPtx);
  const double jit_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (loaded != 0) {
    g.module() = nullptr;
    return failed("kernel_launch", "ms",
                  kb::catalog_error("bench.detail.jit_failed", {{"reason", g.error(loaded)}}));
  }
  CUhandle fill = nullptr;
  if (auto ok =
          g.check(cu.cuModuleGetFunction(&fill, g.module(), kFillKernel), "cuModuleGetFunction");
      !ok) {
    return failed("kernel_launch", "ms", ok.error().message);
  }
  unsigned n = 1u << 20;
  DeviceMemory out(cu, n * sizeof(unsigned));
  if (!out) return failed("kernel_launch", "ms", "cuMemAlloc of 4 MiB failed");
  CUdeviceptr pointer = out.get();
  void* args[] = {&pointer, &n};
  stage("cuLaunchKernel gpuvet_fill");
  const auto launch = [&] {
    return cu.cuLaunchKernel(fill, grid_for(n), 1, 1, kBlock, 1, 1, 0, nullptr, args, nullptr);
  };
  auto ms = g.time_ms(5, launch);
  if (!ms) return failed("kernel_launch", "ms", ms.error().message);
  std::vector<unsigned> host(n);
  stage("cuMemcpyDtoH (kernel output)");
  if (auto ok =
          g.check(cu.cuMemcpyDtoH_v2(host.data(), out.get(), n * sizeof(unsigned)), "cuMemcpyDtoH");
      !ok) {
    return failed("kernel_launch", "ms", ok.error().message);
  }
  for (unsigned i = 0; i < n; ++i) {
    if (host[i] != fill_value(i)) {
      return failed("kernel_launch", "ms",
                    kb::catalog_error("bench.detail.kernel_wrong",
                                      {{"value", std::to_string(host[i])},
                                       {"index", std::to_string(i)},
                                       {"expected", std::to_string(fill_value(i))}}));
    }
  }
  Result r;
  r.name = "kernel_launch";
  r.unit = "ms";
  r.value = jit_ms;
  r.ok = true;
  describe(
      r, kb::catalog_error("bench.detail.kernel_launch", {{"jit_ms", fmt::format("{:.1f}", jit_ms)},
                                                          {"threads", std::to_string(n)},
                                                          {"ms", fmt::format("{:.3f}", *ms)}}));
  return r;
}

// Host/device copies swept over transfer sizes, their data checked once, and the STREAM triad.
void measure_copies(Gpu& g, Mode mode) {
  const std::size_t wanted = mode == Mode::full    ? std::size_t{1} << 30
                             : mode == Mode::quick ? std::size_t{256} << 20
                                                   : std::size_t{64} << 20;
  const bool quick = mode != Mode::full;
  auto buf = allocate(g.cu(), wanted);
  const std::vector<std::string> names = {"h2d_pinned",   "d2h_pinned", "h2d_pageable",
                                          "d2h_pageable", "d2d_copy",   "stream_triad"};
  if (!buf) {
    for (const auto& name : names) {
      emit_result(failed(name, "GB/s", kb::catalog_error("bench.detail.no_memory_for_buffers")));
    }
    return;
  }
  const CudaApi& cu = g.cu();
  const auto verified = verify_round_trip(g, *buf);
  const Error check =
      verified ? kb::catalog_error("bench.detail.data_check_failed", {{"reason", *verified}})
               : kb::catalog_error("bench.detail.data_verified");
  const auto copy_result = [&](const std::string& name, const std::function<int(std::size_t)>& f,
                               double factor) {
    Result r =
        copy_sweep(g, *buf, name, quick, f, factor, kb::within(check, "bench.detail.copy." + name));
    if (verified) r.ok = false;
    emit_result(r);
  };
  copy_result(
      "h2d_pinned",
      [&](std::size_t n) {
        return cu.cuMemcpyHtoDAsync_v2(buf->a->get(), buf->pinned->get(), n, nullptr);
      },
      1.0);
  copy_result(
      "d2h_pinned",
      [&](std::size_t n) {
        return cu.cuMemcpyDtoHAsync_v2(buf->pinned->get(), buf->a->get(), n, nullptr);
      },
      1.0);
  if (mode != Mode::verify) {
    copy_result(
        "h2d_pageable",
        [&](std::size_t n) {
          return cu.cuMemcpyHtoDAsync_v2(buf->a->get(), buf->pageable.data(), n, nullptr);
        },
        1.0);
    copy_result(
        "d2h_pageable",
        [&](std::size_t n) {
          return cu.cuMemcpyDtoHAsync_v2(buf->pageable.data(), buf->a->get(), n, nullptr);
        },
        1.0);
  }
  copy_result(
      "d2d_copy",
      [&](std::size_t n) {
        return cu.cuMemcpyDtoDAsync_v2(buf->b->get(), buf->a->get(), n, nullptr);
      },
      2.0);
  if (mode != Mode::verify) emit_result(triad(g, *buf, quick));
}

}  // namespace gpuvet::bench::child
