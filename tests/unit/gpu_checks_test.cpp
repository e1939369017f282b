#include <gtest/gtest.h>

#include "checks/checks.hpp"
#include "test_support.hpp"

namespace gpuvet::checks {
namespace {

// A Linux machine whose driver answers NVML but whose cuInit answered `code`.
Facts cuinit_answered(int code) {
  Facts f;
  f.os.family = "linux";
  DriverFacts driver;
  driver.installed = true;
  driver.nvidia_module_loaded = true;
  driver.libcuda = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
  driver.cuinit_code = code;
  f.driver = driver;
  return f;
}

std::string device_init_title(int code) {
  const Facts facts = cuinit_answered(code);
  const CheckContext context(facts, testing::embedded_kb(), testing::messages(kb::Lang::en));
  const auto findings = run_checks(context);
  EXPECT_TRUE(findings) << findings.error().message;
  if (!findings) return {};
  for (const auto& f : *findings) {
    if (f.id == "device.busy_or_init_failed") return f.title;
  }
  return "(no device.busy_or_init_failed)";
}

// cuInit's answer is named from the driver API's rows of data/cuda_library_errors.csv, which hold
// every CUresult of cuda.h, not only the few cuInit is documented to return.
TEST(GpuChecks, CuinitsAnswerIsNamedFromTheDriverApisRows) {
  EXPECT_NE(device_init_title(999).find("CUDA_ERROR_UNKNOWN (999)"), std::string::npos);
  EXPECT_NE(device_init_title(214).find("CUDA_ERROR_ECC_UNCORRECTABLE (214)"), std::string::npos);
  EXPECT_NE(device_init_title(304).find("CUDA_ERROR_OPERATING_SYSTEM (304)"), std::string::npos);
  // A code newer than the table: the number, not a guess.
  EXPECT_NE(device_init_title(4242).find("CUresult 4242"), std::string::npos);
}

}  // namespace
}  // namespace gpuvet::checks
