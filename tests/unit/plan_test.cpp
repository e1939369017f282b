// plan: table-driven over the knowledge base, the seeds' recipes, blockers and alternatives,
// the same answer from a snapshot and from flags, and the environment files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/new_file.hpp"
#include "core/version.hpp"
#include "kb/driver_rule.hpp"
#include "kb/queries.hpp"
#include "pipeline/diagnose.hpp"
#include "plan/plan.hpp"
#include "report/render_plan.hpp"
#include "report/report.hpp"
#include "system/snapshot.hpp"
#include "test_support.hpp"

namespace gpuvet::plan {
namespace {

using gpuvet::testing::embedded_kb;
using gpuvet::testing::messages;

Plan solve(const Request& r, kb::Lang lang = kb::Lang::en) {
  auto plan = make_plan(r, embedded_kb(), messages(lang));
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().message);
  return plan.ok() ? *plan : Plan{};
}

Request ask(const std::string& framework, std::optional<std::string> version, const std::string& os,
            std::optional<std::string> cc, std::optional<std::string> driver,
            std::optional<std::string> python) {
  Request r;
  r.framework = framework;
  r.version = std::move(version);
  r.os = os;
  r.compute_capability = std::move(cc);
  r.driver = std::move(driver);
  r.python = std::move(python);
  return r;
}

bool has_blocker(const Plan& p, const std::string& id) {
  return std::any_of(p.blockers.begin(), p.blockers.end(),
                     [&](const Blocker& b) { return b.id == id; });
}

std::string all_commands(const Option& o) {
  std::string out;
  for (const auto& s : o.steps) {
    out += s.title + "\n";
    for (const auto& c : s.commands)
      out += c + "\n";
  }
  return out;
}

// Every TensorFlow tested build with a CUDA: plan reproduces its CUDA, cuDNN and Python range.
TEST(Plan, ReproducesEveryTensorFlowBuildRow) {
  auto rows = kb::rows_if(embedded_kb(), "tensorflow_builds", [](const kb::Row& r) {
    return (r.get("platform") == "linux" || r.get("platform") == "windows") &&
           !r.get("cuda").empty();
  });
  ASSERT_TRUE(rows.ok());
  ASSERT_GT(rows->size(), 50u);
  for (const auto& row : *rows) {
    const std::string v = row.get("version");
    const Plan p =
        solve(ask("tensorflow", v, row.get("platform"), "7.0", "999.0", row.get("python_min")));
    // Feasible, or unverified where the KB lacks the build's architectures; never infeasible.
    ASSERT_NE(p.outcome, Outcome::infeasible) << v << " " << row.get("platform");
    ASSERT_FALSE(p.options.empty()) << v;
    const Build& b = p.options.front().build;
    EXPECT_EQ(b.version, v);
    const std::string cuda = row.get("cuda");
    EXPECT_EQ(b.cuda, cuda.find('.') == std::string::npos ? cuda + ".0" : cuda) << v;
    EXPECT_EQ(b.cudnn, row.get("cudnn")) << v;
    EXPECT_EQ(b.python_min, row.get("python_min")) << v;
    EXPECT_EQ(b.python_max, row.get("python_max")) << v;
    EXPECT_TRUE(p.options.front().min_driver.has_value()) << v;
    EXPECT_FALSE(p.options.front().steps.empty()) << v;
  }
}

// Every PyTorch release and CUDA variant: asked with --cuda, the plan is that wheel.
TEST(Plan, ReproducesEveryPyTorchVariant) {
  auto builds = known_builds(embedded_kb(), "torch");
  ASSERT_TRUE(builds.ok());
  size_t checked = 0;
  for (const auto& b : *builds) {
    if (b.platform != "linux") continue;
    Request r = ask("torch", b.version, "linux", std::nullopt, "999.0", b.python_min);
    r.cuda = b.cuda;
    const Plan p = solve(r);
    ASSERT_TRUE(p.feasible) << b.version << " " << b.variant;
    const auto same = std::find_if(p.options.begin(), p.options.end(), [&](const Option& o) {
      return o.build.version == b.version && o.build.variant == b.variant;
    });
    ASSERT_NE(same, p.options.end()) << b.version << " " << b.variant;
    EXPECT_NE(same->package_spec.find("torch==" + b.version), std::string::npos);
    if (same->index_url) {
      EXPECT_NE(same->index_url->find("download.pytorch.org"), std::string::npos);
    }
    ++checked;
  }
  EXPECT_GT(checked, 60u);
}

// Seed 000: TensorFlow 2.1 on Windows 10 with a GTX 1060 and driver 452.06.
TEST(Plan, SeedTensorFlow21OnWindows) {
  const Plan p = solve(ask("tensorflow", "2.1", "windows", "6.1", "452.06", "3.7"));
  ASSERT_TRUE(p.feasible);
  const Option& o = p.options.front();
  EXPECT_EQ(o.package_spec, "tensorflow-gpu==2.1.0");
  EXPECT_EQ(o.build.cuda, "10.1");
  EXPECT_EQ(o.build.cudnn, "7.6");
  EXPECT_EQ(o.build.python_min, "3.5");
  EXPECT_EQ(o.build.python_max, "3.7");
  EXPECT_EQ(o.min_driver, "418.96");  // CUDA 10.1's Windows driver, as the seed says
  const std::string steps = all_commands(o);
  EXPECT_NE(steps.find("10.1 Update 2 (10.1.243)"), std::string::npos) << steps;
  EXPECT_NE(steps.find("cuDNN 7.6.5 for CUDA 10.1"), std::string::npos) << steps;
  EXPECT_NE(steps.find("msvcp140_1.dll"), std::string::npos) << steps;
  EXPECT_NE(steps.find("CUDA\\v10.1\\bin"), std::string::npos) << steps;
}

// Seed 002's "stable combinations" on Windows 10/11: what is right and what is not.
TEST(Plan, SeedStableCombinationsOnWindows) {
  // TF 2.15 + CUDA 12.3 + cuDNN 8.9 + Python 3.10: no native Windows GPU build after 2.10.
  const Plan tf215 = solve(ask("tensorflow", "2.15", "windows", "8.6", "546.12", "3.10"));
  EXPECT_FALSE(tf215.feasible);
  EXPECT_TRUE(has_blocker(tf215, "framework.windows_native_gpu_unsupported"));
  ASSERT_GE(tf215.options.size(), 2u);
  EXPECT_EQ(tf215.options[0].platform, "wsl2");
  EXPECT_EQ(tf215.options[0].build.cuda, "12.2");  // not 12.3: the tested build is 12.2
  EXPECT_EQ(tf215.options[0].package_spec, "tensorflow[and-cuda]==2.15.0");
  EXPECT_TRUE(tf215.options[0].build.wheels_bring_cuda);
  EXPECT_EQ(tf215.options[1].platform, "windows");
  EXPECT_EQ(tf215.options[1].build.version, "2.10.0");
  for (const auto& o : tf215.options)
    EXPECT_TRUE(o.alternative);

  // TF 2.12 + CUDA 11.8 + cuDNN 8.6 + Python 3.9: right on Linux, not on native Windows.
  EXPECT_FALSE(solve(ask("tensorflow", "2.12", "windows", "8.6", "546.12", "3.9")).feasible);
  const Plan tf212 = solve(ask("tensorflow", "2.12", "linux", "8.6", "545.23.06", "3.9"));
  ASSERT_TRUE(tf212.feasible);
  EXPECT_EQ(tf212.options[0].build.cuda, "11.8");
  EXPECT_EQ(tf212.options[0].build.cudnn, "8.6");

  // TF 2.9 + CUDA 11.2 + cuDNN 8.1 + Python 3.8: right.
  const Plan tf29 = solve(ask("tensorflow", "2.9", "windows", "8.6", "546.12", "3.8"));
  ASSERT_TRUE(tf29.feasible);
  EXPECT_EQ(tf29.options[0].build.cuda, "11.2");
  EXPECT_EQ(tf29.options[0].build.cudnn, "8.1");

  // TF 1.15 with cudatoolkit 10.1 and cuDNN 7.6: the tested build is CUDA 10.0 with cuDNN 7.4.
  const Plan tf115 = solve(ask("tensorflow", "1.15", "windows", "6.1", "452.06", "3.7"));
  ASSERT_TRUE(tf115.feasible);
  EXPECT_EQ(tf115.options[0].build.cuda, "10.0");
  EXPECT_EQ(tf115.options[0].build.cudnn, "7.4");
  EXPECT_EQ(tf115.options[0].package_spec, "tensorflow-gpu==1.15.0");
}

TEST(Plan, ComputeCapabilityBelowTheBuildIsABlockerWithTheNewestThatFits) {
  // A GTX 650 (3.0) and TensorFlow 2.1 (3.5 and up).
  const Plan p = solve(ask("tensorflow", "2.1", "linux", "3.0", "470.82.01", "3.7"));
  EXPECT_FALSE(p.feasible);
  EXPECT_TRUE(has_blocker(p, "gpu.compute_capability_unsupported"));
  // PyTorch's cu126 wheels of 2.8 have sm_50 as their oldest code: a 3.7 GPU cannot run them,
  // and nothing newer can either.
  Request old_gpu = ask("torch", "2.8", "linux", "3.7", "570.26", "3.10");
  const Plan torch = solve(old_gpu);
  EXPECT_FALSE(torch.feasible);
  EXPECT_TRUE(has_blocker(torch, "gpu.compute_capability_unsupported"));
}

TEST(Plan, ABlackwellGpuGetsOnlyWheelsWithItsCode) {
  // RTX 5090 (12.0) with driver 570.26: cu126 has no sm_120 and no PTX, cu130 needs 580.
  const Plan p = solve(ask("torch", std::nullopt, "linux", "12.0", "570.26", "3.12"));
  ASSERT_TRUE(p.feasible);
  for (const auto& o : p.options) {
    EXPECT_EQ(o.build.variant, "cu128") << o.build.version;
    EXPECT_NE(o.index_url->find("/cu128"), std::string::npos);
  }
}

TEST(Plan, ADriverTooOldOffersTheUpdateAndTheNewestBuildItRuns) {
  const Plan p = solve(ask("tensorflow", "2.1", "linux", "7.5", "410.48", "3.7"));
  EXPECT_FALSE(p.feasible);
  ASSERT_TRUE(has_blocker(p, "driver.too_old"));
  ASSERT_GE(p.options.size(), 2u);
  EXPECT_EQ(p.options[0].build.version, "2.1.0");
  EXPECT_NE(p.options[0].notes.front().find("418.39"), std::string::npos);
  EXPECT_EQ(p.options[1].build.version, "2.0.0");  // CUDA 10.0 runs on 410.48
  EXPECT_EQ(p.options[1].min_driver, "410.48");
}

TEST(Plan, MinorVersionCompatibilityIsANoteNotABlocker) {
  // CUDA 12.1 wheels on driver 525.60.13: below 12.1's own 530.30.02, above CUDA 12's 525.60.13.
  Request r = ask("torch", "2.1", "linux", "8.6", "525.60.13", "3.10");
  r.cuda = "12.1";
  const Plan p = solve(r);
  ASSERT_TRUE(p.feasible);
  EXPECT_EQ(p.options[0].min_driver, "530.30.02");
  EXPECT_EQ(p.options[0].driver_floor, "525.60.13");
  const auto& notes = p.options[0].notes;
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("minor version compatibility") != std::string::npos;
  }));
  r.driver = "520.61.05";
  EXPECT_TRUE(has_blocker(solve(r), "driver.too_old"));
}

TEST(Plan, PythonOutsideTheRangeIsABlockerWithANewEnvironmentOffered) {
  const Plan p = solve(ask("tensorflow", "2.1", "windows", "6.1", "452.06", "3.9"));
  EXPECT_FALSE(p.feasible);
  ASSERT_TRUE(has_blocker(p, "python.version_unsupported"));
  EXPECT_NE(p.blockers[0].why.find("3.5 to 3.7"), std::string::npos) << p.blockers[0].why;
  ASSERT_FALSE(p.options.empty());
  EXPECT_EQ(p.options[0].build.version, "2.1.0");
  EXPECT_EQ(p.options[0].environment_python, "3.7");
  EXPECT_NE(all_commands(p.options[0]).find("python=3.7"), std::string::npos);
}

TEST(Plan, WheelsBringCudaSoNoToolkitIsInstalled) {
  const Plan p = solve(ask("tensorflow", "2.15", "linux", "8.6", "535.104.05", "3.10"));
  ASSERT_NE(p.outcome, Outcome::infeasible);
  ASSERT_FALSE(p.options.empty());
  const std::string steps = all_commands(p.options[0]);
  EXPECT_EQ(steps.find("cuda-toolkit-archive"), std::string::npos) << steps;
  EXPECT_EQ(steps.find("cudnn-archive"), std::string::npos) << steps;
  EXPECT_NE(steps.find("pip install \"tensorflow[and-cuda]==2.15.0\""), std::string::npos);
  // JAX: the newest release whose wheels fit (cuda13 needs driver 580, so a cuda12 one).
  const Plan jax = solve(ask("jax", std::nullopt, "linux", "8.0", "560.35.03", "3.12"));
  ASSERT_TRUE(jax.feasible);
  EXPECT_TRUE(jax.options[0].package_spec.starts_with("jax[cuda12]=="))
      << jax.options[0].package_spec;
}

// Pinned JAX releases (data/jax_releases.csv): jax==0.4.30 is the cuda12 plugin build of CUDA 12.3
// for Python 3.9-3.12; an older one installs from JAX's find-links page.
TEST(Plan, PinnedJaxReleases) {
  const Plan p = solve(ask("jax", "0.4.30", "linux", "8.6", "550.54.14", std::nullopt));
  ASSERT_TRUE(p.feasible);
  const Option& o = p.options.front();
  EXPECT_EQ(o.build.version, "0.4.30");
  EXPECT_EQ(o.build.cuda.value_or("").substr(0, 4), "12.3");
  EXPECT_EQ(o.build.python_min, "3.9");
  EXPECT_EQ(o.build.python_max, "3.12");
  EXPECT_EQ(o.package_spec, "jax[cuda12]==0.4.30");
  // Python 3.13 is outside 0.4.30's range: a blocker only when asked for.
  EXPECT_FALSE(solve(ask("jax", "0.4.30", "linux", "8.6", "550.54.14", "3.13")).feasible);
  const Plan old = solve(ask("jax", "0.4.20", "linux", "8.0", "560.35.03", "3.11"));
  ASSERT_FALSE(old.options.empty());
  EXPECT_EQ(old.options.front().index_option, "-f");
}

// Paddle 2.x: the CUDA variant in the version (.post120) and Paddle's own index; the PyPI build
// (CUDA 11.8) has neither.
TEST(Plan, PaddleVariantsComeFromPaddlesOwnIndex) {
  const Plan p = solve(ask("paddle", "2.6", "windows", "7.5", "531.14", "3.10"));
  ASSERT_TRUE(p.feasible);
  const Option& best = p.options.front();
  EXPECT_EQ(best.build.version, "2.6.2");
  EXPECT_EQ(best.package_spec, "paddlepaddle-gpu==2.6.2.post120");
  EXPECT_EQ(best.index_option, "-i");
  EXPECT_EQ(best.index_url, "https://www.paddlepaddle.org.cn/packages/stable/cu120/");
  EXPECT_EQ(best.build.cudnn, "8.9");
  const auto pypi = std::find_if(p.options.begin(), p.options.end(),
                                 [](const Option& o) { return o.build.cuda == "11.8"; });
  ASSERT_NE(pypi, p.options.end());
  EXPECT_EQ(pypi->package_spec, "paddlepaddle-gpu==2.6.2");
  EXPECT_FALSE(pypi->index_url);
  EXPECT_NE(all_commands(best).find("paddle.utils.run_check()"), std::string::npos);
  // Paddle 3 on Linux takes CUDA from its wheels: no toolkit step.
  const Plan linux = solve(ask("paddle", "3.0", "linux", "8.6", "570.86", "3.12"));
  ASSERT_FALSE(linux.options.empty());
  EXPECT_TRUE(linux.options.front().build.wheels_bring_cuda);
  EXPECT_EQ(all_commands(linux.options.front()).find("cuda_"), std::string::npos);
}

// ONNX Runtime 1.17: PyPI has the CUDA 11.8 build, the CUDA 12 build is on its own feed.
TEST(Plan, OnnxRuntimeCudaMajorsComeFromTheirIndexes) {
  const Plan p = solve(ask("onnxruntime", "1.17", "linux", "8.6", "550.54.14", "3.11"));
  ASSERT_NE(p.outcome, Outcome::infeasible);
  bool cuda11 = false;
  bool cuda12 = false;
  for (const auto& o : p.options) {
    EXPECT_EQ(o.package_spec, "onnxruntime-gpu==1.17.*");
    if (o.build.cuda == "11.8") {
      cuda11 = true;
      EXPECT_FALSE(o.index_url);
    }
    if (o.build.cuda == "12.2") {
      cuda12 = true;
      EXPECT_EQ(o.index_option, "--extra-index-url");
      EXPECT_NE(o.index_url.value_or("").find("onnxruntime-cuda-12"), std::string::npos);
    }
  }
  EXPECT_TRUE(cuda11);
  EXPECT_TRUE(cuda12);
  // 1.21+: the [cuda,cudnn] extras bring CUDA and cuDNN.
  const Plan extras = solve(ask("onnxruntime", "1.22", "linux", "8.6", "570.86", "3.12"));
  const auto it = std::find_if(extras.options.begin(), extras.options.end(),
                               [](const Option& o) { return o.build.wheels_bring_cuda; });
  ASSERT_NE(it, extras.options.end());
  EXPECT_EQ(it->package_spec, "onnxruntime-gpu[cuda,cudnn]==1.22.*");
}

// CuPy: one wheel per CUDA major; the release series is pinned, the GPU must meet the minimum.
TEST(Plan, CupyWheelsPerCudaMajor) {
  const Plan p = solve(ask("cupy", "13", "linux", "8.6", "550.54.14", "3.11"));
  ASSERT_TRUE(p.feasible);
  EXPECT_EQ(p.options.front().build.version, "13.6");
  EXPECT_TRUE(p.options.front().package_spec.starts_with("cupy-cuda1"));
  EXPECT_TRUE(p.options.front().package_spec.ends_with("==13.6.*"));
  // CuPy 14 needs compute capability 5.0 or newer (data/cupy_builds.csv).
  const Plan kepler = solve(ask("cupy", "14", "linux", "3.5", "550.54.14", "3.11"));
  EXPECT_FALSE(kepler.feasible);
  EXPECT_TRUE(has_blocker(kepler, "gpu.compute_capability_unsupported"));
}

TEST(Plan, UnknownFrameworksAndVersionsAreErrorsNotGuesses) {
  for (const auto& [framework, version] :
       std::vector<std::pair<std::string, std::optional<std::string>>>{{"caffe", std::nullopt},
                                                                       {"cupy", "9.9"},
                                                                       {"paddle", "1.8"},
                                                                       {"onnxruntime", "0.5"},
                                                                       {"tensorflow", "3.0"},
                                                                       {"tensorflow", "2.30"},
                                                                       {"torch", "0.4"}}) {
    auto p = make_plan(ask(framework, version, "linux", "8.6", "550.54.14", "3.10"), embedded_kb(),
                       messages());
    EXPECT_FALSE(p.ok()) << framework << " " << version.value_or("");
  }
}

TEST(Plan, DeterministicAndTranslated) {
  const Request r = ask("torch", "2.1", "windows", "8.6", "531.14", "3.10");
  const std::string a = report::render_plan_json(solve(r), "x");
  const std::string b = report::render_plan_json(solve(r), "x");
  EXPECT_EQ(a, b);
  const std::string zh =
      report::render_plan_text(solve(r, kb::Lang::zh), messages(kb::Lang::zh), false);
  EXPECT_NE(zh.find("方案"), std::string::npos) << zh;
  const auto json = nlohmann::json::parse(a);
  EXPECT_EQ(json["schema"], "gpuvet.plan/1");
  for (const char* key : {"platform", "framework", "framework_version", "package", "python", "cuda",
                          "cudnn", "min_driver", "steps", "notes"}) {
    EXPECT_TRUE(json["options"][0].contains(key)) << key;
  }
}

// The same request asked through a snapshot's facts and through explicit flags: the same plan.
TEST(Plan, SnapshotAndFlagsGiveTheSamePlan) {
  for (const char* scenario : {"windows10_gtx1060_tf21_all_green", "linux_torch_cu121",
                               "wsl2_ubuntu", "linux_kepler_gtx650_tf21"}) {
    const std::string path = std::string(GPUVET_SCENARIO_DIR) + "/" + scenario + "/snapshot.json";
    auto snapshot = sys::load_snapshot_file(path);
    ASSERT_TRUE(snapshot.ok()) << path;
    const sys::ReplaySystem system(std::move(*snapshot));
    auto report = pipeline::diagnose(system, embedded_kb(), messages());
    ASSERT_TRUE(report.ok());
    Request open;
    open.framework = "tensorflow";
    open.version = "2.1";
    auto from_facts = complete_from_facts(open, report->facts, embedded_kb(), messages());
    ASSERT_TRUE(from_facts.ok());
    EXPECT_FALSE(from_facts->python) << "the machine's Python is a preference";
    Request flags = ask("tensorflow", "2.1", from_facts->os, from_facts->compute_capability,
                        from_facts->driver, std::nullopt);
    flags.gpu = from_facts->gpu;
    flags.preferred_python = from_facts->preferred_python;
    auto a = nlohmann::json::parse(report::render_plan_json(solve(*from_facts), "x"));
    auto b = nlohmann::json::parse(report::render_plan_json(solve(flags), "x"));
    a["request"].erase("origins");
    b["request"].erase("origins");
    EXPECT_EQ(a, b) << scenario;
  }
}

TEST(Plan, WritesTheEnvironmentFiles) {
  const Plan p = solve(ask("torch", "2.1", "linux", "8.6", "535.104.05", "3.10"));
  ASSERT_TRUE(p.feasible);
  gpuvet::testing::TempDir dir;
  auto files = write_environment_files(p.options[0], dir.path() + "/env");
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 3u);
  const auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string requirements = read(dir.path() + "/env/requirements.txt");
  EXPECT_NE(requirements.find("--index-url https://download.pytorch.org/whl/cu121"),
            std::string::npos)
      << requirements;
  EXPECT_NE(requirements.find("torch==2.1.*"), std::string::npos);
  const std::string yml = read(dir.path() + "/env/environment.yml");
  EXPECT_NE(yml.find("python=3.10"), std::string::npos) << yml;
  EXPECT_NE(read(dir.path() + "/env/activate-gpu.sh").find("unset LD_LIBRARY_PATH"),
            std::string::npos);
  // A toolkit build on Windows: the batch file puts that toolkit first on PATH.
  const Plan tf = solve(ask("tensorflow", "2.1", "windows", "6.1", "452.06", "3.7"));
  auto win = write_environment_files(tf.options[0], dir.path() + "/win");
  ASSERT_TRUE(win.ok());
  EXPECT_NE(read(dir.path() + "/win/activate-gpu.bat").find("CUDA\\v10.1\\bin"), std::string::npos);
}

std::string contents_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Plan, WritingRefusesFilesAlreadyThereUnlessForced) {
  const Plan p = solve(ask("torch", "2.1", "linux", "8.6", "535.104.05", "3.10"));
  gpuvet::testing::TempDir dir;
  const std::string env = dir.path() + "/env";
  ASSERT_TRUE(write_environment_files(p.options[0], env).ok());
  const std::string mine = dir.file("env/requirements.txt", "my own pins\n");
  const auto again = write_environment_files(p.options[0], env);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message,
            env + "/requirements.txt already exists; pass --force to replace it");
  EXPECT_EQ(contents_of(mine), "my own pins\n");
  ASSERT_TRUE(write_environment_files(p.options[0], env, true).ok());
  EXPECT_NE(contents_of(mine).find("torch==2.1"), std::string::npos);
}

// Links planted in DIR: one to a file outside, one dangling. Neither target is written or
// created, with or without --force; --force replaces the links themselves.
TEST(Plan, WritingNeverFollowsLinksPlantedInTheDirectory) {
  namespace fs = std::filesystem;
  const Plan p = solve(ask("torch", "2.1", "linux", "8.6", "535.104.05", "3.10"));
  gpuvet::testing::TempDir dir;
  const fs::path env = paths::to_fs(dir.path() + "/env");
  fs::create_directories(env);
  const std::string outside = dir.file("outside.txt", "precious\n");
  const fs::path dangling_target = paths::to_fs(dir.path() + "/created-through-the-link");
  std::error_code ec;
  fs::create_symlink(paths::to_fs(outside), env / "requirements.txt", ec);
  if (ec) GTEST_SKIP() << "cannot create symbolic links here: " << ec.message();
  fs::create_symlink(dangling_target, env / "environment.yml", ec);
  ASSERT_FALSE(ec) << ec.message();

  EXPECT_FALSE(write_environment_files(p.options[0], paths::from_fs(env)).ok());
  EXPECT_FALSE(fs::exists(env / "activate-gpu.sh"));  // refused before writing anything
  // The race the check cannot close: the file is created new, never through a link.
  EXPECT_FALSE(write_new_file(paths::from_fs(env / "requirements.txt"), "x", false).ok());
  EXPECT_FALSE(write_new_file(paths::from_fs(env / "environment.yml"), "x", false).ok());
  EXPECT_EQ(contents_of(outside), "precious\n");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dangling_target)));

  ASSERT_TRUE(write_environment_files(p.options[0], paths::from_fs(env), true).ok());
  EXPECT_EQ(contents_of(outside), "precious\n");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dangling_target)));
  for (const char* name : {"requirements.txt", "environment.yml", "activate-gpu.sh"}) {
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(env / name))) << name;
  }
  EXPECT_NE(contents_of(env / "requirements.txt").find("torch==2.1"), std::string::npos);
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(env), fs::directory_iterator()), 3);
}

}  // namespace
}  // namespace gpuvet::plan

namespace gpuvet::plan {
namespace {

// The §4 rules of a plan as an advisor: newest release first, one driver rule, nothing unknown
// shown as '?', and no build without code for the GPU called feasible.
TEST(PlanAdvisor, NewestFittingReleaseComesFirst) {
  const Plan p = solve(ask("torch", std::nullopt, "linux", "8.6", "535.104.05", std::nullopt));
  ASSERT_TRUE(p.feasible);
  for (size_t i = 1; i < p.options.size(); ++i) {
    if (!p.options[i].verified) break;
    EXPECT_GE(version::compare(p.options[i - 1].build.version, p.options[i].build.version), 0)
        << p.options[i - 1].build.version << " before " << p.options[i].build.version;
  }
  // 2.7 (CUDA 11.8, the driver's own) is older than what fits through minor compatibility.
  EXPECT_GT(version::compare(p.options.front().build.version, "2.7"), 0);
}

TEST(PlanAdvisor, OldDriverStillGetsACuda11Torch2) {
  const Plan p = solve(ask("torch", std::nullopt, "linux", "8.6", "470.82.01", std::nullopt));
  ASSERT_TRUE(p.feasible);
  EXPECT_TRUE(p.options.front().build.version.starts_with("2.")) << p.options.front().build.version;
  EXPECT_EQ(version::major(p.options.front().build.cuda.value_or("")), "11");
}

TEST(PlanAdvisor, CheckAndPlanShareOneDriverRule) {
  struct Case {
    const char* cuda;
    const char* driver;
    bool windows;
    kb::DriverFit fit;
  };
  for (const Case& c : {Case{"11.8", "470.82.01", false, kb::DriverFit::minor_compat},
                        Case{"12.6", "535.104.05", false, kb::DriverFit::minor_compat},
                        Case{"12.6", "520.61.05", false, kb::DriverFit::too_old},
                        Case{"12.1", "527.41", true, kb::DriverFit::minor_compat},
                        Case{"10.1", "410.48", false, kb::DriverFit::too_old},
                        Case{"12.4", "550.54.14", false, kb::DriverFit::fits}}) {
    auto need = kb::driver_requirement(embedded_kb(), c.cuda, c.windows);
    ASSERT_TRUE(need.ok());
    EXPECT_EQ(kb::driver_fit(*need, c.driver), c.fit) << c.cuda << " on " << c.driver;
  }
}

TEST(PlanAdvisor, NoQuestionMarkInAnyPlan) {
  for (const char* framework : {"tensorflow", "torch", "jax", "cupy", "paddle", "onnxruntime"}) {
    for (const char* os : {"linux", "windows", "wsl2"}) {
      for (const auto& driver :
           {std::optional<std::string>(), std::optional<std::string>("450.36")}) {
        auto p = make_plan(ask(framework, std::nullopt, os, "8.6", driver, std::nullopt),
                           embedded_kb(), messages());
        if (!p.ok()) continue;
        const std::string text = report::render_plan_text(*p, messages(), false);
        std::string prose;  // titles, notes and headers; commands may hold URLs with '?'
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);) {
          if (line.starts_with("         ")) continue;
          prose += line + "\n";
        }
        EXPECT_EQ(prose.find('?'), std::string::npos) << framework << " " << os << "\n" << prose;
      }
    }
  }
}

TEST(PlanAdvisor, NoCodeForTheGpuIsNeverFeasible) {
  // A new architecture with a release whose builds predate it.
  EXPECT_EQ(solve(ask("torch", "2.5", "linux", "12.0", "575.57.08", std::nullopt)).outcome,
            Outcome::infeasible);
  // A GPU newer than the build's CUDA.
  EXPECT_EQ(solve(ask("torch", "1.13", "linux", "9.0", "535.104.05", std::nullopt)).outcome,
            Outcome::infeasible);
  // An old architecture with a release that dropped it.
  EXPECT_EQ(solve(ask("torch", "2.5", "linux", "3.5", "535.104.05", std::nullopt)).outcome,
            Outcome::infeasible);
}

TEST(PlanAdvisor, UnknownArchitecturesAreUnverifiedNotFeasible) {
  const Plan p = solve(ask("torch", "2.7", "linux", "12.0", "575.57.08", std::nullopt));
  EXPECT_EQ(p.outcome, Outcome::unverified);
  EXPECT_FALSE(p.feasible);
  ASSERT_FALSE(p.options.empty());
  EXPECT_FALSE(p.options.front().verified);
  EXPECT_FALSE(p.options.front().unknowns.empty());
  const auto json = nlohmann::json::parse(report::render_plan_json(p, "x"));
  EXPECT_EQ(json["outcome"], "unverified");
  EXPECT_EQ(json["options"][0]["verified"], false);
}

// data/build_arch_lists.csv fills the builds whose own table has no list: TF 2.16.1 lies in the
// 2.16..2.16 row, so a Blackwell GPU is reached through its compute_90 PTX, which minor version
// compatibility cannot JIT-compile.
TEST(PlanAdvisor, PtxOnlyNeedsTheReleasesOwnDriver) {
  const Plan fits = solve(ask("tensorflow", "2.16", "linux", "12.0", "575.57.08", std::nullopt));
  ASSERT_TRUE(fits.feasible);
  EXPECT_FALSE(fits.options.front().build.arch_list.empty());
  EXPECT_TRUE(fits.options.front().verified);
  const Plan old = solve(ask("tensorflow", "2.16", "linux", "12.0", "535.104.05", std::nullopt));
  EXPECT_EQ(old.outcome, Outcome::infeasible);
  ASSERT_TRUE(has_blocker(old, "driver.too_old"));
  // A GPU with SASS in the list needs no JIT: minor compatibility is enough.
  EXPECT_TRUE(
      solve(ask("tensorflow", "2.16", "linux", "8.0", "535.104.05", std::nullopt)).feasible);
}

}  // namespace
}  // namespace gpuvet::plan
