// The redaction net and the structural part of a snapshot's redaction, on planted secrets.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "probes/snapshot_privacy.hpp"
#include "python/metadata.hpp"
#include "system/redact.hpp"
#include "test_support.hpp"

namespace gpuvet {
namespace {

std::string scrub(std::string_view s) {
  return redact::scrub_text(s);
}

TEST(ScrubText, UrlCredentialsAndChannelTokens) {
  EXPECT_EQ(scrub("https://alice:pw1@proxy.example.com:8080/x"),
            "https://<redacted>@proxy.example.com:8080/x");
  EXPECT_EQ(scrub("git+https://tok@github.com/a/b.git"),
            "git+https://<redacted>@github.com/a/b.git");
  EXPECT_EQ(scrub("postgres://g:p@ss@db/x"), "postgres://<redacted>@db/x");
  EXPECT_EQ(scrub("https://conda.anaconda.org/t/ab-1234/conda-forge/linux-64"),
            "https://conda.anaconda.org/t/<redacted>/conda-forge/linux-64");
  EXPECT_EQ(scrub("https://example.com/tools/t/x"), "https://example.com/tools/t/x");
  EXPECT_EQ(scrub("/home/alice/t/data"), "/home/alice/t/data");
}

TEST(ScrubText, ValuesOfKeysThatSayCredential) {
  EXPECT_EQ(scrub("--xla_gpu_cuda_data_dir=/usr/local/cuda --some_password=hunter2"),
            "--xla_gpu_cuda_data_dir=/usr/local/cuda --some_password=<redacted>");
  EXPECT_EQ(scrub("anaconda_upload_token: abc123\nssl_verify: true\n"),
            "anaconda_upload_token: <redacted>\nssl_verify: true\n");
  EXPECT_EQ(scrub("https://x.org/?access_token=abc&page=2"),
            "https://x.org/?access_token=<redacted>&page=2");
  EXPECT_EQ(scrub(R"({"password": "pw", "name": "x"})"),
            R"({"password": "<redacted>", "name": "x"})");
  EXPECT_EQ(scrub(R"({\"apiKey\": \"pw\"})"), R"({\"apiKey\": \"<redacted>\"})");
  EXPECT_EQ(scrub("AWS_SECRET_ACCESS_KEY=abc"), "AWS_SECRET_ACCESS_KEY=<redacted>");
  // Not credentials.
  for (const char* kept : {"Name: tokenizers", "CUDA_VISIBLE_DEVICES=0,1", "key: libcudnn",
                           "Author: Jane", "monkey=1", "TF_CPP_MIN_LOG_LEVEL=2"}) {
    EXPECT_EQ(scrub(kept), kept);
  }
}

TEST(ScrubText, WellKnownTokenShapes) {
  const std::string tokens[] = {"ghp_" + std::string(36, 'a'),
                                "github_pat_" + std::string(40, 'B'),
                                "hf_" + std::string(34, 'c'),
                                "sk-proj-" + std::string(40, 'd'),
                                "sk-ant-api03-" + std::string(40, 'e'),
                                "AKIAIOSFODNN7EXAMPLE",
                                "ASIAY34FZKBOKMUTVV7A",
                                "xoxb-1234567890-abcdefghij",
                                "glpat-" + std::string(20, 'f'),
                                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
                                "nvapi-" + std::string(30, 'g'),
                                "AIza" + std::string(35, 'h'),
                                "pypi-" + std::string(60, 'i')};
  for (const auto& token : tokens) {
    const std::string text = "/opt/" + token + "/bin:PATH " + token;
    EXPECT_EQ(scrub(text), "/opt/<redacted>/bin:PATH <redacted>") << token;
  }
}

TEST(ScrubText, IsIdempotentAndKeepsJsonValid) {
  const std::string doc =
      nlohmann::json{{"a", "https://u:p@h/x --x_token=1 ghp_" + std::string(36, 'z')},
                     {"b", "C:\\Users\\alice\\ghp_" + std::string(36, 'y') + "\\bin"},
                     {"token", 5},
                     {"c", "quote\" --db_password=a\"b"}}
          .dump();
  const std::string once = scrub(doc);
  EXPECT_EQ(scrub(once), once);
  const auto parsed = nlohmann::json::parse(once);
  EXPECT_EQ(parsed["token"], 5);
  EXPECT_EQ(parsed["a"], "https://<redacted>@h/x --x_token=<redacted> <redacted>");
  EXPECT_EQ(parsed["b"], "C:\\Users\\alice\\<redacted>\\bin");
  EXPECT_EQ(redact::scrub_text("ghp_" + std::string(36, 'z'), "&lt;redacted&gt;"),
            "&lt;redacted&gt;");
}

TEST(RedactUser, HomeAndNameConsistently) {
  const std::vector<redact::Identity> users = {{"alice", "/home/alice"}};
  EXPECT_EQ(redact::redact_user("/home/alice/venv /home/alicex alice", users),
            "/home/<user>/venv /home/alicex alice");
  const std::vector<redact::Identity> windows = {{"", "C:\\Users\\Alice"}};
  EXPECT_EQ(redact::redact_user(R"(C:/Users/alice/x C:\Users\Alice\y "C:\\Users\\Alice")", windows),
            R"(C:/Users/<user>/x C:\Users\<user>\y "C:\\Users\\<user>")");
  const std::vector<redact::Identity> elsewhere = {{"bob", "/u/a1234"}};
  EXPECT_EQ(redact::redact_user("/u/a1234/envs /scratch/bob/x", elsewhere),
            "<home>/envs /scratch/<user>/x");
}

TEST(CondaChannel, CredentialsAreNoPartOfTheName) {
  EXPECT_EQ(python::conda_channel(
                R"({"channel": "https://conda.anaconda.org/t/ab-123/conda-forge/linux-64"})"),
            "conda-forge");
  EXPECT_EQ(
      python::conda_channel(R"({"channel": "https://u:pw@conda.example.com/private/noarch"})"),
      "https://conda.example.com/private");
  EXPECT_EQ(python::conda_channel(R"({"channel": "t/<redacted>/pytorch"})"), "pytorch");
}

TEST(PrivateSnapshot, MountinfoKeepsTheDriverMountsAndSharedMemoryOnly) {
  const std::string mountinfo =
      "1190 1150 0:52 / / rw - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/A\n"
      "1193 1192 0:57 / /dev/shm rw,nosuid - tmpfs shm rw,size=65536k,inode64\n"
      "1200 1190 259:2 /home/alice/secret-project /workspace/secret\\040project rw - ext4 "
      "/dev/nvme0n1p2 rw\n"
      "1205 1190 259:2 /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15 "
      "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15 ro - ext4 /dev/nvme0n1p2 rw\n"
      "1206 1190 259:2 /opt/drivers /usr/local/nvidia ro - ext4 /dev/nvme0n1p2 rw\n"
      "1207 1190 0:58 / /dev/shm/alice\\040notes rw - tmpfs tmpfs rw\n";
  EXPECT_EQ(probes::keep_what_probes_read("/proc/self/mountinfo", mountinfo),
            "1193 1192 0:57 / /dev/shm rw,nosuid - tmpfs shm rw,size=65536k,inode64\n"
            "1205 1190 259:2 /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15 "
            "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15 ro - ext4 /dev/nvme0n1p2 rw\n"
            "1206 1190 259:2 /opt/drivers /usr/local/nvidia ro - ext4 /dev/nvme0n1p2 rw\n");
  // A file of that name elsewhere is no mount table.
  EXPECT_EQ(probes::keep_what_probes_read("/home/alice/mountinfo", mountinfo), mountinfo);
}

TEST(PrivateSnapshot, KeepsOnlyWhatTheProbesRead) {
  sys::Snapshot s = testing::windows_snapshot(
      {{"env",
        {{"USERPROFILE", "C:\\Users\\alice"},
         {"GH_TOKEN", "ghp_" + std::string(36, 'a')},
         {"Path", "C:\\x\\hf_" + std::string(34, 'b') + "\\bin"},
         {"CONDARC", "C:/Users/alice/my.yml"}}},
       {"registry",
        {{"HKCU/Environment",
          {{"Path", "C:\\tools"}, {"GH_TOKEN", "regsecret1"}, {"TEMP", "C:\\tmp"}}},
         {"HKLM/SOFTWARE/Vendor/App",
          {{"ApiKey", "regsecret2"}, {"Url", "https://u:regsecret3@h"}}}}},
       {"files",
        {{"C:/Users/alice/.condarc",
          {{"text",
            "channels:\n  - https://conda.anaconda.org/t/filesecret1/x\nenvs_dirs:\n  - "
            "D:/envs\nanaconda_upload_token: filesecret2\n"}}},
         {"C:/Users/alice/my.yml", {{"text", "proxy_servers:\n  http: http://u:filesecret3@p\n"}}},
         {"C:/c/conda-meta/torch-2.1-py_0.json",
          {{"text",
            R"({"channel": "https://conda.anaconda.org/t/filesecret4/pytorch/win-64", "url": "https://u:filesecret5@h/x"})"},
           {"head", true}}},
         {"C:/c/Lib/site-packages/torch-2.1.dist-info/METADATA",
          {{"text",
            "Metadata-Version: 2.1\nName: torch\nVersion: 2.1.0\nDownload-URL: "
            "https://u:filesecret6@h\n\nfilesecret7\n"}}},
         {"C:/c/pyvenv.cfg",
          {{"text", "home = C:/py\nversion = 3.11.4\ncommand = x filesecret8\n"}}},
         {"C:/c/other.txt", {{"text", "password=filesecret9 keep this"}}}}}});
  const sys::Snapshot p = probes::private_snapshot(s);
  const std::string text = sys::serialize_snapshot(p);
  for (const char* secret : {"regsecret1", "regsecret2", "regsecret3", "filesecret1", "filesecret2",
                             "filesecret3", "filesecret4", "filesecret5", "filesecret6",
                             "filesecret7", "filesecret8", "filesecret9", "ghp_", "hf_"}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in " << text;
  }
  EXPECT_EQ(*p.files.at("C:/Users/alice/.condarc").text, "envs_dirs:\n  - D:/envs\n");
  EXPECT_EQ(*p.files.at("C:/Users/alice/my.yml").text, "");
  EXPECT_EQ(*p.files.at("C:/c/conda-meta/torch-2.1-py_0.json").text, R"({"channel":"pytorch"})");
  EXPECT_EQ(*p.files.at("C:/c/Lib/site-packages/torch-2.1.dist-info/METADATA").text,
            "Name: torch\nVersion: 2.1.0\n\n");
  EXPECT_EQ(*p.files.at("C:/c/pyvenv.cfg").text, "home = C:/py\nversion = 3.11.4\n");
  EXPECT_EQ(*p.files.at("C:/c/other.txt").text, "password=<redacted> keep this");
  EXPECT_EQ(std::get<std::string>(p.registry.at("HKCU/Environment").at("Path")), "C:\\tools");
  EXPECT_EQ(p.env.at("USERPROFILE"), "C:\\Users\\alice");

  const sys::Snapshot hidden = probes::private_snapshot(s, {{{"", "C:\\Users\\alice"}}});
  EXPECT_EQ(hidden.env.at("USERPROFILE"), "C:\\Users\\<user>");
  EXPECT_TRUE(hidden.files.count("C:/Users/<user>/.condarc"));
}

}  // namespace
}  // namespace gpuvet
