// Whether a log comes from the machine whose facts explain would use: each clue a log gives (its
// GPUs, NVIDIA driver, framework and cuDNN versions, Python environments) against hand-made
// facts, and the state each mix of clues leads to.
#include <gtest/gtest.h>

#include "explain/same_machine.hpp"
#include "explain_support.hpp"
#include "test_support.hpp"

namespace gpuvet::explain {
namespace {

LogFacts facts_of_log(std::string_view log) {
  Collector collector(testing::signatures());
  auto read = read_log_text(
      log, [&](size_t n, std::string_view line) { return collector.on_line(n, line); },
      [&](std::string_view lines) { return collector.first_candidate(lines); });
  EXPECT_TRUE(read.ok());
  return collector.log_facts();
}

// A Linux machine with an RTX 3060, driver 535.183.01, cuDNN 8.9.2 and torch 2.1.0 in a venv.
Facts linux_machine() {
  Facts f;
  f.os.family = "linux";
  f.hardware.pci_scanned = true;
  GpuFact gpu;
  gpu.name = "NVIDIA GeForce RTX 3060";
  f.gpus.push_back(gpu);
  f.driver = DriverFacts{};
  f.driver->installed = true;
  f.driver->version = "535.183.01";
  CudnnFact cudnn;
  cudnn.version = "8.9.2";
  f.cudnn.push_back(cudnn);
  PythonEnvFact env;
  env.path = "/home/dev/venvs/torch";
  env.site_packages = {"/home/dev/venvs/torch/lib/python3.10/site-packages"};
  FrameworkFact torch;
  torch.name = "torch";
  torch.package = "torch";
  torch.version = "2.1.0+cu121";
  env.frameworks.push_back(torch);
  f.python_envs.push_back(env);
  return f;
}

// A build server: a CUDA toolkit, no GPU on its bus, no driver, Python without frameworks.
Facts machine_without_gpu() {
  Facts f;
  f.os.family = "linux";
  f.hardware.pci_scanned = true;
  f.driver = DriverFacts{};
  f.driver->installed = false;
  PythonEnvFact env;
  env.path = "/usr";
  env.site_packages = {"/usr/lib/python3/dist-packages"};
  f.python_envs.push_back(env);
  return f;
}

std::vector<std::string> keys(const std::vector<MachineClue>& clues) {
  std::vector<std::string> out;
  for (const auto& c : clues)
    out.push_back(c.key);
  return out;
}

std::vector<std::string> clues_on(const Facts& machine, std::string_view log) {
  return keys(compare_with_machine(facts_of_log(log), machine, testing::embedded_kb(), nullptr));
}

using Keys = std::vector<std::string>;

TEST(SameMachine, TheLogsGpuAgainstTheMachines) {
  const std::string tf_device =
      "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 9634 MB memory:  -> "
      "device: 0, name: GeForce RTX 3060, pci bus id: 0000:01:00.0, compute capability: 8.6";
  EXPECT_EQ(clues_on(linux_machine(), tf_device), Keys{"explain.facts.clue.gpu.same"});
  EXPECT_EQ(clues_on(linux_machine(), "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5ca89547)"),
            Keys{"explain.facts.clue.gpu.other"});
  EXPECT_EQ(clues_on(linux_machine(), "|   0  Tesla T4            Off  | 00000000:00:04.0 Off |"),
            Keys{"explain.facts.clue.gpu.other"});
  EXPECT_EQ(clues_on(machine_without_gpu(), tf_device), Keys{"explain.facts.clue.gpu.absent"});
  // A machine nothing looked at for GPUs (no bus read, no driver answer) says nothing.
  Facts unknown;
  unknown.os.family = "linux";
  EXPECT_TRUE(clues_on(unknown, tf_device).empty());
  // A capability line that names no GPU is no clue.
  EXPECT_TRUE(clues_on(linux_machine(), "The minimum required Cuda capability is 3.5.").empty());
}

TEST(SameMachine, TheLogsDriverAgainstTheMachines) {
  EXPECT_EQ(clues_on(linux_machine(),
                     "| NVIDIA-SMI 535.183.01   Driver Version: 535.183.01   CUDA Version: 12.2 |"),
            Keys{"explain.facts.clue.driver.same"});
  // TensorFlow drops the leading zero: 535.183.1 is 535.183.01.
  EXPECT_EQ(clues_on(linux_machine(), "kernel reported version is: 535.183.1"),
            Keys{"explain.facts.clue.driver.same"});
  EXPECT_EQ(clues_on(linux_machine(),
                     "NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.82.01  Wed Oct 27"),
            Keys{"explain.facts.clue.driver.other"});
  EXPECT_EQ(clues_on(machine_without_gpu(), "Driver Version: 470.82.01"),
            Keys{"explain.facts.clue.driver.absent"});
  // The CUDA driver API's version is no driver version.
  EXPECT_TRUE(
      clues_on(linux_machine(), "CUDA driver version is insufficient for CUDA runtime version")
          .empty());
  EXPECT_TRUE(
      clues_on(linux_machine(), "Driver API Version: 11.3, Runtime API Version: 10.2").empty());
}

TEST(SameMachine, TheLogsFrameworksAndCudnnAgainstTheMachines) {
  EXPECT_EQ(clues_on(linux_machine(), "PyTorch version: 2.1.0+cu121"),
            Keys{"explain.facts.clue.framework.same"});
  EXPECT_EQ(clues_on(linux_machine(), "torch==1.13.1"), Keys{"explain.facts.clue.framework.other"});
  EXPECT_EQ(clues_on(linux_machine(), "TensorFlow version: 2.12.0"),
            Keys{"explain.facts.clue.framework.absent"});
  // A pip listing names the machine's distribution at another version.
  EXPECT_EQ(clues_on(linux_machine(), "torch                    1.13.1"),
            Keys{"explain.facts.clue.framework.other"});
  EXPECT_EQ(clues_on(linux_machine(),
                     "Loaded runtime CuDNN library: 8.9.2 but source was compiled with: 8.9.4."),
            Keys{"explain.facts.clue.cudnn.same"});
  EXPECT_EQ(clues_on(linux_machine(),
                     "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against "
                     "(8, 3, 2) but linked against (8, 0, 3)"),
            Keys{"explain.facts.clue.cudnn.other"});
  EXPECT_EQ(clues_on(machine_without_gpu(), "Loaded cuDNN version 8907"),
            Keys{"explain.facts.clue.cudnn.absent"});
}

TEST(SameMachine, TheLogsPythonEnvironmentsAgainstTheMachines) {
  EXPECT_EQ(clues_on(linux_machine(),
                     "  File \"/home/dev/venvs/torch/lib/python3.10/site-packages/torch/cuda/"
                     "__init__.py\", line 298, in _lazy_init"),
            Keys{"explain.facts.clue.python.same"});
  EXPECT_EQ(clues_on(linux_machine(),
                     "  File \"/opt/conda/lib/python3.8/site-packages/torch/cuda/__init__.py\""),
            Keys{"explain.facts.clue.python.other"});
  // Every Debian machine has /usr/lib/python3/dist-packages: that this one has it tells nothing;
  // one without /usr/local/lib/python3.8 is not the log's.
  EXPECT_TRUE(clues_on(machine_without_gpu(),
                       "  File \"/usr/lib/python3/dist-packages/pycuda/autoinit.py\", line 5")
                  .empty());
  EXPECT_EQ(clues_on(machine_without_gpu(),
                     "  File \"/usr/local/lib/python3.8/dist-packages/torch/__init__.py\""),
            Keys{"explain.facts.clue.python.other"});
  // A relative path, or a home the log does not name, is nobody's.
  EXPECT_TRUE(clues_on(linux_machine(), "in ./venv/lib/python3.10/site-packages (2.1.0)").empty());
  EXPECT_TRUE(
      clues_on(linux_machine(), "  File \"~/.local/lib/python3.10/site-packages/x.py\"").empty());
  // A warning's path is no clue: programs print one on every step.
  EXPECT_TRUE(clues_on(linux_machine(),
                       "/opt/x/lib/python3.8/site-packages/keras/optimizers.py:86: UserWarning: …")
                  .empty());

  // Windows: a repr's doubled backslashes, forward slashes and case are one directory.
  Facts windows;
  windows.os.family = "windows";
  PythonEnvFact env;
  env.site_packages = {"C:/Users/zhang/Miniconda3/envs/tf21-gpu/Lib/site-packages"};
  windows.python_envs.push_back(env);
  for (const char* log :
       {"  File \"C:\\Users\\zhang\\Miniconda3\\envs\\tf21-gpu\\lib\\site-packages\\tensorflow\\"
        "__init__.py\", line 3",
        "FileNotFoundError: Could not find module 'C:\\\\Users\\\\zhang\\\\miniconda3\\\\envs\\\\"
        "tf21-gpu\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\c10.dll'",
        "  File \"C:/Users/zhang/Miniconda3/envs/tf21-gpu/Lib/site-packages/torch/__init__.py\""}) {
    EXPECT_EQ(clues_on(windows, log), Keys{"explain.facts.clue.python.same"}) << log;
  }
  EXPECT_EQ(clues_on(windows,
                     "OSError: [WinError 126] Error loading \"D:\\venv\\Lib\\site-packages\\"
                     "torch\\lib\\fbgemm.dll\" or one of its dependencies."),
            Keys{"explain.facts.clue.python.other"});
}

TEST(SameMachine, TheStateFollowsTheClues) {
  const auto& kb = testing::embedded_kb();
  const auto& m = testing::messages();
  Finding no_gpu;
  no_gpu.id = "gpu.none";
  const auto state = [&](const Facts& machine, std::string_view log) {
    return facts_for_log(facts_of_log(log), machine, {no_gpu}, kb, m, nullptr);
  };
  // Nothing to tell: the findings are kept, to be said, and rank nothing.
  auto decided = state(machine_without_gpu(), "RuntimeError: No CUDA GPUs are available");
  EXPECT_EQ(decided.use.state, FactsUse::State::unknown_machine);
  ASSERT_TRUE(decided.machine);
  EXPECT_FALSE(decided.machine->ranks);
  // One clue that differs outweighs any that agree.
  decided = state(linux_machine(),
                  "  File \"/home/dev/venvs/torch/lib/python3.10/site-packages/torch/x.py\"\n"
                  "Driver Version: 470.82.01\n");
  EXPECT_EQ(decided.use.state, FactsUse::State::other_machine);
  EXPECT_FALSE(decided.machine);
  EXPECT_NE(decided.use.note.find("470.82.01"), std::string::npos) << decided.use.note;
  decided = state(linux_machine(), "Driver Version: 535.183.01\nNo CUDA GPUs are available");
  EXPECT_EQ(decided.use.state, FactsUse::State::used);
  ASSERT_TRUE(decided.machine);
  EXPECT_TRUE(decided.machine->ranks);
  // Another platform, as before.
  decided = state(linux_machine(), "OSError: [WinError 126] Error loading \"C:\\x\\fbgemm.dll\"");
  EXPECT_EQ(decided.use.state, FactsUse::State::other_machine);
}

// Unknown: the causes rank as with --no-facts, and one the checks also find says so.
TEST(SameMachine, UnknownMachinesFindingsOnlySpeak) {
  const std::string log =
      "RuntimeError: CUDA driver version is insufficient for CUDA runtime version";
  Finding no_gpu;
  no_gpu.id = "gpu.none";
  no_gpu.title = "No NVIDIA GPU on the PCI bus";
  const auto plain = testing::explain_by_signatures(log);
  const auto said = testing::explain_by_signatures(log, MachineFindings{{no_gpu}, "linux", false});
  ASSERT_EQ(plain.size(), said.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(plain[i].id, said[i].id);
    EXPECT_EQ(plain[i].confidence, said[i].confidence);
    EXPECT_FALSE(said[i].confirmed_by_facts.has_value());
    EXPECT_EQ(said[i].why.find("checks find it too") != std::string::npos, said[i].id == "gpu.none")
        << said[i].id << ": " << said[i].why;
  }
}

TEST(SameMachine, APromptOrJournalLineNamesItsHost) {
  EXPECT_EQ(host_of_line("alice@gpu-box:~/proj$ python train.py"), "gpu-box");
  EXPECT_EQ(host_of_line("(tf) bob@desk.lan:/home/bob# nvidia-smi"), "desk.lan");
  EXPECT_EQ(host_of_line("[root@node7 ~]# nvidia-smi"), "node7");
  EXPECT_EQ(host_of_line("Jan 08 19:28:33 myhost ollama[1234]: time=2025-01-08T19:28:33"),
            "myhost");
  EXPECT_EQ(host_of_line("Dec  5 07:01:02 srv1 kernel: NVRM: API mismatch"), "srv1");
  // Near misses: a git remote, a mail header, a journal line cut short, a time that is none, a
  // Windows prompt (no host in it).
  for (const char* line :
       {"git@github.com:org/repo.git", "From: bob@example.com", "Jan 08 19:28:33 something",
        "Jan 08 19:28 host prog: x", "Foo 08 19:28:33 host prog: x",
        "PS C:\\Users\\bob> python x.py", "alice@gpu-box:~/proj", "[root@node7 ~] nvidia-smi",
        "user@host: error", ""}) {
    EXPECT_EQ(host_of_line(line), std::nullopt) << line;
  }
}

TEST(SameMachine, TheLogsHostAgainstTheMachines) {
  Facts machine = linux_machine();
  machine.os.hostname = "gpu-box.example.org";
  EXPECT_EQ(clues_on(machine, "alice@GPU-BOX:~$ python x.py"),
            Keys{"explain.facts.clue.host.same"});
  EXPECT_EQ(clues_on(machine, "Jan 08 19:28:33 node7 ollama[12]: error"),
            Keys{"explain.facts.clue.host.other"});
  // An installer's default name and a container's id tell nothing; nor does a machine without one.
  EXPECT_TRUE(clues_on(machine, "root@ubuntu:~# nvidia-smi").empty());
  EXPECT_TRUE(clues_on(machine, "root@3f2a1b4c5d6e:/workspace# python x.py").empty());
  EXPECT_TRUE(clues_on(linux_machine(), "alice@gpu-box:~$ python x.py").empty());
}

// --same-machine: the user ran the program here, so the facts rank a log that shows nothing, and
// one whose clues differ says the machine has changed since; another platform stays another.
TEST(SameMachine, SaidSameUsesTheFactsButOnAnotherPlatform) {
  const auto& kb = testing::embedded_kb();
  const auto& m = testing::messages();
  const auto said = [&](std::string_view log) {
    return facts_for_log(facts_of_log(log), linux_machine(), {}, kb, m, nullptr, true);
  };
  auto decided = said("RuntimeError: No CUDA GPUs are available");
  EXPECT_EQ(decided.use.state, FactsUse::State::used);
  ASSERT_TRUE(decided.machine);
  EXPECT_TRUE(decided.machine->ranks);
  EXPECT_NE(decided.use.note.find("--same-machine"), std::string::npos) << decided.use.note;
  decided = said("Driver Version: 470.82.01\nNo CUDA GPUs are available");
  EXPECT_EQ(decided.use.state, FactsUse::State::used);
  EXPECT_NE(decided.use.note.find("470.82.01"), std::string::npos) << decided.use.note;
  EXPECT_NE(decided.use.note.find("changed since"), std::string::npos) << decided.use.note;
  decided = said("OSError: [WinError 126] Error loading \"C:\\x\\fbgemm.dll\"");
  EXPECT_EQ(decided.use.state, FactsUse::State::other_machine);
  EXPECT_FALSE(decided.machine);
  // Unsaid, the bare message is unknown, and its note says how to say it.
  decided = facts_for_log(facts_of_log("RuntimeError: No CUDA GPUs are available"), linux_machine(),
                          {}, kb, m, nullptr);
  EXPECT_EQ(decided.use.state, FactsUse::State::unknown_machine);
  EXPECT_NE(decided.use.note.find("--same-machine"), std::string::npos) << decided.use.note;
}

Cause cause_missing(const std::string& id, const std::string& lib) {
  Cause c;
  c.id = id;
  c.captures["lib"] = lib;
  c.unloaded_library = lib;
  return c;
}

// The causes of a real line that name the library it could not load.
std::map<std::string, std::string> unloaded(std::string_view log) {
  std::map<std::string, std::string> out;
  for (const auto& c : testing::explain_by_signatures(log))
    if (const auto lib = missing_library(c)) out[c.id] = *lib;
  return out;
}

using Unloaded = std::map<std::string, std::string>;

TEST(SameMachine, OnlyTheBareLibraryALineCouldNotLoadIsLookedUp) {
  EXPECT_EQ(unloaded("ImportError: libcublas.so.12: cannot open shared object file: No such file "
                     "or directory"),
            (Unloaded{{"cuda.version_mismatch", "libcublas.so.12"},
                      {"cuda.runtime_missing", "libcublas.so.12"}}));
  EXPECT_EQ(unloaded("W dso_loader.cc:55] Could not load dynamic library 'cudnn64_7.dll'; dlerror: "
                     "cudnn64_7.dll not found"),
            (Unloaded{{"cudnn.missing", "cudnn64_7.dll"}}));
  // The threads of a missing cuDNN DLL were also resolved as another CUDA: its absence does not
  // say that.
  const auto cudnn = unloaded("Could not load library cudnn_ops_infer64_8.dll. Error code 126");
  EXPECT_EQ(cudnn.count("cuda.version_mismatch"), 0u);
  EXPECT_EQ(cudnn.at("cudnn.missing"), "cudnn_ops_infer64_8.dll");
  // A path was opened and failed for another reason; an undefined symbol names a library that
  // loaded; a link flag is no file.
  for (const char* line :
       {"OSError: [WinError 126] Error loading \"C:\\x\\Lib\\site-packages\\torch\\lib\\"
        "cudnn_cnn_infer64_8.dll\" or one of its dependencies.",
        "OSError: /u/.local/lib/python3.8/site-packages/nvidia/cublas/lib/libcublas.so.11: "
        "undefined symbol: cublasLtHSHMatmulAlgoInit, version libcublasLt.so.11",
        "ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64-linux-"
        "gnu.so: undefined symbol: _ZN2at4_ops15to_dtype_layout4callERKNS_6TensorE",
        "/usr/bin/ld: cannot find -lnvinfer"}) {
    EXPECT_TRUE(unloaded(line).empty()) << line;
  }
}

// From the facts where the checks looked the name up (with a framework's RPATH); unknown where two
// lookups disagree, where nobody looked and there is no live system, and for another platform's
// library.
TEST(SameMachine, LibrariesAreLookedUpInTheFactsFirst) {
  Facts facts = linux_machine();
  LibraryFact found;
  found.name = "libcudnn.so.8";
  found.resolved =
      "/home/dev/venvs/torch/lib/python3.10/site-packages/nvidia/cudnn/lib/"
      "libcudnn.so.8";
  facts.python_envs[0].frameworks[0].libraries.push_back(found);
  LibraryFact missing;
  missing.name = "libcudart.so.11.0";
  facts.libraries.push_back(missing);
  MachineFindings machine{{}, "linux"};
  const std::vector<Cause> causes = {cause_missing("cudnn.missing", "libcudnn.so.8"),
                                     cause_missing("cuda.runtime_missing", "libcudart.so.11.0"),
                                     cause_missing("cuda.version_mismatch", "libcublas.so.12"),
                                     cause_missing("cudnn.missing", "cudnn64_8.dll")};
  look_up_libraries(machine, causes, facts, nullptr);
  ASSERT_EQ(machine.libraries.size(), 2u);
  EXPECT_EQ(machine.libraries.at("libcudnn.so.8"), found.resolved);
  EXPECT_EQ(machine.libraries.at("libcudart.so.11.0"), std::nullopt);

  LibraryFact other_env = missing;
  other_env.name = "libcudnn.so.8";
  facts.libraries.push_back(other_env);
  MachineFindings disagreeing{{}, "linux"};
  look_up_libraries(disagreeing, causes, facts, nullptr);
  EXPECT_FALSE(disagreeing.libraries.contains("libcudnn.so.8"));
}

// The loader's answer decides the CUDA family where the checks know no framework that asked:
// another CUDA only is a version mismatch, none a missing runtime, the same CUDA off the search
// path a missing runtime too. Where the loader finds it, the cause stays, undecided, saying where.
TEST(SameMachine, TheLoadersAnswerDecidesTheLibrarysCause) {
  const std::string log =
      "ImportError: libcublas.so.12: cannot open shared object file: No such "
      "file or directory\n";
  const auto first = [&](MachineFindings machine) {
    const auto causes = testing::explain_by_signatures(log, machine);
    EXPECT_FALSE(causes.empty());
    return causes.empty() ? Cause{} : causes.front();
  };
  MachineFindings machine{{}, "linux"};
  machine.libraries["libcublas.so.12"] = std::nullopt;
  machine.cuda_installs = {{"13.0.96", "/usr/local/cuda-13.0"}};
  Cause c = first(machine);
  EXPECT_EQ(c.id, "cuda.version_mismatch");
  EXPECT_EQ(c.confirmed_by_facts, true);
  EXPECT_NE(c.why.find("does not find libcublas.so.12"), std::string::npos) << c.why;
  EXPECT_NE(c.why.find("13.0.96 (/usr/local/cuda-13.0)"), std::string::npos) << c.why;

  machine.cuda_installs.clear();
  c = first(machine);
  EXPECT_EQ(c.id, "cuda.runtime_missing");
  EXPECT_EQ(c.confirmed_by_facts, true);
  EXPECT_NE(c.why.find("no CUDA toolkit"), std::string::npos) << c.why;

  machine.cuda_installs = {{"12.4.1", "/usr/local/cuda-12.4"}, {"13.0.96", "/usr/local/cuda"}};
  c = first(machine);
  EXPECT_EQ(c.id, "cuda.runtime_missing");
  EXPECT_EQ(c.confirmed_by_facts, true);

  machine.libraries["libcublas.so.12"] = "/opt/venv/nvidia/cublas/lib/libcublas.so.12";
  c = first(machine);
  EXPECT_EQ(c.id, "cuda.version_mismatch");
  EXPECT_FALSE(c.confirmed_by_facts.has_value());
  EXPECT_NE(c.why.find("finds libcublas.so.12 (/opt/venv/nvidia/cublas/lib/libcublas.so.12)"),
            std::string::npos)
      << c.why;

  // Nobody looked (a snapshot that did not record the name): nothing is ruled out.
  machine.libraries.clear();
  c = first(machine);
  EXPECT_EQ(c.id, "cuda.version_mismatch");
  EXPECT_FALSE(c.confirmed_by_facts.has_value());
  for (const auto& cause : testing::explain_by_signatures(log, machine))
    EXPECT_NE(cause.confirmed_by_facts, false) << cause.id;
}

// On the log's machine, a root error its checks find and no line names is a cause too: first for
// a log that names nothing, after what the log's lines name; never where the facts do not rank,
// nor one that follows from a lower layer's.
TEST(SameMachine, TheMachinesOwnFaultJoinsTheCauses) {
  Finding no_gpu;
  no_gpu.id = "gpu.none";
  no_gpu.severity = Severity::error;
  no_gpu.title = "No NVIDIA GPU on this machine";
  Finding follows;
  follows.id = "driver.missing";
  follows.severity = Severity::error;
  follows.follows_from = "gpu.none";
  const MachineFindings machine{{no_gpu, follows}, "linux"};
  auto causes =
      testing::explain_by_signatures("GPU not detected, training runs on the CPU\n", machine);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].id, "gpu.none");
  EXPECT_TRUE(causes[0].machine_only);
  EXPECT_EQ(causes[0].confirmed_by_facts, true);
  EXPECT_NE(causes[0].why.find("No line of the log names it"), std::string::npos) << causes[0].why;

  causes = testing::explain_by_signatures(
      "W dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: "
      "cannot open shared object file\n",
      machine);
  ASSERT_GE(causes.size(), 2u);
  EXPECT_EQ(causes[0].id, "cudnn.missing");
  EXPECT_EQ(causes[1].id, "gpu.none");
  for (const auto& c : causes)
    EXPECT_NE(c.id, "driver.missing");

  MachineFindings unknown = machine;
  unknown.ranks = false;
  for (const auto& c : testing::explain_by_signatures("GPU not detected\n", unknown))
    EXPECT_FALSE(c.machine_only) << c.id;
}

}  // namespace
}  // namespace gpuvet::explain
