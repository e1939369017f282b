// explain: the log reader, every signature against its real message and a near miss, the
// reasoning, and the accuracy on real excerpts from public issue threads.
#include <gtest/gtest.h>

#include <cstdint>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "core/text.hpp"
#include "explain/explain.hpp"
#include "explain/literal_filter.hpp"
#include "explain/log_reader.hpp"
#include "explain/similar_cases.hpp"
#include "explain_support.hpp"
#include "report/render_explain.hpp"
#include "test_support.hpp"

namespace gpuvet::explain {
namespace {

std::vector<std::string> lines_of(std::string_view bytes, size_t chunk = 0) {
  std::vector<std::string> lines;
  LogReader reader([&](size_t, std::string_view line) {
    lines.emplace_back(line);
    return true;
  });
  if (chunk == 0) {
    EXPECT_TRUE(reader.feed(bytes).ok());
  } else {
    for (size_t i = 0; i < bytes.size(); i += chunk)
      EXPECT_TRUE(reader.feed(bytes.substr(i, chunk)).ok());
  }
  EXPECT_TRUE(reader.finish().ok());
  return lines;
}

using testing::explain_by_signatures;
using testing::explain_text;

// Each line alone, explained, names `cause` first.
void expect_first_cause(const std::vector<std::string>& lines, const std::string& cause) {
  for (const auto& line : lines) {
    const auto causes = explain_text(line + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes[0].id, cause) << line;
  }
}

using testing::signatures;

// --- the log reader -------------------------------------------------------------------------

// A message a paste or a terminal wrapped over two lines is still read (tests/explain_corpus: f058,
// a118, e059), at a space or inside a word; what one line says alone is not said twice.
TEST(ExplainWrapped, AMessageCutOverTwoLinesIsJoined) {
  auto causes = explain_text(
      "RuntimeError: Backend 'gpu' failed to initialize: NOT_FOUND: Could not find \n"
      "registered platform with name: \"cuda\". Available platform names are: Host "
      "Interpreter\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "framework.cpu_only_build");
  EXPECT_EQ(causes[0].evidence.at(0).line, 1u);
  causes = explain_text(
      "I was hitting an error, `Loaded runtime CuD\nNN library: 8.1.0 but source "
      "was compiled with: 8.6.0.`\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "cudnn.version_mismatch");
  EXPECT_EQ(causes[0].captures.at("loaded"), "8.1.0");
  // Each line complete: no joined evidence beside them.
  causes = explain_text("ImportError: libcudnn.so.8: cannot open shared object file\ndone\n");
  ASSERT_FALSE(causes.empty());
  ASSERT_EQ(causes[0].evidence.size(), 1u);
  EXPECT_EQ(causes[0].evidence[0].line, 1u);
}

// A line a console broke at its width (cmd.exe copies at the buffer's width, 80 or 120) into
// three pieces or more is read whole: the signatures, the most specific of them naming the cause
// as on the whole line, and the reported cases.
std::string hard_wrapped(const std::string& line, size_t width) {
  std::string out;
  for (size_t pos = 0; pos < line.size(); pos += width)
    out += line.substr(pos, width) + "\n";
  return out;
}

TEST(ExplainWrapped, ALineBrokenAtTheConsolesWidthIsJoined) {
  // Behind a CI runner's time and a build step's prefix, pip's message for the missing Windows
  // CUDA jaxlib cut at 80 and at 120: of the signatures the joined pieces match, the most
  // specific (the Windows build, not pip's generic "Could not find a version") names the cause,
  // as on the whole line. Its words lie in two neighbouring pieces (for three, see below).
  const std::string pip =
      "2024-05-01T12:00:00.1234567Z #6 3.235 ERROR: Could not find a version that satisfies "
      "the requirement jaxlib==0.4.7+cuda11.cudnn86 (from versions: 0.4.13, 0.4.14, 0.4.16, "
      "0.4.17, 0.4.18, 0.4.19, 0.4.20)";
  const auto whole = explain_by_signatures(pip + "\n");
  ASSERT_FALSE(whole.empty());
  EXPECT_EQ(whole[0].id, "framework.windows_native_gpu_unsupported");
  for (const size_t width : {80u, 120u}) {
    const auto causes = explain_by_signatures(hard_wrapped(pip, width) + "C:\\Users\\me>\n");
    ASSERT_FALSE(causes.empty()) << width;
    EXPECT_EQ(causes[0].id, whole[0].id) << width;
  }
  // Cut at another width, or at the end of the log with its last piece as wide as the rest.
  EXPECT_EQ(explain_by_signatures(hard_wrapped(pip.substr(0, 240), 80)).at(0).id, whole[0].id);
}

// What names the cause lies in the first and the third of the pieces: only the whole line,
// joined from all three, says it. cuBLAS's status is in the first 80 bytes, the bfloat16 type
// its call was given from byte 156 on (corpus case V007, a Volta GPU). Read by pairs of pieces
// the line is only an unsupported cuBLAS call.
TEST(ExplainWrapped, AMessageSpreadOverThreePiecesIsJoined) {
  const std::string cublas =
      "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling "
      "`cublasGemmStridedBatchedEx(handle, opa, opb, (int)m, (int)n, (int)k, (void*)&falpha, a, "
      "CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, (int)ldb, strideb, (void*)&fbeta, c, "
      "CUDA_R_16BF, (int)ldc, stridec, (int)num_batches, compute_type, "
      "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`";
  // The type starts in the second piece and ends in the third.
  ASSERT_EQ(cublas.find("CUDA_R_16BF") / 80, 1u);
  const auto whole = explain_by_signatures(cublas + "\n");
  ASSERT_FALSE(whole.empty());
  EXPECT_EQ(whole[0].id, "device.bf16_unsupported");
  const auto cut = explain_by_signatures(hard_wrapped(cublas, 80) + "(venv) $\n");
  ASSERT_FALSE(cut.empty());
  EXPECT_EQ(cut[0].id, whole[0].id);
}

// A console's cut inside a name: what the explanation quotes is the whole name, whether the
// line was cut in two or in more (the pieces joined without a space complete the capture).
TEST(ExplainWrapped, ANameTheConsoleCutIsCapturedWhole) {
  const std::string pip = "ERROR: No matching distribution found for jaxlib==0.4.7+cuda11.cudnn86";
  const std::string filler = " (from the requirements in requirements.txt, line 4; see the log)";
  // Cut after "+cuda" (the first piece alone matches, shortened) and inside "cudnn86".
  for (const std::string cut_after : {"+cuda", "+cuda11.cud"}) {
    const size_t end = pip.find(cut_after) + cut_after.size();
    const std::string line = std::string(80 - end - 1, '.') + " " + pip;
    ASSERT_EQ(line.substr(0, 80).substr(80 - cut_after.size()), cut_after);
    for (const std::string& log : {line, line + filler + filler}) {
      const auto causes = explain_by_signatures(hard_wrapped(log, 80) + "$\n");
      ASSERT_FALSE(causes.empty()) << log;
      EXPECT_EQ(causes[0].id, "framework.windows_native_gpu_unsupported") << log;
      EXPECT_EQ(causes[0].captures.at("package"), "jaxlib==0.4.7+cuda11.cudnn86") << log;
    }
  }
}

// The reported cases compare the joined line: a word cut across two pieces is that word, not
// its halves (which the second case here holds).
TEST(ExplainWrapped, TheReportedCasesCompareTheJoinedLine) {
  const auto learnt = SimilarCases::from_jsonl(
      R"({"id":"x1","log":"error: gpukernelzephyrlib failed","primary":"cudnn.missing","split":"dev","url":"https://a"})"
      "\n"
      R"({"id":"x2","log":"error: gpukernelz ephyrlib failed","primary":"other","split":"dev","url":"https://b"})"
      "\n",
      "dev");
  ASSERT_TRUE(learnt.ok());
  std::string line = "error: ";
  line += std::string(70 - line.size(), '.');
  line += "gpukernelzephyrlib failed to start";
  line += std::string(200 - line.size(), '.');
  const auto first_similar = [&](const std::string& log) {
    Collector collector(signatures(), &*learnt);
    (void)read_log_text(log, [&](size_t n, std::string_view l) { return collector.on_line(n, l); });
    for (const auto& cause : collector.causes())
      if (cause.similar) return cause.id;
    return std::string();
  };
  EXPECT_EQ(first_similar(line + "\n"), "cudnn.missing");
  EXPECT_EQ(first_similar(hard_wrapped(line, 80)), "cudnn.missing");
  // Cut in two inside the word, then the prompt.
  EXPECT_EQ(first_similar(hard_wrapped(line.substr(0, 150), 80) + "$\n"), "cudnn.missing");
  // Not at a console's width: its pieces are compared.
  EXPECT_EQ(first_similar(hard_wrapped(line.substr(3), 77)), "other");
  // Two pieces that meet at a lower-case end and a capital ("compile" and "PyTorch") are lines
  // of their own.
  const std::string first_piece = "error: " + std::string(63, '.') + "gpukernelz";
  ASSERT_EQ(first_piece.size(), 80u);
  EXPECT_EQ(first_similar(first_piece + "\nephyrlib failed\n"), "cudnn.missing");
  EXPECT_EQ(first_similar(first_piece + "\nEphyrlib failed\n"), "other");
}

// Only the head of a log is joined: a big log keeps its fast path after it.
TEST(ExplainWrapped, OnlyTheHeadIsJoined) {
  const std::string filler(200 * 1024, 'x');
  std::string log;
  for (size_t i = 0; i < filler.size(); i += 100)
    log += filler.substr(i, 99) + "\n";
  log +=
      "RuntimeError: Backend 'gpu' failed to initialize: NOT_FOUND: Could not find \n"
      "registered platform with name: \"cuda\".\n";
  const auto causes = explain_by_signatures(log);
  EXPECT_TRUE(causes.empty() || causes[0].id != "framework.cpu_only_build");
}

// Windows words its loader errors in the display language: 126 (a module or one of its
// dependencies missing) and 127 (an entry point missing) in each language real threads show.
TEST(ExplainWindowsLanguages, LoaderErrorsInEveryDisplayLanguage) {
  const std::vector<std::string> module_missing = {
      "ImportError: DLL load failed while importing _C: 找不到指定的模块。",
      "ImportError: DLL load failed: 指定されたモジュールが見つかりません。",
      "ImportError: DLL load failed while importing cv2: Das angegebene Modul wurde nicht "
      "gefunden.",
      "ImportError: DLL load failed while importing win32api: Le module spécifié est introuvable.",
      "ImportError: DLL load failed: Не найден указанный модуль.",
      "ImportError: DLL load failed: 지정된 모듈을 찾을 수 없습니다.",
      "ImportError: DLL load failed while importing _C: No se puede encontrar el módulo "
      "especificado.",
      "OSError: [WinError 126] 指定されたモジュールが見つかりません。 Error loading "
      "\"C:\\x\\bin\\zz.dll\" or one of its dependencies.",
  };
  expect_first_cause(module_missing, "msvc.runtime_missing");
  const std::vector<std::string> entry_point_missing = {
      "ImportError: DLL load failed while importing _C: 指定されたプロシージャが見つかりません。",
      "ImportError: DLL load failed while importing QtCore: Die angegebene Prozedur wurde nicht "
      "gefunden.",
      "ImportError: DLL load failed: La procédure spécifiée est introuvable.",
      "ImportError: DLL load failed while importing _rust: Не найдена указанная процедура.",
      "ImportError: DLL load failed while importing _arpack: 지정된 프로시저를 찾을 수 없습니다.",
      "ImportError: DLL load failed while importing _gdal: No se encontró el proceso especificado.",
  };
  expect_first_cause(entry_point_missing, "lib.symbol_mismatch");
  // The Spanish words alone are an ordinary sentence, not a loader error.
  EXPECT_TRUE(explain_text("No se encontró el proceso especificado\n").empty());
}

// A compiled extension's own module (name_ext, name_kernel, name_cuda, _ext) missing a procedure
// was built for another torch, in every language; the loader's plain 127 stays a symbol mismatch.
TEST(ExplainWindowsLanguages, AnExtensionModuleMissingAProcedure) {
  const std::vector<std::string> extension_lines = {
      "ImportError: DLL load failed while importing exllamav2_ext: The specified procedure could "
      "not be found.",
      "ImportError: DLL load failed while importing _ext: 找不到指定的程序。",
      "DLL load failed while importing custom_rasterizer_kernel: 指定されたプロシージャが見つかりま"
      "せん。",
      "ImportError: DLL load failed while importing flash_attn_2_cuda: No se encontró el proceso "
      "especificado.",
  };
  expect_first_cause(extension_lines, "framework.extension_mismatch");
}

// The four causes round 42 brought to the taxonomy, each from real lines of its dev threads
// (tests/explain_corpus: GB003, UB006, MB003, UC001, UC003, UC006, RF003, MC009).
TEST(ExplainText, RoundFortyTwosCausesAreNamed) {
  expect_first_cause({"RuntimeError: Distributed package doesn't have NCCL built in"},
                     "nccl.unavailable_on_windows");
  expect_first_cause(
      {"        No CMAKE_C_COMPILER could be found.",
       "nvcc fatal   : Cannot find compiler 'cl.exe' in PATH",
       "torch._inductor.exc.InductorError: RuntimeError: Compiler: cl is not found."},
      "build.c_compiler_missing");
  expect_first_cause(
      {"Building DKMS module 'nvidia-580.142' for kernel-7.1.0_1... FAILED!\nDKMS module "
       "'nvidia-580.142' failed to build, please check /var/lib/dkms",
       "Compiler version check failed:", "Building and installing nvidia-kmod [FAILED]"},
      "driver.module_build_failed");
  expect_first_cause({"nvidia-container-cli: initialization error: driver rpc error: timed out: "
                      "unknown.",
                      "nvidia-persistenced failed to initialize. Check syslog for more details."},
                     "driver.persistenced_not_running");
  // CMake's missing CUDA compiler is the toolkit, not a C compiler.
  const auto cuda = explain_by_signatures("No CMAKE_CUDA_COMPILER could be found.\n");
  for (const auto& c : cuda)
    EXPECT_NE(c.id, "build.c_compiler_missing");
}

// The build log the message names goes into the fix; a line without one gets the usual places.
TEST(ExplainText, AFailedModuleBuildsFixNamesItsLog) {
  const auto dkms = explain_by_signatures(
      "Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)\n"
      "Consult /var/lib/dkms/nvidia/535.183.01/build/make.log for more information.\n");
  ASSERT_FALSE(dkms.empty());
  EXPECT_EQ(dkms[0].id, "driver.module_build_failed");
  ASSERT_FALSE(dkms[0].fix.empty());
  EXPECT_NE(dkms[0].fix.front().find("grep -n -m1 -i error /var/lib/dkms/nvidia/535.183.01/build/"
                                     "make.log"),
            std::string::npos)
      << dkms[0].fix.front();
  const auto akmods = explain_by_signatures(
      "Building rpms failed; see "
      "/var/cache/akmods/nvidia/590.44.01-1-for-6.17.10-300.fc43.aarch64.failed.log for "
      "details\n");
  ASSERT_FALSE(akmods.empty());
  EXPECT_EQ(akmods[0].id, "driver.module_build_failed");
  EXPECT_NE(akmods[0].fix.front().find("6.17.10-300.fc43.aarch64.failed.log"), std::string::npos);
  const auto modpost = explain_by_signatures(
      "ERROR: modpost: GPL-incompatible module nvidia.ko uses GPL-only symbol "
      "'rcu_read_unlock_strict'\n");
  ASSERT_FALSE(modpost.empty());
  EXPECT_NE(modpost[0].fix.front().find("/var/lib/dkms/nvidia/<version>/build/make.log"),
            std::string::npos);
}

// Text copied from a rendered page carries typographic apostrophes (’ is three bytes in the
// Latin-1 matching explain uses): a contraction matches either way.
TEST(ExplainText, TypographicApostrophesMatchLikeStraightOnes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"fabric manager NVIDIA GPU driver interface version 550.90.07 don’t match with "
       "driver version 550.107.02.",
       "driver.fabric_manager_not_running"},
      {"RuntimeError: Distributed package doesn’t have NCCL built in",
       "nccl.unavailable_on_windows"},
      {"ValueError: Your setup doesn’t support bf16/gpu.", "device.bf16_unsupported"},
      {"Couldn’t invoke ptxas --version", "cuda.ptxas_missing_or_old"},
  };
  for (const auto& [line, cause] : cases) {
    const auto causes = explain_text(line + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes[0].id, cause) << line;
  }
}

// The loader's dialog names the DLL it could not find: its family is the cause.
TEST(ExplainWindowsLanguages, TheLoaderDialogNamesTheMissingDll) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"The code execution cannot proceed because MSVCP140.dll was not found. Reinstalling the "
       "program may fix this problem.",
       "msvc.runtime_missing"},
      {"The program can't start because VCRUNTIME140_1.dll is missing from your computer.",
       "msvc.runtime_missing"},
      {"ollama_llama_server.exe - 系统错误：由于找不到VCRUNTIME140_1.dll，无法继续执行代码。",
       "msvc.runtime_missing"},
      // A program's own CUDA DLL missing: most threads had no CUDA runtime beside the program.
      {"The code execution cannot proceed because cublas64_11.dll was not found.",
       "cuda.runtime_missing"},
      {"由于找不到 cudart64_110.dll，无法继续执行代码。", "cuda.runtime_missing"},
      {"The code execution cannot proceed because cudnn64_8.dll was not found.", "cudnn.missing"},
      {"The code execution cannot proceed because zlibwapi.dll was not found.",
       "cudnn.zlibwapi_missing"},
  };
  for (const auto& [line, cause] : cases) {
    const auto causes = explain_text(line + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes[0].id, cause) << line;
  }
}

// nvcc refusing an architecture: one that no toolkit of the last two majors builds (compute_30,
// compute_35) is an architecture the toolkit dropped, named with its last toolkit; a newer one
// than the toolkit knows is an old toolkit; one only the newest major dropped (compute_61 under
// CUDA 13) stays the old-toolkit reading, the dropped architecture its alternative, named with
// its last toolkit.
TEST(ExplainNvccArchitectures, AnArchitectureOfThePastIsNamedWithItsLastToolkit) {
  struct Past {
    const char* log;
    const char* cc;
    const char* until;
  };
  const Past past[] = {
      {"nvcc fatal   : Unsupported gpu architecture 'compute_30'\n", "3.0", "10.2"},
      {"nvcc fatal   : Unsupported gpu architecture 'compute_35'\n", "3.5", "11.8"},
      // Older nvcc releases spell it "GPU"; CUDA 11's nvcc words it as an undefined value.
      {"nvcc fatal : Unsupported GPU architecture 'compute_30'\n", "3.0", "10.2"},
      {"nvcc fatal   : Value 'compute_30' is not defined for option 'gpu-architecture'\n", "3.0",
       "10.2"},
  };
  for (const auto& [log, cc, until] : past) {
    const auto causes = explain_text(log);
    ASSERT_FALSE(causes.empty()) << log;
    EXPECT_EQ(causes[0].id, "cuda.toolkit_dropped_arch") << log;
    EXPECT_EQ(causes[0].captures.at("cc"), cc) << log;
    EXPECT_EQ(causes[0].captures.at("until"), until) << log;
    EXPECT_NE(causes[0].why.find(std::string("CUDA ") + until), std::string::npos) << causes[0].why;
  }
  // Below every toolkit of the last two majors, where the table does not know the last one that
  // built it (CUDA 8.0's top architecture is unconfirmed): still dropped, and no "unknown".
  auto fermi = explain_text("nvcc fatal   : Unsupported gpu architecture 'compute_20'\n");
  ASSERT_FALSE(fermi.empty());
  EXPECT_EQ(fermi[0].id, "cuda.toolkit_dropped_arch");
  EXPECT_EQ(fermi[0].signatures.front(), "nvcc_arch_dropped");
  EXPECT_FALSE(fermi[0].captures.contains("until"));
  EXPECT_NE(fermi[0].why.find("compute capability 2.0"), std::string::npos) << fermi[0].why;
  EXPECT_EQ(fermi[0].why.find("unknown"), std::string::npos) << fermi[0].why;
  for (const char* arch : {"compute_61", "compute_89", "compute_120"}) {
    const auto causes =
        explain_text(std::string("nvcc fatal   : Unsupported gpu architecture '") + arch + "'\n");
    ASSERT_FALSE(causes.empty()) << arch;
    EXPECT_EQ(causes[0].id, "cuda.ptxas_missing_or_old") << arch;
    EXPECT_NE(causes[0].why.find("nvcc"), std::string::npos) << causes[0].why;
    const bool dropped_is_an_alternative = std::any_of(
        causes.begin(), causes.end(),
        [](const Cause& c) { return c.id == "cuda.toolkit_dropped_arch" && c.alternative; });
    EXPECT_TRUE(dropped_is_an_alternative) << arch;
  }
  // Only the newest major dropped compute_61: its last toolkit is named, among the first three
  // (threads with the message resolved either way); a GPU newer than the toolkit is not so read.
  const auto pascal = explain_text("nvcc fatal   : Unsupported gpu architecture 'compute_61'\n");
  ASSERT_GE(pascal.size(), 3u);
  const auto dropped = std::find_if(pascal.begin(), pascal.begin() + 3, [](const Cause& c) {
    return c.id == "cuda.toolkit_dropped_arch";
  });
  ASSERT_NE(dropped, pascal.begin() + 3);
  EXPECT_EQ(dropped->signatures.front(), "nvcc_arch_dropped_by_newest");
  EXPECT_EQ(dropped->captures.count("until") ? dropped->captures.at("until") : "", "12.9");
  EXPECT_NE(dropped->why.find("CUDA 12.9"), std::string::npos) << dropped->why;
  for (const char* arch : {"compute_89", "compute_120"}) {
    for (const auto& c : explain_text(std::string("nvcc fatal   : Unsupported gpu architecture '") +
                                      arch + "'\n")) {
      EXPECT_TRUE(c.signatures.empty() || c.signatures.front() != "nvcc_arch_dropped_by_newest")
          << arch;
    }
  }
}

// nvcc refusing its host compiler, in GCC's, Visual Studio's and Kaldi's words: the compiler is
// the cause, not the toolkit's version.
TEST(ExplainNvccHostCompiler, AnUnsupportedHostCompilerIsNamed) {
  for (const char* log :
       {"/usr/local/cuda/include/crt/host_config.h:132:2: error: #error -- unsupported GNU "
        "version! gcc versions later than 11 are not supported! The nvcc flag "
        "'-allow-unsupported-compiler' can be used to override this version check\n",
        "host_config.h(153): fatal error C1189: #error:  -- unsupported Microsoft Visual Studio "
        "version! Only the versions between 2017 and 2022 (inclusive) are supported!\n",
        "***configure failed: CUDA 9_1 does not support g++ (g++-7).   You need g++ < 7.0. "
        "***\n"}) {
    const auto causes = explain_by_signatures(log);
    ASSERT_FALSE(causes.empty()) << log;
    EXPECT_EQ(causes[0].id, "cuda.host_compiler_unsupported") << log;
    EXPECT_FALSE(causes[0].why.empty()) << log;
    ASSERT_FALSE(causes[0].fix.empty()) << log;
  }
  // GCC's own limit comes into the fix: the compiler to install.
  const auto gcc = explain_by_signatures(
      "#error -- unsupported GNU version! gcc versions later than 11 are not supported!\n");
  ASSERT_FALSE(gcc.empty());
  ASSERT_FALSE(gcc[0].fix.empty());
  EXPECT_NE(gcc[0].fix.front().find("GCC 11 or older"), std::string::npos) << gcc[0].fix.front();
  EXPECT_NE(gcc[0].fix.front().find("gcc-11 g++-11"), std::string::npos) << gcc[0].fix.front();
  // A host-compiler warning that stops nothing is not that cause.
  for (const auto& c : explain_by_signatures(
           "nvcc warning : The -std=c++17 flag is not supported with the configured host "
           "compiler. Flag will be ignored.\n"))
    EXPECT_NE(c.id, "cuda.host_compiler_unsupported");
}

// A version with PyTorch's +cpu local tag, in whatever line prints it, is a build without CUDA.
TEST(ExplainCpuBuilds, APlusCpuVersionIsACpuOnlyBuild) {
  for (const char* line : {"torch 2.1.0+cpu", "torch==2.3.1+cpu",
                           "    PyTorch 2.0.1+cu118 with CUDA 1108 (you have 2.0.1+cpu)",
                           ">>> torch.__version__\n'2.5.1+cpu'", "PyTorch version: 1.13.1+cpu"}) {
    const auto causes = explain_by_signatures(std::string(line) + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes[0].id, "framework.cpu_only_build") << line;
  }
  // conda says it in the build string: conda-forge's cpu_ builds, the pytorch channel's cpuonly.
  for (const char* line :
       {"  jaxlib             conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1",
        "pytorch                   1.13.1              py3.9_cpu_0    pytorch",
        "_pytorch_select           0.1                       cpu_0",
        "cpuonly                   2.0                           0    pytorch",
        "pytorch-cpu               2.1.2                cpu_generic_py311h2c8f7a3_0    "
        "conda-forge"}) {
    const auto causes = explain_by_signatures(std::string(line) + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes[0].id, "framework.cpu_only_build") << line;
  }
  EXPECT_TRUE(
      explain_by_signatures("pytorch   1.13.1   py3.9_cuda11.7_cudnn8.5.0_0   pytorch\n").empty());
  EXPECT_TRUE(explain_by_signatures("torch 2.1.0+cu121\n").empty());
  EXPECT_TRUE(explain_by_signatures("gcc version 12.2.0+cpufreq\n").empty());
  // The TensorFlow guide's own check, printed by a TensorFlow past its last Windows GPU release.
  const auto causes = explain_by_signatures(
      "TensorFlow version: 2.12.0\n"
      "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python310\\lib\\site-packages\\"
      "tensorflow\\__init__.py\nGPU is NOT AVAILABLE\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "framework.windows_native_gpu_unsupported");
}

// Two builds of one framework in a pip listing the log holds, in each format users paste: the
// rule of the machine's check (data/python_packages.csv), with the exact uninstall command.
TEST(ExplainListedBuilds, TwoBuildsOfOneFrameworkListedTogether) {
  for (const char* listing : {"Package            Version\nonnxruntime        1.16.3\n"
                              "onnxruntime-gpu    1.16.3\n",
                              "tensorflow==2.2.0\ntensorflow-gpu==2.2.0\n",
                              "[pip3] numpy==1.26.4\n[pip3] onnxruntime==1.17.1\n"
                              "[pip3] onnxruntime_gpu==1.17.1\n",
                              "tensorflow-gpu            2.4.1               pypi_0    pypi\n"
                              "tensorflow-cpu            2.4.1               pypi_0    pypi\n",
                              "Successfully installed coloredlogs-15.0.1 onnxruntime-1.16.3 "
                              "onnxruntime-gpu-1.16.3 opencv-python-4.13.0.90\n"}) {
    const auto causes = explain_by_signatures(listing);
    ASSERT_FALSE(causes.empty()) << listing;
    EXPECT_EQ(causes[0].id, "framework.conflicting_packages") << listing;
    EXPECT_EQ(causes[0].evidence.size(), 2u) << listing;
    ASSERT_FALSE(causes[0].fix.empty());
    EXPECT_NE(causes[0].fix.back().find("pip uninstall -y "), std::string::npos)
        << causes[0].fix.back();
  }
  // One build; TensorFlow with its Windows companion at one version; conda's own packages
  // (tensorflow-gpu pulls tensorflow in); a sentence that names two; one build pip removed after
  // installing both.
  for (const char* listing :
       {"onnxruntime-gpu    1.16.3\nnumpy 1.26.4\n", "tensorflow 2.10.0\ntensorflow-intel 2.10.0\n",
        "tensorflow                2.4.1           gpu_py38h8a7d6ce_0\n"
        "tensorflow-gpu            2.4.1                h30adc30_0\n",
        "I installed onnxruntime 1.16.3 and then onnxruntime-gpu 1.16.3\n",
        "Successfully installed onnxruntime-1.16.3 onnxruntime-gpu-1.16.3\n"
        "Successfully uninstalled onnxruntime-1.16.3\n"}) {
    for (const auto& c : explain_by_signatures(listing))
      EXPECT_NE(c.id, "framework.conflicting_packages") << listing;
  }
}

TEST(LogReader, CrlfAnsiAndCarriageReturnRedraws) {
  const auto lines = lines_of("a\r\n\x1b[31mE red\x1b[0m\r\n 10%|#   \r 90%|#########\r\nlast");
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "E red", " 90%|#########", "last"}));
}

TEST(LogReader, Utf16LittleEndianWithBomInAnyChunking) {
  // PowerShell 5's `>`: UTF-16LE with a BOM; a CJK character and a surrogate pair.
  const std::u16string text = u"错误: Could not load 'cudnn64_8.dll'\r\n\U0001F600 ok\r\n";
  std::string bytes = "\xFF\xFE";
  for (const char16_t u : text) {
    bytes.push_back(static_cast<char>(u & 0xFF));
    bytes.push_back(static_cast<char>(u >> 8));
  }
  for (const size_t chunk : {size_t{0}, size_t{1}, size_t{3}, size_t{7}}) {
    const auto lines = lines_of(bytes, chunk);
    ASSERT_EQ(lines.size(), 2u) << chunk;
    EXPECT_EQ(lines[0], "错误: Could not load 'cudnn64_8.dll'") << chunk;
    EXPECT_EQ(lines[1], "\xF0\x9F\x98\x80 ok") << chunk;
  }
}

// A Chinese Windows writes redirected output in GBK: "由于找不到
// cudart64_110.dll，无法继续执行代码。" and "OSError: [WinError 126] 找不到指定的模块。" as those
// bytes, read as what they say beside a UTF-8 line; a line that is neither (Latin-1) stays as it
// was.
TEST(LogReader, GbkLinesAreReadAsWhatTheySay) {
  const std::string dialog =
      "\xD3\xC9\xD3\xDA\xD5\xD2\xB2\xBB\xB5\xBD cudart64_110.dll\xA3\xAC\xCE\xDE\xB7\xA8"
      "\xBC\xCC\xD0\xF8\xD6\xB4\xD0\xD0\xB4\xFA\xC2\xEB\xA1\xA3";
  const std::string winerror =
      "OSError: [WinError 126] \xD5\xD2\xB2\xBB\xB5\xBD\xD6\xB8\xB6\xA8\xB5\xC4\xC4\xA3"
      "\xBF\xE9\xA1\xA3";
  for (const size_t chunk : {size_t{0}, size_t{1}, size_t{3}}) {
    const auto lines = lines_of(
        "\xE9\x94\x99\xE8\xAF\xAF\n" + dialog + "\r\n" + winerror + "\ncaf\xE9 ok\n", chunk);
    ASSERT_EQ(lines.size(), 4u) << chunk;
    EXPECT_EQ(lines[0], "错误") << chunk;
    EXPECT_EQ(lines[1], "由于找不到 cudart64_110.dll，无法继续执行代码。") << chunk;
    EXPECT_EQ(lines[2], "OSError: [WinError 126] 找不到指定的模块。") << chunk;
    EXPECT_EQ(lines[3], "caf\xE9 ok") << chunk;
  }
  // The Windows dialog's Chinese wording is recognised in it.
  const auto causes = explain_by_signatures(dialog + "\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "cuda.runtime_missing");
  EXPECT_EQ(causes[0].evidence.at(0).text, "由于找不到 cudart64_110.dll，无法继续执行代码。");
}

TEST(LogReader, CarriageReturnAloneEndsLinesWhenTheLogHasNoNewline) {
  for (const size_t chunk : {size_t{0}, size_t{1}, size_t{2}, size_t{5}}) {
    EXPECT_EQ(lines_of("first\rsecond\r\rfourth\r", chunk),
              (std::vector<std::string>{"first", "second", "", "fourth"}))
        << chunk;
  }
  // Decided on the first 64 KiB: after that \r, \n and \r\n each end one line.
  std::string log;
  while (log.size() < kLineEndSniffBytes)
    log += "step\r";
  const size_t steps = log.size() / 5;
  log += "a\r\nb\nc\rd";
  for (const size_t chunk : {size_t{0}, size_t{1000}, size_t{4096}}) {
    const auto lines = lines_of(log, chunk);
    ASSERT_EQ(lines.size(), steps + 4) << chunk;
    EXPECT_EQ(std::vector<std::string>(lines.end() - 4, lines.end()),
              (std::vector<std::string>{"a", "b", "c", "d"}))
        << chunk;
  }
}

TEST(LogReader, FilesBeyondTheLimitAndDirectoriesAreErrors) {
  testing::TempDir dir;
  const auto sink = [](size_t, std::string_view) { return true; };
  const std::string log = dir.file("train.log", std::string(3000, 'x') + "\n");
  EXPECT_TRUE(read_log_file(log, sink, {}, 4000).ok());
  const auto big = read_log_file(log, sink, {}, 2000);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("larger than 2000 bytes"), std::string::npos)
      << big.error().message;
  const auto directory = read_log_file(dir.path(), sink);
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().message, dir.path() + ": is a directory");
}

TEST(LogReader, Utf8BomIsDropped) {
  EXPECT_EQ(lines_of("\xEF\xBB\xBFline"), (std::vector<std::string>{"line"}));
}

TEST(LogReader, BinaryEmptyAndBlankInputAreErrors) {
  EXPECT_FALSE(
      read_log_text(std::string("ab\0cd", 5), [](size_t, std::string_view) { return true; }).ok());
  EXPECT_FALSE(read_log_text("", [](size_t, std::string_view) { return true; }).ok());
  EXPECT_FALSE(read_log_text(" \n\t\r\n", [](size_t, std::string_view) { return true; }).ok());
}

// Random bytes with no NUL in them (a compressed file, an image) are binary too; a real log with
// colour codes, progress-bar redraws, backspaces and GBK-encoded Chinese is text.
TEST(LogReader, ControlBytesWithoutANulAreBinary) {
  const auto accept = [](size_t, std::string_view) { return true; };
  std::string random;
  std::uint32_t state = 12345;
  while (random.size() < 8192) {
    state = state * 1664525u + 1013904223u;  // a fixed LCG: the same bytes on every machine
    const char c = static_cast<char>(state >> 24);
    if (c != '\0') random += c;
  }
  const auto refused = read_log_text(random, accept);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("binary data"), std::string::npos);

  std::string log;
  while (log.size() < 8192) {
    log +=
        "\x1b[32mEpoch 1/10\x1b[0m\r 12/100 [==>...] - ETA: 3s\b\b\r100/100 [====] loss: 0.3\n"
        "2020-04-01 W tensorflow/stream_executor/platform/default/dso_loader.cc:55] "
        "\xd5\xd2\xb2\xbb\xb5\xbd\xd6\xb8\xb6\xa8\xb5\xc4\xc4\xa3\xbf\xe9 cudnn64_7.dll\n";
  }
  EXPECT_TRUE(read_log_text(log, accept).ok());
  // Too short to judge: a few odd bytes are not "binary".
  EXPECT_TRUE(read_log_text(random.substr(0, 100) + "\nImportError: libcudnn.so.8\n", accept).ok());
}

TEST(LogReader, HugeLinesAreCutNotKept) {
  std::string big(kMaxLineBytes * 3, 'x');
  big += "\nnext\n";
  const auto lines = lines_of(big);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), kMaxLineBytes);
  EXPECT_EQ(lines[1], "next");
}

// The fast path (only lines with a candidate literal or an escape sequence are delivered) finds
// the same lines at the same line numbers as reading line by line, whatever the chunking, and
// delivers few lines.
TEST(LogReader, CandidateFinderKeepsLineNumbers) {
  std::string log;
  for (int i = 0; i < 20000; ++i) {
    log += "epoch " + std::to_string(i) + " loss 0.1\r\n";
    if (i == 7777) log += "RuntimeError: CUDA out of memory. Tried to allocate\n";
    if (i == 7778) log += "could not parse the config, carrying on\n";  // a literal, no match
    if (i == 9000) log += std::string(kMaxLineBytes + 10, '=') + "\n";
    if (i == 15000) log += "\x1b[31mCould not load dynamic library 'cudnn64_8.dll'\x1b[0m\n";
    if (i == 15001) log += "Could not load dynamic library 'libcudart.so.11.0'; dlerror\n";
  }
  std::vector<size_t> expected;
  {
    LogReader plain([&](size_t n, std::string_view line) {
      if (!signatures().match(line).empty()) expected.push_back(n);
      return true;
    });
    ASSERT_TRUE(plain.feed(log).ok());
    ASSERT_TRUE(plain.finish().ok());
  }
  ASSERT_EQ(expected, (std::vector<size_t>{7779, 15005, 15007}));
  for (const size_t chunk : {size_t{13}, size_t{4096}, size_t{65536}, log.size()}) {
    std::vector<size_t> found;
    size_t delivered = 0;
    LogReader fast([&](size_t n, std::string_view line) {
      ++delivered;
      if (!signatures().match(line).empty()) found.push_back(n);
      return true;
    });
    fast.set_candidate_finder(
        [](std::string_view lines) { return signatures().first_candidate(lines); });
    for (size_t i = 0; i < log.size(); i += chunk)
      ASSERT_TRUE(fast.feed(std::string_view(log).substr(i, chunk)).ok());
    auto summary = fast.finish();
    ASSERT_TRUE(summary.ok());
    EXPECT_EQ(found, expected) << chunk;
    EXPECT_EQ(summary->lines, 20005u) << chunk;
    // Whole chunks: the candidate lines, and the one left open at each chunk's end.
    if (chunk >= 4096) {
      EXPECT_LT(delivered, 4 + 2 * (log.size() / chunk + 1)) << chunk;
    }
  }
}

// --- signatures -----------------------------------------------------------------------------

TEST(Signatures, EveryRowMatchesItsExampleAndNotItsNearMiss) {
  const auto& all = signatures().all();
  ASSERT_GT(all.size(), 20u);
  for (size_t i = 0; i < all.size(); ++i) {
    const Signature& s = all[i];
    ASSERT_FALSE(s.example.empty()) << s.id;
    ASSERT_FALSE(s.near_miss.empty()) << s.id;
    const auto hits = signatures().match(s.example);
    EXPECT_TRUE(std::any_of(hits.begin(), hits.end(),
                            [&](const SignatureHit& h) { return h.signature == i; }))
        << s.id << " does not match its example: " << s.example;
    const auto misses = signatures().match(s.near_miss);
    EXPECT_FALSE(std::any_of(misses.begin(), misses.end(),
                             [&](const SignatureHit& h) { return h.signature == i; }))
        << s.id << " matches its near miss: " << s.near_miss;
    EXPECT_FALSE(s.source.empty()) << s.id;
  }
}

// The prefilter is only sound when every match holds one of its signature's literals, and only
// fast when each literal has Teddy's four bytes: one shorter literal turns the whole scan to
// Wu-Manber, one of two bytes turns the prefilter off.
TEST(Signatures, EveryExampleHoldsOneOfItsLiterals) {
  std::vector<std::string> all;
  for (const auto& s : signatures().all()) {
    ASSERT_FALSE(s.literals.empty()) << s.id;
    for (const auto& literal : s.literals) {
      EXPECT_GE(literal.size(), 4u) << s.id << ": " << literal;
      all.push_back(literal);
    }
    const LiteralFilter own(s.literals);
    EXPECT_TRUE(own.any_in(s.example)) << s.id << ": " << s.example;
  }
  EXPECT_TRUE(LiteralFilter(all).filters());
}

TEST(LiteralFilter, FindsAnyLiteralIgnoringCaseAndSkipsTheRest) {
  const LiteralFilter f({"could not ", "out of memory", "undefined symbol: "});
  ASSERT_TRUE(f.filters());
  EXPECT_TRUE(f.any_in("RuntimeError: CUDA OUT OF MEMORY. Tried"));
  EXPECT_TRUE(f.any_in("x Could not load"));
  EXPECT_TRUE(f.any_in("undefined symbol: "));
  EXPECT_FALSE(f.any_in("epoch 1/10 - loss: 0.25 - could no"));
  EXPECT_FALSE(f.any_in(""));
  EXPECT_FALSE(LiteralFilter({"ab"}).filters());
  // At every offset of a long text.
  std::string text(1000, '.');
  for (size_t at = 0; at + 13 <= text.size(); at += 37) {
    std::string t = text;
    t.replace(at, 13, "out of memory");
    EXPECT_TRUE(f.any_in(t)) << at;
  }
}

// The SIMD Teddy scan offers exactly the candidates the byte-at-a-time one does, in order.
TEST(LiteralFilter, SimdTeddyOffersTheScalarCandidates) {
  if (!teddy::simd_supported()) GTEST_SKIP() << "no SIMD Teddy scan on this CPU";
  teddy::Masks masks;
  const std::vector<std::string> literals = {"could", "nccl", "out_",
                                             "ptxa",  "[cud", "\xE4\xB8\xAD "};
  for (size_t i = 0; i < literals.size(); ++i)
    teddy::add_literal(masks, reinterpret_cast<const unsigned char*>(literals[i].data()), i);
  struct Seen {
    std::vector<std::pair<size_t, std::uint8_t>> candidates;
    size_t accept_at;
  };
  const teddy::Verify record = [](const void* context, size_t position, std::uint8_t buckets) {
    auto& seen = *static_cast<Seen*>(const_cast<void*>(context));
    seen.candidates.emplace_back(position, buckets);
    return position == seen.accept_at;
  };
  std::mt19937 rng(5);
  const std::string alphabet = "cdlnoptuxCOUL_[{@`\xE4\xB8\xAD ";
  for (int round = 0; round < 2000; ++round) {
    std::string text(rng() % 200, ' ');
    for (char& c : text)
      c = alphabet[rng() % alphabet.size()];
    const auto* data = reinterpret_cast<const unsigned char*>(text.data());
    const size_t from = text.empty() ? 0 : rng() % (text.size() + 1);
    const size_t accept_at = rng() % 2 ? rng() % (text.size() + 1) : text.size();
    Seen scalar{{}, accept_at};
    Seen simd{{}, accept_at};
    const size_t a = teddy::find_scalar(masks, data, text.size(), from, record, &scalar);
    const size_t b = teddy::find(masks, data, text.size(), from, record, &simd);
    ASSERT_EQ(a, b) << round;
    ASSERT_EQ(scalar.candidates, simd.candidates) << round;
  }
}

// Both scans against a byte-by-byte search, on texts from an alphabet where case and the bit-5
// pairs (@ `, [ {, ^ ~) collide, with literals planted at random offsets and in random case.
TEST(LiteralFilter, BothScansFindTheLeftmostLiteral) {
  const std::vector<std::string> literals = {"could not ",
                                             "out of memory",
                                             "no kernel image",
                                             "nccl warn",
                                             "[cuDNN]`x",
                                             "ptxas returned",
                                             "\xE4\xB8\xAD\xE6\x96\x87"
                                             "abc"};
  const auto naive = [&](std::string_view text) {
    const auto lower = [](std::string_view in) {
      std::string out(in);
      for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return out;
    };
    const std::string t = lower(text);
    size_t best = std::string_view::npos;
    for (const auto& literal : literals)
      best = std::min(best, t.find(lower(literal)));
    return best;
  };
  const std::string alphabet = "abcdeknoprstuwxCDKNOTU @`[{^~_.0\xE4\xB8\xAD";
  std::mt19937 rng(11);
  const LiteralFilter teddy(literals, LiteralFilter::Scan::teddy);
  const LiteralFilter wu_manber(literals, LiteralFilter::Scan::wu_manber);
  const LiteralFilter best(literals);
  for (int round = 0; round < 3000; ++round) {
    std::string text(rng() % 300, ' ');
    for (char& c : text)
      c = alphabet[rng() % alphabet.size()];
    for (unsigned plant = rng() % 3; plant > 0 && !text.empty(); --plant) {
      std::string literal = literals[rng() % literals.size()];
      for (char& c : literal) {
        if (rng() % 2) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      }
      if (rng() % 4 == 0) literal.pop_back();  // a near miss
      text.insert(rng() % text.size(), literal);
    }
    const size_t expected = naive(text);
    ASSERT_EQ(teddy.find(text), expected) << round << ": " << text;
    ASSERT_EQ(wu_manber.find(text), expected) << round << ": " << text;
    ASSERT_EQ(best.find(text), expected) << round << ": " << text;
  }
}

TEST(Signatures, CausesAreTaxonomyIds) {
  auto taxonomy = testing::embedded_kb().table("taxonomy");
  ASSERT_TRUE(taxonomy.ok());
  std::set<std::string> ids;
  for (size_t row = 0; row < (*taxonomy)->size(); ++row)
    ids.insert((*taxonomy)->cell(row, "id"));
  for (const auto& s : signatures().all()) {
    if (s.fact) {
      EXPECT_TRUE(s.cause.starts_with("platform.") || s.cause.starts_with("version.") ||
                  s.cause == "package.listed" || s.cause == "package.installed" ||
                  s.cause == "gpu.named" || s.cause == "path.site_packages" ||
                  s.cause == "runtime.on_device" || s.cause == "framework.module")
          << s.id;
      continue;
    }
    std::vector<std::string> causes = s.also;
    causes.push_back(s.cause);
    for (const auto& cause : causes) {
      EXPECT_TRUE(ids.count(cause)) << s.id << ": " << cause;
      EXPECT_TRUE(testing::messages().has("explain.why." + cause)) << s.id << ": " << cause;
      EXPECT_TRUE(testing::messages().has("explain.fix." + cause)) << s.id << ": " << cause;
    }
    EXPECT_EQ(std::count(s.also.begin(), s.also.end(), s.cause), 0) << s.id;
    if (s.cause != explain::kInformationalCause) continue;
    // A note's literals mark a line harmless wherever it is: its example is one, and the note
    // says what the line means, with no other cause to rule out.
    EXPECT_TRUE(is_harmless_line(s.example)) << s.id;
    EXPECT_FALSE(s.symptom) << s.id;
    EXPECT_TRUE(s.also.empty()) << s.id;
    EXPECT_TRUE(testing::messages().has("explain.why." + s.cause + "." + s.id)) << s.id;
  }
}

// --- reasoning ------------------------------------------------------------------------------

// The first causes, in this order, each named by a line (none an alternative).
void expect_named_first(const std::vector<Cause>& causes, const std::vector<std::string>& ids) {
  ASSERT_GE(causes.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(causes[i].id, ids[i]) << i;
    EXPECT_FALSE(causes[i].alternative) << ids[i];
  }
}

// A finding of the machine's checks, as explain's facts.
Finding machine_finding(std::string id, std::string title, std::string fix) {
  Finding finding;
  finding.id = std::move(id);
  finding.title = std::move(title);
  finding.fix = {std::move(fix)};
  return finding;
}

// The causes a log's lines name, without the alternatives ranked after them.
std::vector<explain::Cause> named(std::vector<explain::Cause> causes) {
  std::erase_if(causes, [](const explain::Cause& c) { return c.alternative; });
  return causes;
}

TEST(Reasoning, CapturesAreInterpretedWithTheKnowledgeBase) {
  auto causes = explain_by_signatures(
      "W dso_loader.cc:55] Could not load dynamic library 'cudart64_101.dll'; dlerror: "
      "cudart64_101.dll not found\n");
  ASSERT_EQ(named(causes).size(), 1u);
  // Threads with this line mostly had another CUDA installed; a missing CUDA comes next.
  EXPECT_EQ(causes[0].id, "cuda.version_mismatch");
  EXPECT_EQ(causes[0].captures.at("cuda"), "10.1");
  EXPECT_NE(causes[0].why.find("CUDA 10.1"), std::string::npos) << causes[0].why;
  EXPECT_EQ(causes[0].why.find("unknown"), std::string::npos) << causes[0].why;
  EXPECT_EQ(causes[0].evidence.at(0).line, 1u);
  ASSERT_GE(causes.size(), 2u);
  EXPECT_EQ(causes[1].id, "cuda.runtime_missing");
  EXPECT_TRUE(causes[1].alternative);

  causes = explain_by_signatures(
      "E cuda_dnn.cc:324] Loaded runtime CuDNN library: 7.4.1 but source was compiled with: 7.6.5."
      "  CuDNN library major and minor version needs to match\n");
  ASSERT_EQ(named(causes).size(), 1u);
  EXPECT_EQ(causes[0].id, "cudnn.version_mismatch");
  EXPECT_NE(causes[0].why.find("7.4.1"), std::string::npos);
  EXPECT_NE(causes[0].why.find("7.6.5"), std::string::npos);
  // Some threads with this line had a stray older cuDNN loaded first: the alternative after it.
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[1].id, "lib.shadowed_copy");
  EXPECT_TRUE(causes[1].alternative);
}

TEST(Reasoning, TheRootCauseOutranksItsSymptomsAndLaterLayers) {
  const auto causes = explain_text(
      "2023-01-01 W tensorflow/core/common_runtime/gpu/gpu_device.cc:1598] Cannot dlopen some GPU "
      "libraries.\n"
      "Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found\n"
      "tensorflow.python.framework.errors_impl.UnimplementedError: DNN library is not found.\n"
      "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n");
  ASSERT_GE(causes.size(), 2u);
  // CUDA and cuDNN both missing: one cause for both lines, before "another CUDA version".
  EXPECT_EQ(causes[0].id, "cuda.runtime_missing");
  EXPECT_EQ(causes[0].captures.at("cuda"), "11.x");
  EXPECT_EQ(causes[1].id, "cudnn.missing");
  EXPECT_FALSE(causes[1].symptom_only);
}

// A signature's `also`: what threads with the same message resolved to, after what the log names.
TEST(Reasoning, AlternativesRankAfterWhatTheLogNames) {
  const auto causes = explain_by_signatures(
      "$ nvidia-smi\n"
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
      "that the latest NVIDIA driver is installed and running.\n"
      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n");
  ASSERT_GE(causes.size(), 4u);
  expect_named_first(causes, {"driver.module_not_loaded", "memory.oom"});
  // Then the alternatives, each with the line behind it; one signature's in the order it lists
  // them (nvidia-smi's: Secure Boot, then no driver at all).
  for (size_t i = 2; i < causes.size(); ++i) {
    EXPECT_TRUE(causes[i].alternative) << causes[i].id;
    EXPECT_NE(causes[i].why.find(testing::messages().text("explain.alternative")),
              std::string::npos);
  }
  const auto at = [&](const std::string& id) {
    return std::find_if(causes.begin(), causes.end(), [&](const Cause& c) { return c.id == id; });
  };
  ASSERT_NE(at("driver.secure_boot_blocked"), causes.end());
  ASSERT_NE(at("driver.missing"), causes.end());
  EXPECT_LT(at("driver.secure_boot_blocked"), at("driver.missing"));
  EXPECT_EQ(at("driver.secure_boot_blocked")->evidence.at(0).line, 2u);
  std::set<std::string> ids;
  for (const auto& c : causes)
    EXPECT_TRUE(ids.insert(c.id).second) << "twice: " << c.id;
  const auto json = nlohmann::json::parse(report::render_explain_json(causes));
  EXPECT_EQ(json["causes"][0]["alternative"], false);
  EXPECT_EQ(json["causes"][2]["alternative"], true);
}

// A cause named by one line and offered as another line's alternative is named.
TEST(Reasoning, ANamedCauseIsNeverAnAlternative) {
  const auto causes = explain_text(
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
      "modprobe: ERROR: could not insert 'nvidia': Required key not available\n");
  // Both named, in the driver layer: Secure Boot, the more certain, first.
  expect_named_first(causes, {"driver.secure_boot_blocked", "driver.module_not_loaded"});
}

// No CUDA installed at all, or one of another version: the machine's facts decide.
TEST(Reasoning, TheFactsDecideWhichOfAFamily) {
  const Finding finding =
      machine_finding("cuda.runtime_missing",
                      "tensorflow 2.10.0 needs cudart64_110.dll, and no directory on PATH has it",
                      "Install CUDA 11.2");
  const auto causes = explain_text(
      "W dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: "
      "cudart64_110.dll not found\n",
      MachineFindings{{finding}, ""});
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "cuda.runtime_missing");
  EXPECT_EQ(causes[0].confirmed_by_facts, true);
  EXPECT_FALSE(causes[0].alternative);
  for (size_t i = 1; i < causes.size(); ++i)
    EXPECT_NE(causes[i].id, "cuda.runtime_missing") << i;
}

TEST(LogFacts, ThePlatformComesFromPathsAndLibraries) {
  const auto platform_of = [](std::string_view text) {
    Collector collector(signatures());
    EXPECT_TRUE(read_log_text(text, [&](size_t n, std::string_view l) {
                  return collector.on_line(n, l);
                }).ok());
    return log_platform(collector.log_facts());
  };
  EXPECT_EQ(platform_of("Could not load dynamic library 'cudart64_110.dll'\n"), "windows");
  EXPECT_EQ(platform_of("ImportError: libcudart.so.11.0: cannot open shared object file\n"),
            "linux");
  // WSL prints Linux paths too; its own marks win.
  EXPECT_EQ(platform_of("File \"/home/u/venv/lib/python3.10/site-packages/x.py\"\n"
                        "ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\n"),
            "wsl");
  EXPECT_EQ(platform_of("RuntimeError: CUDA out of memory.\n"), "");
  // Paths of two platforms: unknown, never a guess.
  EXPECT_EQ(platform_of("C:\\Users\\me\\x.py\nFile \"/home/me/x.py\"\n"), "");
  // A macOS home directory; Windows writes its own with a drive letter (C:/Users/...).
  EXPECT_EQ(platform_of("  File \"/Users/dk/opt/miniconda3/lib/python3.8/site-packages/x.py\"\n"),
            "macos");
  EXPECT_EQ(platform_of("  File \"C:/Users/dk/miniconda3/lib/site-packages/x.py\"\n"), "");
  EXPECT_TRUE(same_platform("", "linux"));
  EXPECT_TRUE(same_platform("windows", ""));
  EXPECT_FALSE(same_platform("windows", "linux"));
  EXPECT_FALSE(same_platform("wsl", "linux"));
}

// TensorFlow after 2.10 on native Windows finds no GPU: that limit, not a broken install.
TEST(LogFacts, NewTensorflowOnNativeWindowsIsThePlatformLimit) {
  const std::string log =
      "C:\\Users\\me> python -c \"import tensorflow as tf; print(tf.__version__); "
      "print(tf.config.list_physical_devices('GPU'))\"\n"
      "TensorFlow version: 2.12.0\n"
      "tf.config.list_physical_devices('GPU') # [] is returned\n";
  auto causes = explain_text(log);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "framework.windows_native_gpu_unsupported");
  EXPECT_NE(causes[0].why.find("2.12.0"), std::string::npos) << causes[0].why;
  EXPECT_NE(causes[0].why.find("2.10"), std::string::npos) << causes[0].why;
  EXPECT_EQ(causes[0].evidence.at(0).line, 2u);
  // TensorFlow 2.10 there still has its GPU build: no limit.
  causes = explain_text(std::string(log).replace(log.find("2.12.0"), 6, "2.10.1"));
  ASSERT_FALSE(causes.empty());
  EXPECT_NE(causes[0].id, "framework.windows_native_gpu_unsupported");
  // Nor on Linux.
  causes = explain_text(
      "File \"/home/me/a.py\"\nTensorFlow version: 2.12.0\n"
      "tf.config.list_physical_devices('GPU') # [] is returned\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_NE(causes[0].id, "framework.windows_native_gpu_unsupported");
  for (const auto& c : causes) {
    if (c.id == "framework.windows_native_gpu_unsupported") {
      EXPECT_TRUE(c.off_platform);
    }
  }
}

// CUDA does not run on macOS (data/platform_without_cuda.csv): a Mac's log that finds no CUDA is
// that, and the CPU-only build it prints follows from it; the same lines from Linux are the build.
TEST(LogFacts, AMacFindsNoCudaBecauseMacOsHasNone) {
  const std::string lines =
      "torch/cuda/__init__.py\", line 239, in _lazy_init\n"
      "AssertionError: Torch not compiled with CUDA enabled\n";
  auto causes =
      explain_text("  File \"/Users/dk/opt/miniconda3/envs/a/lib/python3.8/site-packages/" + lines);
  ASSERT_GE(causes.size(), 2u);
  EXPECT_EQ(causes[0].id, "gpu.none");
  EXPECT_FALSE(causes[0].alternative);
  EXPECT_NE(causes[0].why.find("macOS"), std::string::npos) << causes[0].why;
  EXPECT_NE(causes[0].why.find("CUDA 10.2"), std::string::npos) << causes[0].why;
  EXPECT_EQ(causes[1].id, "framework.cpu_only_build");
  EXPECT_TRUE(causes[1].alternative);

  causes = explain_text("  File \"/home/dk/miniconda3/envs/a/lib/python3.8/site-packages/" + lines);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "framework.cpu_only_build");
  // A Mac's log whose cause is not CUDA's absence keeps it.
  causes = explain_text(
      "  File \"/Users/dk/x.py\", line 1\n"
      "ERROR: No matching distribution found for tensorflow==2.3.0\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_NE(causes[0].id, "gpu.none");
  // An Apple silicon Mac named in the paste: Docker there has no NVIDIA GPU to give a container.
  causes = explain_text(
      "Error response from daemon: could not select device driver \"nvidia\" with capabilities: "
      "[[gpu]]\n - MacOS 12.5 M1 Pro chip\n");
  ASSERT_GE(causes.size(), 2u);
  EXPECT_EQ(causes[0].id, "gpu.none");
  EXPECT_EQ(causes[1].id, "container.no_gpu_access");
  EXPECT_TRUE(causes[1].alternative);
  // "M1" alone is no Mac (a Slurm node, a model name).
  causes = explain_text(
      "Error response from daemon: could not select device driver \"nvidia\" with capabilities: "
      "[[gpu]]\nnode M1 ready\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "container.no_gpu_access");
}

// Messages whose cause has a remedy of its own say it, not the cause's general one.
TEST(Explain, ASpecificMessageGivesItsOwnRemedy) {
  auto causes = explain_text(
      "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
      "multiprocessing, you must use the 'spawn' start method\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "device.busy_or_init_failed");
  ASSERT_FALSE(causes[0].fix.empty());
  EXPECT_NE(causes[0].fix.back().find("spawn"), std::string::npos) << causes[0].fix.back();

  causes = explain_text("ERROR: No matching distribution found for triton==2.2.0\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "framework.windows_native_gpu_unsupported");
  EXPECT_NE(causes[0].why.find("Linux wheels only"), std::string::npos) << causes[0].why;

  causes = explain_text(
      "ImportError: /opt/conda/envs/py_3.10/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.32' "
      "not found (required by /opt/conda/envs/py_3.10/lib/python3.10/site-packages/torch/lib/"
      "libtorch_python.so)\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "lib.shadowed_copy");
  EXPECT_NE(causes[0].why.find("GLIBCXX_3.4.32"), std::string::npos) << causes[0].why;
  // Numba naming a driver function it did not find: cuInit, which every driver has, means the
  // library is no driver; a newer function, that the driver is older than the bindings. The
  // system's own libstdc++ lacking a version is the OS being too old.
  const std::pair<const char*, const char*> firsts[] = {
      {"CudaDriverError: driver missing function: cuInit.\n", "lib.symbol_mismatch"},
      {"numba.cuda.cudadrv.error.CudaDriverError: Driver missing function: cuDeviceGetUuid\n",
       "driver.too_old"},
      {"ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
       "(required by /opt/conda/envs/a/lib/libtorch_python.so)\n",
       "os.glibc_too_old"},
  };
  for (const auto& [log, first] : firsts) {
    causes = explain_text(log);
    ASSERT_FALSE(causes.empty()) << log;
    EXPECT_EQ(causes[0].id, first) << log;
  }
}

// A Windows DLL's causes cannot explain a Linux log; inside WSL nvidia-smi's failure is WSL's.
TEST(LogFacts, CausesOfAnotherPlatformRankLast) {
  auto causes = explain_by_signatures(
      "  File \"/usr/lib/python3/dist-packages/torch/__init__.py\", line 1\n"
      "ImportError: DLL load failed: The specified module could not be found.\n"
      "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n");
  ASSERT_GE(causes.size(), 2u);
  EXPECT_EQ(causes[0].id, "cudnn.missing");
  const auto msvc = std::find_if(causes.begin(), causes.end(),
                                 [](const Cause& c) { return c.id == "msvc.runtime_missing"; });
  ASSERT_NE(msvc, causes.end());
  EXPECT_TRUE(msvc->off_platform);
  EXPECT_EQ(msvc, causes.end() - 1);

  causes = explain_by_signatures(
      "me@DESKTOP-1:~$ ls /usr/lib/wsl/lib\n"
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n");
  ASSERT_GE(causes.size(), 2u);
  EXPECT_EQ(causes[0].id, "wsl.windows_build_unsupported");
  EXPECT_FALSE(causes[0].alternative);
  const auto module = std::find_if(causes.begin(), causes.end(), [](const Cause& c) {
    return c.id == "driver.module_not_loaded";
  });
  ASSERT_NE(module, causes.end());
  EXPECT_TRUE(module->off_platform);
}

// data/cause_platforms.csv names taxonomy ids and the platforms a log can show.
TEST(LogFacts, CausePlatformsAreTaxonomyIdsOnKnownPlatforms) {
  const auto& taxonomy = testing::kb_table("taxonomy");
  std::set<std::string> ids;
  for (size_t row = 0; row < taxonomy.size(); ++row)
    ids.insert(taxonomy.cell(row, "id"));
  const auto& table = testing::kb_table("cause_platforms");
  ASSERT_GT(table.size(), 5u);
  for (size_t row = 0; row < table.size(); ++row) {
    EXPECT_TRUE(ids.count(table.cell(row, "cause"))) << table.cell(row, "cause");
    for (const auto& platform : text::split(table.cell(row, "platforms"), '|')) {
      EXPECT_TRUE(platform == "windows" || platform == "linux" || platform == "wsl" ||
                  platform == "macos")
          << table.cell(row, "cause") << ": " << platform;
      EXPECT_TRUE(testing::messages().has("explain.platform." + platform)) << platform;
    }
    EXPECT_FALSE(table.cell(row, "source").empty()) << table.cell(row, "cause");
  }
}

// A message that names no library (and its alternatives) is explained without "unknown".
TEST(Reasoning, AMessageThatNamesNoLibrarySaysNoUnknown) {
  const auto causes =
      explain_text("ImportError: DLL load failed: The specified module could not be found.\n");
  ASSERT_GE(causes.size(), 3u);
  const std::string unknown = testing::messages().text("report.unknown_value");
  for (const auto& c : causes) {
    EXPECT_EQ(c.why.find(unknown), std::string::npos) << c.id << ": " << c.why;
    for (const auto& fix : c.fix)
      EXPECT_EQ(fix.find(unknown), std::string::npos) << c.id << ": " << fix;
  }
}

TEST(Reasoning, AnotherCudaOnTheLoaderPathIsAVersionMismatch) {
  const auto causes = explain_text(
      "I dso_loader.cc:53] Could not dlopen library 'libcudart.so.10.0'; dlerror: "
      "libcudart.so.10.0: cannot open shared object file: No such file or directory; "
      "LD_LIBRARY_PATH: /usr/local/cuda-10.1/lib64\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "cuda.version_mismatch");
  EXPECT_NE(causes[0].why.find("10.1"), std::string::npos);
}

// Issue 19: a fix names the versions the log's own framework build needs (TensorFlow 2.10 was
// built with CUDA 11.2 and cuDNN 8.1), not what the library's name says ("a CUDA 11.x").
TEST(Reasoning, TheFixNamesTheCudaAndCudnnOfTheLogsBuild) {
  const auto fix_of = [](const std::vector<Cause>& causes, const std::string& id) {
    for (const auto& c : causes)
      if (c.id == id) return c.fix.empty() ? std::string() : c.fix.back();
    ADD_FAILURE() << id;
    return std::string();
  };
  auto causes = explain_by_signatures(
      "tensorflow 2.10.0\n"
      "W dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: "
      "cudart64_110.dll not found\n"
      "W dso_loader.cc:64] Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll "
      "not found\n");
  for (const char* id : {"cuda.runtime_missing", "cudnn.missing"}) {
    const std::string fix = fix_of(causes, id);
    EXPECT_NE(fix.find("TensorFlow 2.10.0"), std::string::npos) << id << ": " << fix;
    EXPECT_NE(fix.find("CUDA 11.2 and cuDNN 8.1"), std::string::npos) << id << ": " << fix;
    EXPECT_EQ(fix.find("11.x"), std::string::npos) << id << ": " << fix;
  }

  // Linux from 2.14: pip brings them with the and-cuda extra.
  causes = explain_by_signatures(
      "tensorflow==2.15.0\n"
      "W dso_loader.cc:64] Could not load dynamic library 'libcudart.so.12'; dlerror: "
      "libcudart.so.12: cannot open shared object file: No such file or directory\n");
  const std::string wheels = fix_of(causes, causes.front().id);
  EXPECT_NE(wheels.find("pip install \"tensorflow[and-cuda]==2.15.0\""), std::string::npos)
      << wheels;

  // A log that does not say its platform, of a build only Linux has (TensorFlow 2.15): nothing
  // said of a Windows user's log.
  causes = explain_by_signatures(
      "tensorflow==2.15.0\n"
      "Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.9.4.\n");
  EXPECT_EQ(fix_of(causes, "cudnn.version_mismatch").find("and-cuda"), std::string::npos);

  // A driver too old for the build's CUDA: the driver that CUDA's release asks for on the log's
  // platform (CUDA 11.2: 460.82 on Windows); on no known platform, both, each named.
  causes = explain_by_signatures(
      "tensorflow 2.10.0\n  File \"C:\\Users\\x\\site-packages\\tensorflow\\x.py\"\n"
      "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n");
  const std::string driver = fix_of(causes, "driver.too_old");
  EXPECT_NE(driver.find("CUDA 11.2"), std::string::npos) << driver;
  EXPECT_NE(driver.find("driver 460.82 or newer"), std::string::npos) << driver;
  causes = explain_by_signatures(
      "tensorflow 2.10.0\n"
      "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n");
  const std::string both = fix_of(causes, "driver.too_old");
  EXPECT_NE(both.find("driver 460.27.03 (Linux) / 460.82 (Windows) or newer; down to 450.80.02 "
                      "(Linux) / 452.39 (Windows)"),
            std::string::npos)
      << both;

  // PyTorch has a build per CUDA: its +cu121 says which, and its driver; the floor of minor
  // version compatibility is said too. Without the tag the version says nothing.
  const std::string too_old =
      "  File \"/home/u/venv/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 1\n"
      "The NVIDIA driver on your system is too old (found version 11040).\n";
  causes = explain_by_signatures("PyTorch version: 2.1.0+cu121\n" + too_old);
  const std::string torch = fix_of(causes, "driver.too_old");
  EXPECT_NE(torch.find("PyTorch 2.1.0+cu121 was built with CUDA 12.1"), std::string::npos) << torch;
  EXPECT_NE(torch.find("530.30.02 or newer; down to 525.60.13"), std::string::npos) << torch;
  causes = explain_by_signatures("PyTorch version: 2.1.0\n" + too_old);
  EXPECT_EQ(fix_of(causes, "driver.too_old").find("or newer"), std::string::npos);

  // A library of another CUDA than the build's (TensorFlow 2.3 was built with CUDA 10.1), a
  // framework with a build per CUDA (PyTorch), no version: what the library says.
  for (const char* log :
       {"tensorflow 2.3.0\nCould not load dynamic library 'cudart64_110.dll'; dlerror: "
        "cudart64_110.dll not found\n",
        "torch 2.1.0+cu121\nCould not load dynamic library 'cudart64_110.dll'; dlerror: "
        "cudart64_110.dll not found\n",
        "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not "
        "found\n"}) {
    causes = explain_by_signatures(log);
    ASSERT_FALSE(causes.empty());
    const std::string fix = causes.front().fix.back();
    EXPECT_NE(fix.find("CUDA 11.x"), std::string::npos) << log << fix;
    EXPECT_EQ(fix.find("built and tested"), std::string::npos) << log << fix;
  }
}

TEST(Reasoning, FactsConfirmOrRuleOut) {
  const Finding finding = machine_finding(
      "cudnn.missing", "tensorflow-gpu 2.1.0 needs cudnn64_7.dll",
      "Copy cudnn64_7.dll into C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1/bin");
  const std::string log =
      "Could not load dynamic library 'cudnn64_7.dll'; dlerror: cudnn64_7.dll not found\n"
      "The NVIDIA driver on your system is too old (found version 9010).\n";
  const auto causes = named(explain_by_signatures(log, MachineFindings{{finding}, ""}));
  ASSERT_EQ(causes.size(), 2u);
  // The confirmed cause comes first; the driver, which the facts do not show, goes last.
  EXPECT_EQ(causes[0].id, "cudnn.missing");
  EXPECT_EQ(causes[0].confirmed_by_facts, true);
  EXPECT_EQ(causes[0].fix.front(), finding.fix.front());
  EXPECT_EQ(causes[1].id, "driver.too_old");
  EXPECT_EQ(causes[1].confirmed_by_facts, false);
  const auto json = nlohmann::json::parse(report::render_explain_json(causes));
  EXPECT_EQ(json["schema"], "gpuvet.explain/1");
  EXPECT_EQ(json["causes"][0]["confirmed_by_facts"], true);
  EXPECT_EQ(json["unrecognized"], false);
}

// PyTorch's "No CUDA GPUs are available" on a machine whose facts show why: here a Remote
// Desktop session (tests/scenarios/windows10_rdp_session_gpu_hidden).
TEST(Reasoning, PytorchSeesNoGpuAndTheFactsSayWhy) {
  const Finding finding = machine_finding(
      "gpu.not_visible", "This is a Remote Desktop session, and CUDA finds no GPU in it",
      "Run the job in the machine's console session");
  const auto causes = explain_text(
      "  File \"torch/cuda/__init__.py\", line 216, in _lazy_init\n"
      "    torch._C._cuda_init()\nRuntimeError: No CUDA GPUs are available\n",
      MachineFindings{{finding}, ""});
  ASSERT_GE(causes.size(), 1u);
  EXPECT_EQ(causes[0].id, "gpu.not_visible");
  EXPECT_EQ(causes[0].confirmed_by_facts, true);
  EXPECT_EQ(causes[0].fix.front(), finding.fix.front());
}

// A cause without a taxonomy id of its own ("other") explains itself with its signature's text.
TEST(Reasoning, LaunchTimeoutExplainsTheWatchdog) {
  const auto causes =
      explain_by_signatures("RuntimeError: CUDA error: the launch timed out and was terminated\n");
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].id, "other");
  EXPECT_NE(causes[0].why.find("TdrDelay"), std::string::npos) << causes[0].why;
  ASSERT_FALSE(causes[0].fix.empty());
  EXPECT_NE(causes[0].fix.back().find("TCC"), std::string::npos) << causes[0].fix.back();
}

// A compiled extension that lacks one of torch's own C++ symbols (c10::, at::, torch::, mangled or
// not) was built for another torch, and the explanation names the extension; torch's own library
// lacking one is a second torch or a stale copy, and a C library symbol is no extension's fault.
TEST(Reasoning, AnExtensionMissingTorchSymbolsWasBuiltForAnotherTorch) {
  for (const char* log :
       {"ImportError: /opt/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-"
        "gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationE\n",
        "ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.abi3.so: undefined symbol: "
        "_ZN5torch3jit17parseSchemaOrNameERKSsb\n",
        "OSError: torch_scatter/_version_cuda.so: undefined symbol: _ZNK2at6Tensor6narrowElll\n"}) {
    const auto causes = explain_text(log);
    ASSERT_FALSE(causes.empty()) << log;
    EXPECT_EQ(causes[0].id, "framework.extension_mismatch") << log;
    EXPECT_NE(causes[0].why.find(".so"), std::string::npos) << causes[0].why;
  }
  const auto torch_own = explain_text(
      "ImportError: ~/.local/lib/python3.6/site-packages/torch/lib/libcaffe2.so: undefined "
      "symbol: _ZTIN3c1010TensorImplE\n");
  ASSERT_FALSE(torch_own.empty());
  EXPECT_EQ(torch_own[0].id, "lib.symbol_mismatch");
  // A CUDA library needing its sibling's symbol: another copy of the sibling found first (8 of
  // the 9 dev threads with such a line), the symbol mismatch next, no extension.
  const auto cuda_own = explain_text(
      "OSError: /site-packages/nvidia/cublas/lib/libcublas.so.11: undefined symbol: "
      "cublasLtGetStatusString, version libcublasLt.so.11\n");
  ASSERT_GE(cuda_own.size(), 2u);
  EXPECT_EQ(cuda_own[0].id, "lib.shadowed_copy");
  EXPECT_EQ(cuda_own[0].captures.at("lib"), "libcublasLt.so.11");
  EXPECT_EQ(cuda_own[1].id, "lib.symbol_mismatch");
}

// Three causes the corpus showed and the taxonomy lacked: the async allocator on a GPU without
// memory pools, a GPU index past the devices, driver libraries baked into a container image. Each
// is named first from its own words, and the neighbouring causes stay where their words point.
TEST(Reasoning, AllocatorIndexAndImageDriverCausesAreNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"RuntimeError: CUDA error: operation not supported\nCUDA kernel errors might be "
       "asynchronously reported at some other API call\n",
       "device.async_allocator_unsupported"},
      {"RuntimeError: Function \"cuMemAllocAsync\" not found\n",
       "device.async_allocator_unsupported"},
      {"RuntimeError: CUDA error: invalid device ordinal\n", "device.index_out_of_range"},
      {"F1219 15:59:41.175240 36602 common.cpp:137] Check failed: error == cudaSuccess (10 vs. 0) "
       "invalid device ordinal\n",
       "device.index_out_of_range"},
      // Device 0 is the first GPU: when even it is invalid, the process sees none.
      {"Specified device id (0) is invalid\n", "gpu.not_visible"},
      {"nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/4f79/"
       "merged/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown.\n",
       "container.driver_libs_in_image"},
      {"Failed to initialize NVML: Driver/library version mismatch\n", "driver.library_mismatch"},
      {"CUDA error 304 at ggml-cuda.cu:5065: OS call failed or operation not supported on this "
       "OS\n",
       ""},
  };
  for (const auto& [log, cause] : cases) {
    const auto causes = explain_by_signatures(log);
    if (*cause == '\0') {
      for (const auto& c : causes)
        EXPECT_NE(c.id, "device.async_allocator_unsupported") << log;
      continue;
    }
    ASSERT_FALSE(causes.empty()) << log;
    EXPECT_EQ(causes[0].id, cause) << log;
    EXPECT_FALSE(causes[0].why.empty()) << log;
    EXPECT_FALSE(causes[0].fix.empty()) << log;
  }
  // Inside a container the same NVML message may be the image's own driver libraries: named as
  // the alternative after the driver upgrade.
  const auto mismatch =
      explain_by_signatures("Failed to initialize NVML: Driver/library version mismatch\n");
  ASSERT_GE(mismatch.size(), 2u);
  EXPECT_EQ(mismatch[1].id, "container.driver_libs_in_image");
  EXPECT_TRUE(mismatch[1].alternative);
}

// Versions as the frameworks print them come out dotted: PyTorch's tuples, cuDNN's integers (the
// 9.x encoding too), and no trailing period.
TEST(Explain, CudnnVersionsAreDotted) {
  struct Case {
    const char* log;
    const char* loaded;
    const char* compiled;
  };
  for (const Case& c :
       {Case{"RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) "
             "but found runtime version (8, 3, 3).",
             "8.3.3", "8.5.0"},
        Case{"CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built "
             "against version 90100, which is newer.",
             "8.6.0", "9.1.0"},
        Case{"E tensorflow/stream_executor/cuda/cuda_dnn.cc:324] Loaded runtime CuDNN library: "
             "7.3.1 but source was compiled with: 7.4.2.",
             "7.3.1", "7.4.2"}}) {
    const auto causes = explain_text(c.log);
    ASSERT_FALSE(causes.empty()) << c.log;
    EXPECT_EQ(causes[0].id, "cudnn.version_mismatch");
    EXPECT_EQ(causes[0].captures.at("loaded"), c.loaded) << c.log;
    EXPECT_EQ(causes[0].captures.at("compiled"), c.compiled) << c.log;
  }
}

// A pattern's alternatives name their groups lib, lib2: the explanation sees one lib.
TEST(Explain, AlternativeGroupsAreOneCapture) {
  const auto causes = explain_text(
      "W0529 03:50:54.756062 56933 dynamic_loader.cc:120] Can not find library: libcudnn.so. The "
      "process maybe hang.");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].id, "cudnn.missing");
  EXPECT_EQ(causes[0].captures.at("lib"), "libcudnn.so");
}

// --- accuracy on real excerpts --------------------------------------------------------------

TEST(Accuracy, PublicExcerptsFromIssueThreads) {
  // A copy of shared/fixtures/explain/public.jsonl (tests/fixtures/explain/README.md).
  const std::string path = std::string(GPUVET_EXPLAIN_FIXTURES) + "/public.jsonl";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  size_t total = 0, top1 = 0, top3 = 0;
  std::string misses;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto doc = nlohmann::json::parse(line);
    ++total;
    std::set<std::string> wanted = {doc["primary"].get<std::string>()};
    if (doc["secondary"].is_string()) wanted.insert(doc["secondary"].get<std::string>());
    Collector collector(signatures());
    (void)read_log_text(doc["log"].get<std::string>(),
                        [&](size_t n, std::string_view l) { return collector.on_line(n, l); });
    const auto causes = reason(collector.causes(), testing::embedded_kb(), testing::messages(),
                               std::nullopt, collector.log_facts());
    const bool first = !causes.empty() && wanted.count(causes[0].id);
    bool in_three = false;
    for (size_t i = 0; i < std::min<size_t>(3, causes.size()); ++i)
      in_three = in_three || wanted.count(causes[i].id);
    top1 += first;
    top3 += in_three;
    if (!first) {
      misses += "  " + doc["id"].get<std::string>() + " wants " +
                doc["primary"].get<std::string>() + ", got " +
                (causes.empty() ? std::string("nothing") : causes[0].id) + "\n";
    }
  }
  std::printf("explain accuracy on %zu public excerpts: top-1 %zu (%.0f%%), top-3 %zu\n%s", total,
              top1, 100.0 * static_cast<double>(top1) / static_cast<double>(total), top3,
              misses.c_str());
  ASSERT_GT(total, 0u);
  EXPECT_GE(static_cast<double>(top1) / static_cast<double>(total), 0.9) << misses;
  EXPECT_GE(top3 + 2, total) << misses;
}

// --- fuzzing --------------------------------------------------------------------------------

TEST(ExplainFuzz, AdversarialBytesNeverCrashOrGrow) {
  std::mt19937 rng(17);
  const std::string seeds[] = {
      "Could not load dynamic library 'cudart64_101.dll'; LD_LIBRARY_PATH: /usr/local/cuda-10.1\n",
      "\xFF\xFE" + std::string("C\0o\0u\0l\0d\0", 10),
      "Loaded runtime CuDNN library: 7.3.1 but source was compiled with: 7.4.2\r\n\x1b[31m",
      std::string(200000, 'a') + "undefined symbol: x\n"};
  for (const auto& seed : seeds) {
    for (int i = 0; i < 300; ++i) {
      std::string input = seed;
      for (int e = 0; e < 6 && !input.empty(); ++e) {
        input[rng() % input.size()] = static_cast<char>(rng() % 256);
      }
      Collector collector(signatures());
      (void)read_log_text(input,
                          [&](size_t n, std::string_view l) { return collector.on_line(n, l); });
      const auto causes = reason(collector.causes(), testing::embedded_kb(), testing::messages(),
                                 std::nullopt, collector.log_facts());
      for (const auto& c : causes)
        EXPECT_LE(c.evidence.size(), kMaxEvidence);
      (void)report::render_explain_json(causes);
    }
  }
}

// "No kernel image" says nothing of the device; the log's device line does.
TEST(Explain, TheDeviceALogNamesGivesTheCapability) {
  for (const char* device :
       {"I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] Created device "
        "/job:localhost/replica:0/task:0/device:GPU:0 with 5000 MB memory:  -> device: 0, "
        "name: NVIDIA GeForce RTX 3060, pci bus id: 0000:01:00.0, compute capability: 8.6",
        "Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes",
        "name: GeForce RTX 3060 major: 8 minor: 6 memoryClockRate(GHz): 1.777"}) {
    const auto causes = explain_text(
        std::string(device) +
        "\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n");
    const auto it = std::find_if(causes.begin(), causes.end(), [](const Cause& c) {
      return c.id == "gpu.compute_capability_unsupported";
    });
    ASSERT_NE(it, causes.end()) << device;
    EXPECT_EQ(it->captures.at("cc"), "8.6") << device;
    EXPECT_NE(it->why.find("8.6"), std::string::npos) << it->why;
  }
  // Without a device line the capability stays unknown, not guessed.
  const auto bare = explain_text(
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n");
  ASSERT_FALSE(bare.empty());
  EXPECT_FALSE(bare.front().captures.contains("cc"));
}

// Issue 19: the fix names the CUDA and cuDNN of the build where the version spells it
// (PaddlePaddle's .post117; its unsuffixed version being the build pip installs without an
// index), or where the library the line asks for leaves one of the version's builds (ONNX
// Runtime 1.18.0 is CUDA 11.8 on PyPI and CUDA 12.2 on its own feed). Where the builds still
// differ, or a wheel runs on a range of CUDA (cupy-cuda12x), what the library says.
TEST(Reasoning, TheFixNamesTheBuildThatTheVersionAndLibrarySpell) {
  const auto first_fix = [](const std::string& log) {
    const auto causes = explain_by_signatures(log);
    return causes.empty() || causes.front().fix.empty() ? std::string() : causes.front().fix.back();
  };
  const std::string paddle_dll =
      "RuntimeError: (PreconditionNotMet) The third-party dynamic library (cudnn64_7.dll) that "
      "Paddle depends on is not configured correctly. (error code is 126)\n";
  std::string fix = first_fix("paddlepaddle-gpu        2.4.0\n" + paddle_dll);
  EXPECT_NE(fix.find("PaddlePaddle 2.4.0 was built and tested with CUDA 10.2 and cuDNN 7.6"),
            std::string::npos)
      << fix;
  EXPECT_NE(fix.find("windows-pip.md"), std::string::npos) << fix;
  // The .post117 build asks for cuDNN 8: a cudnn64_7.dll is not its own.
  fix = first_fix("paddlepaddle-gpu        2.4.0.post117\n" + paddle_dll);
  EXPECT_EQ(fix.find("built and tested"), std::string::npos) << fix;
  fix = first_fix(
      "paddlepaddle-gpu   2.5.1.post117\nThe third-party dynamic library (cublas64_117.dll;"
      "cublas64_11.dll) that Paddle depends on is not configured correctly. (error code is 126)\n");
  EXPECT_NE(
      fix.find("PaddlePaddle 2.5.1.post117 was built and tested with CUDA 11.7 and cuDNN 8.4"),
      std::string::npos)
      << fix;

  const std::string ort =
      "[E:onnxruntime:Default, provider_bridge_ort.cc:1548 TryGetProviderLibrary] Failed to load "
      "library libonnxruntime_providers_cuda.so with error: ";
  fix = first_fix("onnxruntime-gpu    1.18.0\n" + ort +
                  "libcublasLt.so.11: cannot open shared object file: No such file or directory\n");
  EXPECT_NE(fix.find("ONNX Runtime 1.18.0 was built and tested with CUDA 11.8 and cuDNN 8"),
            std::string::npos)
      << fix;
  fix = first_fix("onnxruntime-gpu    1.18.0\n" + ort +
                  "libcublasLt.so.12: cannot open shared object file: No such file or directory\n");
  EXPECT_NE(fix.find("CUDA 12.2 and cuDNN 8"), std::string::npos) << fix;
  // Where pip brings them: the extras that do.
  fix = first_fix("onnxruntime-gpu    1.21.0\n" + ort +
                  "libcudnn.so.9: cannot open shared object file: No such file or directory\n");
  EXPECT_NE(fix.find("pip install \"onnxruntime-gpu[cuda,cudnn]==1.21.0\""), std::string::npos)
      << fix;
  // cuDNN 8 is in both 1.17 builds, of CUDA 11.8 and 12.2: neither is named.
  fix = first_fix(
      "onnxruntime-gpu    1.17.1\nC:\\x> python a.py\n"
      "Could not load library cudnn_ops_infer64_8.dll. Error code 126\n");
  EXPECT_EQ(fix.find("built and tested"), std::string::npos) << fix;

  const std::string insufficient =
      "  File \"/home/u/a.py\", line 3\ncupy_backends.cuda.api.runtime.CUDARuntimeError: "
      "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version\n";
  fix = first_fix("cupy-cuda102  10.0.0\n" + insufficient);
  EXPECT_NE(fix.find("CuPy 10.0.0 was built with CUDA 10.2, whose runtime asks for NVIDIA driver "
                     "440.33 or newer"),
            std::string::npos)
      << fix;
  fix = first_fix("cupy-cuda12x  13.0.0\n" + insufficient);
  EXPECT_EQ(fix.find("was built with"), std::string::npos) << fix;

  // PyTorch's environment report says the CUDA of PyPI's wheel, whose version does not.
  const std::string too_old =
      "  File \"/home/u/venv/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 1\n"
      "The NVIDIA driver on your system is too old (found version 11040).\n";
  fix = first_fix("PyTorch version: 2.1.0\nCUDA used to build PyTorch: 12.1\n" + too_old);
  EXPECT_NE(fix.find("was built with CUDA 12.1, whose release asks for NVIDIA driver 530.30.02"),
            std::string::npos)
      << fix;
  fix = first_fix("PyTorch version: 2.1.0\nCUDA used to build PyTorch: None\n" + too_old);
  EXPECT_EQ(fix.find("was built with"), std::string::npos) << fix;
}

// Issue 19: PaddlePaddle's device line says the GPU's compute capability and the CUDA runtime the
// build runs. A CUDA 10.2 build on a compute capability 8.6 GPU has no kernels for it (CUDA
// compiles for 8.x from 11.0 on); that is the cause when no line names one, and after what a
// root error line names (a cuDNN not found fails first).
TEST(Reasoning, AFrameworksCudaRuntimeOlderThanItsGpuHasNoKernelsForIt) {
  const std::string device =
      "W0617 18:00:22.433677 19572 device_context.cc:404] Please NOTE: device: 0, GPU Compute "
      "Capability: 8.6, Driver API Version: 11.2, Runtime API Version: 10.2\n"
      "W0617 18:00:22.442680 19572 device_context.cc:422] device: 0, cuDNN Version: 7.6.\n";
  auto causes = explain_by_signatures(
      ">>> paddle.utils.run_check()\nRunning verify PaddlePaddle "
      "program ...\n" +
      device);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes.front().id, "gpu.compute_capability_unsupported");
  EXPECT_FALSE(causes.front().similar);
  EXPECT_NE(causes.front().why.find("CUDA 10.2 runtime"), std::string::npos) << causes.front().why;
  // 8.0 code runs on 8.6: CUDA 11.0 is the first to build for it.
  EXPECT_NE(causes.front().why.find("only from 11.0 on"), std::string::npos) << causes.front().why;
  EXPECT_NE(causes.front().fix.back().find("gpuvet plan paddle --cc 8.6"), std::string::npos)
      << causes.front().fix.back();

  causes =
      explain_by_signatures(device +
                            "Error: Failed to find dynamic library: libcudnn.so ( libcudnn.so: "
                            "cannot open shared object file: No such file or directory )\n");
  ASSERT_GE(causes.size(), 2U);
  EXPECT_EQ(causes[0].id, "cudnn.missing");
  EXPECT_EQ(causes[1].id, "gpu.compute_capability_unsupported");

  // A runtime that compiles for the GPU, or a capability no table knows: nothing.
  for (const char* line :
       {"Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.7, Runtime "
        "API Version: 11.2\n",
        "Please NOTE: device: 0, GPU Compute Capability: 7.0, Driver API Version: 11.2, Runtime "
        "API Version: 10.1\n",
        // CUDA 11.7 stops at 8.6, whose code an 8.9 GPU runs.
        "Please NOTE: device: 0, GPU Compute Capability: 8.9, Driver API Version: 12.2, Runtime "
        "API Version: 11.7\n",
        "Please NOTE: device: 0, GPU Compute Capability: 99.9, Driver API Version: 11.2, Runtime "
        "API Version: 10.1\n"}) {
    for (const auto& c : explain_by_signatures(line))
      EXPECT_TRUE(c.signatures.empty() || c.signatures.front() != "runtime_older_than_gpu") << line;
  }
  // CUDA 12 no longer compiles for a Kepler GPU (3.5).
  causes = explain_by_signatures(
      "Please NOTE: device: 0, GPU Compute Capability: 3.5, Driver API Version: 12.2, Runtime API "
      "Version: 12.0\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes.front().id, "gpu.compute_capability_unsupported");
  EXPECT_NE(causes.front().why.find("only up to 11.8"), std::string::npos) << causes.front().why;
}

// Issue 19: a fix names the plan command of the log's own framework and GPU, not "gpuvet plan
// FRAMEWORK --cc X.Y"; a CPU-only build's only where its line names that framework.
TEST(Reasoning, TheFixNamesThePlanOfTheLogsFrameworkAndGpu) {
  const auto fix_of = [](const std::string& log, const std::string& id) {
    for (const auto& c : explain_by_signatures(log))
      if (c.id == id && !c.fix.empty()) return c.fix.back();
    return std::string();
  };
  const std::string traceback =
      "  File \"/home/u/venv/lib/python3.10/site-packages/torch/nn/modules/conv.py\", line 456, "
      "in _conv_forward\n";
  std::string fix = fix_of(traceback +
                               "RuntimeError: CUDA error: no kernel image is available for "
                               "execution on the device\n"
                               "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not "
                               "compatible with the current PyTorch installation.\n",
                           "gpu.compute_capability_unsupported");
  EXPECT_NE(fix.find("gpuvet plan torch --cc 12.0"), std::string::npos) << fix;
  EXPECT_EQ(fix.find("FRAMEWORK"), std::string::npos) << fix;

  fix = fix_of(traceback + "AssertionError: Torch not compiled with CUDA enabled\n",
               "framework.cpu_only_build");
  EXPECT_NE(fix.find("gpuvet plan torch "), std::string::npos) << fix;
  // Another program's CPU-only build in a torch traceback: not torch's plan.
  fix = fix_of(traceback +
                   "ValueError: This CTranslate2 package was not compiled with CUDA "
                   "support\n",
               "framework.cpu_only_build");
  EXPECT_EQ(fix.find("gpuvet plan torch"), std::string::npos) << fix;
  // Two frameworks, or none: the placeholder stays.
  fix = fix_of(traceback +
                   "  File \"/home/u/venv/lib/python3.10/site-packages/tensorflow/python/x.py\"\n"
                   "RuntimeError: CUDA error: no kernel image is available for execution on the "
                   "device\n",
               "gpu.compute_capability_unsupported");
  EXPECT_NE(fix.find("FRAMEWORK"), std::string::npos) << fix;
}

// Issue 19: a log that shows its NVIDIA driver and its framework build shows a driver too old for
// that build's CUDA, whatever line failed (PyTorch's environment report with "Is CUDA available:
// False").
TEST(Reasoning, ADriverBelowWhatTheLogsBuildLoadsOnIsTooOld) {
  const auto report = [](const std::string& driver) {
    return "PyTorch version: 2.1.0\nCUDA used to build PyTorch: 12.1\n"
           "Is CUDA available: False\nNvidia driver version: " +
           driver + "\n";
  };
  auto causes = explain_by_signatures(report("470.199.02"));
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes.front().id, "driver.too_old");
  EXPECT_FALSE(causes.front().similar);
  EXPECT_FALSE(causes.front().alternative);
  // No platform said: below Linux's floor (525.60.13) and Windows' (527.41) both.
  EXPECT_NE(causes.front().why.find("NVIDIA driver 470.199.02"), std::string::npos)
      << causes.front().why;
  EXPECT_NE(causes.front().why.find("driver 525.60.13 or newer"), std::string::npos)
      << causes.front().why;

  // Its OS line says Linux: the fix names Linux's drivers for CUDA 12.1.
  causes = explain_by_signatures("OS: Ubuntu 22.04.3 LTS (x86_64)\n" + report("470.199.02"));
  ASSERT_FALSE(causes.empty());
  EXPECT_NE(causes.front().fix.back().find("530.30.02 or newer; down to 525.60.13"),
            std::string::npos)
      << causes.front().fix.back();

  for (const auto& c : explain_by_signatures(report("535.104.05"))) {
    EXPECT_TRUE(c.signatures.empty() || c.signatures.front() != "driver_below_build") << c.id;
  }

  // TensorFlow 2.10 on Windows is CUDA 11.2: 452.39 is its floor there.
  causes = explain_by_signatures(
      "tensorflow 2.10.0\n  File \"C:\\Users\\x\\site-packages\\tensorflow\\x.py\"\n"
      "| NVIDIA-SMI 451.48       Driver Version: 451.48       CUDA Version: 11.0     |\n"
      "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n");
  const auto too_old = std::find_if(causes.begin(), causes.end(),
                                    [](const Cause& c) { return c.id == "driver.too_old"; });
  ASSERT_NE(too_old, causes.end());
  EXPECT_FALSE(too_old->alternative);
  EXPECT_NE(too_old->why.find("452.39"), std::string::npos) << too_old->why;
}

// The CUDA runtime's errors whose cause NVIDIA's documentation fixes, in each spelling a log shows
// them: the message (as libcudart 13.0's cudaGetErrorString returns it), the runtime's name and
// the driver API's. Each names its cause from a signature, not from reported cases alone.
TEST(Reasoning, TheCudaErrorsWithAFixedCauseNameItInEverySpelling) {
  struct Spelling {
    std::string line;
    std::string cause;
  };
  const std::vector<Spelling> spellings = {
      {"RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
       "driver.too_old"},
      {"cudaErrorInsufficientDriver", "driver.too_old"},
      {"CUDAError InsufficientDriver", "driver.too_old"},
      {"RuntimeError: CUDA error: no kernel image is available for execution on the device",
       "gpu.compute_capability_unsupported"},
      {"CUresult CUDA_ERROR_NO_BINARY_FOR_GPU (209)", "gpu.compute_capability_unsupported"},
      {"RuntimeError: CUDA error: uncorrectable ECC error encountered", "device.hardware_error"},
      {"CUDA_ERROR_ECC_UNCORRECTABLE", "device.hardware_error"},
      {"RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution",
       "device.hardware_error"},
      {"cudaErrorNvlinkUncorrectable", "device.hardware_error"},
      {"CUDA_ERROR_NVLINK_UNCORRECTABLE", "device.hardware_error"},
      {"CUDA error: Invalid access of peer GPU memory over nvlink or a hardware error",
       "device.hardware_error"},
      {"CUDA_ERROR_CONTAINED", "device.hardware_error"},
      {"RuntimeError: CUDA error: PTX JIT compiler library not found", "driver.missing"},
      {"cudaErrorJitCompilerNotFound", "driver.missing"},
      {"CUresult CUDA_ERROR_JIT_COMPILER_NOT_FOUND (221)", "driver.missing"},
      {"RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.",
       "cuda.ptxas_missing_or_old"},
      {"CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "cuda.ptxas_missing_or_old"},
      {"Error 805: MPS client failed to connect to the MPS control daemon or the MPS server",
       "device.busy_or_init_failed"},
      {"Error 807: MPS server is not ready to accept new MPS client requests",
       "device.busy_or_init_failed"},
      {"cudaErrorMpsMaxClientsReached", "device.busy_or_init_failed"},
      {"CUDA_ERROR_MPS_CONNECTION_FAILED", "device.busy_or_init_failed"},
      {"RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
       "device.busy_or_init_failed"},
      {"RuntimeError: CUDA error: invalid device ordinal", "device.index_out_of_range"},
      {"CUBLAS_STATUS_ARCH_MISMATCH", "gpu.compute_capability_unsupported"},
      {"CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH", "gpu.compute_capability_unsupported"},
      {"libcudnn.cudnnStatusArchMismatch", "gpu.compute_capability_unsupported"},
  };
  for (const auto& [line, cause] : spellings) {
    const auto causes = explain_by_signatures(line + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes.front().id, cause) << line;
    EXPECT_FALSE(causes.front().similar) << line;
  }
  // Names that share words with them and name no such cause.
  for (const std::string line : {"MPS backend out of memory (MPS allocated: 9.00 GB)",
                                 "nvidia-smi nvlink -e: Link 0: Replay Errors: 0",
                                 "a PTX JIT compilation failed", "CUDNN_STATUS_SUCCESS"}) {
    for (const auto& c : explain_by_signatures(line + "\n")) {
      EXPECT_TRUE(c.similar ||
                  (c.id != "device.busy_or_init_failed" && c.id != "device.hardware_error" &&
                   c.id != "driver.missing" && c.id != "gpu.compute_capability_unsupported"))
          << line << " -> " << c.id;
    }
  }
}

// The frameworks' own messages for a GPU setup that is wrong, as their sources print them (a sweep
// of PyTorch, TensorFlow/XLA, PaddlePaddle, ONNX Runtime, TensorRT, llama.cpp, Ollama and vLLM):
// each names its cause from a signature. Lines are real ones from users' logs.
TEST(Reasoning, TheFrameworksOwnSetupMessagesNameTheirCause) {
  const std::vector<std::pair<std::string, std::string>> lines = {
      // TensorFlow's cudart stub logs this when libcudart does not load, whatever it says.
      {"2024-06-28 00:03:52.493638: I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda "
       "drivers on your machine, GPU will not be used.",
       "cuda.runtime_missing"},
      {"NVIDIA: no NVIDIA devices found", "driver.missing"},
      {"RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, "
       "e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the "
       "available devices to be zero.",
       "device.busy_or_init_failed"},
      {"W external/xla/xla/service/gpu/nvptx_compiler.cc:744] The NVIDIA driver's CUDA version "
       "is 12.2 which is older than the ptxas CUDA version (12.3.107).",
       "cuda.ptxas_missing_or_old"},
      {"W external/xla/xla/stream_executor/gpu/asm_compiler.cc:231] Falling back to the CUDA "
       "driver for PTX compilation; ptxas does not support CC 9.0",
       "cuda.ptxas_missing_or_old"},
      {"INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:275: NCCL operation "
       "ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda error",
       "nccl.error"},
      {"E0416 11:45:15.529166  7591 place.cc:333] Cannot use GPU because there is no GPU "
       "detected on your machine",
       "gpu.not_visible"},
      {"warning: one possible reason is that llama.cpp was compiled without GPU support",
       "framework.cpu_only_build"},
      {"[E] [TRT] 1: [caskUtils.cpp::trtSmToCask::147] Error Code 1: Internal Error "
       "(Unsupported SM: 0x809)",
       "gpu.compute_capability_unsupported"},
      {"[W] [TRT] CUDA initialization failure with error: 35. Please check your CUDA "
       "installation:  http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html",
       "driver.too_old"},
      {"[E] [TRT] Cuda initialization failure with error 100. Please check cuda installation",
       "gpu.not_visible"},
      {"onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is set but CUDA wasnt "
       "able to be loaded. Please install the correct version of CUDA andcuDNN",
       "cuda.version_mismatch"},
      {"ValueError: Free memory on device (31.44/47.38 GiB) on startup is less than desired GPU "
       "memory utilization (0.95, 45.01 GiB).",
       "memory.oom"},
      {"msg=\"Unable to load cudart library /usr/lib/ollama/cuda_v12/libcudart.so.12.8.90: your "
       "nvidia driver is too old or missing.  If you have a CUDA GPU please upgrade to run "
       "ollama\"",
       "driver.too_old"},
      {"The quantization method awq is not supported for the current GPU. Minimum capability: "
       "75. Current capability: 70.",
       "gpu.compute_capability_unsupported"},
      {"FileNotFoundError: Could not find: nvinfer.dll. Is it on your PATH?",
       "tensorrt.library_missing"},
      {"[TRT] [W] TensorRT was linked against cuDNN 8.9.0 but loaded cuDNN 8.7.0",
       "cudnn.version_mismatch"},
      {"4: [runtime.cpp::deserializeCudaEngine::74] Error Code 4: Internal Error (Engine "
       "deserialization failed.)",
       "tensorrt.engine_incompatible"},
      {"I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not appear "
       "to be running on this host (16c54693e7f2): /proc/driver/nvidia/version does not exist",
       "driver.module_not_loaded"},
      {"UserWarning: CUDA path could not be detected. Set CUDA_PATH environment variable if CuPy "
       "fails to load.",
       "cuda.toolkit_missing"},
      // nvcuda.dll comes with the display driver, not the CUDA toolkit.
      {"FileNotFoundError: Could not find module 'nvcuda.dll' (or one of its dependencies). Try "
       "using the full path with constructor syntax.",
       "driver.missing"},
      {"ImportError: Could not find 'nvcuda.dll'. TensorFlow requires that this DLL be installed "
       "in a directory that is named in your %PATH% environment variable.",
       "driver.missing"},
      {"stderr: nvidia-container-cli: initialization error: nvml error: driver not loaded: "
       "unknown.",
       "driver.module_not_loaded"},
      {"docker: Error response from daemon: OCI runtime create failed: exec: "
       "\"nvidia-container-runtime-hook\": executable file not found in $PATH: unknown.",
       "container.no_gpu_access"},
      {"E0506 17:45:45.421956       1 factory.go:112] Incompatible strategy detected auto",
       "container.no_gpu_access"},
      {"RuntimeError: The current installed version of g++ (12.2.1) is greater than the maximum "
       "required version by CUDA 11.7 (11.5.0).",
       "cuda.host_compiler_unsupported"},
      {"RuntimeError: nms_impl: implementation for device cuda:0 not found.",
       "framework.extension_mismatch"},
      {"ValueError: Unknown CUDA arch (9.0+PTX) or GPU not supported",
       "gpu.compute_capability_unsupported"},
      {"OSError: The nvcc binary could not be located in your $PATH. Either add it to your path, "
       "or set $CUDAHOME",
       "cuda.toolkit_missing"},
      {"ERROR: The Nouveau kernel driver is currently in use by your system.  This",
       "driver.module_not_loaded"},
      {"ERROR: Unable to find the kernel source tree for the currently running kernel.  Please "
       "make sure you have installed the",
       "driver.module_build_failed"},
      {"[  441.170986] NVRM: No NVIDIA graphics adapter found!", "gpu.none"},
      {"Failed to query NVIDIA devices. Please ensure that the NVIDIA device files (/dev/nvidia*) "
       "exist, and that user 0 has read and write permissions for those files.",
       "driver.module_not_loaded"},
      // A CUDA error inside NCCL is the CUDA error's cause.
      {"ng30903:3063028:3066152 [3] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 "
       "bytes",
       "memory.oom"},
      // A PyTorch without NCCL: on Windows its builds have none, on Linux a CPU-only build.
      {"D:\\Python39\\lib\\site-packages\\torch\\distributed\\distributed_c10d.py:613: "
       "UserWarning: Attempted to get default timeout for nccl backend, but NCCL support is not "
       "compiled",
       "nccl.unavailable_on_windows"},
      {"/home/u/.conda/envs/llama/lib/python3.12/site-packages/torch/distributed/"
       "distributed_c10d.py:613: UserWarning: Attempted to get default timeout for nccl backend, "
       "but NCCL support is not compiled",
       "framework.cpu_only_build"},
      {"Horovod build with GPU support was requested but this PyTorch installation does not "
       "support CUDA.",
       "framework.cpu_only_build"},
      {"time=2025-12-01T13:07:07.769-08:00 level=WARN source=runner.go:501 msg=\"potentially "
       "incompatible library detected in PATH\" location=C:\\WINDOWS\\SYSTEM32\\ggml-base.dll",
       "lib.shadowed_copy"},
      // Windows' own texts in Chinese.
      {"PaddleOCR-2.6 GPU版本MFC运行报错：无法定位程序输入点dnnl_prelu_backward_desc_init于动态链接"
       "库paddle_inference.dll上",
       "lib.symbol_mismatch"},
      {"nvidia-smi 不是内部或外部命令，也不是可运行的程序", "driver.missing"},
      // FlashAttention's older spelling names the CUDA major alone.
      {"RuntimeError: FlashAttention is only supported on CUDA 11 and above",
       "cuda.version_mismatch"},
  };
  for (const auto& [line, cause] : lines) {
    const auto causes = explain_by_signatures(line + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes.front().id, cause) << line;
    EXPECT_FALSE(causes.front().similar) << line;
  }

  // Paddle's "CUDA runtime version in your machine" is the driver's CUDA (gpu_resources.cc reads
  // cudaDriverGetVersion): the driver is older than the build, and the fix says so.
  const auto paddle = explain_by_signatures(
      "W0522 14:31:24.083271  3337 gpu_resources.cc:196] WARNING: device: 0. The installed "
      "Paddle is compiled with CUDA 11.8, but CUDA runtime version in your machine is 11.6, which "
      "may cause serious incompatible bug.\n");
  ASSERT_FALSE(paddle.empty());
  EXPECT_EQ(paddle.front().id, "driver.too_old");
  EXPECT_NE(paddle.front().why.find("the NVIDIA driver offers is 11.6"), std::string::npos)
      << paddle.front().why;
  EXPECT_NE(paddle.front().fix.back().find("CUDA 11.8 or newer"), std::string::npos)
      << paddle.front().fix.back();
}

// Triton links its launcher with -lcuda against the directories of libcuda.so.1 in the loader
// cache: its own two messages and ld's name the missing unversioned link, on Linux; the same
// message from WSL 2's driver directory names WSL's own cause first.
TEST(Reasoning, TritonsLibcudaMessagesNameTheMissingLink) {
  for (const std::string line :
       {"AssertionError: libcuda.so cannot found!",
        "Possible files are located at ['/lib/x86_64-linux-gnu/libcuda.so.1'].Please create a "
        "symlink of libcuda.so to any of the file.",
        "/usr/bin/ld: cannot find -lcuda",
        "../x86_64-conda-linux-gnu/bin/ld: cannot find -lcuda: No such file or directory",
        "skipping incompatible /usr/lib/i386-linux-gnu/libcuda.so when searching for -lcuda"}) {
    const auto causes = explain_by_signatures(line + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes.front().id, "driver.libcuda_unversioned_link_missing") << line;
    EXPECT_FALSE(causes.front().similar) << line;
  }
  const auto wsl = explain_by_signatures(
      "Possible files are located at ['/usr/lib/wsl/lib/libcuda.so.1'].Please create a symlink "
      "of libcuda.so to any of the file.\n");
  ASSERT_FALSE(wsl.empty());
  EXPECT_EQ(wsl.front().id, "wsl.libcuda_not_on_path");
  // Other libraries ld cannot find, and the driver's own library missing, are other causes.
  for (const std::string line : {"/usr/bin/ld: cannot find -lcudart",
                                 "OSError: libcuda.so.1: cannot open shared object file: No such "
                                 "file or directory"}) {
    for (const auto& c : explain_by_signatures(line + "\n"))
      EXPECT_TRUE(c.similar || c.id != "driver.libcuda_unversioned_link_missing")
          << line << " -> " << c.id;
  }
}

// A full or small /dev/shm in the words of PyTorch's and Paddle's DataLoader: that cause first.
// In NCCL's words NCCL's failure comes first (shared/fixtures/explain labels it so) and the small
// /dev/shm second, its remedy beside it. A /dev/shm the user may not write, and torch's "Too many
// open files", are other causes.
TEST(Reasoning, SharedMemoryMessagesNameTheSmallDevShm) {
  for (const std::string line :
       {"ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
        "shared memory (shm).",
        "ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by "
        "insufficient shared memory (shm), please check whether use_shared_memory is set and "
        "storage space in /dev/shm is enough",
        "RuntimeError: DataLoader worker (pid 572) is killed by signal: Bus error. It is possible "
        "that dataloader's workers are out of shared memory. Please try to raise your shared "
        "memory limit.",
        "RuntimeError: unable to write to file </torch_31911_952036340_6686>: No space left on "
        "device (28)"}) {
    const auto causes = explain_by_signatures(line + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes.front().id, "memory.shm_too_small") << line;
    EXPECT_FALSE(causes.front().similar) << line;
  }
  for (const std::string line :
       {"include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
        "misc/shmutils.cc:128 NCCL WARN Error while creating shared memory segment "
        "/dev/shm/nccl-97p6hH (size 9637888), error: No space left on device (28)",
        "misc/shmutils.cc:87 NCCL WARN Error: failed to extend /dev/shm/nccl-gVcCAD to 9637892 "
        "bytes, error: No space left on device (28)",
        "0x00007f6b59544f3b in ncclShmOpen(char*, unsigned long, void**, void**, int, void**) () "
        "from /usr/local/lib/python3.10/dist-packages/jaxlib/xla_extension.so"}) {
    const auto causes = explain_by_signatures(line + "\n");
    ASSERT_GE(causes.size(), 2u) << line;
    EXPECT_EQ(causes[0].id, "nccl.error") << line;
    EXPECT_EQ(causes[1].id, "memory.shm_too_small") << line;
  }
  const auto denied = explain_by_signatures(
      "include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied\n"
      "include/shm.h:48 NCCL WARN Error while creating shared memory segment "
      "nccl-shm-recv-b7948f403864987a-0-3-0 (size 4460544)\n");
  ASSERT_FALSE(denied.empty());
  EXPECT_EQ(denied.front().id, "nccl.error");
  for (const auto& c : explain_by_signatures(
           "RuntimeError: unable to open shared memory object </torch_3150_1822069795> in "
           "read-write mode: Too many open files (24)\n"))
    EXPECT_TRUE(c.similar || c.id != "memory.shm_too_small") << c.id;
}

// The why of the one cause a text of notes alone gets: they only inform.
std::string informational_why(const std::string& log) {
  const auto causes = explain_text(log);
  if (causes.size() != 1 || causes.front().id != "log.informational_only") {
    ADD_FAILURE() << "not only informing: " << log;
    return {};
  }
  return causes.front().why;
}

// Lines a healthy start prints that read like errors (data/explain_signatures.csv's
// log.informational_only rows): alone they are the answer, each line said for what it means,
// and they resemble no reported case.
TEST(Reasoning, LinesThatOnlyInformAreTheAnswerWhenAlone) {
  const std::string factories =
      "2025-02-09 09:37:32.334610: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] "
      "Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one "
      "has already been registered\n"
      "2025-02-09 09:37:32.334667: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:607] "
      "Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when one "
      "has already been registered\n";
  EXPECT_TRUE(is_harmless_line(factories.substr(0, factories.find('\n'))));
  EXPECT_FALSE(is_error_line(factories.substr(0, factories.find('\n'))));
  const auto alone = explain_text(factories);
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone.front().id, "log.informational_only");
  EXPECT_FALSE(alone.front().similar);
  EXPECT_EQ(alone.front().evidence.size(), 2u);
  EXPECT_NE(alone.front().why.find("registering its CUDA plugins twice"), std::string::npos)
      << alone.front().why;

  // Two kinds of note: each is said.
  const std::string notes = informational_why(
      "W0726 14:31:17.682865 212581 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute "
      "Capability: 6.1, Driver API Version: 12.2, Runtime API Version: 11.7\n"
      "2024-11-17 15:28:51.443940: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:923] "
      "could not open file to read NUMA node: /sys/bus/pci/devices/0000:01:00.0/numa_node\n");
  EXPECT_NE(notes.find("PaddlePaddle"), std::string::npos) << notes;
  EXPECT_NE(notes.find("NUMA"), std::string::npos) << notes;

  // The NUMA note goes on over a second line (microsoft/WSL#10277), which says "without": the
  // note's own words, not an error.
  EXPECT_NE(informational_why("2023-07-12 14:59:25.260129: I tensorflow/compiler/xla/"
                              "stream_executor/cuda/cuda_gpu_executor.cc:981] could not open "
                              "file to read NUMA node: /sys/bus/pci/devices/0000:01:00.0/"
                              "numa_node\nYour kernel may have been built without NUMA support.\n")
                .find("NUMA"),
            std::string::npos);

  // A note's line names no other cause, whatever its words match: TensorFlow's allocator says
  // "ran out of memory" and "this is not a failure" (tensorpack/tensorpack#1303).
  EXPECT_NE(informational_why("W tensorflow/core/common_runtime/bfc_allocator.cc:237] Allocator "
                              "(GPU_0_bfc) ran out of memory trying to allocate 2.39GiB with "
                              "freed_by_count=0. The caller indicates that this is not a failure, "
                              "but may mean that there could be performance gains if more memory "
                              "were available.\n")
                .find("nothing failed"),
            std::string::npos);

  // A line that reads like an error nothing recognises: its cause is elsewhere, so no answer.
  for (const auto& c : explain_text(
           "[05/28/2023-21:01:14] [TRT] [W] CUDA lazy loading is not enabled. Enabling it can "
           "significantly reduce device memory usage and speed up TensorRT initialization.\n"
           "Error: the widget frobnicator failed to start\n"))
    EXPECT_NE(c.id, "log.informational_only");

  // The same lines before a real error: the error's cause, first.
  const auto with_error =
      explain_text(factories +
                   "W tensorflow/core/common_runtime/gpu/gpu_device.cc:2256] Cannot "
                   "dlopen some GPU libraries. Skipping registering GPU devices...\n"
                   "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:152] "
                   "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device "
                   "is detected\n");
  ASSERT_FALSE(with_error.empty());
  EXPECT_FALSE(with_error.front().similar);
  for (const auto& c : with_error)
    EXPECT_NE(c.id, "log.informational_only");
  // A line that only shares words with them still counts as an error.
  EXPECT_TRUE(
      is_error_line("E cuda_dnn.cc:9261] Unable to register cuDNN factory: cuDNN not found"));
}
// Code that no longer compiles because the toolkit removed an API it uses: each toolkit's own
// removal is named with the API the compiler refused, in nvcc's, GCC's and MSVC's words.
TEST(Reasoning, RemovedToolkitApisNameTheApiTheCompilerRefused) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"src/vapoursynthPlugin.cpp(45): error: class \"cudaDeviceProp\" has no member "
       "\"clockRate\"",
       "clockRate"},
      {"interface.cpp:444:22: error: 'struct cudaDeviceProp' has no member named "
       "'memoryClockRate'",
       "memoryClockRate"},
      {"find_cudadevices.cpp(118): error C2039: 'computeMode': is not a member of "
       "'cudaDeviceProp'",
       "computeMode"},
      {"atlas.cu(329): error: namespace \"cub\" has no member \"Sum\"", "Sum"},
      {"error: namespace \"thrust\" has no member class \"unary_function\"", "unary_function"},
      {"src/kernels.cuh(360): error: identifier \"cudaBindTexture\" is undefined",
       "cudaBindTexture"},
      {"SparseCUDABlas.cu(112): error: identifier \"cusparseScsrmm2\" is undefined",
       "cusparseScsrmm2"}};
  for (const auto& [line, api] : refused) {
    const auto causes = explain_by_signatures(line + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes.front().id, "cuda.toolkit_removed_api") << line;
    EXPECT_EQ(causes.front().captures.count("symbol") ? causes.front().captures.at("symbol") : "",
              api)
        << line;
  }
  const auto template_gone =
      explain_by_signatures("geometryTransform.cu(180): error: texture is not a template\n");
  ASSERT_FALSE(template_gone.empty());
  EXPECT_EQ(template_gone.front().id, "cuda.toolkit_removed_api");
  // What a missing include or a typo says in the same words is no removal.
  for (const std::string line :
       {"error: namespace \"cub\" has no member \"DeviceRadixSort\"",
        "error: class \"cudaPointerAttributes\" has no member \"memoryType\"",
        "error: class \"cudaDeviceProp\" has no member \"clockrate\"",
        "error: identifier \"cudaCreateTextureObject\" is undefined",
        "error: identifier \"cusparseSpMV\" is undefined"}) {
    for (const auto& c : explain_by_signatures(line + "\n"))
      EXPECT_TRUE(c.similar || c.id != "cuda.toolkit_removed_api") << line;
  }
}

// An entry point of the CUDA driver API (cu + a capital letter) missing at load time is a driver
// older than the code's CUDA; the runtime's cuda… and the libraries' symbols are not.
TEST(Reasoning, AMissingDriverApiEntryPointIsADriverTooOld) {
  const auto causes = explain_by_signatures(
      "ImportError: /usr/local/lib/python3.10/dist-packages/sgl_kernel/common_ops.abi3.so: "
      "undefined symbol: cuGreenCtxDestroy\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes.front().id, "driver.too_old");
  EXPECT_EQ(causes.front().captures.count("symbol") ? causes.front().captures.at("symbol") : "",
            "cuGreenCtxDestroy");
  for (const std::string line :
       {"ImportError: libtorch_cuda.so: undefined symbol: cudaGraphInstantiateWithFlags",
        "OSError: libcublas.so.11: undefined symbol: cublasLtGetStatusString, version "
        "libcublasLt.so.11"}) {
    const auto other = explain_by_signatures(line + "\n");
    ASSERT_FALSE(other.empty()) << line;
    EXPECT_NE(other.front().id, "driver.too_old") << line;
  }
}
// A log that says its own detail is hidden names the setting that shows it; the cause stays the
// failure the line reports, and the log level comes after it.
TEST(Reasoning, ALogThatHidesItsDetailNamesTheSettingThatShowsIt) {
  const auto causes = explain_by_signatures(
      "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes.front().id, "nccl.error");
  const auto hidden = std::find_if(causes.begin(), causes.end(), [](const Cause& c) {
    return c.id == "env.log_level_hides_errors";
  });
  ASSERT_NE(hidden, causes.end());
  EXPECT_NE(hidden->why.find("NCCL_DEBUG=INFO"), std::string::npos) << hidden->why;
  // The line names it, less specifically: not a cause only other threads found.
  EXPECT_TRUE(hidden->alternative);
  EXPECT_TRUE(hidden->named_less_specifically);
  for (const auto& c : causes) {
    if (c.alternative && c.signatures.size() == 1 && c.signatures.front() != "log_detail_hidden") {
      EXPECT_FALSE(c.named_less_specifically) << c.id;
    }
  }
  ASSERT_FALSE(hidden->fix.empty());
  EXPECT_NE(hidden->fix.front().find("NCCL_DEBUG=INFO"), std::string::npos) << hidden->fix.front();

  const auto jax = explain_by_signatures(
      "WARNING:absl:No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun "
      "for more info.)\n");
  const auto jax_hidden = std::find_if(
      jax.begin(), jax.end(), [](const Cause& c) { return c.id == "env.log_level_hides_errors"; });
  ASSERT_NE(jax_hidden, jax.end());
  EXPECT_NE(jax_hidden->why.find("TF_CPP_MIN_LOG_LEVEL=0"), std::string::npos) << jax_hidden->why;
  // NCCL echoing the setting it was given hides nothing.
  for (const auto& c : explain_by_signatures("NCCL INFO NCCL_DEBUG set by environment to INFO.\n"))
    EXPECT_NE(c.id, "env.log_level_hides_errors");
}

// A message's library appears in each cause's text only where it is what that text speaks of:
// TensorFlow asking for libcudart.so.11.0 is the CUDA runtime's line, and the compiled extension,
// TensorRT or driver library other threads' causes mention is not that file.
TEST(Reasoning, ACausesTextNamesTheMessagesLibraryOnlyWhereItIsOfItsKind) {
  const auto causes = explain_by_signatures(
      "2021-03-01 10:00:00.000000: W tensorflow/stream_executor/platform/default/"
      "dso_loader.cc:60] Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
      "libcudart.so.11.0: cannot open shared object file: No such file or directory\n");
  std::set<std::string> naming_it;
  for (const auto& c : causes)
    if (c.why.find("libcudart.so.11.0") != std::string::npos) naming_it.insert(c.id);
  EXPECT_TRUE(naming_it.contains("cuda.version_mismatch"));
  EXPECT_TRUE(naming_it.contains("cuda.runtime_missing"));
  for (const char* other : {"framework.extension_mismatch", "tensorrt.library_missing",
                            "driver.missing", "msvc.runtime_missing", "cudnn.missing"})
    EXPECT_FALSE(naming_it.contains(other)) << other;
  const auto extension = std::find_if(causes.begin(), causes.end(), [](const Cause& c) {
    return c.id == "framework.extension_mismatch";
  });
  ASSERT_NE(extension, causes.end());
  EXPECT_EQ(extension->why.find("()"), std::string::npos) << extension->why;
  // A compiled extension's own file is the extension's.
  const auto flash = explain_by_signatures(
      "ImportError: /venv/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-"
      "linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n");
  ASSERT_FALSE(flash.empty());
  EXPECT_EQ(flash.front().id, "framework.extension_mismatch");
  EXPECT_NE(flash.front().why.find("flash_attn_2_cuda"), std::string::npos) << flash.front().why;
}

// A library named at the end of a sentence is captured without the sentence's period, so the text
// and the loader's lookup on this machine get its real name.
TEST(Reasoning, ALibraryEndingASentenceIsCapturedWithoutItsPeriod) {
  const auto causes = explain_by_signatures(
      "Could not load library libcublasLt.so.11. Error: libcublasLt.so.11: cannot open shared "
      "object file: No such file or directory\nAborted (core dumped)\n");
  ASSERT_FALSE(causes.empty());
  for (const auto& c : causes) {
    if (const auto lib = c.captures.find("lib"); lib != c.captures.end()) {
      EXPECT_EQ(lib->second, "libcublasLt.so.11") << c.id;
    }
    EXPECT_EQ(c.why.find("libcublasLt.so.11."), std::string::npos) << c.why;
  }
  EXPECT_EQ(causes.front().unloaded_library, "libcublasLt.so.11");
}

// Error 803 has several known causes; a line showing, as surely, the loader resolve libcuda to
// the CUDA forward-compatibility copy says which one it was, whatever the lines' order.
TEST(Reasoning, ALineNamingOneOfAnotherLinesKnownCausesSaysWhichItWas) {
  const std::string compat =
      "\tlibcuda.so.1 (libc6,AArch64) => /usr/local/cuda-13.0/compat/libcuda.so.1\n";
  const std::string error_803 =
      "CUDA error at helper_cuda.h:816 code=803(cudaErrorSystemDriverMismatch) "
      "\"cudaGetDeviceCount(&device_count)\"\n";
  for (const auto& log : {compat + error_803, error_803 + compat}) {
    const auto causes = explain_by_signatures(log);
    ASSERT_GE(causes.size(), 2u) << log;
    EXPECT_EQ(causes[0].id, "lib.shadowed_copy") << log;
    EXPECT_NE(causes[0].why.find("/usr/local/cuda-13.0/compat/libcuda.so.1"), std::string::npos)
        << causes[0].why;
    EXPECT_EQ(causes[1].id, "driver.too_old") << log;
  }
  // Without the compat line, 803 is the driver's.
  EXPECT_EQ(explain_by_signatures(error_803).front().id, "driver.too_old");
  // A vaguer line naming one of them decides nothing: CUDA's error 30 is less sure than "no
  // NVIDIA devices found", which lists a module not loaded among its causes.
  const auto vague = explain_by_signatures(
      "NVIDIA: no NVIDIA devices found\nTHCudaCheck FAIL file=torch/csrc/autograd/engine.cpp "
      "line=352 error=30 : unknown error\n");
  ASSERT_FALSE(vague.empty());
  EXPECT_EQ(vague.front().id, "driver.missing");
  // The loader's other answers name no copy.
  for (const auto& c : explain_by_signatures(
           "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n" + error_803))
    EXPECT_FALSE(c.id == "lib.shadowed_copy" && !c.alternative) << c.id;
}

// The first cause of a log and its first fix, for tests of a signature's own fix text.
std::pair<std::string, std::string> first_cause_and_fix(const std::string& log) {
  const auto causes = explain_by_signatures(log);
  if (causes.empty()) return {"nothing", ""};
  return {causes.front().id, causes.front().fix.empty() ? "" : causes.front().fix.front()};
}

// Windows' own words for a DLL it could not find or a stale copy it found first: the exit status
// of a program whose imports failed, and an OpenMP entry point an older libomp140 lacks.
TEST(Reasoning, WindowsLoaderFailuresNameTheDllTheyPointTo) {
  const auto [exited, exited_fix] =
      first_cause_and_fix("[ace-server] Process exited with code 3221225781, signal null\n");
  EXPECT_EQ(exited, "cuda.runtime_missing");
  EXPECT_NE(exited_fix.find("dumpbin /dependents"), std::string::npos) << exited_fix;
  // The same status as other programs and Windows' own dialog spell it.
  for (const char* line :
       {"Process returned -1073741515 (0xC0000135)   execution time : 0.031 s\n",
        "The application was unable to start correctly (0xc0000135). Click OK to close the "
        "application.\n",
        "subprocess.CalledProcessError: Command '['main.exe']' returned non-zero exit status "
        "3221225781.\n"}) {
    EXPECT_EQ(first_cause_and_fix(line).first, "cuda.runtime_missing") << line;
  }
  for (const char* other : {"Nitro exited with code: 0\n", "Downloaded 3221225781 bytes\n"}) {
    for (const auto& c : explain_by_signatures(other))
      EXPECT_NE(c.id, "cuda.runtime_missing") << other;
  }
  const auto openmp = explain_by_signatures(
      "The procedure entry point __kmpc_dispatch_deinit could not be located\nin the dynamic link "
      "library:\n%LOCALAPPDATA%\\App\\llama-cpp\\cuda\\ggml-base.dll\n");
  ASSERT_FALSE(openmp.empty());
  EXPECT_EQ(openmp.front().id, "lib.shadowed_copy");
  EXPECT_NE(openmp.front().why.find("__kmpc_dispatch_deinit"), std::string::npos)
      << openmp.front().why;
  // Two OpenMP runtimes in one process: the stray copy is the cause, not the error's workaround.
  const auto [twice, twice_fix] = first_cause_and_fix(
      "OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already "
      "initialized.\n");
  EXPECT_EQ(twice, "lib.shadowed_copy");
  EXPECT_NE(twice_fix.find("libiomp5md.dll"), std::string::npos) << twice_fix;
  EXPECT_NE(twice_fix.find("nomkl"), std::string::npos) << twice_fix;
}

// The container toolkit in CDI mode (or Jetson's csv mode) refuses the hook docker --gpus calls;
// the fix is the runtime flag or a CDI device, not installing the toolkit.
TEST(Reasoning, AContainerToolkitThatRefusesItsHookNamesTheRuntimeFlag) {
  const auto [cause, fix] = first_cause_and_fix(
      "stderr: Using requested mode 'cdi'\ninvoking the NVIDIA Container Runtime Hook directly "
      "(e.g. specifying the docker --gpus flag) is not supported. Please use the NVIDIA Container "
      "Runtime (e.g. specify the --runtime=nvidia flag) instead.: unknown\n");
  EXPECT_EQ(cause, "container.no_gpu_access");
  EXPECT_NE(fix.find("--runtime=nvidia"), std::string::npos) << fix;
  EXPECT_NE(fix.find("nvidia.com/gpu=all"), std::string::npos) << fix;
}

// XLA's autotuner failing every cuDNN convolution is first memory the framework kept from cuDNN;
// the fix names each framework's setting.
TEST(Reasoning, XlasFailedConvolutionAutotuneNamesThePreallocation) {
  const auto [cause, fix] = first_cause_and_fix(
      "jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: Failed to determine best cudnn convolution "
      "algorithm for:\n  Profiling failure on cuDNN engine eng34{k2=1}: UNKNOWN: "
      "CUDNN_STATUS_EXECUTION_FAILED\n");
  EXPECT_EQ(cause, "cudnn.init_failed_oom");
  EXPECT_NE(fix.find("XLA_PYTHON_CLIENT_PREALLOCATE"), std::string::npos) << fix;
}

// The compiler checks of PyTorch's extension builder on Windows, and TensorFlow's cuDNN ops and
// device plugins, each name the cause behind them.
TEST(Reasoning, WindowsCompilerAndTensorFlowDeviceMessagesNameTheirCause) {
  const auto first_of = [](const std::string& line) {
    const auto causes = explain_by_signatures(line + "\n");
    return causes.empty() ? std::string("nothing") : causes.front().id;
  };
  EXPECT_EQ(first_of("subprocess.CalledProcessError: Command '['where', 'cl']' returned non-zero "
                     "exit status 1."),
            "build.c_compiler_missing");
  EXPECT_EQ(first_of("UserWarning: Error checking compiler version for cl: [WinError 2] The system "
                     "cannot find the file specified"),
            "build.c_compiler_missing");
  EXPECT_EQ(first_of("InvalidArgumentError: No OpKernel was registered to support Op "
                     "'CudnnRNNCanonicalToParams' used by node lstm/CudnnRNNCanonicalToParams"),
            "framework.cpu_only_build");
  EXPECT_NE(
      first_of("No OpKernel was registered to support Op 'SparseSoftmaxCrossEntropyWithLogits' "
               "with these attrs."),
      "framework.cpu_only_build");
  const auto plugin = explain_by_signatures(
      "tensorflow.python.framework.errors_impl.NotFoundError: dlopen(/Users/me/venv/lib/python3.9/"
      "site-packages/tensorflow-plugins/libmetal_plugin.dylib, 0x0006): Symbol not found: "
      "_TF_AssignUpdateVariable\n");
  ASSERT_FALSE(plugin.empty());
  EXPECT_EQ(plugin.front().id, "framework.extension_mismatch");
  EXPECT_NE(plugin.front().why.find("libmetal_plugin.dylib"), std::string::npos)
      << plugin.front().why;
}

// The dispatcher names the package whose operator has no CUDA kernel: torch's own (aten) is a torch
// without CUDA; torchvision's or torchaudio's beside a CUDA torch is a companion package of another
// build, fixed by installing the three together.
TEST(Reasoning, AnOperatorWithoutACudaKernelNamesThePackageItBelongsTo) {
  const auto [companion, companion_fix] = first_cause_and_fix(
      "RuntimeError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend.\n");
  EXPECT_EQ(companion, "framework.conflicting_packages");
  EXPECT_NE(companion_fix.find("torchvision matches torch"), std::string::npos) << companion_fix;
  EXPECT_EQ(first_cause_and_fix("NotImplementedError: Could not run 'torchaudio::_lfilter' with "
                                "arguments from the 'CUDA' backend.\n")
                .first,
            "framework.conflicting_packages");
  EXPECT_EQ(
      first_cause_and_fix("Exception: Could not run 'aten::empty_strided' with arguments from "
                          "the 'CUDA' backend.\n")
          .first,
      "framework.cpu_only_build");
}

// Error 200 is an image the driver could not load, not a GPU the binary lacks (209); a line that
// names the cause still comes first.
TEST(Reasoning, AnInvalidKernelImageIsCodeTheDriverCouldNotLoad) {
  const auto [invalid, invalid_fix] =
      first_cause_and_fix("RuntimeError: Triton Error [CUDA]: device kernel image is invalid.\n");
  EXPECT_EQ(invalid, "driver.too_old");
  EXPECT_NE(invalid_fix.find("the CUDA the program was built with"), std::string::npos)
      << invalid_fix;
  EXPECT_EQ(first_cause_and_fix("CUDA error: no kernel image is available for execution on the "
                                "device\n")
                .first,
            "gpu.compute_capability_unsupported");
  EXPECT_EQ(first_cause_and_fix("W asm_compiler.cc:232] Falling back to the CUDA driver for PTX "
                                "compilation; ptxas does not support CC 8.9\nE cuda_driver.cc:864] "
                                "failed to load PTX text as a module: CUDA_ERROR_INVALID_IMAGE: "
                                "device kernel image is invalid\n")
                .first,
            "cuda.ptxas_missing_or_old");
}

// The other spellings of the messages rounds 59 and 60 brought: Event Viewer's and the debugger's
// crash reports of a cuDNN 8 DLL, NVML's error 9 as its enum and as Ollama prints it, CUDA's
// error 30 as PaddlePaddle prints it.
TEST(Reasoning, CrashReportsNvmlErrorNineAndPaddlesErrorThirtyNameTheirCause) {
  for (const char* line :
       {"Faulting module name: cudnn_cnn_infer64_8.dll, version: 6.14.11.6050, time stamp: "
        "0x6374e4f4\n",
        "Error module name: cudnn64_8.dll, version: 6.14.11.6050, timestamp: 0x60375746\n",
        "Unhandled exception at 0x00007FFB2C3A420D (cudnn64_8.dll) in app.exe: Fatal program exit "
        "requested.\n"}) {
    EXPECT_EQ(first_cause_and_fix(line).first, "cudnn.zlibwapi_missing") << line;
  }
  for (const char* other : {"Faulting module name: cudart64_110.dll, version: 6.14.11.1100\n",
                            "Loaded cudnn64_8.dll (version 8.9.7)\n"}) {
    for (const auto& c : explain_by_signatures(other))
      EXPECT_NE(c.id, "cudnn.zlibwapi_missing") << other;
  }
  for (const char* line :
       {"time=2024-01-08 level=INFO msg=\"CUDA not detected: nvml vram init "
        "failure: 9\"\n",
        "nvmlInit_v2 failed: NVML_ERROR_DRIVER_NOT_LOADED = 9\n",
        "ABORT: CUDA NVML library initialization failed: NVML_DRIVER_NOT_LOADED\n"}) {
    EXPECT_EQ(first_cause_and_fix(line).first, "driver.wsl_linux_driver_installed") << line;
  }
  for (const auto& c : explain_by_signatures("CUDA not detected: nvml vram init failure: 999\n"))
    EXPECT_NE(c.id, "driver.wsl_linux_driver_installed");
  EXPECT_EQ(first_cause_and_fix("PaddleCheckError: cudaGetDeviceCount failed in "
                                "paddle::platform::GetCUDADeviceCountImpl, error code : 30, Please "
                                "see detail in https://docs.nvidia.com/x: unknown error at "
                                "[/paddle/paddle/fluid/platform/gpu_info.cc:67]\n")
                .first,
            "driver.module_not_loaded");
  for (const auto& c : explain_by_signatures("cudaGetDeviceCount failed, error code : 35, Please "
                                             "see detail: CUDA driver version is insufficient\n"))
    EXPECT_NE(c.id, "driver.module_not_loaded");
}

// The batch scheduler's refusals of a GPU request and slurmd's GRES errors name the scheduler's
// configuration, not the GPU stack: the job never reached a GPU.
TEST(Reasoning, SlurmGresMessagesNameTheSchedulersConfiguration) {
  for (const std::string line :
       {"sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification",
        "srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) "
        "specification",
        "sbatch: error: No gpu count given, specify --gres=gpu",
        "submitit.core.utils.FailedJobError: sbatch: error: Parameter --gres=gpu:1 no longer "
        "acceptable, please switch to --gpus=1",
        "sbatch: error: You must always specify a type when requesting gpu GRES",
        "sbatch: error: Batch job submission failed: Requested GRES option unsupported by "
        "configured SelectType plugin",
        "slurmstepd: error: Bind request gpu:verbose,single:1 does not specify any devices within "
        "the allocation for task 0. Binding to the first device in the allocation instead.",
        "Reason=gres/gpu count reported lower than configured (0 < 8)",
        "slurmctld: _node_config_validate: gres/gpu: Count changed on node nodegpu1 (4 != 3)",
        "slurmd[5421]: fatal: can't stat gres.conf file /dev//nvidia0: No such file or directory",
        "error: _node_config_validate: gres/gpu: invalid GRES core specification (48-63,176-191) "
        "on node node01",
        "fatal: We were configured to autodetect nvml functionality, but we weren't able to find "
        "that lib when Slurm was configured",
        "srun: error: Unable to allocate resources: Requested node configuration is not "
        "available"}) {
    const auto causes = explain_by_signatures(line + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes.front().id, "scheduler.gres_misconfigured") << line;
    EXPECT_FALSE(causes.front().similar) << line;
  }
  // A queued job and slurmd's own inventory report nothing wrong.
  for (const std::string line :
       {"srun: job 16413634 queued and waiting for resources", "sbatch: Submitted batch job 42",
        "slurmd: Gres Name=gpu Type=a100 Count=8"}) {
    for (const auto& c : explain_by_signatures(line + "\n"))
      EXPECT_TRUE(c.similar || c.id != "scheduler.gres_misconfigured") << line;
  }
}
}  // namespace
}  // namespace gpuvet::explain
