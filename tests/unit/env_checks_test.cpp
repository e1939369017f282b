#include <gtest/gtest.h>

#include "checks/checks.hpp"
#include "test_support.hpp"

namespace gpuvet::checks {
namespace {

std::vector<Finding> run(const Facts& facts, kb::Lang lang = kb::Lang::en) {
  const CheckContext context(facts, testing::embedded_kb(), testing::messages(lang));
  auto findings = run_checks(context);
  EXPECT_TRUE(findings) << findings.error().message;
  return findings ? *findings : std::vector<Finding>{};
}

Facts with_env(std::map<std::string, std::string> variables, std::string family = "linux") {
  Facts f;
  f.os.family = std::move(family);
  f.env.variables = std::move(variables);
  return f;
}

const Finding* find(const std::vector<Finding>& findings, const std::string& id) {
  for (const auto& f : findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

// ---- env.log_level_hides_errors --------------------------------------------------------------

struct LevelCase {
  const char* value;
  std::optional<Severity> expected;  // nullopt: no finding
};

class LogLevel : public ::testing::TestWithParam<LevelCase> {};

TEST_P(LogLevel, SeverityFollowsWhatTensorFlowHides) {
  const auto findings = run(with_env({{"TF_CPP_MIN_LOG_LEVEL", GetParam().value}}));
  const Finding* f = find(findings, "env.log_level_hides_errors");
  if (!GetParam().expected) {
    EXPECT_EQ(f, nullptr) << "value " << GetParam().value;
    return;
  }
  ASSERT_NE(f, nullptr) << "value " << GetParam().value;
  EXPECT_EQ(f->severity, *GetParam().expected);
  EXPECT_EQ(f->layer, Layer::framework);
}

// TensorFlow parses the level with istringstream >> int64: leading blanks and a sign are read,
// trailing text ignored, unparsable or overflowing text is 0; FATAL (3) always prints, so 4 acts
// like 3.
INSTANTIATE_TEST_SUITE_P(
    Values, LogLevel,
    ::testing::Values(LevelCase{"0", std::nullopt}, LevelCase{"", std::nullopt},
                      LevelCase{"abc", std::nullopt}, LevelCase{"-1", std::nullopt},
                      LevelCase{"1", Severity::info}, LevelCase{"2", Severity::warning},
                      LevelCase{"3", Severity::warning}, LevelCase{" 3", Severity::warning},
                      LevelCase{"2abc", Severity::warning}, LevelCase{"+2", Severity::warning},
                      LevelCase{"4", Severity::warning},
                      LevelCase{"99999999999999999999999", std::nullopt}));

TEST(LogLevel, EvidenceNamesTheHiddenLinesAndTheSource) {
  const auto findings = run(with_env({{"TF_CPP_MIN_LOG_LEVEL", "2"}}));
  const Finding* f = find(findings, "env.log_level_hides_errors");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("INFO, WARNING"), std::string::npos) << f->title;
  EXPECT_EQ(f->evidence.front(), "TF_CPP_MIN_LOG_LEVEL=2");
  bool names_dso_warning = false;
  bool names_source = false;
  for (const auto& e : f->evidence) {
    names_dso_warning |= e.find("Could not load dynamic library") != std::string::npos;
    names_source |= e.find("logging.cc") != std::string::npos;
  }
  EXPECT_TRUE(names_dso_warning);
  EXPECT_TRUE(names_source);
  ASSERT_FALSE(f->fix.empty());
  EXPECT_NE(f->fix[0].find("unset TF_CPP_MIN_LOG_LEVEL"), std::string::npos);
}

TEST(LogLevel, WindowsFixUsesWindowsShells) {
  const auto findings = run(with_env({{"TF_CPP_MIN_LOG_LEVEL", "3"}}, "windows"));
  const Finding* f = find(findings, "env.log_level_hides_errors");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix[0].find("Remove-Item Env:TF_CPP_MIN_LOG_LEVEL"), std::string::npos);
}

TEST(LogLevel, SpeaksChinese) {
  const auto findings = run(with_env({{"TF_CPP_MIN_LOG_LEVEL", "3"}}), kb::Lang::zh);
  const Finding* f = find(findings, "env.log_level_hides_errors");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("屏蔽"), std::string::npos) << f->title;
}

// ---- gpu.not_visible from CUDA_VISIBLE_DEVICES -----------------------------------------------

struct VisibleCase {
  const char* name;
  const char* value;
  int gpu_count;  // 0: GPU facts unknown
  std::optional<Severity> expected;
};

class VisibleDevices : public ::testing::TestWithParam<VisibleCase> {};

TEST_P(VisibleDevices, FollowsCudaEnumerationRules) {
  Facts facts = with_env({{"CUDA_VISIBLE_DEVICES", GetParam().value}});
  for (int i = 0; i < GetParam().gpu_count; ++i) {
    GpuFact gpu;
    gpu.index = i;
    gpu.uuid = "GPU-1234abcd-000" + std::to_string(i);
    facts.gpus.push_back(gpu);
  }
  const auto findings = run(facts);
  const Finding* f = find(findings, "gpu.not_visible");
  if (!GetParam().expected) {
    EXPECT_EQ(f, nullptr);
    return;
  }
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, *GetParam().expected);
  EXPECT_EQ(f->layer, Layer::hardware);
}

INSTANTIATE_TEST_SUITE_P(
    Values, VisibleDevices,
    ::testing::Values(VisibleCase{"empty", "", 0, Severity::error},
                      VisibleCase{"blank", "  ", 2, Severity::error},
                      VisibleCase{"minus_one", "-1", 0, Severity::error},
                      VisibleCase{"text", "none", 0, Severity::error},
                      VisibleCase{"index_unknown_count", "3", 0, std::nullopt},
                      VisibleCase{"index_in_range", "1", 2, std::nullopt},
                      VisibleCase{"index_out_of_range", "2", 2, Severity::error},
                      VisibleCase{"list", "0,1", 2, std::nullopt},
                      VisibleCase{"spaces", "0, 1", 2, std::nullopt},
                      VisibleCase{"tail_ignored", "0,-1,1", 2, Severity::warning},
                      VisibleCase{"tail_out_of_range", "1,5", 2, Severity::warning},
                      VisibleCase{"uuid_prefix", "GPU-1234abcd-0001", 2, std::nullopt},
                      VisibleCase{"uuid_unknown_facts", "GPU-ffff", 0, std::nullopt},
                      VisibleCase{"uuid_absent", "GPU-ffff", 2, Severity::error},
                      VisibleCase{"mig", "MIG-abcd", 2, std::nullopt},
                      VisibleCase{"huge_index", "99999999999999999999", 0, Severity::error}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(VisibleDevices, UnsetMeansEveryGpu) {
  const auto findings = run(with_env({}));
  EXPECT_EQ(find(findings, "gpu.not_visible"), nullptr);
}

TEST(VisibleDevices, TitleSaysWhatStaysVisible) {
  Facts facts = with_env({{"CUDA_VISIBLE_DEVICES", "0,x,1"}});
  const auto findings = run(facts);
  const Finding* f = find(findings, "gpu.not_visible");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("only 0 visible"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("\"x\""), std::string::npos) << f->title;
}

// ---- ordering and summary --------------------------------------------------------------------

TEST(Checks, FindingsComeInFaultTreeOrder) {
  const auto findings =
      run(with_env({{"TF_CPP_MIN_LOG_LEVEL", "3"}, {"CUDA_VISIBLE_DEVICES", "-1"}}));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].id, "gpu.not_visible");
  EXPECT_EQ(findings[1].id, "env.log_level_hides_errors");
  const Summary s = summarize(with_env({}), findings);
  EXPECT_EQ(s.errors, 1);
  EXPECT_EQ(s.warnings, 1);
  EXPECT_FALSE(s.gpu_ready);
}

TEST(Checks, GpuReadyNeedsAGpuFrameworkAGpuAndADriverAndNoError) {
  Facts facts = with_env({});
  facts.gpus.push_back(GpuFact{});
  facts.driver = DriverFacts{};
  facts.driver->installed = true;
  facts.driver->version = "550.54";
  PythonEnvFact env;
  FrameworkFact torch;
  torch.name = torch.package = "torch";
  torch.version = "2.3.0";
  torch.gpu_build = true;
  torch.cuda = "12.1";
  torch.cudnn = "8.9";
  env.frameworks.push_back(torch);
  facts.python_envs.push_back(env);
  EXPECT_TRUE(summarize(facts, {}).gpu_ready);
  Finding error;
  error.severity = Severity::error;
  EXPECT_FALSE(summarize(facts, {error}).gpu_ready);
  facts.python_envs[0].frameworks[0].gpu_build = false;
  EXPECT_FALSE(summarize(facts, {}).gpu_ready);
}

TEST(Checks, AnIdOutsideTheTaxonomyIsRefused) {
  const Facts facts = with_env({});
  const CheckContext context(facts, testing::embedded_kb(), testing::messages());
  EXPECT_FALSE(context.finding("made.up", Severity::error, "x"));
  EXPECT_TRUE(context.finding("gpu.none", Severity::error, "x"));
}

TEST(Checks, ABrokenKnowledgeBaseIsAnErrorNotACrash) {
  auto kb = kb::Kb::from_files({{"taxonomy.csv", "id,layer,meaning,source\n"},
                                {"tf_log_levels.csv", "level,hidden,severity,source\n0,,bogus,x\n"},
                                {"messages/en.csv", "key,text\n"}});
  ASSERT_TRUE(kb);
  auto messages = kb::Messages::load(*kb, kb::Lang::en);
  ASSERT_TRUE(messages);
  const Facts facts = with_env({{"TF_CPP_MIN_LOG_LEVEL", "0"}});
  const CheckContext context(facts, *kb, *messages);
  const auto findings = run_checks(context);
  ASSERT_FALSE(findings);
  EXPECT_NE(findings.error().message.find("bogus"), std::string::npos) << findings.error().message;
}

// ---- scheduler.gres_misconfigured --------------------------------------------------------------

Facts slurm_node(std::int64_t configured, std::optional<std::string> autodetect,
                 std::vector<std::string> files, size_t device_nodes) {
  Facts f = with_env({});
  SlurmFacts s;
  s.conf = "/etc/slurm/slurm.conf";
  s.node = "gpu01";
  s.configured_gpus = configured;
  s.gres_conf = "/etc/slurm/gres.conf";
  s.autodetect = std::move(autodetect);
  s.gpu_files = std::move(files);
  f.slurm = s;
  f.hardware.device_nodes = {"/dev/nvidia-uvm", "/dev/nvidiactl"};
  for (size_t i = 0; i < device_nodes; ++i)
    f.hardware.device_nodes.push_back("/dev/nvidia" + std::to_string(i));
  return f;
}

// Without the driver's answer, the node's own count is its /dev/nvidiaN files; without AutoDetect,
// what slurmd reports is gres.conf's devices, whatever the machine has.
TEST(SlurmGres, ComparesWhatSlurmdWouldReportWithTheConfiguredCount) {
  const auto three_files = run(slurm_node(4, "nvml", {}, 3));
  const auto by_devices = find(three_files, "scheduler.gres_misconfigured");
  ASSERT_NE(by_devices, nullptr);
  EXPECT_EQ(by_devices->severity, Severity::error);
  EXPECT_EQ(by_devices->details.at("reported_gpus"), "3");
  EXPECT_NE(by_devices->evidence.front().find("3 GPU device files"), std::string::npos)
      << by_devices->evidence.front();
  const auto two_lines = run(slurm_node(4, std::nullopt, {"/dev/nvidia0", "/dev/nvidia1"}, 4));
  const auto by_files = find(two_lines, "scheduler.gres_misconfigured");
  ASSERT_NE(by_files, nullptr);
  EXPECT_EQ(by_files->details.at("reported_gpus"), "2");
  EXPECT_NE(by_files->evidence.front().find("2 File= devices"), std::string::npos);
  EXPECT_EQ(find(run(slurm_node(4, "nvml", {}, 4)), "scheduler.gres_misconfigured"), nullptr);
  EXPECT_EQ(find(run(slurm_node(2, "nvml", {}, 4)), "scheduler.gres_misconfigured"), nullptr);
  // Nothing known of the GPUs (no driver answer, no device file): nothing said.
  EXPECT_EQ(find(run(slurm_node(4, "nvml", {}, 0)), "scheduler.gres_misconfigured"), nullptr);
  // A host slurm.conf does not name as a node runs no slurmd.
  Facts login = slurm_node(4, "nvml", {}, 1);
  login.slurm->node.reset();
  EXPECT_EQ(find(run(login), "scheduler.gres_misconfigured"), nullptr);
  // A device gres.conf names that the node lacks, with no GPU device file at all.
  Facts bare = slurm_node(1, std::nullopt, {"/dev/nvidia0"}, 0);
  bare.slurm->missing_gpu_files = {"/dev/nvidia0"};
  const auto stopped = run(bare, kb::Lang::zh);
  const auto missing = find(stopped, "scheduler.gres_misconfigured");
  ASSERT_NE(missing, nullptr);
  EXPECT_NE(missing->evidence.front().find("（本机的 NVIDIA GPU 设备文件：无）"), std::string::npos)
      << missing->evidence.front();
  // In Chinese too.
  const auto chinese = run(slurm_node(4, "nvml", {}, 3), kb::Lang::zh);
  const auto zh = find(chinese, "scheduler.gres_misconfigured");
  ASSERT_NE(zh, nullptr);
  EXPECT_NE(zh->title.find("gpu01"), std::string::npos);
}

// ---- device.busy_or_init_failed: cuInit's answer named -------------------------------------

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
  const auto findings = run(cuinit_answered(code));
  const Finding* f = find(findings, "device.busy_or_init_failed");
  return f ? f->title : "(no device.busy_or_init_failed)";
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

// ---- device.hardware_error: the driver's Xids in the kernel's log ---------------------------

// A Linux machine whose driver works and whose kernel log holds `events` (newest first).
Facts with_xids(std::vector<XidEventFact> events) {
  Facts f = cuinit_answered(0);
  f.driver->xid_events = std::move(events);
  return f;
}

TEST(GpuChecks, TheCardsXidsInTheKernelLogAreAHardwareFault) {
  const auto findings = run(with_xids({
      {"2026-12-07T03:12:44+0000", "PCI:0000:3b:00", 79, "pid=1234, GPU has fallen off the bus."},
      {"2026-12-07T03:12:40+0000", "PCI:0000:3b:00", 13, "Graphics Exception: ESR 0x405840"},
      {"2026-12-06T22:01:02+0000", "PCI:0000:3b:00", 79, "pid=977, GPU has fallen off the bus."},
      {"2026-12-06T21:00:00+0000", "PCI:0000:5e:00", 48, "An uncorrectable double bit error"},
  }));
  const Finding* f = find(findings, "device.hardware_error");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  // One line per GPU and code, the newest time, how often; the program's Xid 13 is not the card's.
  ASSERT_EQ(f->evidence.size(), 2u);
  EXPECT_EQ(f->evidence[0],
            "PCI:0000:3b:00: Xid 79 (ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS: GPU has fallen off "
            "the bus) in the kernel's log of this boot, 2 of its newest Xid lines, the last at "
            "2026-12-07T03:12:44+0000");
  EXPECT_NE(f->evidence[1].find("Xid 48 (ROBUST_CHANNEL_GPU_ECC_DBE"), std::string::npos);
}

// A row remapped (Xid 63) or single-bit errors corrected (92) is a repair the GPU made: NVIDIA's
// immediate action is none, so a warning, not an error.
TEST(GpuChecks, AnXidOfARepairTheGpuMadeIsAWarning) {
  const auto findings = run(with_xids({
      {"2026-12-07T03:12:47+0000", "PCI:0000:01:00", 63, "Row Remapper: New row marked"},
  }));
  const Finding* f = find(findings, "device.hardware_error");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_EQ(f->title, testing::messages().text("device.hardware_error.repaired.title"));
  // A retirement that failed (157: no spare resources left) is no repair, whatever NVIDIA's
  // immediate action.
  const auto failed = run(with_xids({
      {"2026-12-07T03:12:47+0000", "PCI:0000:01:00", 157, "Resource Retirement Failure"},
  }));
  const Finding* g = find(failed, "device.hardware_error");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->severity, Severity::error);
}

// A program's own faults (13, 31, 43) and the Xids NVIDIA places nowhere (109, GSP's 119) are no
// fault of the card; a code newer than the catalog is not guessed at.
TEST(GpuChecks, XidsOfProgramsAndOfNoKnownPartAreNoHardwareFault) {
  const auto findings = run(with_xids({
      {"2026-12-07T03:12:40+0000", "PCI:0000:01:00", 13, "Graphics Exception"},
      {"2026-12-07T03:12:41+0000", "PCI:0000:01:00", 31, "pid=1, MMU Fault"},
      {"2026-12-07T03:12:42+0000", "PCI:0000:01:00", 109, "CTX SWITCH TIMEOUT"},
      {"2026-12-07T03:12:43+0000", "PCI:0000:01:00", 119, "Timeout waiting for RPC from GSP!"},
      {"2026-12-07T03:12:44+0000", "PCI:0000:01:00", 4242, "?"},
  }));
  EXPECT_EQ(find(findings, "device.hardware_error"), nullptr);
}

}  // namespace
}  // namespace gpuvet::checks
