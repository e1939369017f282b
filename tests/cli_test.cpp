// The command line as users and scripts meet it: the real gpuvet binary in a child process.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/gzip.hpp"
#include "core/paths.hpp"

namespace gpuvet {
namespace {

using testing::line_count;
using testing::Outcome;

Outcome gpuvet(const std::string& arguments, const std::string& environment = "") {
  return testing::run_gpuvet(arguments, environment);
}

TEST(Cli, VersionAndHelpForEveryVerb) {
  const Outcome version = gpuvet("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out,
            "gpuvet 0.1.0 (knowledge base " + testing::embedded_kb().version() + ")\n");
  for (const char* verb : {"", "check ", "snapshot ", "kb ", "kb gpu ", "explain ", "plan "}) {
    const Outcome help = gpuvet(std::string(verb) + "--help");
    EXPECT_EQ(help.status, 0) << verb;
    EXPECT_NE(help.out.find("Usage"), std::string::npos) << verb;
  }
  EXPECT_NE(gpuvet("check --help").out.find("--snapshot"), std::string::npos);
  EXPECT_NE(gpuvet("snapshot --help").out.find("--output"), std::string::npos);
}

TEST(Cli, UsageErrorsAreOneLineAndExitTwo) {
  for (const char* args : {"frobnicate", "check --bogus", "check --format html", "check --lang fr",
                           "check --snapshot", "snapshot -o"}) {
    const Outcome run = gpuvet(args);
    EXPECT_EQ(run.status, 2) << args;
    EXPECT_EQ(line_count(run.err), 1u) << args << ": " << run.err;
    EXPECT_EQ(run.err.rfind("gpuvet: ", 0), 0u) << run.err;
    EXPECT_TRUE(run.out.empty()) << args;
  }
}

TEST(Cli, EmptyOptionValuesAreUsageErrors) {
  for (const char* args :
       {"plan torch --gpu \"\"", "plan torch --driver \"\"", "plan \"\"", "check --snapshot \"\"",
        "check --kb \"\"", "explain --text \"\"", "explain --no-facts \"\"", "which \"\"",
        "kb gpu \"\"", "snapshot -o \"\""}) {
    const Outcome run = gpuvet(args);
    EXPECT_EQ(run.status, 2) << args;
    EXPECT_EQ(line_count(run.err), 1u) << args << ": " << run.err;
    EXPECT_NE(run.err.find("must not be empty"), std::string::npos) << args << ": " << run.err;
    EXPECT_TRUE(run.out.empty()) << args;
  }
}

TEST(CliExplain, FromTextFileAndStandardInput) {
  Outcome run =
      gpuvet("explain --no-facts --json --text \"Could not load dynamic library 'cudnn64_8.dll'\"");
  ASSERT_EQ(run.status, 0) << run.err;
  auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["schema"], "gpuvet.explain/1");
  EXPECT_EQ(doc["causes"][0]["id"], "cudnn.missing");
  EXPECT_TRUE(doc["causes"][0]["confirmed_by_facts"].is_null());

  testing::TempDir dir;
  // What PowerShell 5's `>` writes: UTF-16LE with a BOM, CRLF.
  std::string utf16 = "\xFF\xFE";
  for (const char c : std::string("epoch 1\r\nRuntimeError: CUDA out of memory. Tried\r\n")) {
    utf16.push_back(c);
    utf16.push_back('\0');
  }
  const std::string log = dir.file("train.log", utf16);
  run = gpuvet("explain --no-facts " + log);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("memory.oom"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("line 2:"), std::string::npos) << run.out;

  run = gpuvet("explain --no-facts --lang zh " + log);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("第 2 行"), std::string::npos) << run.out;

  run = gpuvet("explain --no-facts --text \"all good, 99% accuracy\"");
  EXPECT_EQ(run.status, 1);
}

TEST(CliExplain, CarriageReturnLineEndsAndDirectories) {
  testing::TempDir dir;
  const std::string log = dir.file(
      "mac.log", "epoch 1\rImportError: libcudnn.so.8: cannot open shared object file\rdone\r");
  const Outcome run = gpuvet("explain --no-facts --json " + log);
  ASSERT_EQ(run.status, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["causes"][0]["evidence"][0]["line"], 2) << doc.dump();
  const Outcome directory = gpuvet("explain --no-facts " + dir.path());
  EXPECT_EQ(directory.status, 2);
  EXPECT_EQ(directory.err, "gpuvet: " + dir.path() + ": is a directory\n");
  const Outcome zero = gpuvet("explain --no-facts /dev/zero");
  EXPECT_EQ(zero.status, 2);
  EXPECT_EQ(zero.err, "gpuvet: /dev/zero: binary data, not a text log (a NUL byte at offset 0)\n");
}

TEST(CliExplain, BadInputIsOneLineWithExitTwo) {
  testing::TempDir dir;
  const std::string binary = dir.file("model.bin", std::string("PK\3\4\0\0data", 10));
  const std::string empty = dir.file("empty.log", "");
  for (const std::string& args :
       {std::string("explain"), "explain --no-facts " + binary, "explain --no-facts " + empty,
        std::string("explain --no-facts /nonexistent.log"),
        std::string("explain --no-facts --text \"x\" file.log")}) {
    const Outcome run = gpuvet(args);
    EXPECT_EQ(run.status, 2) << args;
    EXPECT_EQ(line_count(run.err), 1u) << args << ": " << run.err;
    EXPECT_TRUE(run.out.empty()) << args;
  }
}

TEST(CliExplain, TheSnapshotConfirmsAndNamesThisMachinesPaths) {
  const std::string snapshot =
      std::string(GPUVET_SCENARIO_DIR) + "/windows10_cudnn_not_copied/snapshot.json";
  const std::string message =
      "W dso_loader.cc:55] Could not load dynamic library 'cudnn64_7.dll'; dlerror: cudnn64_7.dll "
      "not found\n";
  // The traceback's Python environment is the snapshot's: the log comes from that machine.
  testing::TempDir dir;
  const std::string log =
      dir.file("same.log",
               "  File \"C:\\Users\\zhang\\Miniconda3\\envs\\tf21-gpu\\lib\\site-packages\\"
               "tensorflow_core\\python\\pywrap_tensorflow.py\", line 58\n" +
                   message);
  Outcome run = gpuvet("explain --json --snapshot " + snapshot + " " + log);
  ASSERT_EQ(run.status, 0) << run.err;
  auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["facts"]["state"], "used");
  EXPECT_EQ(doc["causes"][0]["id"], "cudnn.missing");
  EXPECT_EQ(doc["causes"][0]["confirmed_by_facts"], true);
  EXPECT_NE(doc["causes"][0]["why"].get<std::string>().find("tf21-gpu"), std::string::npos)
      << doc.dump(2);
  EXPECT_NE(doc["facts"]["note"].get<std::string>().find("tf21-gpu"), std::string::npos)
      << doc.dump(2);

  // The message alone shows nothing of its machine: ranked by the log, the finding only said.
  run = gpuvet("explain --json --snapshot " + snapshot + " " + dir.file("bare.log", message));
  ASSERT_EQ(run.status, 0) << run.err;
  doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["facts"]["state"], "unknown_machine");
  EXPECT_EQ(doc["causes"][0]["id"], "cudnn.missing");
  EXPECT_TRUE(doc["causes"][0]["confirmed_by_facts"].is_null());
  EXPECT_NE(doc["causes"][0]["why"].get<std::string>().find("checks find it too"),
            std::string::npos)
      << doc.dump(2);
}

// `gpuvet explain --json` of a log against a scenario's snapshot, which must explain it.
nlohmann::json explained_against(const std::string& scenario, const std::string& log_text,
                                 const std::string& flags = "") {
  testing::TempDir dir;
  const std::string log = dir.file("scenario.log", log_text);
  const Outcome run =
      gpuvet("explain --json " + flags + " --snapshot " + std::string(GPUVET_SCENARIO_DIR) + "/" +
             scenario + "/snapshot.json " + log);
  EXPECT_EQ(run.status, 0) << run.err;
  return run.status == 0 ? nlohmann::json::parse(run.out) : nlohmann::json::object();
}

// --same-machine: the bare message was printed on the snapshot's machine, so its facts decide.
TEST(CliExplain, SameMachineLetsTheFactsRankABareMessage) {
  const auto doc = explained_against(
      "windows10_cudnn_not_copied",
      "W dso_loader.cc:55] Could not load dynamic library 'cudnn64_7.dll'; dlerror: cudnn64_7.dll "
      "not found\n",
      "--same-machine");
  EXPECT_EQ(doc["facts"]["state"], "used");
  EXPECT_EQ(doc["causes"][0]["id"], "cudnn.missing");
  EXPECT_EQ(doc["causes"][0]["confirmed_by_facts"], true);
  EXPECT_NE(doc["causes"][0]["why"].get<std::string>().find("tf21-gpu"), std::string::npos)
      << doc.dump(2);
  // Without a machine there is nothing to say it of.
  const Outcome run =
      gpuvet("explain --same-machine --no-facts --text \"cudnn64_7.dll not found\"");
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(line_count(run.err), 1u) << run.err;
}

// Live, a library the log could not load is looked up as this machine's loader would: a real
// cuDNN-kind library built by the tests, on LD_LIBRARY_PATH, is found there; a CUDA 3 library
// nowhere. Names no framework asks for, so no check of this machine decides them first.
TEST(CliExplain, SameMachineLooksUpTheLibraryTheLogCouldNotLoad) {
  const std::string dir = std::string(GPUVET_FAKE_DRIVER_DIR) + "/cudnn_unasked";
  const std::string env = "LD_LIBRARY_PATH=" + dir;
  Outcome run = gpuvet(
      "explain --same-machine --json --text \"ImportError: libcudnn_gpuvet_unasked.so.8: cannot "
      "open shared object file: No such file or directory\"",
      env);
  ASSERT_EQ(run.status, 0) << run.err;
  auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["facts"]["state"], "used");
  EXPECT_EQ(doc["causes"][0]["id"], "cudnn.missing");
  EXPECT_TRUE(doc["causes"][0]["confirmed_by_facts"].is_null()) << doc.dump(2);
  EXPECT_NE(
      doc["causes"][0]["why"].get<std::string>().find("finds libcudnn_gpuvet_unasked.so.8 (" + dir),
      std::string::npos)
      << doc.dump(2);

  run = gpuvet(
      "explain --same-machine --json --text \"ImportError: libcublas.so.3: cannot open shared "
      "object file: No such file or directory\"",
      env);
  ASSERT_EQ(run.status, 0) << run.err;
  doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["causes"][0]["confirmed_by_facts"], true) << doc.dump(2);
  EXPECT_NE(doc["causes"][0]["why"].get<std::string>().find("does not find libcublas.so.3"),
            std::string::npos)
      << doc.dump(2);
}

// A Windows log explained against a Linux machine: that machine's facts say nothing about it.
TEST(CliExplain, FactsOfAnotherPlatformAreNotUsed) {
  const std::string log =
      " --text \"OSError: [WinError 126] The specified module could not be found. Error loading "
      "C:\\Users\\zhang\\Miniconda3\\envs\\tf21-gpu\\Lib\\site-packages\\torch\\lib\\cudnn_cnn_"
      "infer64_8.dll or one of its dependencies.\"";
  const std::string linux_machine =
      std::string(GPUVET_SCENARIO_DIR) + "/linux_torch_cu121/snapshot.json";
  Outcome run = gpuvet("explain --json --snapshot " + linux_machine + log);
  ASSERT_EQ(run.status, 0) << run.err;
  auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["log_platform"], "windows");
  EXPECT_EQ(doc["facts"]["state"], "other_machine");
  EXPECT_EQ(doc["facts"]["machine_platform"], "linux");
  for (const auto& cause : doc["causes"])
    EXPECT_TRUE(cause["confirmed_by_facts"].is_null()) << cause.dump();
  run = gpuvet("explain --snapshot " + linux_machine + log);
  EXPECT_NE(run.out.find("not used"), std::string::npos) << run.out;

  // The same log against the Windows machine whose environment it names: its facts decide.
  const std::string windows_machine =
      std::string(GPUVET_SCENARIO_DIR) + "/windows10_msvcp140_1_missing/snapshot.json";
  run = gpuvet("explain --json --snapshot " + windows_machine + log);
  ASSERT_EQ(run.status, 0) << run.err;
  doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["facts"]["state"], "used");
  EXPECT_FALSE(doc["causes"][0]["confirmed_by_facts"].is_null()) << doc.dump(2);
}

// Issue 19's case: the log's loaded cuDNN is the one the snapshot's search order loads, so the
// log is that machine's, and its facts confirm the mismatch and name the stray copy.
TEST(CliExplain, TheLoadedCudnnTheLogPrintsMakesItThisMachinesLog) {
  testing::TempDir dir;
  const std::string log = dir.file(
      "tf.log",
      "E tensorflow/stream_executor/cuda/cuda_dnn.cc:359] Loaded runtime CuDNN library: 8.0.4 but "
      "source was compiled with: 8.1.0.  CuDNN library needs to have matching major version and "
      "equal or higher minor version.\n");
  const std::string snapshot = std::string(GPUVET_SCENARIO_DIR) +
                               "/windows10_tf210_stray_cudnn804_in_system32/snapshot.json";
  const Outcome run = gpuvet("explain --json --snapshot " + snapshot + " " + log);
  ASSERT_EQ(run.status, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["facts"]["state"], "used");
  EXPECT_NE(doc["facts"]["note"].get<std::string>().find("cuDNN 8.0.4"), std::string::npos)
      << doc.dump(2);
  EXPECT_EQ(doc["causes"][0]["id"], "cudnn.version_mismatch");
  EXPECT_EQ(doc["causes"][0]["confirmed_by_facts"], true);
  EXPECT_NE(doc["causes"][0]["why"].get<std::string>().find("System32"), std::string::npos)
      << doc.dump(2);
  EXPECT_EQ(doc["causes"][0]["captures"]["loaded"], "8.0.4");
  EXPECT_EQ(doc["causes"][0]["captures"]["compiled"], "8.1.0");
}

// A log of the same platform that names another GPU, driver or Python environment: not this
// machine's, whatever its checks find (a machine without a GPU would confirm every log's "no GPU").
TEST(CliExplain, ALogThatNamesAnotherMachineIsNotRankedByThisOnesFacts) {
  const std::string no_gpu =
      std::string(GPUVET_SCENARIO_DIR) + "/linux_no_gpu_stub_toolkit/snapshot.json";
  testing::TempDir dir;
  const std::string log = dir.file(
      "other.log",
      "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n");
  Outcome run = gpuvet("explain --json --snapshot " + no_gpu + " " + log);
  ASSERT_EQ(run.status, 0) << run.err;
  auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["facts"]["state"], "other_machine");
  EXPECT_NE(doc["facts"]["note"].get<std::string>().find("535.104.05"), std::string::npos)
      << doc.dump(2);
  for (const auto& cause : doc["causes"])
    EXPECT_TRUE(cause["confirmed_by_facts"].is_null()) << cause.dump();
  EXPECT_EQ(doc["causes"][0]["id"], "gpu.compute_capability_unsupported");
  run = gpuvet("explain --snapshot " + no_gpu + " " + log);
  EXPECT_NE(run.out.find("does not look like this machine's"), std::string::npos) << run.out;
}

// "no kernel image" against machines whose torch library was read: the GPU code it holds decides,
// and the explanation quotes it.
TEST(CliExplain, NoKernelImageIsDecidedByTheBuildsGpuCode) {
  const std::string message =
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n";
  // nvidia-smi -L in the log names each machine's GPU: the log is that machine's.
  testing::TempDir dir;
  const std::string on_5090 =
      dir.file("5090.log",
               "GPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-5ca89547-0a71-fc6d-f749-1651ee078536)\n" +
                   message);
  const std::string on_3060 =
      dir.file("3060.log",
               "GPU 0: NVIDIA GeForce RTX 3060 (UUID: GPU-fd78f358-3e8b-e2bb-abca-a5c099d7e983)\n" +
                   message);
  const std::string scenarios = std::string(GPUVET_SCENARIO_DIR);
  Outcome run = gpuvet("explain --json --snapshot " + scenarios +
                       "/linux_torch_binary_gpu_too_new/snapshot.json " + on_5090);
  ASSERT_EQ(run.status, 0) << run.err;
  auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["facts"]["state"], "used");
  EXPECT_EQ(doc["causes"][0]["id"], "gpu.compute_capability_unsupported");
  EXPECT_EQ(doc["causes"][0]["confirmed_by_facts"], true);
  const std::string why = doc["causes"][0]["why"].get<std::string>();
  EXPECT_NE(why.find("libtorch_cuda.so holds SASS sm_50"), std::string::npos) << why;
  EXPECT_NE(why.find("sm_120"), std::string::npos) << why;
  EXPECT_EQ(why.find("unknown"), std::string::npos) << why;

  run = gpuvet("explain --json --snapshot " + scenarios +
               "/linux_torch_binary_covers_gpu/snapshot.json " + on_3060);
  ASSERT_EQ(run.status, 0) << run.err;
  doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["facts"]["state"], "used");
  for (const auto& cause : doc["causes"]) {
    if (cause["id"] == "gpu.compute_capability_unsupported") {
      EXPECT_EQ(cause["confirmed_by_facts"], false);
    }
  }
  // The RTX 5090's log is not the RTX 3060 machine's.
  run = gpuvet("explain --json --snapshot " + scenarios +
               "/linux_torch_binary_covers_gpu/snapshot.json " + on_5090);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["facts"]["state"], "other_machine");
}

// check says where its answer on the GPU's architecture came from: the files, or the tables.
TEST(Cli, ComputeCapabilityEvidenceNamesItsSource) {
  const std::string scenarios = std::string(GPUVET_SCENARIO_DIR);
  Outcome run = gpuvet("check --json --snapshot " + scenarios +
                       "/linux_torch_binary_gpu_too_old/snapshot.json");
  EXPECT_EQ(run.status, 1) << run.err;
  auto doc = nlohmann::json::parse(run.out);
  bool binaries = false;
  for (const auto& f : doc["findings"]) {
    if (f["id"] != "gpu.compute_capability_unsupported") continue;
    const std::string evidence = f["evidence"].dump();
    binaries = evidence.find("sm_37") != std::string::npos &&
               evidence.find("read from the build's own libraries") != std::string::npos;
  }
  EXPECT_TRUE(binaries) << doc["findings"].dump(2);
  // A Kepler GPU and TensorFlow 2.1 without readable libraries: the tables answer, and say so.
  run = gpuvet("check --json --snapshot " + scenarios + "/linux_kepler_gtx650_tf21/snapshot.json");
  doc = nlohmann::json::parse(run.out);
  bool tables = false;
  for (const auto& f : doc["findings"]) {
    if (f["id"] == "gpu.compute_capability_unsupported") {
      tables = tables || f["evidence"].dump().find("gpuvet's tables") != std::string::npos;
    }
  }
  EXPECT_TRUE(tables) << doc["findings"].dump(2);
}

TEST(Cli, BadSnapshotsAreOneLineNamingTheFileAndExitTwo) {
  testing::TempDir dir;
  const std::string valid = R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"}})";
  const std::vector<std::pair<std::string, std::string>> files = {
      {"empty.json", ""},
      {"text.json", "this is not json"},
      {"truncated.json", valid.substr(0, valid.size() / 2)},
      {"schema.json", R"({"schema": "something/else", "host": {"os": "linux"}})"},
      {"typed.json", R"({"schema": "gpuvet.snapshot/1", "host": {"os": 7}})"},
      {"binary.json", std::string("\x7f"
                                  "ELF\0\0\0\0binary",
                                  14)},
      {"cut.json.gz", gzip::compress(valid)->substr(0, 12)},
  };
  for (const auto& [name, contents] : files) {
    const std::string path = dir.file(name, contents);
    const Outcome run = gpuvet("check --snapshot " + path);
    EXPECT_EQ(run.status, 2) << name;
    EXPECT_EQ(line_count(run.err), 1u) << name << ": " << run.err;
    EXPECT_NE(run.err.find(name), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty()) << name;
  }
  for (const std::string& path : {dir.path() + "/absent.json", dir.path()}) {
    const Outcome run = gpuvet("check --snapshot " + path);
    EXPECT_EQ(run.status, 2) << path;
    EXPECT_EQ(line_count(run.err), 1u) << run.err;
  }
}

// Oversized and endless input is refused at a limit, fast: the time bound only guards against a
// hang (the unit tests count the bytes inflated), generous for any machine and a Debug build.
TEST(Cli, OversizedSnapshotsAreRefusedQuickly) {
  testing::TempDir dir;
  const std::string head = R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"}, )";
  const std::vector<std::pair<std::string, std::string>> files = {
      {"bomb.json.gz", *gzip::compress(head + R"("x": ")" + std::string(size_t{80} << 20, 'A'))},
      {"string.json", head + R"("env": {"PATH": ")" + std::string(size_t{50} << 20, 'A') + "\"}}"},
      {"deep.json", std::string(100000, '[') + std::string(100000, ']')},
      {"number.json", head + R"("x": 1e400})"},
  };
  for (const auto& [name, contents] : files) {
    const std::string path = dir.file(name, contents);
    const auto started = std::chrono::steady_clock::now();
    const Outcome run = gpuvet("check --snapshot " + path);
    // A guard against a hang, not a speed test (speed is bench/'s): under ASan on a busy 2-core
    // machine a refusal took 7 s against a 5 s limit.
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60)) << name;
    EXPECT_EQ(run.status, 2) << name;
    EXPECT_EQ(line_count(run.err), 1u) << name << ": " << run.err;
    EXPECT_NE(run.err.find(name), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("exception"), std::string::npos) << run.err;
  }
  const Outcome zero = gpuvet("check --snapshot /dev/zero");
  EXPECT_EQ(zero.status, 2);
  EXPECT_EQ(zero.err, "gpuvet: /dev/zero: binary data, not a JSON snapshot\n");
}

TEST(Cli, ExitStatusFollowsTheWorstFinding) {
  testing::TempDir dir;
  const auto snapshot = [&](const std::string& name, const std::string& env) {
    return dir.file(
        name, R"({"schema": "gpuvet.snapshot/1", "host": {"os": "linux"}, "env": )" + env + "}");
  };
  EXPECT_EQ(gpuvet("check --snapshot " + snapshot("clean.json", "{}")).status, 0);
  EXPECT_EQ(
      gpuvet("check --snapshot " + snapshot("warning.json", R"({"TF_CPP_MIN_LOG_LEVEL": "3"})"))
          .status,
      0)
      << "a warning is not an error";
  EXPECT_EQ(
      gpuvet("check --snapshot " + snapshot("error.json", R"({"CUDA_VISIBLE_DEVICES": "-1"})"))
          .status,
      1);
  // Live, whatever this machine is: 1 exactly when the report counts an error.
  const Outcome live = gpuvet("check --json");
  const auto doc = nlohmann::json::parse(live.out);
  EXPECT_EQ(live.status, doc["summary"]["errors"].get<int>() > 0 ? 1 : 0);
}

TEST(Cli, CheckIsTheDefaultVerb) {
  const std::string env = "TF_CPP_MIN_LOG_LEVEL=2";
  EXPECT_EQ(nlohmann::json::parse(gpuvet("--json", env).out)["findings"],
            nlohmann::json::parse(gpuvet("check --json", env).out)["findings"]);
  EXPECT_NE(gpuvet("", env).out.find("TF_CPP_MIN_LOG_LEVEL=2"), std::string::npos);
}

TEST(Cli, FormatsAndLanguages) {
  const std::string env = "TF_CPP_MIN_LOG_LEVEL=3";
  const Outcome json = gpuvet("check --format json", env);
  EXPECT_EQ(nlohmann::json::parse(json.out)["schema"], "gpuvet.check/1");
  const Outcome md = gpuvet("check --format md", env);
  EXPECT_EQ(md.out.rfind("## gpuvet report", 0), 0u);
  const Outcome text = gpuvet("check", env);
  EXPECT_NE(text.out.find("Framework"), std::string::npos);
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << "no colour when not on a terminal";
  EXPECT_NE(gpuvet("check --lang zh", env).out.find("框架"), std::string::npos);
  EXPECT_NE(gpuvet("check", env + " LANG=zh_CN.UTF-8").out.find("框架"), std::string::npos);
  EXPECT_NE(gpuvet("check --lang en", env + " LC_ALL=zh_CN.UTF-8").out.find("Framework"),
            std::string::npos);
}

// Colour only on a terminal: util-linux's script(1) gives the child a pseudo-terminal.
TEST(Cli, ColourOnATerminalUnlessNoColor) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1)";
  const std::string base = "env -i PATH=/usr/bin:/bin TF_CPP_MIN_LOG_LEVEL=3 ";
  const auto capture = [&](const std::string& extra_env, const std::string& flags) {
    return testing::run_command("script -qec '" + base + extra_env + " " + GPUVET_BINARY +
                                " check --lang en " + flags + "' /dev/null </dev/null")
        .output;
  };
  EXPECT_NE(capture("", "").find('\x1b'), std::string::npos) << "colour on a terminal";
  EXPECT_EQ(capture("NO_COLOR=1", "").find('\x1b'), std::string::npos) << "NO_COLOR";
  EXPECT_EQ(capture("", "--no-color").find('\x1b'), std::string::npos) << "--no-color";
}

// The round-trip property on the machine running the tests: a snapshot taken here, replayed,
// gives exactly the facts and findings of the live run.
class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, LiveAndReplayedChecksAgree) {
  testing::TempDir dir;
  const std::string env =
      "CUDA_VISIBLE_DEVICES=0,-1 TF_CPP_MIN_LOG_LEVEL=2 LD_LIBRARY_PATH=/usr/local/cuda/lib64 "
      "MY_API_TOKEN=hunter2-secret-value HOME=/root";
  const Outcome live = gpuvet("check --json", env);
  ASSERT_LE(live.status, 1) << live.err;

  std::string snapshot_path = dir.path() + "/" + GetParam();
  if (GetParam() == "stdout") {
    const Outcome snap = gpuvet("snapshot", env);
    ASSERT_EQ(snap.status, 0) << snap.err;
    snapshot_path = dir.file("from-stdout.json", snap.out);
  } else {
    const Outcome snap = gpuvet("snapshot -o " + snapshot_path, env);
    ASSERT_EQ(snap.status, 0) << snap.err;
    EXPECT_TRUE(snap.out.empty());
  }
  const Outcome replay = gpuvet("check --json --snapshot " + snapshot_path);
  ASSERT_EQ(replay.status, live.status) << replay.err;

  const auto a = nlohmann::json::parse(live.out);
  const auto b = nlohmann::json::parse(replay.out);
  EXPECT_EQ(a["facts"], b["facts"]);
  EXPECT_EQ(a["findings"], b["findings"]);
  EXPECT_EQ(a["summary"], b["summary"]);
  EXPECT_FALSE(a["findings"].empty()) << "the environment above must produce findings";

  const std::string raw = *paths::read_file(snapshot_path, 64 << 20);
  const std::string text = gzip::looks_compressed(raw) ? *gzip::decompress(raw) : raw;
  EXPECT_EQ(text.find("hunter2-secret-value"), std::string::npos) << "secrets stay home";
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema"], "gpuvet.snapshot/1");
  EXPECT_EQ(doc["env"]["MY_API_TOKEN"], "<redacted>");
  EXPECT_EQ(doc["env"]["CUDA_VISIBLE_DEVICES"], "0,-1");
  EXPECT_EQ(gzip::looks_compressed(raw), GetParam().ends_with(".gz"));
}

INSTANTIATE_TEST_SUITE_P(Files, RoundTrip,
                         ::testing::Values("machine.json", "machine.json.gz", "stdout"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n)
                             c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

// A real driver is not on this machine; fake ones built by the tests stand in for it.
std::string fake_driver(const std::string& behaviour) {
  // PATH without a real nvidia-smi, so only the fake driver answers.
  return "PATH=/nonexistent LD_LIBRARY_PATH=" + std::string(GPUVET_FAKE_DRIVER_DIR) + "/" +
         behaviour;
}

TEST(CliDriver, AWorkingDriverGivesTheGpuFacts) {
  const Outcome run = gpuvet("check --json", fake_driver("working"));
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["facts"]["driver"]["installed"], true);
  EXPECT_EQ(doc["facts"]["driver"]["version"], "550.54.15");
  EXPECT_EQ(doc["facts"]["gpus"][0]["name"], "NVIDIA GeForce RTX 3060");
  EXPECT_EQ(doc["facts"]["gpus"][0]["compute_capability"], "8.6");
  for (const auto& f : doc["findings"]) {
    EXPECT_NE(f["id"], "gpu.none") << "the driver sees a GPU";
    EXPECT_NE(f["id"], "driver.missing");
  }
}

// CUDA's answers join NVML's GPU of the same UUID: the fake NVML and the fake CUDA driver name
// one GPU, GPU-00000000-1111-2222-3333-444444444444, in their own spellings.
TEST(CliDriver, AGpuWithoutMemoryPoolsIsMatchedByUuidAndNamed) {
  const auto findings_of = [](const nlohmann::json& doc) {
    std::map<std::string, std::string> out;
    for (const auto& f : doc["findings"])
      out[f["id"]] = f["severity"];
    return out;
  };
  const auto working = nlohmann::json::parse(gpuvet("check --json", fake_driver("working")).out);
  EXPECT_EQ(working["facts"]["gpus"][0]["memory_pools"], true);
  EXPECT_FALSE(findings_of(working).contains("device.async_allocator_unsupported"));

  const auto none = nlohmann::json::parse(gpuvet("check --json", fake_driver("nopools")).out);
  ASSERT_EQ(none["facts"]["gpus"].size(), 1u) << "one GPU, not one per API";
  EXPECT_EQ(none["facts"]["gpus"][0]["name"], "NVIDIA GeForce RTX 3060") << "NVML's list stays";
  EXPECT_EQ(none["facts"]["gpus"][0]["memory_pools"], false);
  EXPECT_EQ(findings_of(none)["device.async_allocator_unsupported"], "warning");

  const auto asked = nlohmann::json::parse(
      gpuvet("check --json",
             fake_driver("nopools") + " PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync")
          .out);
  EXPECT_EQ(findings_of(asked)["device.async_allocator_unsupported"], "error");
}

TEST(CliDriver, ACrashingOrHangingDriverNeverTakesGpuvetDown) {
  for (const std::string behaviour : {"crash", "hang"}) {
    const Outcome run =
        gpuvet("check --json", fake_driver(behaviour) + " GPUVET_NATIVE_TIMEOUT_MS=1500");
    ASSERT_LE(run.status, 1) << behaviour << ": " << run.err;
    const auto doc = nlohmann::json::parse(run.out);
    const std::string error = doc["facts"]["driver"]["error"].get<std::string>();
    EXPECT_TRUE(error.find("crashed") != std::string::npos ||
                error.find("exited with status") != std::string::npos ||
                error.find("hung") != std::string::npos)
        << behaviour << ": " << error;
  }
}

TEST(CliDriver, NativeAnswersSurviveTheSnapshotRoundTrip) {
  testing::TempDir dir;
  const std::string env = fake_driver("working");
  const Outcome live = gpuvet("check --json", env);
  const Outcome snap = gpuvet("snapshot -o " + dir.path() + "/s.json", env);
  ASSERT_EQ(snap.status, 0) << snap.err;
  const Outcome replay = gpuvet("check --json --snapshot " + dir.path() + "/s.json");
  EXPECT_EQ(nlohmann::json::parse(live.out)["facts"], nlohmann::json::parse(replay.out)["facts"]);
  EXPECT_EQ(nlohmann::json::parse(live.out)["findings"],
            nlohmann::json::parse(replay.out)["findings"]);
}

// On this build machine (a container with a CUDA toolkit and its stub libcuda, no GPU and no
// driver) the root cause is the missing GPU, not a driver to install.
TEST(LiveMachine, NoGpuIsTheRootNotTheDriver) {
  const Outcome run = gpuvet("check --json");
  const auto doc = nlohmann::json::parse(run.out);
  if (!doc["facts"]["hardware"]["pci_gpus"].empty() || doc["facts"]["driver"].is_null() ||
      doc["facts"]["driver"]["installed"] == true) {
    GTEST_SKIP() << "this machine has a GPU or a driver: not the toolkit-only build machine";
  }
  std::vector<std::string> ids;
  for (const auto& f : doc["findings"])
    ids.push_back(f["id"]);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "gpu.none"), ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "driver.missing"), ids.end());
  EXPECT_EQ(run.status, 1);
  const auto& stubs = doc["facts"]["driver"]["stub_libraries"];
  if (!stubs.empty()) {
    EXPECT_EQ(doc["facts"]["driver"]["stub_cuinit_code"], 34) << "cuInit of the stub";
    EXPECT_EQ(stubs.size(), 1u) << "one stub, not one per link to it";
  }
}

TEST(CliPlan, ExitStatusSaysWhetherTheWishIsFeasible) {
  const Outcome ok = gpuvet(
      "plan tensorflow==2.1 --os windows --gpu \"GTX 1060\" --driver 452.06 --python 3.7 "
      "--json");
  EXPECT_EQ(ok.status, 0) << ok.err;
  const auto doc = nlohmann::json::parse(ok.out);
  EXPECT_EQ(doc["schema"], "gpuvet.plan/1");
  EXPECT_TRUE(doc["feasible"].get<bool>());
  EXPECT_EQ(doc["request"]["compute_capability"], "6.1");
  EXPECT_EQ(doc["options"][0]["package"], "tensorflow-gpu==2.1.0");
  EXPECT_EQ(doc["options"][0]["min_driver"], "418.96");

  const Outcome no = gpuvet(
      "plan tensorflow==2.15 --os windows --cc 8.6 --driver 546.12 "
      "--python 3.10 --no-color");
  EXPECT_EQ(no.status, 1);
  EXPECT_NE(no.out.find("framework.windows_native_gpu_unsupported"), std::string::npos) << no.out;
  EXPECT_NE(no.out.find("wsl --install"), std::string::npos) << no.out;

  const Outcome zh = gpuvet(
      "plan pytorch==2.1 --os linux --cc 8.6 --driver 535.104.05 "
      "--python 3.10 --lang zh --no-color");
  EXPECT_EQ(zh.status, 0);
  EXPECT_NE(zh.out.find("方案"), std::string::npos) << zh.out;
  EXPECT_NE(zh.out.find("--index-url https://download.pytorch.org/whl/"), std::string::npos);

  const Outcome paddle = gpuvet(
      "plan paddlepaddle-gpu==2.6 --os windows --gpu \"RTX 3060\" --driver 531.14 --python 3.10 "
      "--json");
  EXPECT_EQ(paddle.status, 0) << paddle.err;
  const auto plan = nlohmann::json::parse(paddle.out);
  EXPECT_EQ(plan["request"]["framework"], "paddle");
  EXPECT_EQ(plan["options"][0]["package"], "paddlepaddle-gpu==2.6.2.post120");
}

TEST(CliPlan, OpenFieldsComeFromTheSnapshot) {
  const std::string snapshot =
      std::string(GPUVET_SCENARIO_DIR) + "/windows10_gtx1060_tf21_all_green/snapshot.json";
  const Outcome from_snapshot = gpuvet("plan tensorflow==2.1 --json --snapshot " + snapshot);
  EXPECT_EQ(from_snapshot.status, 0) << from_snapshot.err;
  const auto doc = nlohmann::json::parse(from_snapshot.out);
  EXPECT_EQ(doc["request"]["os"], "windows");
  EXPECT_EQ(doc["request"]["driver"], "452.06");
  EXPECT_EQ(doc["request"]["origins"]["driver"], "snapshot");
  EXPECT_EQ(doc["request"]["origins"]["gpu"], "snapshot");
  // The active environment's Python is a preference, not a constraint.
  EXPECT_TRUE(doc["request"]["python"].is_null());
  EXPECT_EQ(doc["request"]["preferred_python"], "3.7");
  const Outcome from_flags =
      gpuvet("plan tensorflow==2.1 --json --os windows --gpu \"" +
             doc["request"]["gpu"].get<std::string>() + "\" --driver 452.06 --python 3.7");
  const auto flags = nlohmann::json::parse(from_flags.out);
  EXPECT_EQ(flags["request"]["origins"]["driver"], "flag");
  EXPECT_EQ(flags["request"]["origins"]["python"], "flag");
  EXPECT_EQ(flags["options"], doc["options"]);
  EXPECT_EQ(flags["outcome"], doc["outcome"]);
}

// Planning for another OS takes nothing from this machine, and a Python outside the wished
// release's range is no blocker: the plan makes an environment with one it supports.
TEST(CliPlan, PythonIsAChoiceAndAnotherOsUsesNothingOfTheMachine) {
  const std::string snapshot =
      std::string(GPUVET_SCENARIO_DIR) + "/linux_torch_cu121/snapshot.json";
  const Outcome other_os =
      gpuvet("plan tensorflow==2.10 --os windows --json --snapshot " + snapshot);
  EXPECT_EQ(other_os.status, 0) << other_os.out << other_os.err;
  const auto doc = nlohmann::json::parse(other_os.out);
  EXPECT_TRUE(doc["request"]["gpu"].is_null());
  EXPECT_TRUE(doc["request"]["driver"].is_null());
  EXPECT_TRUE(doc["request"]["preferred_python"].is_null());
  EXPECT_EQ(doc["request"]["origins"]["os"], "flag");
  EXPECT_TRUE(doc["blockers"].empty()) << other_os.out;
  // --python does constrain.
  const Outcome constrained = gpuvet("plan tensorflow==2.10 --os windows --python 3.11 --json");
  EXPECT_EQ(constrained.status, 1);
  EXPECT_EQ(nlohmann::json::parse(constrained.out)["blockers"][0]["id"],
            "python.version_unsupported");
}

// --env plans for an existing environment: its Python constrains; an unknown one is an error.
TEST(CliPlan, EnvironmentFlagUsesThatEnvironmentsPython) {
  const std::string snapshot =
      std::string(GPUVET_SCENARIO_DIR) + "/windows10_gtx1060_tf21_all_green/snapshot.json";
  const Outcome here = gpuvet("plan tensorflow==2.10 --here --json --snapshot " + snapshot);
  const auto doc = nlohmann::json::parse(here.out);
  EXPECT_EQ(doc["request"]["python"], "3.7");
  EXPECT_EQ(doc["request"]["origins"]["python"], "environment");
  EXPECT_FALSE(doc["request"]["environment"].is_null());
  const Outcome unknown = gpuvet("plan tensorflow==2.10 --env C:/nowhere --snapshot " + snapshot);
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("C:/nowhere"), std::string::npos) << unknown.err;
}

TEST(CliPlan, WriteDirectoryGetsTheEnvironmentFiles) {
  testing::TempDir dir;
  const Outcome run = gpuvet(
      "plan torch==2.1 --os linux --cc 8.6 --driver 535.104.05 "
      "--python 3.10 --no-color --write " +
      dir.path() + "/env");
  EXPECT_EQ(run.status, 0) << run.err;
  for (const char* name : {"requirements.txt", "environment.yml", "activate-gpu.sh"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/env/" + name)) << name;
  }
  EXPECT_NE(run.out.find("requirements.txt"), std::string::npos) << run.out;
}

TEST(CliPlan, WriteRefusesFilesAlreadyThereAndFollowsNoLink) {
  testing::TempDir dir;
  const std::string env = dir.path() + "/env";
  const std::string outside = dir.file("outside.txt", "precious\n");
  std::filesystem::create_directories(env);
  std::filesystem::create_symlink(outside, env + "/requirements.txt");
  std::filesystem::create_symlink(dir.path() + "/dangling-target", env + "/environment.yml");
  const std::string plan =
      "plan torch==2.1 --os linux --cc 8.6 --driver 535.104.05 --python 3.10 --write " + env;
  const Outcome refused = gpuvet(plan);
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(refused.err,
            "gpuvet: " + env + "/requirements.txt already exists; pass --force to replace it\n");
  EXPECT_TRUE(refused.out.empty());
  const Outcome forced = gpuvet(plan + " --force");
  EXPECT_EQ(forced.status, 0) << forced.err;
  EXPECT_EQ(*paths::read_file(outside, 100), "precious\n");
  EXPECT_FALSE(
      std::filesystem::exists(std::filesystem::symlink_status(dir.path() + "/dangling-target")));
  EXPECT_FALSE(std::filesystem::is_symlink(env + "/requirements.txt"));
}

TEST(CliPlan, BadRequestsAreOneLineWithExitTwo) {
  for (const char* args :
       {"plan", "plan caffe", "plan cupy==99 --os linux", "plan paddlepaddle-gpu==1.0 --os linux",
        "plan onnxruntime-gpu==0.1 --os linux", "plan tensorflow==9.9 --os linux",
        "plan tensorflow==2.x", "plan torch --os mac", "plan torch --cc 86",
        "plan torch --cc 8.6.1", "plan torch --gpu \"RTX 3061 Ultra\" --os linux",
        "plan torch --gpu x --cc 8.6", "plan torch --driver 5a5", "plan torch --python three",
        "plan jax==0.1 --os linux", "plan torch --snapshot /nonexistent.json",
        "plan torch --cuda 99.9 --os linux --cc 8.6 "
        "--driver 550.54.14 --python 3.10"}) {
    const Outcome run = gpuvet(args);
    EXPECT_EQ(run.status, 2) << args << ": " << run.out;
    EXPECT_EQ(line_count(run.err), 1u) << args << ": " << run.err;
    EXPECT_TRUE(run.out.empty()) << args;
  }
}

TEST(Cli, SnapshotToAnUnwritablePlaceIsAnError) {
  const Outcome run = gpuvet("snapshot -o /nonexistent-dir/x.json");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("/nonexistent-dir/x.json"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace gpuvet
