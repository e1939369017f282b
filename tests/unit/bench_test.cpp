// verify and bench without a GPU: the arithmetic, the PTX (assembled by ptxas when the toolkit is
// here), reading the child's output however it ended, peaks from the KB, and the real binary
// against no driver, the toolkit's stub libcuda, and the fake drivers the tests build (which
// exercise the plumbing only: they measure nothing about a GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/bench_parent.hpp"
#include "bench/kernels.hpp"
#include "bench/measure.hpp"
#include "cli_support.hpp"
#include "core/text.hpp"
#include "test_support.hpp"
#include "untranslated.hpp"

namespace gpuvet::bench {
namespace {

using testing::Outcome;

Outcome gpuvet(const std::string& arguments, const std::string& environment = "") {
  return testing::run_gpuvet(arguments, environment);
}

std::string fake(const std::string& behaviour) {
  return "LD_LIBRARY_PATH=" + std::string(GPUVET_FAKE_DRIVER_DIR) + "/" + behaviour;
}

const Result* find(const Report& report, const std::string& name) {
  const auto it = std::find_if(report.results.begin(), report.results.end(),
                               [&](const Result& r) { return r.name == name; });
  return it == report.results.end() ? nullptr : &*it;
}

TEST(BenchMeasure, MediansRatesAndFlops) {
  EXPECT_FALSE(median({}).has_value());
  EXPECT_EQ(*median({3, 1, 2}), 2);
  EXPECT_EQ(*median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(gigabytes_per_second(1e9, 1000), 1.0);
  EXPECT_DOUBLE_EQ(gigabytes_per_second(64e6, 2), 32.0);
  EXPECT_EQ(gigabytes_per_second(1, 0), 0.0);
  EXPECT_NEAR(gemm_tflops(8192, 8192, 8192, 10), 109.95, 0.01);
  EXPECT_DOUBLE_EQ(convolution_flops(32, 3, 32, 3, 3, 256, 256), 2.0 * 32 * 32 * 256 * 256 * 27);
  // H100 SXM: 2619 MHz HBM3 on a 5120-bit bus is the datasheet's 3.35 TB/s.
  EXPECT_NEAR(memory_bandwidth_from_clocks(2619, 5120), 3352.3, 0.1);
  EXPECT_FALSE(fraction_of(1.0, std::nullopt).has_value());
  EXPECT_FALSE(fraction_of(1.0, 0.0).has_value());
  EXPECT_DOUBLE_EQ(*fraction_of(45.0, 50.0), 0.9);
}

TEST(BenchMeasure, TransferSizesFrom4KiBTo1GiB) {
  const auto sizes = transfer_sizes(std::size_t{1} << 30);
  ASSERT_EQ(sizes.size(), 10u);
  EXPECT_EQ(sizes.front(), 4096u);
  EXPECT_EQ(sizes.back(), std::size_t{1} << 30);
  EXPECT_TRUE(transfer_sizes(1000).empty());
  EXPECT_GT(repetitions_for(4096, false), repetitions_for(std::size_t{1} << 30, false));
  EXPECT_GE(repetitions_for(std::size_t{1} << 30, true), 3);
}

TEST(BenchMeasure, HalfAndBfloat16Encodings) {
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(1e6f), 0x7C00);                          // overflow is infinity
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);         // the smallest subnormal
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // a tie rounds to even
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bfloat16(-0.25f), 0xBE80);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));
  // The GEMM inputs are exact in every precision, so a spot check can demand the exact sum.
  for (std::size_t i = 0; i < 1000; ++i) {
    const float v = gemm_input(i, 7);
    EXPECT_EQ(half_to_float(float_to_half(v)), v);
    EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(v)), v);
    EXPECT_EQ(std::fmod(v * 4, 1.0f), 0.0f);
  }
}

// The kernels' PTX assembles for the oldest and the newest target of this machine's ptxas.
TEST(BenchKernels, PtxAssemblesForTheOldestAndNewestTargets) {
  const std::string ptx = kKernelsPtx;
  EXPECT_NE(ptx.find(".version 5.0"), std::string::npos);
  EXPECT_NE(ptx.find(".target sm_30"), std::string::npos);
  EXPECT_NE(ptx.find(".entry gpuvet_fill"), std::string::npos);
  EXPECT_NE(ptx.find(".entry gpuvet_triad"), std::string::npos);
  std::string ptxas = "/usr/local/cuda/bin/ptxas";
  if (!std::filesystem::exists(ptxas)) {
    const auto found = testing::run_command("command -v ptxas");
    if (found.status != 0) GTEST_SKIP() << "no ptxas on this machine";
    ptxas = std::string(text::trim(found.output));
  }
  const auto help = testing::run_command(ptxas + " --help");
  std::vector<int> targets;
  for (size_t at = help.output.find("'sm_"); at != std::string::npos;
       at = help.output.find("'sm_", at + 1)) {
    const std::string digits =
        help.output.substr(at + 4, help.output.find_first_not_of("0123456789", at + 4) - at - 4);
    if (!digits.empty() && help.output[at + 4 + digits.size()] == '\'')
      targets.push_back(std::stoi(digits));
  }
  ASSERT_FALSE(targets.empty()) << help.output.substr(0, 400);
  const auto [oldest, newest] = std::minmax_element(targets.begin(), targets.end());
  testing::TempDir dir;
  const std::string file = dir.file("kernels.ptx", ptx);
  for (const int target : {*oldest, *newest}) {
    const auto run = testing::run_command(ptxas + " -arch=sm_" + std::to_string(target) + " " +
                                          file + " -o " + dir.path() + "/k.cubin 2>&1");
    EXPECT_EQ(run.status, 0) << "sm_" << target << ": " << run.output;
  }
}

platform::ChildOutcome exited(std::string output) {
  platform::ChildOutcome o;
  o.kind = platform::ChildOutcome::Kind::exited;
  o.output = std::move(output);
  return o;
}

TEST(BenchParent, ReadsTheChildsLinesAndFillsWhatDidNotRun) {
  const Report full = parse_child_output(
      exited(
          "@stage dlopen libcuda.so.1\n"
          "@device {\"index\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"compute_capability\":\"9.0\","
          "\"driver\":\"550.54.15\",\"pcie_generation\":5,\"pcie_width\":16}\n"
          "@result {\"name\":\"h2d_pinned\",\"value\":55.5,\"unit\":\"GB/s\",\"ok\":true,"
          "\"detail\":\"x\",\"series\":[[4096,3.5],[1073741824,55.5]]}\n"
          "not a line gpuvet wrote {\n@result {broken json\n"
          "@stage done\n"),
      Mode::full);
  EXPECT_FALSE(full.failure.has_value());
  ASSERT_TRUE(full.device.has_value());
  EXPECT_EQ(full.device->compute_capability, "9.0");
  const Result* h2d = find(full, "h2d_pinned");
  ASSERT_NE(h2d, nullptr);
  EXPECT_TRUE(h2d->ok);
  ASSERT_EQ(h2d->series.size(), 2u);
  for (const auto& name : contract_names(Mode::full))
    EXPECT_NE(find(full, name), nullptr) << name;
  EXPECT_FALSE(find(full, "gemm_bf16")->ok);
  EXPECT_EQ(find(full, "gemm_bf16")->unit, "TFLOP/s");
}

TEST(BenchParent, ACrashOrAHangNamesTheStage) {
  platform::ChildOutcome crashed = exited("@stage dlopen libcuda.so.1\n@stage cuInit\n");
  crashed.kind = platform::ChildOutcome::Kind::signalled;
  crashed.detail = "SIGSEGV";
  const Report r = parse_child_output(crashed, Mode::verify);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure_id, "device.busy_or_init_failed");
  EXPECT_NE(r.failure->find("crashed (SIGSEGV) during: cuInit"), std::string::npos) << *r.failure;
  EXPECT_FALSE(verify_passed(r));
  platform::ChildOutcome hung = exited("@stage cuLaunchKernel gpuvet_fill\n");
  hung.kind = platform::ChildOutcome::Kind::timed_out;
  EXPECT_NE(parse_child_output(hung, Mode::verify).failure->find("did not finish in time"),
            std::string::npos);
  const Report told = parse_child_output(
      exited("@failure {\"id\":\"driver.missing\",\"why\":\"no driver\"}\n"), Mode::verify);
  EXPECT_EQ(told.failure_id, "driver.missing");
  EXPECT_EQ(find(told, "kernel_launch")->detail, "did not run: no driver");
}

// The child speaks keys and English; the parent re-words what it read in the run's language,
// contexts included (a not-run result around the failure, a peak's source around a detail).
TEST(BenchParent, PutsTheChildsWordsInTheRunsLanguage) {
  const std::string child_output =
      "@stage dlopen libcuda.so.1\n"
      "@failure {\"id\":\"driver.missing\",\"why\":\"no NVIDIA driver: libcuda.so.1 cannot be "
      "loaded (libcuda.so.1: cannot open shared object file)\",\"words\":{\"key\":"
      "\"bench.failure.no_driver\",\"args\":{\"library\":\"libcuda.so.1\",\"reason\":"
      "\"libcuda.so.1: cannot open shared object file\"},\"context\":[]}}\n";
  Report english = parse_child_output(exited(child_output), Mode::verify);
  put_in_words(english, testing::messages(kb::Lang::en));
  EXPECT_EQ(*english.failure,
            "no NVIDIA driver: libcuda.so.1 cannot be loaded (libcuda.so.1: cannot open shared "
            "object file)");
  EXPECT_EQ(find(english, "gemm_fp32")->detail, "did not run: " + *english.failure);
  Report chinese = parse_child_output(exited(child_output), Mode::verify);
  put_in_words(chinese, testing::messages(kb::Lang::zh));
  EXPECT_EQ(*chinese.failure,
            "没有 NVIDIA 驱动：无法加载 libcuda.so.1（“libcuda.so.1: cannot open shared object "
            "file”）");
  EXPECT_EQ(find(chinese, "gemm_fp32")->detail, "未运行：" + *chinese.failure);

  Report measured = parse_child_output(
      exited("@device {\"index\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"compute_capability\":"
             "\"9.0\",\"driver\":\"550.54.15\",\"pcie_generation\":5,\"pcie_width\":16}\n"
             "@result {\"name\":\"d2d_copy\",\"value\":2500,\"unit\":\"GB/s\",\"ok\":true,"
             "\"detail\":\"x\",\"detail_words\":{\"key\":\"bench.detail.data_verified\","
             "\"args\":{},\"context\":[{\"key\":\"bench.detail.copy.d2d_copy\",\"args\":{}}]}}\n"
             "@stage done\n"),
      Mode::verify);
  attach_peaks(measured, testing::embedded_kb());
  Report in_chinese = measured;
  put_in_words(measured, testing::messages(kb::Lang::en));
  put_in_words(in_chinese, testing::messages(kb::Lang::zh));
  EXPECT_EQ(find(measured, "d2d_copy")->detail,
            "device to device, counting the bytes read and written; data verified; peak from "
            "data/gpu_peaks.csv (NVIDIA H100 SXM)")
      << find(measured, "d2d_copy")->detail;
  EXPECT_EQ(find(in_chinese, "d2d_copy")
                ->detail.rfind("设备到设备，读写字节都计入；数据已校验；峰值取自", 0),
            0u)
      << find(in_chinese, "d2d_copy")->detail;
  // A child that printed words the catalog cannot use keeps its English.
  Report odd = parse_child_output(
      exited("@failure {\"id\":\"gpu.none\",\"why\":\"no GPU\",\"words\":{\"key\":7}}\n"),
      Mode::verify);
  put_in_words(odd, testing::messages(kb::Lang::zh));
  EXPECT_EQ(*odd.failure, "no GPU");
}

Report with_device(const std::string& name, std::optional<int> pcie_gen = std::nullopt) {
  Report r;
  DeviceInfo d;
  d.name = name;
  d.pcie_generation = pcie_gen;
  d.pcie_width = pcie_gen ? std::optional<int>(16) : std::nullopt;
  d.memory_clock_mhz = 1000;
  d.memory_bus_width = 256;
  r.device = d;
  for (const char* n : {"h2d_pinned", "d2d_copy", "gemm_fp32", "gemm_bf16", "kernel_launch"}) {
    Result x;
    x.name = n;
    x.value = 10.0;
    x.ok = true;
    r.results.push_back(x);
  }
  return r;
}

TEST(BenchPeaks, FromTheKnowledgeBaseOrTheClocks) {
  const auto& kb = testing::embedded_kb();
  Report sxm = with_device("NVIDIA H100 80GB HBM3", 5);
  attach_peaks(sxm, kb);
  EXPECT_NEAR(*find(sxm, "h2d_pinned")->peak, 16 * 3.938, 0.01);
  EXPECT_EQ(find(sxm, "d2d_copy")->peak, 3350.0);  // an H100 without "PCIe" is the SXM board
  EXPECT_EQ(find(sxm, "gemm_bf16")->peak, 989.5);
  EXPECT_NEAR(*find(sxm, "gemm_bf16")->fraction_of_peak, 10.0 / 989.5, 1e-9);
  EXPECT_FALSE(find(sxm, "kernel_launch")->peak.has_value());

  Report pcie = with_device("NVIDIA H100 PCIe");
  attach_peaks(pcie, kb);
  EXPECT_EQ(find(pcie, "d2d_copy")->peak, 2000.0);
  EXPECT_FALSE(find(pcie, "h2d_pinned")->peak.has_value());  // no link reported

  Report h200 = with_device("NVIDIA H200");
  attach_peaks(h200, kb);
  EXPECT_EQ(find(h200, "d2d_copy")->peak, 4800.0);

  // A GPU the table does not have: the memory bandwidth from its clocks, no GEMM peak.
  Report other = with_device("NVIDIA GeForce RTX 3060");
  attach_peaks(other, kb);
  EXPECT_NEAR(*find(other, "d2d_copy")->peak, 64.0, 1e-9);
  EXPECT_FALSE(find(other, "gemm_fp32")->peak.has_value());
}

// The first error finding of check on this machine, in the order check says to fix them.
std::string first_check_error() {
  const auto check = nlohmann::json::parse(gpuvet("check --json").out);
  for (const auto& f : check["findings"]) {
    if (f["severity"] == "error") return f["id"];
  }
  return "";
}

// This machine: a CUDA toolkit, no driver, no GPU. verify names check's cause (gpu.none in a
// container without a GPU, driver.missing on a GPU machine without a driver) with its fix, keeps
// its own words as the detail, and marks every test "not run", not failed.
TEST(BenchLive, NothingToRunOnIsChecksFirstCause) {
  const Outcome run = gpuvet("verify --json");
  EXPECT_EQ(run.status, 1) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["schema"], "gpuvet.bench/1");
  const std::string id = doc["failure"]["id"];
  EXPECT_TRUE(id == "gpu.none" || id == "driver.missing") << id;
  EXPECT_EQ(id, first_check_error());
  EXPECT_FALSE(doc["failure"]["fix"].empty());
  EXPECT_EQ(doc["results"].size(), contract_names(Mode::verify).size());
  for (const auto& r : doc["results"])
    EXPECT_EQ(r["status"], "not_run") << r;
  const Outcome text = gpuvet("verify --no-color");
  EXPECT_EQ(text.out.find("✖ kernel_launch"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("not run"), std::string::npos);
  EXPECT_NE(text.out.find("fix: "), std::string::npos);
}

TEST(BenchLive, BenchHtmlSaysWhyThereAreNoFigures) {
  testing::TempDir dir;
  const std::string page = dir.path() + "/bench.html";
  const Outcome run = gpuvet("bench --quick --no-color --html " + page);
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.out.find(page), std::string::npos) << run.out;
  const std::string html = paths::read_file(page, 1 << 20).value();
  EXPECT_NE(html.find("The benchmark did not run"), std::string::npos);
  EXPECT_NE(html.find("<li>"), std::string::npos);  // the fix
  EXPECT_NE(html.find("not run"), std::string::npos);
}

TEST(BenchLive, TheToolkitsStubLibcudaIsNoDriver) {
  const std::string stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::filesystem::exists(stub)) GTEST_SKIP() << "no CUDA toolkit stub here";
  testing::TempDir dir;
  std::filesystem::create_symlink(stub, dir.path() + "/libcuda.so.1");
  const Outcome run = gpuvet("verify --json", "LD_LIBRARY_PATH=" + dir.path());
  EXPECT_EQ(run.status, 1);
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["failure"]["id"], first_check_error());
  EXPECT_NE(doc["failure"].dump().find("stub"), std::string::npos) << doc["failure"];
  const Outcome bench = gpuvet("bench --json", "LD_LIBRARY_PATH=" + dir.path());
  EXPECT_EQ(bench.status, 1);
  EXPECT_EQ(nlohmann::json::parse(bench.out)["results"].size(), contract_names(Mode::full).size());
}

// The fake driver (host memory, CPU "kernels"): the child's plumbing end to end.
TEST(BenchFakeDriver, VerifyPassesAndEveryDataCheckRuns) {
  const Outcome run = gpuvet("verify --json", fake("working"));
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["device"]["name"], "Fake GPU 3060");
  for (const auto& r : doc["results"]) {
    const std::string name = r["name"];
    if (name == "gemm_fp32") continue;  // depends on a cuBLAS; a fake driver cannot run it
    EXPECT_TRUE(r["ok"].get<bool>()) << name << ": " << r["detail"];
  }
  const Outcome bench = gpuvet("bench --quick --json", fake("working"));
  EXPECT_EQ(bench.status, 0) << bench.err;
  const auto full = nlohmann::json::parse(bench.out);
  for (const auto& name : contract_names(Mode::full)) {
    EXPECT_TRUE(std::any_of(full["results"].begin(), full["results"].end(), [&](const auto& r) {
      return r["name"] == name;
    })) << name;
  }
  for (const auto& r : full["results"]) {
    if (r["name"] == "h2d_pageable") {
      EXPECT_GE(r["series"].size(), 5u);
    }
    if (r["name"] == "stream_triad") {
      EXPECT_TRUE(r["ok"].get<bool>()) << r["detail"];
    }
  }
}

TEST(BenchFakeDriver, ACrashingOrHangingDriverIsAFailureNamingTheStage) {
  const Outcome crash = gpuvet("verify --json", fake("crash"));
  EXPECT_EQ(crash.status, 1);
  const auto c = nlohmann::json::parse(crash.out);
  EXPECT_NE(c["failure"]["why"].get<std::string>().find("cuInit"), std::string::npos) << crash.out;
  const Outcome hang = gpuvet("verify --json", fake("hang") + " GPUVET_BENCH_TIMEOUT_MS=1500");
  EXPECT_EQ(hang.status, 1);
  EXPECT_NE(nlohmann::json::parse(hang.out)["failure"]["why"].get<std::string>().find("in time"),
            std::string::npos);
}

TEST(BenchFakeDriver, CheckVerifyAddsNoFindingWhenTheGpuComputes) {
  const Outcome run = gpuvet("check --verify --json", fake("working"));
  const auto doc = nlohmann::json::parse(run.out);
  for (const auto& f : doc["findings"]) {
    EXPECT_NE(f["title"], "The GPU did not pass gpuvet verify") << f.dump();
  }
  const Outcome crash = gpuvet("check --verify --json", fake("crash"));
  const auto crashed = nlohmann::json::parse(crash.out);
  EXPECT_TRUE(std::any_of(crashed["findings"].begin(), crashed["findings"].end(),
                          [](const auto& f) { return f["id"] == "device.busy_or_init_failed"; }))
      << crash.out;
}

TEST(BenchFakeDriver, HtmlPageIsWritten) {
  testing::TempDir dir;
  const Outcome run = gpuvet("bench --quick --html " + dir.path() + "/b.html", fake("working"));
  EXPECT_EQ(run.status, 0) << run.err;
  const auto page = paths::read_file(dir.path() + "/b.html", 1 << 22);
  ASSERT_TRUE(page.ok());
  EXPECT_NE(page->find("<svg"), std::string::npos);
  EXPECT_NE(page->find("Fake GPU 3060"), std::string::npos);
}

// Every word a real run prints, the child's details and the page included, in Chinese.
TEST(BenchFakeDriver, InChineseTheRunAndThePageAreChinese) {
  testing::TempDir dir;
  const std::string page = dir.path() + "/b.html";
  for (const std::string& args :
       {"--lang zh --no-color bench --quick --html " + page, std::string("--lang zh verify")}) {
    const Outcome run = gpuvet(args, fake("working"));
    EXPECT_EQ(run.status, 0) << run.err;
    const auto english = testing::untranslated_sentences(run.out + run.err);
    EXPECT_TRUE(english.empty()) << args << ":\n" << english.front();
    EXPECT_NE(run.out.find("数据已校验"), std::string::npos) << run.out;
  }
  const std::string html = paths::read_file(page, 1 << 22).value();
  EXPECT_NE(html.find("<html lang=\"zh-CN\">"), std::string::npos);
  const auto english = testing::untranslated_sentences(testing::visible_text_of_html(html));
  EXPECT_TRUE(english.empty()) << english.front();
  for (const char* failing : {"crash", "hang"}) {
    const Outcome run =
        gpuvet("--lang zh --no-color verify", fake(failing) + " GPUVET_BENCH_TIMEOUT_MS=1500");
    EXPECT_EQ(run.status, 1);
    const auto words = testing::untranslated_sentences(run.out);
    EXPECT_TRUE(words.empty()) << failing << ":\n" << run.out;
  }
}

}  // namespace
}  // namespace gpuvet::bench
