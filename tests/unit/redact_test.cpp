#include "system/redact.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace {

namespace redact = gpuvet::redact;

TEST(RedactIsKept, PathAndGpuStackVariables) {
  for (const char* name :
       {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH",
        "TF_CPP_MIN_LOG_LEVEL", "TF_FORCE_GPU_ALLOW_GROWTH", "XLA_FLAGS",
        "XLA_PYTHON_CLIENT_PREALLOCATE", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "VIRTUAL_ENV",
        "PYTHONPATH", "CUDNN_PATH", "NVIDIA_VISIBLE_DEVICES", "NCCL_DEBUG",
        "PYTORCH_CUDA_ALLOC_CONF", "LANG", "HOME"}) {
    EXPECT_TRUE(redact::is_kept(name)) << name;
  }
}

TEST(RedactIsKept, NamesAreCaseInsensitive) {
  EXPECT_TRUE(redact::is_kept("Path"));
  EXPECT_TRUE(redact::is_kept("path"));
  EXPECT_TRUE(redact::is_kept("cuda_visible_devices"));
  EXPECT_TRUE(redact::is_kept("Cuda_Path"));
  EXPECT_FALSE(redact::is_kept("github_token"));
  EXPECT_FALSE(redact::is_kept("Cuda_Auth_Token"));
}

TEST(RedactIsKept, CredentialsAreRedacted) {
  for (const char* name : {"AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "GITHUB_TOKEN",
                           "NVIDIA_API_KEY", "CUDA_AUTH_TOKEN", "HF_TOKEN", "CONDA_PASSWORD",
                           "TF_PRIVATE_THING", "NCCL_SECRET", "TORCH_COOKIE", "PYTORCH_SESSION_ID",
                           "CUDA_CREDENTIALS", "NVIDIA_SIGNATURE", "CONDA_SSL_CERT"}) {
    EXPECT_FALSE(redact::is_kept(name)) << name;
  }
}

TEST(RedactIsKept, TerraformVariablesAreRedacted) {
  for (const char* name : {"TF_VAR_db", "TF_VAR_db_password", "TF_CLI_ARGS", "TF_CLI_ARGS_plan",
                           "TF_TOKEN_app_terraform_io", "tf_var_x"}) {
    EXPECT_FALSE(redact::is_kept(name)) << name;
  }
}

TEST(RedactIsKept, EverythingElseIsRedacted) {
  for (const char* name : {"SHELL", "PWD", "OLDPWD", "USER", "HOSTNAME", "SSH_AUTH_SOCK",
                           "DATABASE_URL", "MY_RANDOM_VARIABLE", "X", "", "PATHOLOGY", "MYPATH",
                           "LD_LIBRARY_PATH_EXTRA", "HF_HOME_TOKEN"}) {
    EXPECT_FALSE(redact::is_kept(name)) << name;
  }
}

TEST(RedactScrubValue, RemovesUserAndPasswordFromUrls) {
  const std::string scrubbed = redact::scrub_value("https://alice:s3cr3t@proxy.example.com:8080/x");
  EXPECT_EQ(scrubbed.find("alice"), std::string::npos) << scrubbed;
  EXPECT_EQ(scrubbed.find("s3cr3t"), std::string::npos) << scrubbed;
  EXPECT_NE(scrubbed.find("https://"), std::string::npos) << scrubbed;
  EXPECT_NE(scrubbed.find("proxy.example.com:8080/x"), std::string::npos) << scrubbed;
}

TEST(RedactScrubValue, RemovesUserWithoutPassword) {
  const std::string scrubbed = redact::scrub_value("https://token123@host/repo.git");
  EXPECT_EQ(scrubbed.find("token123"), std::string::npos) << scrubbed;
  EXPECT_NE(scrubbed.find("host/repo.git"), std::string::npos) << scrubbed;
}

TEST(RedactScrubValue, ScrubsEveryUrlInAList) {
  const std::string scrubbed = redact::scrub_value(
      "http://u1:p1@a.example/one;https://plain.example/two https://u2:p2@b.example");
  for (const char* secret : {"u1", "p1", "u2", "p2"}) {
    EXPECT_EQ(scrubbed.find(secret), std::string::npos) << secret << " in " << scrubbed;
  }
  EXPECT_NE(scrubbed.find("a.example/one"), std::string::npos) << scrubbed;
  EXPECT_NE(scrubbed.find("https://plain.example/two"), std::string::npos) << scrubbed;
  EXPECT_NE(scrubbed.find("b.example"), std::string::npos) << scrubbed;
}

TEST(RedactScrubValue, LeavesUrlsWithoutCredentialsUnchanged) {
  for (const char* value :
       {"https://download.nvidia.com/compute/cuda/repos", "http://localhost:8888",
        "file:///usr/local/cuda", "https://example.com/path?q=1", "https://", "s3://bucket/key"}) {
    EXPECT_EQ(redact::scrub_value(value), value);
  }
}

TEST(RedactScrubValue, LeavesPlainValuesUnchanged) {
  for (const char* value :
       {"", "/usr/local/cuda-12.2/bin:/usr/bin:/bin",
        "C:\\Program Files\\NVIDIA GPU Computing "
        "Toolkit\\CUDA\\v11.8\\bin;C:\\Windows",
        "0,1", "3", "--xla_gpu_cuda_data_dir=/usr/local/cuda", "user@example.com", "/home/a@b/envs",
        "GPU-8f2b1c2e-0000-1111-2222-333344445555"}) {
    EXPECT_EQ(redact::scrub_value(value), value);
  }
}

// A file named like a secret, followed by what went wrong with it, is a path and a message.
TEST(RedactScrubValue, AFileNamedLikeASecretIsNoKey) {
  for (const char* text :
       {"/etc/passwd: not an ELF file", "C:\\Users\\me\\secrets.json: No such file or directory",
        "/home/me/.git-credentials: Permission denied"}) {
    EXPECT_EQ(redact::scrub_value(text), text);
  }
  EXPECT_EQ(redact::scrub_value("passwd: hunter2").find("hunter2"), std::string::npos);
  EXPECT_EQ(redact::scrub_value("run --password=hunter2 /etc").find("hunter2"), std::string::npos);
}

TEST(RedactScrubValue, IsIdempotent) {
  for (const char* value : {"https://alice:s3cr3t@proxy.example.com:8080/x", "https://token@host",
                            "http://u1:p1@a/one;https://u2:p2@b/two", "/usr/bin:/bin",
                            "https://example.com/a", "ftp://@host/", ""}) {
    const std::string once = redact::scrub_value(value);
    EXPECT_EQ(redact::scrub_value(once), once) << value;
  }
}

TEST(RedactEnvironment, RedactsValuesOfNonKeptNames) {
  const std::map<std::string, std::string> env = {
      {"PATH", "/usr/local/cuda/bin:/usr/bin"},
      {"CUDA_VISIBLE_DEVICES", "0,1"},
      {"TF_CPP_MIN_LOG_LEVEL", "3"},
      {"GITHUB_TOKEN", "ghp_abcdef"},
      {"AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI"},
      {"TF_VAR_db", "hunter2"},
      {"SHELL", "/bin/bash"},
      {"PWD", "/home/alice/secret-project"},
      {"EMPTY_UNKEPT", ""},
  };
  const auto out = redact::environment(env);
  ASSERT_EQ(out.size(), env.size());
  EXPECT_EQ(out.at("PATH"), "/usr/local/cuda/bin:/usr/bin");
  EXPECT_EQ(out.at("CUDA_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ(out.at("TF_CPP_MIN_LOG_LEVEL"), "3");
  for (const char* name :
       {"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "TF_VAR_db", "SHELL", "PWD", "EMPTY_UNKEPT"}) {
    EXPECT_EQ(out.at(name), redact::kRedacted) << name;
  }
  EXPECT_EQ(std::string(redact::kRedacted), "<redacted>");
}

TEST(RedactEnvironment, ScrubsKeptValues) {
  const auto out = redact::environment({{"CONDA_PKGS_URL", "https://bob:pw@mirror.example/conda"}});
  ASSERT_EQ(out.size(), 1u);
  const std::string& value = out.at("CONDA_PKGS_URL");
  EXPECT_EQ(value.find("bob"), std::string::npos) << value;
  EXPECT_EQ(value.find("pw@"), std::string::npos) << value;
  EXPECT_NE(value.find("mirror.example/conda"), std::string::npos) << value;
}

TEST(RedactEnvironment, EmptyEnvironment) {
  EXPECT_TRUE(redact::environment({}).empty());
}

TEST(RedactScrub, PasswordsHoldingAtSignsAndHostsWithQueries) {
  EXPECT_EQ(redact::scrub_value("https://user:p@ss@host/x"), "https://<redacted>@host/x");
  EXPECT_EQ(redact::scrub_value("https://host?x=a@b"), "https://host?x=a@b");
  EXPECT_EQ(redact::scrub_value("https://u:p@host#f@g"), "https://<redacted>@host#f@g");
}

TEST(RedactScrub, AnacondaChannelTokensInThePath) {
  EXPECT_EQ(redact::scrub_value("https://conda.anaconda.org/t/abc-123/mychannel"),
            "https://conda.anaconda.org/t/<redacted>/mychannel");
  EXPECT_EQ(redact::scrub_value("https://conda.anaconda.org/conda-forge"),
            "https://conda.anaconda.org/conda-forge");
}

TEST(RedactNames, TerraformAndOpenTofuCredentialsShareTheTfPrefix) {
  for (const char* name : {"TF_ENCRYPTION", "TF_HTTP_PASSWORD", "TF_HTTP_USERNAME",
                           "TF_CLOUD_ORGANIZATION", "TF_WORKSPACE"}) {
    EXPECT_FALSE(redact::is_kept(name)) << name;
  }
  EXPECT_TRUE(redact::is_kept("TF_FORCE_GPU_ALLOW_GROWTH"));
}

}  // namespace
