// The native query against fake drivers built by the tests: gpuvet's child process must read a
// working driver exactly, and survive one that crashes, hangs, is a stub or prints garbage.
#include "system/native_query.hpp"
#include "gpu/library_names.hpp"
#include "system/nvidia_smi.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "test_support.hpp"

namespace gpuvet::sys {
namespace {

using namespace std::chrono_literals;

class FakeDriver : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* path = std::getenv("PATH")) saved_path_ = path;
    // No real nvidia-smi may answer for a fake driver.
    setenv("PATH", "/nonexistent", 1);
  }
  void TearDown() override {
    unsetenv("LD_LIBRARY_PATH");
    setenv("PATH", saved_path_.c_str(), 1);
  }
  // Points the child's loader at one fake driver directory.
  static NativeQuery with(const std::string& behaviour,
                          std::chrono::milliseconds timeout = 10000ms) {
    setenv("LD_LIBRARY_PATH", (std::string(GPUVET_FAKE_DRIVER_DIR) + "/" + behaviour).c_str(), 1);
    return NativeQuery(GPUVET_BINARY, timeout);
  }
  // Puts one fake nvidia-smi first on the child's PATH.
  static void smi(const std::string& behaviour) {
    setenv("PATH", (std::string(GPUVET_FAKE_SMI_DIR) + "/" + behaviour).c_str(), 1);
  }

 private:
  std::string saved_path_;
};

TEST_F(FakeDriver, AWorkingDriverIsReadExactly) {
  const NativeAnswers answers = with("working").query_driver();
  ASSERT_TRUE(answers.driver);
  EXPECT_TRUE(answers.driver->installed) << answers.driver->error.value_or("");
  EXPECT_EQ(answers.driver->version, "550.54.15");
  EXPECT_EQ(answers.driver->cuda_driver_version, "12.4");
  EXPECT_FALSE(answers.driver->error);
  ASSERT_TRUE(answers.gpus);
  ASSERT_EQ(answers.gpus->size(), 1u);
  const sys::GpuAnswer& gpu = answers.gpus->front();
  EXPECT_EQ(gpu.name, "NVIDIA GeForce RTX 3060");
  EXPECT_EQ(gpu.uuid, "GPU-00000000-1111-2222-3333-444444444444");
  EXPECT_EQ(gpu.pci_id, "10DE:2504");
  EXPECT_EQ(gpu.compute_capability, "8.6");
  EXPECT_EQ(gpu.memory_mib, 12288);
  EXPECT_EQ(gpu.compute_mode, "Default");
  EXPECT_EQ(gpu.persistence_mode, true);
  EXPECT_FALSE(gpu.ecc) << "the fake answers NVML_ERROR_NOT_SUPPORTED, as a GeForce does";
  // MIG, ECC counts and the row remapper are a data-centre GPU's: not supported, nothing said.
  EXPECT_FALSE(gpu.mig_mode);
  EXPECT_FALSE(gpu.ecc_uncorrected);
  EXPECT_FALSE(gpu.row_remap_pending);
  EXPECT_FALSE(gpu.row_remap_failure);
  const sys::LoadAnswer& cuda = answers.loads.at(gpu::cuda_driver_library());
  EXPECT_TRUE(cuda.ok);
  EXPECT_EQ(cuda.init_code, 0);
  ASSERT_TRUE(cuda.path);
  EXPECT_NE(cuda.path->find("/working/libcuda.so.1"), std::string::npos) << *cuda.path;
  EXPECT_EQ(answers.loads.at(gpu::nvml_library()).init_code, 0);
}

TEST_F(FakeDriver, ACrashInsideTheDriverBecomesAnAnswer) {
  const NativeAnswers answers = with("crash").query_driver();
  ASSERT_TRUE(answers.driver);
  EXPECT_FALSE(answers.driver->installed);
  ASSERT_TRUE(answers.driver->error);
  const std::string& error = *answers.driver->error;
  // A plain build dies of SIGSEGV; under AddressSanitizer the child reports and exits non-zero.
  EXPECT_TRUE(error.find("crashed (SIGSEGV)") != std::string::npos ||
              error.find("exited with status") != std::string::npos)
      << error;
  EXPECT_NE(error.find("during cuInit"), std::string::npos) << error;
  EXPECT_FALSE(answers.gpus);
}

TEST_F(FakeDriver, AHangIsStoppedAtTheDeadline) {
  const auto started = std::chrono::steady_clock::now();
  const NativeAnswers answers = with("hang", 3000ms).query_driver();
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(answers.driver && answers.driver->error);
  EXPECT_NE(answers.driver->error->find("hung during nvmlInit_v2"), std::string::npos)
      << *answers.driver->error;
  EXPECT_LT(took, 10s);
}

TEST_F(FakeDriver, TheStubIsRecognisedByItsCuInit) {
  const NativeAnswers answers = with("stub").query_driver();
  ASSERT_TRUE(answers.driver);
  EXPECT_FALSE(answers.driver->installed);
  EXPECT_EQ(answers.loads.at(gpu::cuda_driver_library()).init_code, 34);
  EXPECT_NE(answers.driver->error->find("stub"), std::string::npos) << *answers.driver->error;
  const sys::LoadAnswer direct =
      with("working").load(std::string(GPUVET_FAKE_DRIVER_DIR) + "/stub/libcuda.so.1");
  EXPECT_TRUE(direct.ok);
  EXPECT_EQ(direct.init_code, 34);
}

TEST_F(FakeDriver, GarbageIsNotAnAnswer) {
  const NativeAnswers answers = with("garbage").query_driver();
  ASSERT_TRUE(answers.driver && answers.driver->error);
  EXPECT_NE(answers.driver->error->find("gave no answer during cuInit"), std::string::npos)
      << *answers.driver->error;
}

TEST_F(FakeDriver, NoDriverAtAllSaysWhatWasMissing) {
  const NativeAnswers answers = with("no-such-directory").query_driver();
  ASSERT_TRUE(answers.driver && answers.driver->error);
  EXPECT_FALSE(answers.driver->installed);
  EXPECT_NE(answers.driver->error->find("libnvidia-ml.so.1"), std::string::npos);
  EXPECT_NE(answers.driver->error->find("libcuda.so.1"), std::string::npos);
  EXPECT_FALSE(answers.loads.at(gpu::cuda_driver_library()).ok);
}

TEST_F(FakeDriver, CudnnSaysItsOwnVersion) {
  const NativeQuery query = with("working");
  const std::string dir = GPUVET_FAKE_DRIVER_DIR;
  const sys::LoadAnswer nine = query.load(dir + "/cudnn9/libcudnn.so.9");
  EXPECT_TRUE(nine.ok) << nine.error.value_or("");
  EXPECT_EQ(nine.version, "9.1.0");
  EXPECT_EQ(query.load(dir + "/cudnn8/libcudnn.so.8").version, "8.9.7");
}

// One child for the whole run (--serve) answers exactly what a child per question answers.
TEST_F(FakeDriver, OneSessionAnswersWhatAChildPerQuestionAnswers) {
  const std::string dir = GPUVET_FAKE_DRIVER_DIR;
  const NativeQuery separate = with("working");
  NativeSession session(GPUVET_BINARY, 10000ms);
  const NativeAnswers together = session.query_driver();
  const NativeAnswers apart = separate.query_driver();
  EXPECT_EQ(together.driver, apart.driver);
  EXPECT_EQ(together.gpus, apart.gpus);
  EXPECT_EQ(together.loads, apart.loads);
  for (const std::string& library :
       {dir + "/cudnn9/libcudnn.so.9", dir + "/cudnn8/libcudnn.so.8", dir + "/stub/libcuda.so.1"}) {
    EXPECT_EQ(session.load(library), separate.load(library)) << library;
  }
  EXPECT_EQ(session.load(dir + "/cudnn9/libcudnn.so.9").version, "9.1.0");
  EXPECT_EQ(session.query_driver().driver, apart.driver) << "asked once, kept";
}

TEST_F(FakeDriver, ASessionThatHangsIsStoppedAndLaterLoadsStillAnswer) {
  const std::string dir = GPUVET_FAKE_DRIVER_DIR;
  with("hang");
  NativeSession session(GPUVET_BINARY, 3000ms);
  const NativeAnswers answers = session.query_driver();
  ASSERT_TRUE(answers.driver && answers.driver->error);
  EXPECT_NE(answers.driver->error->find("hung during nvmlInit_v2"), std::string::npos)
      << *answers.driver->error;
  // The hung child is gone; a load gets a child of its own.
  const sys::LoadAnswer nine = session.load(dir + "/cudnn9/libcudnn.so.9");
  EXPECT_TRUE(nine.ok) << nine.error.value_or("");
  EXPECT_EQ(nine.version, "9.1.0");
}

TEST_F(FakeDriver, ALoadThatCrashesTheSessionIsAnAnswer) {
  const std::string dir = GPUVET_FAKE_DRIVER_DIR;
  with("working");
  NativeSession session(GPUVET_BINARY, 10000ms);
  EXPECT_TRUE(session.query_driver().driver->installed);
  const sys::LoadAnswer crashed = session.load(dir + "/crash/libcuda.so.1");
  EXPECT_FALSE(crashed.ok);
  ASSERT_TRUE(crashed.error);
  EXPECT_TRUE(crashed.error->find("crashed") != std::string::npos ||
              crashed.error->find("exited with status") != std::string::npos)
      << *crashed.error;
  EXPECT_EQ(session.load(dir + "/cudnn8/libcudnn.so.8").version, "8.9.7");
}

TEST_F(FakeDriver, NvidiaSmiStandsInWhenNvmlIsMissing) {
  smi("working");
  const NativeAnswers answers = with("no-such-directory").query_driver();
  ASSERT_TRUE(answers.driver);
  EXPECT_TRUE(answers.driver->installed);
  EXPECT_EQ(answers.driver->version, "550.54.15");
  ASSERT_TRUE(answers.gpus && answers.gpus->size() == 1);
  EXPECT_EQ(answers.gpus->front().name, "NVIDIA GeForce RTX 3060");
  EXPECT_EQ(answers.gpus->front().pci_id, "10DE:2504");
  EXPECT_EQ(answers.gpus->front().compute_capability, "8.6");
  EXPECT_EQ(answers.gpus->front().memory_mib, 12288);
  EXPECT_TRUE(answers.loads.at("nvidia-smi").ok);
}

TEST_F(FakeDriver, AnOldNvidiaSmiIsAskedAgainWithoutComputeCap) {
  smi("old");
  const NativeAnswers answers = with("no-such-directory").query_driver();
  ASSERT_TRUE(answers.gpus && answers.gpus->size() == 1);
  EXPECT_EQ(answers.driver->version, "452.06");
  EXPECT_EQ(answers.gpus->front().name, "GeForce GTX 1060 6GB");
  EXPECT_FALSE(answers.gpus->front().compute_capability) << "unknown, not guessed";
}

TEST_F(FakeDriver, AHungNvidiaSmiIsStopped) {
  smi("hang");
  const auto started = std::chrono::steady_clock::now();
  const NativeAnswers answers = with("no-such-directory").query_driver();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 9s);
  ASSERT_TRUE(answers.driver && answers.driver->error);
  EXPECT_FALSE(answers.driver->installed);
  EXPECT_NE(answers.driver->error->find("hung and was stopped"), std::string::npos)
      << *answers.driver->error;
}

TEST(NvidiaSmi, ParsesItsCsvAndRefusesWhatItDoesNotKnow) {
  const auto parsed = parse_smi_csv(
      "0, NVIDIA H200, GPU-1, 0x233510DE, 570.86.15, 143771, 9.0\n"
      "1, NVIDIA H200, [N/A], [N/A], 570.86.15, [N/A], [N/A]\n");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->gpus.size(), 2u);
  EXPECT_EQ(parsed->gpus[0].pci_id, "10DE:2335");
  EXPECT_EQ(parsed->gpus[1].index, 1);
  EXPECT_FALSE(parsed->gpus[1].uuid);
  EXPECT_FALSE(parsed->gpus[1].memory_mib);
  EXPECT_FALSE(
      parse_smi_csv("NVIDIA-SMI has failed because it couldn't communicate with the "
                    "NVIDIA driver.\n"));
  EXPECT_FALSE(parse_smi_csv(""));
}

TEST(NativeQuery, AMissingHelperIsAnAnswerToo) {
  const NativeQuery query("/nonexistent/gpuvet", std::chrono::milliseconds(1000));
  const NativeAnswers answers = query.query_driver();
  ASSERT_TRUE(answers.driver && answers.driver->error);
  EXPECT_NE(answers.driver->error->find("could not start"), std::string::npos);
  EXPECT_FALSE(query.load("libcuda.so.1").ok);
}

}  // namespace
}  // namespace gpuvet::sys
