// No credential in any output: a corpus of planted secrets, each a unique string, in environment
// variables, files the probes read (and some they do not), package metadata and registry values,
// checked against every output form of the real gpuvet binary.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "core/gzip.hpp"
#include "core/paths.hpp"

namespace gpuvet {
namespace {

using testing::Outcome;
using testing::TempDir;

// A secret of a real token's shape: the prefix, then a unique tag, padded to the shape's length.
std::string shaped(const std::string& prefix, const std::string& tag, size_t length,
                   char pad = 'q') {
  std::string s = prefix + tag;
  while (s.size() < prefix.size() + length)
    s.push_back(pad);
  return s;
}

// Every planted secret; a test that finds one in an output names it.
struct Corpus {
  std::vector<std::string> secrets;
  // A copy: a reference into the vector would dangle at the next add in the same expression.
  std::string add(std::string s) {
    secrets.push_back(s);
    return s;
  }
};

// The outputs a run produced, each under a name for the failure message.
struct Outputs {
  std::vector<std::pair<std::string, std::string>> all;
  void add(const std::string& name, const std::string& text) { all.emplace_back(name, text); }
};

void expect_no_secret(const Corpus& corpus, const Outputs& outputs) {
  for (const auto& [name, text] : outputs.all) {
    EXPECT_FALSE(text.empty()) << name << " printed nothing";
    for (const auto& secret : corpus.secrets) {
      EXPECT_EQ(text.find(secret), std::string::npos) << secret << " leaks through " << name;
    }
  }
}

std::string read_output(const std::string& path) {
  const std::string raw = paths::read_file(path, 64 << 20).value();
  return gzip::looks_compressed(raw) ? gzip::decompress(raw).value() : raw;
}

// A machine with a home, conda, a venv with torch, and credentials everywhere.
struct Machine {
  TempDir dir;
  Corpus corpus;
  std::string home = dir.path() + "/home/alice";
  std::string env;  // for run_gpuvet

  Machine() {
    const auto conda_token = [&](const std::string& tag) {
      return corpus.add("tk-" + tag + "-8f3a2c1e-4b5d-4e6f-9a0b-1c2d3e4f5a6b");
    };
    // ~/.condarc: channel tokens, proxy passwords, an upload token.
    dir.file(
        "home/alice/.condarc",
        "channels:\n  - https://conda.anaconda.org/t/" + conda_token("C01") +
            "/conda-forge\n  - defaults\n"
            "channel_alias: https://mirroruser:" +
            corpus.add("mirrorpassC02") +
            "@mirror.example.com/conda\n"
            "proxy_servers:\n  http: http://proxyuser:" +
            corpus.add("proxypassC03") +
            "@proxy.example.com:3128\n  https: https://proxyuser:" + corpus.add("proxypassC04") +
            "@proxy.example.com:3129\n"
            "anaconda_upload_token: " +
            corpus.add("uploadtokenC05") +
            "\ncustom_channels:\n  private: https://conda.example.com/t/" + conda_token("C06") +
            "/private\nenvs_dirs:\n  - " + home + "/envs\nssl_verify: true\n");
    // The conda root's .condarc.
    dir.file("home/alice/miniconda3/.condarc",
             "channels: [https://conda.anaconda.org/t/" + conda_token("C07") +
                 "/pytorch, defaults]\ndefault_channels:\n  - https://u:" +
                 corpus.add("defaultpassC08") + "@repo.example.com/pkgs/main\nrepodata_token: " +
                 corpus.add("repotokenC09") + "\n");
    // conda-meta records: a channel with a token, a url with a password.
    dir.file("home/alice/miniconda3/conda-meta/python-3.10.13-h955ad1f_0.json",
             R"({"build": "h955ad1f_0", "channel": "https://conda.anaconda.org/t/)" +
                 conda_token("M10") + R"(/conda-forge/linux-64", "name": "python"})");
    dir.file(
        "home/alice/miniconda3/conda-meta/pytorch-2.1.0-py3.10_cuda11.8_cudnn8.7.0_0.json",
        R"({"build": "py3.10_cuda11.8_cudnn8.7.0_0", "channel": "https://conda.anaconda.org/t/)" +
            conda_token("M11") + R"(/pytorch/linux-64", "name": "pytorch", "url": "https://bob:)" +
            corpus.add("condaurlpassM12") +
            R"(@conda.example.com/pytorch/linux-64/pytorch-2.1.0.tar.bz2", "auth": ")" +
            corpus.add("condaauthM13") + R"(", "version": "2.1.0"})");
    dir.file("home/alice/miniconda3/lib/python3.10/site-packages/.keep", "");
    // $CONDARC, any file name.
    dir.file("home/alice/alt-condarc.yml",
             "channels:\n  - https://carl:" + corpus.add("altcondarcpassC14") +
                 "@private.example.com/channel\n");
    // A venv with torch: pyvenv.cfg, METADATA, direct_url.json, version.py.
    dir.file("home/alice/venv/pyvenv.cfg",
             "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.4\n"
             "command = /usr/bin/python3 -m venv --prompt " +
                 corpus.add(shaped("hf_", "V15", 34)) + " " + home + "/venv\n");
    const std::string site = "home/alice/venv/lib/python3.11/site-packages/";
    dir.file(site + "torch-2.1.0+cu118.dist-info/METADATA",
             "Metadata-Version: 2.1\nName: torch\nVersion: 2.1.0+cu118\n"
             "Home-page: https://pytorch.org/?access_token=" +
                 corpus.add("homepagetokenD16") +
                 "\nDownload-URL: https://carol:" + corpus.add("downloadpassD17") +
                 "@download.example.com/whl/torch.whl\n"
                 "Project-URL: Source, https://github.com/pytorch/pytorch/" +
                 corpus.add(shaped("ghp_", "D18", 36)) + "\n\nLong description " +
                 corpus.add(shaped("AKIA", "D19", 16, 'Q')) + "\n");
    dir.file(site + "torch-2.1.0+cu118.dist-info/direct_url.json",
             R"({"url": "https://dave:)" + corpus.add("directurlpassD20") +
                 R"(@files.example.com/torch.whl", "archive_info": {}})");
    dir.file(site + "torch/version.py",
             "__version__ = '2.1.0+cu118'\ndebug = False\ncuda = '11.8'\n"
             "git_version = 'abc'\n# built with " +
                 corpus.add(shaped("hf_", "D21", 34)) + "\n");
    // pip.conf, not read by any probe.
    dir.file("home/alice/.config/pip/pip.conf",
             "[global]\nindex-url = https://erin:" + corpus.add("pipconfpassF22") +
                 "@pypi.example.com/simple\n");
    const std::string path_token = corpus.add(shaped("ghp_", "P32", 36));
    dir.file("opt/" + path_token + "/bin/.keep", "");

    const auto quoted = [](const std::string& value) { return "'" + value + "'"; };
    const std::vector<std::pair<std::string, std::string>> variables = {
        {"HOME", home},
        {"USER", "alice"},
        {"VIRTUAL_ENV", home + "/venv"},
        {"CONDARC", home + "/alt-condarc.yml"},
        {"GITHUB_TOKEN", corpus.add(shaped("ghp_", "E23", 36))},
        {"HF_TOKEN", corpus.add(shaped("hf_", "E24", 34))},
        {"OPENAI_API_KEY", corpus.add(shaped("sk-proj-", "E25", 48))},
        {"AWS_ACCESS_KEY_ID", corpus.add(shaped("AKIA", "E26", 16, 'Z'))},
        {"AWS_SECRET_ACCESS_KEY", corpus.add(shaped("wJalrXUtnFEMIK7MDENGbPxRfiCYE27", "", 40))},
        {"SLACK_BOT_TOKEN", corpus.add(shaped("xoxb-", "E28-1234567890-abcdef", 40))},
        {"PIP_INDEX_URL",
         "https://frank:" + corpus.add("pipindexpassE29") + "@pypi.example.com/simple"},
        {"XLA_FLAGS",
         "--xla_gpu_cuda_data_dir=/usr/local/cuda --some_password=" + corpus.add("xlapassE30")},
        {"TF_XLA_FLAGS", "--tf_xla_auto_jit=2 --tf_api_token=" + corpus.add("tfflagtokenE31")},
        {"PATH", "/usr/bin:/bin:" + dir.path() + "/opt/" + path_token + "/bin"},
        {"LD_LIBRARY_PATH",
         "/usr/local/cuda/lib64:/srv/" + corpus.add(shaped("hf_", "E33", 34)) + "/lib"},
        {"CONDA_CHANNELS", "https://conda.anaconda.org/t/" + conda_token("E34") + "/private"},
        {"TF_CONFIG", R"({"cluster": {}, "password": ")" + corpus.add("tfconfigpassE35") + R"("})"},
        {"CUDA_CACHE_PATH",
         "/cache/" + corpus.add("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJFMzYiLCJuYW1lIjoiYWxpY2UifQ."
                                "c2lnbmF0dXJlRTM2c2lnbmF0dXJl")},
        {"TORCH_HOME", "/models/" + corpus.add(shaped("xoxp-", "E37-1234567890-abcdef", 40))},
        {"DATABASE_URL", "postgres://g:" + corpus.add("databasepassE38") + "@db/x"},
        {"TF_VAR_db_password", corpus.add("terraformpassE39")},
        {"CUDA_MPS_LOG_DIRECTORY", "/var/log/" + corpus.add(shaped("ASIA", "E40", 16, 'K'))},
        {"NCCL_SOCKET_IFNAME", "eth0,token=" + corpus.add("nccltokenE41")},
        {"PYTORCH_CUDA_ALLOC_CONF",
         "expandable_segments:True,secret_key:" + corpus.add("allocsecretE42")},
    };
    for (const auto& [name, value] : variables)
      env += name + "=" + quoted(value) + " ";
  }
};

TEST(Secrets, TheCorpusIsLargeAndDistinct) {
  const Machine m;
  std::set<std::string> distinct(m.corpus.secrets.begin(), m.corpus.secrets.end());
  EXPECT_EQ(distinct.size(), m.corpus.secrets.size());
  EXPECT_GE(m.corpus.secrets.size(), 40u);
}

// What gpuvet prints on the machine and from its snapshot, in every form.
TEST(Secrets, NoneLeavesThroughAnyOutput) {
  const Machine m;
  Outputs outputs;
  const auto run = [&](const std::string& name, const std::string& args,
                       const std::string& extra_env = "") {
    const Outcome o = testing::run_gpuvet(args, m.env + extra_env);
    EXPECT_LE(o.status, 1) << name << ": " << o.err;
    outputs.add(name + " (stdout)", o.out);
    if (!o.err.empty()) outputs.add(name + " (stderr)", o.err);
    return o;
  };
  const Outcome snapshot = run("snapshot", "snapshot");
  const std::string json = m.dir.file("machine.json", snapshot.out);
  EXPECT_TRUE(nlohmann::json::accept(snapshot.out)) << snapshot.out.substr(0, 200);
  const std::string gz = m.dir.path() + "/machine.json.gz";
  const Outcome snapshot_gz = run("snapshot -o .json.gz", "snapshot -o " + gz);
  outputs.all.pop_back();  // -o prints nothing
  outputs.add("snapshot .json.gz", read_output(gz));
  // The snapshot still names what the probes need.
  EXPECT_NE(snapshot.out.find("envs_dirs"), std::string::npos);
  EXPECT_NE(snapshot.out.find("Name: torch"), std::string::npos);

  const std::string log =
      " --text \"Could not load dynamic library 'libcudnn.so.8'; dlerror: see "
      "https://eve:" +
      std::string("explainpassX43") + "@logs.example.com/run\"";
  for (const std::string& source :
       std::vector<std::string>{"", " --snapshot " + json, " --snapshot " + gz}) {
    const std::string from = source.empty() ? "live" : source.ends_with(".gz") ? "gz" : "json";
    run("check text " + from, "check --no-color" + source);
    const Outcome check_json = run("check --json " + from, "check --json" + source);
    if (from != "live") {
      EXPECT_NE(check_json.out.find("\"channel\""), std::string::npos) << "channels still shown";
    }
    run("check --format md " + from, "check --format md" + source);
    run("explain " + from, "explain --no-color" + source + log);
    run("explain --json " + from, "explain --json" + source + log);
    run("plan " + from, "plan torch --no-color" + source);
    run("plan --json " + from, "plan torch --json" + source);
  }
  const std::string html = m.dir.path() + "/bench.html";
  run("bench --json", "bench --quick --json",
      "LD_LIBRARY_PATH=" + std::string(GPUVET_FAKE_DRIVER_DIR) + "/working");
  run("bench --html", "bench --quick --html " + html,
      "LD_LIBRARY_PATH=" + std::string(GPUVET_FAKE_DRIVER_DIR) + "/working");
  outputs.add("bench HTML page", read_output(html));

  Corpus with_log = m.corpus;
  with_log.add("explainpassX43");
  expect_no_secret(with_log, outputs);
}

// A snapshot written by an older gpuvet, or edited by hand, still holds them verbatim: what is
// printed from it must not. Windows: registry values, the saved Path, a conda install.
TEST(Secrets, NoneLeavesFromAnUnredactedWindowsSnapshot) {
  TempDir dir;
  Corpus corpus;
  const std::string path_token = corpus.add(shaped("ghp_", "W01", 36));
  const std::string conda_token = corpus.add("tk-W02-8f3a2c1e-4b5d-4e6f-9a0b-1c2d3e4f5a6b");
  const std::string saved_token = corpus.add(shaped("github_pat_", "W03", 60));
  const nlohmann::json doc = {
      {"schema", "gpuvet.snapshot/1"},
      {"host", {{"os", "windows"}, {"os_name", "Windows 10 Pro"}, {"os_version", "10.0.19045"}}},
      {"env",
       {{"Path", "C:\\Windows\\system32;C:\\Users\\alice\\" + path_token + "\\bin"},
        {"USERPROFILE", "C:\\Users\\alice"},
        {"CONDA_PREFIX", "C:\\Users\\alice\\miniconda3"},
        {"XLA_FLAGS", "--db_password=" + corpus.add("xlapassW04")},
        {"GH_TOKEN", corpus.add(shaped("gho_", "W05", 36))}}},
      {"registry",
       {{"HKCU/Environment",
         {{"Path", "C:\\Users\\alice\\" + saved_token + "\\bin"},
          {"GH_TOKEN", corpus.add(shaped("ghp_", "W06", 36))},
          {"OPENAI_API_KEY", corpus.add(shaped("sk-", "W07", 48))}}},
        {"HKLM/SYSTEM/CurrentControlSet/Control/Session Manager/Environment",
         {{"Path", "C:\\Windows\\system32;C:\\tools\\" + corpus.add(shaped("hf_", "W08", 34))},
          {"HF_TOKEN", corpus.add(shaped("hf_", "W09", 34))}}}}},
      {"files",
       {{"C:/Users/alice/miniconda3/conda-meta/python-3.10.13-h1_0.json",
         {{"text", R"({"channel": "https://conda.anaconda.org/t/)" + conda_token +
                       R"(/conda-forge/win-64", "url": "https://u:)" +
                       corpus.add("condaurlpassW10") + R"(@x.example.com/python.tar.bz2"})"}}},
        {"C:/Users/alice/miniconda3/conda-meta/pytorch-2.1.0-py3.10_cuda11.8_cudnn8_0.json",
         {{"text", R"({"channel": "https://conda.anaconda.org/t/)" +
                       corpus.add("tk-W11-8f3a2c1e-4b5d-4e6f-9a0b-1c2d3e4f5a6b") +
                       R"(/pytorch/win-64"})"}}},
        {"C:/Users/alice/miniconda3/Lib/site-packages", {{"dir", true}}},
        {"C:/Users/alice/.condarc",
         {{"text", "channels:\n  - https://conda.anaconda.org/t/" +
                       corpus.add("tk-W12-8f3a2c1e-4b5d-4e6f-9a0b-1c2d3e4f5a6b") +
                       "/x\nanaconda_upload_token: " + corpus.add("uploadtokenW13") + "\n"}}}}}};
  const std::string snapshot = dir.file("windows.json", doc.dump());
  Outputs outputs;
  const std::string log =
      " --text \"Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not "
      "found\"";
  for (const std::string& args : std::vector<std::string>{
           "check --no-color", "check --json", "check --format md", "explain --no-color" + log,
           "explain --json" + log, "plan torch --no-color", "plan torch --json"}) {
    const Outcome o = testing::run_gpuvet(args + " --snapshot " + snapshot);
    EXPECT_LE(o.status, 1) << args << ": " << o.err;
    outputs.add(args, o.out);
  }
  EXPECT_NE(outputs.all[1].second.find("pytorch"), std::string::npos) << outputs.all[1].second;
  expect_no_secret(corpus, outputs);
}

// --redact-user: before or after the verb, in the snapshot and every report; the snapshot it
// writes still replays, with the same environments under the renamed home.
TEST(Secrets, RedactUserReplacesTheNameAndHomeEverywhere) {
  const Machine m;
  const std::string snapshot_path = m.dir.path() + "/hidden.json";
  const Outcome snapshot = testing::run_gpuvet("snapshot --redact-user -o " + snapshot_path, m.env);
  ASSERT_EQ(snapshot.status, 0) << snapshot.err;
  Outputs outputs;
  outputs.add("snapshot --redact-user", read_output(snapshot_path));
  const std::string full = m.dir.path() + "/full.json";
  ASSERT_EQ(testing::run_gpuvet("snapshot -o " + full, m.env).status, 0);
  for (const std::string& args :
       std::vector<std::string>{"check --json --redact-user", "--redact-user check --format md",
                                "check --no-color --redact-user --snapshot " + full,
                                "check --json --redact-user --snapshot " + snapshot_path,
                                "plan torch --redact-user --snapshot " + full}) {
    const Outcome o = testing::run_gpuvet(args, m.env);
    EXPECT_LE(o.status, 1) << args << ": " << o.err;
    outputs.add(args, o.out);
  }
  for (const auto& [name, text] : outputs.all) {
    EXPECT_EQ(text.find("alice"), std::string::npos) << name;
  }
  EXPECT_NE(outputs.all[0].second.find("/home/<user>/venv"), std::string::npos);
  const auto hidden = nlohmann::json::parse(outputs.all[4].second);
  bool torch = false;
  for (const auto& env : hidden["facts"]["python_envs"]) {
    for (const auto& f : env["frameworks"])
      torch = torch || (f["name"] == "torch" &&
                        env["path"].get<std::string>().ends_with("/home/<user>/venv"));
  }
  EXPECT_TRUE(torch) << "the renamed snapshot replays: " << hidden["facts"]["python_envs"].dump();
  // Without the option, paths keep the name (documented in docs/privacy.md), and the machine's
  // name is recorded; with it, the machine's name goes too.
  EXPECT_NE(read_output(full).find("/home/alice/venv"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(read_output(full))["host"].contains("hostname"));
  EXPECT_FALSE(nlohmann::json::parse(outputs.all[0].second)["host"].contains("hostname"));
  EXPECT_TRUE(nlohmann::json::parse(outputs.all[1].second)["facts"]["os"]["hostname"].is_null());
}

}  // namespace
}  // namespace gpuvet
