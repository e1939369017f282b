// bench --html: the page is self-contained, escapes what the report says, survives empty and odd
// reports without NaN geometry, and opens in a headless Chromium without a console error.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "browser_support.hpp"
#include "core/text.hpp"
#include "report/render_bench_html.hpp"
#include "test_support.hpp"
#include "untranslated.hpp"

namespace gpuvet::report {
namespace {

using bench::Point;
using bench::Report;
using bench::Result;
using gpuvet::testing::BrowserRun;
using gpuvet::testing::console_messages;
using gpuvet::testing::find_chromium;
using gpuvet::testing::open_in_browser;
using gpuvet::testing::run_command;
using gpuvet::testing::TempDir;

// Bandwidth of a copy with a fixed start-up cost: size / (latency + size / asymptote), in GB/s.
std::vector<Point> sweep(double latency_us, double asymptote_gbs) {
  std::vector<Point> points;
  for (int e = 12; e <= 30; ++e) {
    const double bytes = std::ldexp(1.0, e);
    const double seconds = latency_us * 1e-6 + bytes / (asymptote_gbs * 1e9);
    points.push_back({bytes, bytes / seconds / 1e9});
  }
  return points;
}

Result bandwidth(const std::string& name, double latency_us, double asymptote,
                 std::optional<double> peak) {
  Result r;
  r.name = name;
  r.series = sweep(latency_us, asymptote);
  r.value = r.series.back().y;
  r.unit = "GB/s";
  r.peak = peak;
  if (peak) r.fraction_of_peak = *r.value / *peak;
  r.ok = true;
  return r;
}

Result scalar(const std::string& name, double value, const std::string& unit,
              std::optional<double> peak = std::nullopt) {
  Result r;
  r.name = name;
  r.value = value;
  r.unit = unit;
  r.peak = peak;
  if (peak) r.fraction_of_peak = value / *peak;
  r.ok = true;
  return r;
}

// What an H200 SXM reports: PCIe Gen5 x16 transfers, HBM3e copies, four GEMM precisions, and
// cuDNN missing.
Report h200_report() {
  Report report;
  bench::DeviceInfo d;
  d.index = 0;
  d.name = "NVIDIA H200";
  d.compute_capability = "9.0";
  d.driver = "580.159.04";
  d.cuda_driver_version = "13.0";
  d.multiprocessors = 132;
  d.clock_mhz = 1980;
  d.memory_clock_mhz = 3201;
  d.memory_bus_width = 6144;
  d.memory_bytes = 150754820096LL;
  d.l2_cache_bytes = 62914560;
  d.pcie_generation = 5;
  d.pcie_width = 16;
  d.ecc = true;
  d.compute_mode = "Default";
  report.device = d;
  report.results = {
      scalar("kernel_launch", 0.0023, "ms"),
      bandwidth("h2d_pinned", 2.5, 55.2, 63.0),
      bandwidth("d2h_pinned", 2.7, 53.8, 63.0),
      bandwidth("h2d_pageable", 6.0, 24.1, std::nullopt),
      bandwidth("d2h_pageable", 7.0, 20.5, std::nullopt),
      bandwidth("d2d_copy", 4.0, 4100, 4800),
      scalar("gemm_fp32", 51.2, "TFLOP/s", 67.0),
      scalar("gemm_tf32", 378.4, "TFLOP/s", 494.7),
      scalar("gemm_fp16", 756.1, "TFLOP/s", 989.4),
      scalar("gemm_bf16", 761.9, "TFLOP/s", 989.4),
      scalar("cpu_vs_gpu_gemm_speedup", 212, "x"),
  };
  Result conv;
  conv.name = "cudnn_conv_fwd";
  conv.unit = "TFLOP/s";
  conv.ok = false;
  conv.detail = "cuDNN not found: libcudnn.so.9 could not be loaded";
  report.results.push_back(conv);
  return report;
}

// Everything the renderer must not trip over: no values, one point, zero and missing peaks,
// NaN and infinite numbers, sizes of zero, a GEMM that did not run.
Report odd_report() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Report report;
  report.device = bench::DeviceInfo{};  // nothing known
  Result single = scalar("h2d_pinned", 12.5, "GB/s", 0.0);
  single.series = {{65536, 12.5}};
  Result odd_points = scalar("d2h_pinned", nan, "GB/s", nan);
  odd_points.series = {{0, 3}, {-4096, 2}, {nan, 1}, {4096, nan}, {8192, inf}, {16384, 0}};
  Result zeros = scalar("d2d_copy", 0, "GB/s");
  zeros.series = {{4096, 0}, {8192, 0}};
  Result no_value;
  no_value.name = "gemm_fp64";
  no_value.unit = "TFLOP/s";
  no_value.peak = 0.0;
  no_value.ok = false;
  no_value.detail = "not supported";
  Result infinite = scalar("gemm_fp16", inf, "TFLOP/s", inf);
  Result negative = scalar("gemm_bf16", -3, "TFLOP/s", std::nullopt);
  Result huge = scalar("gemm_int8", 1e300, "TOP/s", 1e-300);
  Result unnamed;
  report.results = {single, odd_points, zeros, no_value, infinite, negative, huge, unnamed};
  return report;
}

// Every src= and href= value in the page, and whether any is not a fragment.
std::vector<std::string> external_references(const std::string& page) {
  std::vector<std::string> found;
  for (const std::string attribute : {"src=", "href="}) {
    for (size_t pos = page.find(attribute); pos != std::string::npos;
         pos = page.find(attribute, pos + 1)) {
      const size_t start = pos + attribute.size();
      const size_t end = page.find_first_of(" >", start);
      const std::string value = page.substr(start, end - start);
      if (value.size() < 2 || value[1] != '#') found.push_back(value);
    }
  }
  return found;
}

// The geometry attributes of the SVG must all be plain numbers (no nan, no inf).
std::vector<std::string> bad_geometry(const std::string& page) {
  std::vector<std::string> bad;
  for (const std::string attribute :
       {" x=", " y=", " x1=", " y1=", " x2=", " y2=", " cx=", " cy=", " r=", " width=", " height=",
        " points=", " viewBox=", " transform="}) {
    for (size_t pos = page.find(attribute); pos != std::string::npos;
         pos = page.find(attribute, pos + 1)) {
      const size_t start = pos + attribute.size() + 1;  // past the quote
      const size_t end = page.find('"', start);
      std::string value = page.substr(start, end - start);
      if (value.rfind("rotate(", 0) == 0) value = value.substr(7, value.size() - 8);
      for (const auto& part : text::split(value, ' ')) {
        for (const auto& number : text::split(part, ',')) {
          char* stop = nullptr;
          const double v = std::strtod(number.c_str(), &stop);
          if (number.empty() || *stop != '\0' || !std::isfinite(v) || std::fabs(v) > 1e5)
            bad.push_back(attribute + value);
        }
      }
    }
  }
  return bad;
}

size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + needle.size()))
    ++n;
  return n;
}

TEST(BenchHtmlEscape, ReplacesTheFiveSpecialCharacters) {
  EXPECT_EQ(html_escape(""), "");
  EXPECT_EQ(html_escape("NVIDIA H200"), "NVIDIA H200");
  EXPECT_EQ(html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(html_escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(html_escape("&amp;"), "&amp;amp;");  // escapes once more, never decodes
  EXPECT_EQ(html_escape("Grafikkarte – größer ✔"), "Grafikkarte – größer ✔");
  EXPECT_EQ(html_escape(std::string_view("a\0b", 3)), std::string("a\0b", 3));
}

TEST(BenchHtmlPage, RealisticReportIsOneSelfContainedPage) {
  const Report report = h200_report();
  const std::string page = render_bench_html(report, "gpuvet bench: H200", testing::messages());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(page, "</html>"), 1u);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  EXPECT_EQ(page.find("@font-face"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_TRUE(external_references(page).empty()) << "first: " << external_references(page).front();
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);

  EXPECT_EQ(count(page, "<svg"), 2u) << "the bandwidth chart and the GEMM chart";
  EXPECT_NE(page.find("<title>gpuvet bench: H200</title>"), std::string::npos);
  EXPECT_NE(page.find("<td>NVIDIA H200</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>580.159.04</td>"), std::string::npos);
  EXPECT_NE(page.find("140.4 GiB"), std::string::npos);
  EXPECT_NE(page.find("<td>x16</td>"), std::string::npos);
  EXPECT_NE(page.find("<th scope=\"row\">Driver model</th><td><span class=\"unknown\">unknown"),
            std::string::npos);
  for (const auto& r : report.results)
    EXPECT_NE(page.find(">" + r.name + "<"), std::string::npos) << r.name;

  // The log2 size axis from 4 KiB to 1 GiB, one polyline per sweep, the dashed peaks.
  for (const char* tick : {">4 KiB<", ">16 KiB<", ">1 MiB<", ">64 MiB<", ">1 GiB<"})
    EXPECT_NE(page.find(tick), std::string::npos) << tick;
  EXPECT_EQ(count(page, "<polyline"), 5u);
  EXPECT_EQ(count(page, "class=\"peak\""), 3u + 1u) << "three peaks and the legend's sample";
  EXPECT_NE(page.find(">peak 63.00 GB/s<"), std::string::npos);
  EXPECT_NE(page.find(">peak 4800 GB/s<"), std::string::npos);
  EXPECT_NE(page.find("(log scale)"), std::string::npos) << "HBM copies beside PCIe transfers";

  // The GEMM bars: measured and peak, with the fraction of peak.
  EXPECT_EQ(count(page, "class=\"peak-bar\""), 4u);
  EXPECT_EQ(count(page, "class=\"value-bar\""), 4u);
  EXPECT_NE(page.find(">76.4% of peak<"), std::string::npos);  // 756.1 / 989.4
  EXPECT_NE(page.find(">756.1 of 989.4 TFLOP/s<"), std::string::npos);

  // The table keeps the result that could not run, with its reason.
  EXPECT_NE(page.find("<tr class=\"failed\"><td class=\"name\">cudnn_conv_fwd</td>"),
            std::string::npos);
  EXPECT_NE(page.find("cuDNN not found: libcudnn.so.9 could not be loaded"), std::string::npos);
  EXPECT_EQ(count(page, "✔</span>"), report.results.size() - 1);
  EXPECT_EQ(count(page, "✖</span>"), 1u);
  EXPECT_NE(page.find("<td class=\"num\">76.4%</td>"), std::string::npos);
  EXPECT_EQ(page.find("class=\"failure\""), std::string::npos);

  EXPECT_TRUE(bad_geometry(page).empty()) << "first: " << bad_geometry(page).front();
}

TEST(BenchHtmlPage, PcieOnlySweepsUseALinearAxis) {
  Report report;
  report.results = {bandwidth("h2d_pinned", 2.5, 26, 31.5), bandwidth("h2d_pageable", 6, 11, {})};
  const std::string page = render_bench_html(report, "pcie", testing::messages());
  EXPECT_EQ(page.find("(log scale)"), std::string::npos);
  EXPECT_NE(page.find(">0<"), std::string::npos) << "a linear axis starts at zero";
  EXPECT_NE(page.find("No GEMM results"), std::string::npos);
  EXPECT_TRUE(bad_geometry(page).empty()) << "first: " << bad_geometry(page).front();
}

TEST(BenchHtmlPage, EmptyReportStillMakesAPage) {
  const std::string page = render_bench_html(Report{}, "", testing::messages());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<title>gpuvet bench</title>"), std::string::npos);
  EXPECT_NE(page.find("No device information"), std::string::npos);
  EXPECT_NE(page.find("No bandwidth sweeps"), std::string::npos);
  EXPECT_NE(page.find("No GEMM results"), std::string::npos);
  EXPECT_NE(page.find("No results"), std::string::npos);
  EXPECT_NE(page.find("0 results"), std::string::npos);
  EXPECT_TRUE(bad_geometry(page).empty());
  EXPECT_TRUE(external_references(page).empty());
}

TEST(BenchHtmlPage, OddValuesGiveNoNanOrInfiniteCoordinates) {
  const Report report = odd_report();
  const std::string page = render_bench_html(report, "odd", testing::messages());
  EXPECT_TRUE(bad_geometry(page).empty()) << "first: " << bad_geometry(page).front();
  EXPECT_EQ(count(page, "<svg"), 2u);
  // The single point is drawn as a marker, the d2d zeros as a line along the axis.
  EXPECT_NE(page.find("<title>h2d_pinned: 64 KiB → 12.50 GB/s</title>"), std::string::npos);
  EXPECT_EQ(count(page, "<polyline"), 1u) << "d2d_copy; d2h_pinned keeps one point, 16 KiB";
  EXPECT_NE(page.find("<title>d2h_pinned: 16 KiB → 0.00 GB/s</title>"), std::string::npos);
  EXPECT_EQ(page.find("class=\"peak\""), std::string::npos) << "no usable peak";
  EXPECT_NE(page.find(">did not run<"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">1e+300 TOP/s</td>"), std::string::npos);
  EXPECT_EQ(page.find("inf%"), std::string::npos) << "1e300 / 1e-300 is no fraction of peak";
  EXPECT_EQ(page.find("nan"), std::string::npos);
  EXPECT_NE(page.find("not supported"), std::string::npos);
  // Every device field shows as unknown, the index (always set) aside.
  EXPECT_EQ(count(page, "<span class=\"unknown\">unknown</span>"), 15u);
}

TEST(BenchHtmlPage, ExtremeRangesKeepFewTicksAndFiniteGeometry) {
  Report report;
  Result wide = scalar("h2d_pinned", 1, "GB/s", 1e308);
  wide.series = {{1e-300, 1e-300}, {4096, 1}, {1e300, 1e300}};
  Result flat = scalar("d2h_pinned", 1, "GB/s");
  flat.series = {{4096, 1}, {8192, 1}};
  report.results = {wide, flat};
  const std::string page = render_bench_html(report, "extreme", testing::messages());
  EXPECT_TRUE(bad_geometry(page).empty()) << "first: " << bad_geometry(page).front();
  EXPECT_NE(page.find("(log scale)"), std::string::npos);
  EXPECT_LE(count(page, "text-anchor=\"end\">"), 12u) << "y tick labels and the peak label";
  EXPECT_LE(count(page, "text-anchor=\"middle\">"), 14u) << "x tick labels and two titles";
  EXPECT_EQ(page.find(">inf<"), std::string::npos);
}

TEST(BenchHtmlPage, EscapesEverythingTheReportSays) {
  Report report;
  bench::DeviceInfo d;
  d.name = "GPU <script>&\"x'";
  d.driver = "<b>550</b>";
  d.compute_mode = "<i>Default</i>";
  report.device = d;
  Result r = scalar("gemm_<fp8>", 1, "TFLOP/s&co", 2.0);
  r.detail = "<img src=x onerror=alert(1)>";
  r.series = {{4096, 1}, {8192, 2}};
  report.results = {r};
  report.failure_id = "bench.<id>";
  report.failure = "driver said \"<no>\" & gave up";
  const std::string page = render_bench_html(report, "<title> & 'quotes'", testing::messages());

  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_EQ(page.find("<i>"), std::string::npos);
  EXPECT_EQ(page.find("<fp8>"), std::string::npos);
  EXPECT_EQ(page.find("<no>"), std::string::npos);
  EXPECT_EQ(page.find("<id>"), std::string::npos);
  EXPECT_NE(page.find("<td>GPU &lt;script&gt;&amp;&quot;x&#39;</td>"), std::string::npos);
  EXPECT_NE(page.find("<title>&lt;title&gt; &amp; &#39;quotes&#39;</title>"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(page.find("gemm_&lt;fp8&gt;"), std::string::npos);
  EXPECT_NE(page.find("TFLOP/s&amp;co"), std::string::npos);
  EXPECT_NE(page.find("driver said &quot;&lt;no&gt;&quot; &amp; gave up"), std::string::npos);
  EXPECT_NE(page.find("<code>bench.&lt;id&gt;</code>"), std::string::npos);
}

TEST(BenchHtmlPage, FailureComesFirstWithItsId) {
  Report report;
  report.failure_id = "gpu.no_driver";
  report.failure = "No NVIDIA driver is loaded (libcuda.so.1 not found).";
  const std::string page = render_bench_html(report, "no gpu", testing::messages());
  const size_t failure = page.find("<section class=\"failure\" role=\"alert\">");
  ASSERT_NE(failure, std::string::npos);
  EXPECT_LT(failure, page.find("<main>"));
  EXPECT_NE(page.find("No NVIDIA driver is loaded (libcuda.so.1 not found)."), std::string::npos);
  EXPECT_NE(page.find("<code>gpu.no_driver</code>"), std::string::npos);
}

TEST(BenchHtmlPage, InChineseEveryWordIsChinese) {
  Report failed;
  failed.failure_id = "gpu.none";
  failed.failure = "本机没有 NVIDIA GPU";
  failed.failure_fix = {"请在装有 NVIDIA GPU 的机器上运行"};
  Report measured = h200_report();
  // The details come from the child in the catalog's words (bench_test.cpp tests that).
  for (Result& r : measured.results)
    r.detail = "数据已校验";
  for (const Report& report : {measured, failed}) {
    const std::string page =
        render_bench_html(report, "gpuvet bench", testing::messages(kb::Lang::zh));
    EXPECT_NE(page.find("<html lang=\"zh-CN\">"), std::string::npos);
    const auto english = testing::untranslated_sentences(testing::visible_text_of_html(page));
    EXPECT_TRUE(english.empty()) << english.front();
  }
  const std::string english = render_bench_html(h200_report(), "gpuvet bench", testing::messages());
  EXPECT_NE(english.find("<html lang=\"en\">"), std::string::npos);
  EXPECT_NE(english.find("Bandwidth against transfer size"), std::string::npos);
}

// ---------------------------------------------------------------- in a real browser

class BenchHtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    browser_ = find_chromium();
    if (browser_.empty()) GTEST_SKIP() << "no chromium or chromium-browser on PATH";
  }
  std::string browser_;
  TempDir dir_;
};

TEST_F(BenchHtmlBrowser, DetectorSeesAScriptErrorAndBadSvg) {
  const std::string broken =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>broken</title></head><body>"
      "<p>broken on purpose</p><svg width=\"100\" height=\"100\"><polyline points=\"nan,1 2,3\"/>"
      "</svg><script>undefinedFunction()</script></body></html>\n";
  const BrowserRun run = open_in_browser(browser_, dir_, "broken", broken);
  ASSERT_EQ(run.status, 0) << run.log;
  const auto messages = console_messages(run.log);
  EXPECT_EQ(messages.size(), 2u) << run.log;
  EXPECT_NE(run.log.find("Uncaught ReferenceError: undefinedFunction is not defined"),
            std::string::npos)
      << run.log;
  EXPECT_NE(run.log.find("<polyline> attribute points"), std::string::npos) << run.log;
}

TEST_F(BenchHtmlBrowser, RealisticPageRendersWithoutConsoleMessages) {
  const BrowserRun run = open_in_browser(
      browser_, dir_, "bench", render_bench_html(h200_report(), "H200", testing::messages()));
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_GT(run.screenshot_bytes, 40'000u) << "a page of charts and tables, not a blank one";
  const auto messages = console_messages(run.log);
  EXPECT_TRUE(messages.empty()) << text::join(messages, "\n");
}

TEST_F(BenchHtmlBrowser, OddPageRendersWithoutConsoleMessages) {
  Report report = odd_report();
  report.failure_id = "bench.<odd>";
  report.failure = "<script>undefinedFunction()</script>";
  const BrowserRun run =
      open_in_browser(browser_, dir_, "odd", render_bench_html(report, "odd", testing::messages()));
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_GT(run.screenshot_bytes, 10'000u);
  const auto messages = console_messages(run.log);
  EXPECT_TRUE(messages.empty()) << text::join(messages, "\n");
}

}  // namespace
}  // namespace gpuvet::report
