// The environment rule of confined commands: secrets never pass, inherited variables are cut to
// an allowlist, HOME/TMPDIR point inside the sandbox.
#include "sandbox/environment.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace hone::sandbox {
namespace {

TEST(SecretNames, CredentialsAreRecognised) {
  for (const char* name :
       {"HONE_LLM_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN",
        "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CLIENT_SECRET", "GITHUB_TOKEN", "HF_TOKEN", "SSH_AUTH_SOCK",
        "http_proxy", "db_password", "MY_SERVICE_TOKEN", "CUDA_API_KEY", "ANTHROPIC_AUTH", "KUBECONFIG"})
    EXPECT_TRUE(is_secret_name(name)) << name;
  for (const char* name : {"PATH", "CUDA_VISIBLE_DEVICES", "TORCH_CUDA_ARCH_LIST", "OMP_NUM_THREADS", "HONE_SHARE_DIR",
                           "LANG", "KEYBOARD"})
    EXPECT_FALSE(is_secret_name(name)) << name;
}

TEST(AllowedNames, ToolchainAndRuntimeVariablesPass) {
  for (const char* name :
       {"PATH", "LC_ALL", "CUDA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "TORCHINDUCTOR_CACHE_DIR",
        "TRITON_CACHE_DIR", "PYTHONPATH", "HONE_SHARE_DIR", "MALLOC_PERTURB_"})
    EXPECT_TRUE(is_allowed_name(name)) << name;
  for (const char* name : {"HONE_LLM_API_KEY", "EDITOR", "DISPLAY", "SSH_CONNECTION", "HOME", "OLDPWD"})
    EXPECT_FALSE(is_allowed_name(name)) << name;
}

TEST(ConfinedEnvironment, InheritedIsCutToTheAllowlistAndHomeMoves) {
  std::map<std::string, std::string> parent{
      {"PATH", "/usr/bin"}, {"LANG", "C.UTF-8"},          {"EDITOR", "vim"},
      {"HOME", "/root"},    {"HONE_LLM_API_KEY", "sk-1"}, {"CUDA_VISIBLE_DEVICES", "0"}};
  auto env = confined_environment(parent, false, "/work/scratch", {});
  EXPECT_EQ(env.at("PATH"), "/usr/bin");
  EXPECT_EQ(env.at("LANG"), "C.UTF-8");
  EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(env.at("HOME"), "/work/scratch");
  EXPECT_EQ(env.at("XDG_CACHE_HOME"), "/work/scratch/.cache");
  EXPECT_EQ(env.at("TMPDIR"), "/tmp");
  EXPECT_FALSE(env.count("EDITOR"));
  EXPECT_FALSE(env.count("HONE_LLM_API_KEY"));
}

TEST(ConfinedEnvironment, ExplicitKeepsTheCallersChoiceButNoSecret) {
  std::map<std::string, std::string> chosen{{"FOO", "1"}, {"MALLOC_PERTURB_", "165"}, {"OPENAI_API_KEY", "sk-2"}};
  auto env = confined_environment(chosen, true, "/s", {{"EXTRA", "yes"}});
  EXPECT_EQ(env.at("FOO"), "1");
  EXPECT_EQ(env.at("MALLOC_PERTURB_"), "165");
  EXPECT_EQ(env.at("EXTRA"), "yes");
  EXPECT_EQ(env.at("PATH"), "/usr/local/bin:/usr/bin:/bin");
  EXPECT_FALSE(env.count("OPENAI_API_KEY"));
}

TEST(ConfinedEnvironment, PolicyCannotAddASecret) {
  EXPECT_THROW(confined_environment({}, true, "/s", {{"HONE_LLM_API_KEY", "x"}}), std::invalid_argument);
}

}  // namespace
}  // namespace hone::sandbox
