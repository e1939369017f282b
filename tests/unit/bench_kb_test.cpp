// The tables `gpuvet bench` divides by: gpu_peaks (theoretical peaks of GPUs) and pcie_links
// (PCI Express lane rates). Every row is sourced, every known number is a positive number, every
// GPU is one of gpus.csv, and the numbers are ordered as the hardware orders them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "kb/queries.hpp"
#include "test_support.hpp"

namespace gpuvet::kb {
namespace {

const Table& table(const std::string& name) {
  return testing::kb_table(name);
}

// A plain decimal number ("4800", "989.5"); nullopt for anything else (empty, "inf", "1e3", " 5").
std::optional<double> number(const std::string& cell) {
  if (cell.empty() || cell.find_first_not_of("0123456789.") != std::string::npos)
    return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

const std::vector<std::string> kPeakColumns = {"memory_bandwidth_gbs", "fp32_tflops", "tf32_tflops",
                                               "fp16_tflops", "bf16_tflops"};

// A gpu_peaks name is a gpus.csv name, optionally followed by a form factor and a memory size:
// "NVIDIA A100 SXM4 40GB" -> "NVIDIA A100", "NVIDIA H100 PCIe" -> "NVIDIA H100".
std::string gpus_csv_name(const std::string& peaks_name) {
  static const std::set<std::string> form_factors = {"SXM", "SXM2", "SXM4", "SXM5", "PCIe", "NVL"};
  std::vector<std::string> words = text::split(peaks_name, ' ');
  auto is_memory_size = [](const std::string& w) {
    return w.size() > 2 && w.ends_with("GB") && text::is_digits(w.substr(0, w.size() - 2));
  };
  if (!words.empty() && is_memory_size(words.back())) words.pop_back();
  if (!words.empty() && form_factors.contains(words.back())) words.pop_back();
  return text::join(words, " ");
}

TEST(BenchKb, SuffixesOfPeakNamesAreStripped) {
  EXPECT_EQ(gpus_csv_name("NVIDIA A100 SXM4 40GB"), "NVIDIA A100");
  EXPECT_EQ(gpus_csv_name("NVIDIA H100 PCIe"), "NVIDIA H100");
  EXPECT_EQ(gpus_csv_name("NVIDIA H200 SXM"), "NVIDIA H200");
  EXPECT_EQ(gpus_csv_name("GeForce RTX 4090"), "GeForce RTX 4090");
}

TEST(BenchKb, GpuPeaksHaveTheirColumnsAndSources) {
  const Table& t = table("gpu_peaks");
  ASSERT_GT(t.size(), 0u);
  for (const char* column : {"name", "memory_bandwidth_gbs", "fp32_tflops", "tf32_tflops",
                             "fp16_tflops", "bf16_tflops", "interconnect", "notes", "source"}) {
    EXPECT_TRUE(t.has_column(column)) << column;
  }
  std::set<std::string> names;
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string where = t.name() + ":" + std::to_string(t.line_of(row));
    EXPECT_FALSE(text::trim(t.cell(row, "source")).empty()) << where << ": no source";
    EXPECT_FALSE(text::trim(t.cell(row, "name")).empty()) << where << ": no name";
    EXPECT_TRUE(names.insert(t.cell(row, "name")).second) << where << " repeats a name";
    bool any = false;
    for (const auto& column : kPeakColumns) {
      const std::string& cell = t.cell(row, column);
      if (cell.empty()) continue;  // unknown: the notes say why
      const auto value = number(cell);
      ASSERT_TRUE(value.has_value()) << where << " " << column << " = \"" << cell << "\"";
      EXPECT_GT(*value, 0.0) << where << " " << column;
      any = true;
    }
    EXPECT_TRUE(any) << where << ": a row with no known peak";
    // An empty peak is explained in the notes.
    bool all_known = true;
    for (const auto& column : kPeakColumns)
      all_known = all_known && !t.cell(row, column).empty();
    if (!all_known) {
      EXPECT_FALSE(text::trim(t.cell(row, "notes")).empty()) << where << ": empty peak, no notes";
    }
  }
}

TEST(BenchKb, GpuPeakNamesAreGpusOfTheGpuTable) {
  const Kb& kb = testing::embedded_kb();
  const Table& t = table("gpu_peaks");
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string& name = t.cell(row, "name");
    const std::string base = gpus_csv_name(name);
    auto match = find_gpu(kb, base);
    ASSERT_TRUE(match.ok()) << name;
    ASSERT_EQ(match->rows.size(), 1u)
        << t.name() << ":" << t.line_of(row) << " " << name << " -> " << base;
    // Spelled exactly as gpus.csv spells it, not merely found by the loose match.
    EXPECT_EQ(match->rows[0].get("name"), base) << t.name() << ":" << t.line_of(row);
  }
}

TEST(BenchKb, TensorPeaksAreOrderedSanely) {
  const Table& t = table("gpu_peaks");
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string where = t.name() + ":" + std::to_string(t.line_of(row));
    const auto fp32 = number(t.cell(row, "fp32_tflops"));
    const auto tf32 = number(t.cell(row, "tf32_tflops"));
    const auto fp16 = number(t.cell(row, "fp16_tflops"));
    const auto bf16 = number(t.cell(row, "bf16_tflops"));
    // Half-precision tensor cores do at least as much as TF32 ones, and tensor cores at least as
    // much as the plain FP32 units; a dense figure never falls below these.
    if (fp16 && tf32) {
      EXPECT_GE(*fp16, *tf32) << where;
    }
    if (bf16 && tf32) {
      EXPECT_GE(*bf16, *tf32) << where;
    }
    if (tf32 && fp32) {
      EXPECT_GE(*tf32, *fp32) << where;
    }
    if (fp16 && fp32) {
      EXPECT_GE(*fp16, *fp32) << where;
    }
  }
}

// "8b/10b" -> 0.8, "128b/130b" -> 0.9846..., "1b/1b" -> 1.
std::optional<double> encoding_efficiency(const std::string& encoding) {
  const auto parts = text::split(encoding, '/');
  if (parts.size() != 2) return std::nullopt;
  auto bits = [](const std::string& p) -> std::optional<double> {
    if (!p.ends_with("b")) return std::nullopt;
    return number(p.substr(0, p.size() - 1));
  };
  const auto payload = bits(parts[0]);
  const auto line = bits(parts[1]);
  if (!payload || !line || *line <= 0) return std::nullopt;
  return *payload / *line;
}

TEST(BenchKb, PcieLaneRatesFollowTheirEncodingAndGrowWithGeneration) {
  const Table& t = table("pcie_links");
  ASSERT_GT(t.size(), 0u);
  for (const char* column :
       {"generation", "transfer_rate_gts", "encoding", "lane_gbs", "notes", "source"}) {
    EXPECT_TRUE(t.has_column(column)) << column;
  }
  double previous_generation = 0;
  double previous_rate = 0;
  double previous_lane = 0;
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string where = t.name() + ":" + std::to_string(t.line_of(row));
    EXPECT_FALSE(text::trim(t.cell(row, "source")).empty()) << where << ": no source";
    const auto generation = number(t.cell(row, "generation"));
    const auto rate = number(t.cell(row, "transfer_rate_gts"));
    const auto lane = number(t.cell(row, "lane_gbs"));
    const auto efficiency = encoding_efficiency(t.cell(row, "encoding"));
    ASSERT_TRUE(generation && rate && lane && efficiency) << where;
    EXPECT_GT(*generation, previous_generation) << where;
    EXPECT_GT(*rate, previous_rate) << where;
    EXPECT_GT(*lane, previous_lane) << where << ": lane_gbs must grow with the generation";
    EXPECT_LE(*efficiency, 1.0) << where;
    // GB/s per lane = GT/s x encoding efficiency / 8 bits, to the table's three decimals.
    EXPECT_NEAR(*lane, *rate * *efficiency / 8.0, 0.001) << where;
    previous_generation = *generation;
    previous_rate = *rate;
    previous_lane = *lane;
  }
}

// NVIDIA's Ampere blog: PCIe Gen 4 gives "31.5 GB/sec vs. 15.75 GB/sec for x16 connections" of
// PCIe 3.0; sixteen lanes of the table come to the same.
TEST(BenchKb, X16LinksMatchNvidiasFigures) {
  const Table& t = table("pcie_links");
  auto lane = [&](const std::string& generation) -> std::optional<double> {
    for (size_t row = 0; row < t.size(); ++row)
      if (t.cell(row, "generation") == generation) return number(t.cell(row, "lane_gbs"));
    return std::nullopt;
  };
  const auto gen3 = lane("3");
  const auto gen4 = lane("4");
  ASSERT_TRUE(gen3 && gen4);
  EXPECT_NEAR(16 * *gen3, 15.75, 0.02);
  EXPECT_NEAR(16 * *gen4, 31.5, 0.02);
}

}  // namespace
}  // namespace gpuvet::kb
