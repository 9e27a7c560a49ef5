// sandbox/environment.cpp: the allowlist and the secret rule for confined commands' environments.
#include "sandbox/environment.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

namespace hone::sandbox {
namespace {

std::string upper(std::string_view s) {
  std::string u(s);
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return u;
}

constexpr std::array<std::string_view, 11> kSecretSuffixes{"_KEY",    "_KEYS",        "_TOKEN", "_TOKENS",
                                                           "_SECRET", "_SECRETS",     "_PASS",  "_PASSWORD",
                                                           "_PASSWD", "_CREDENTIALS", "_PROXY"};
constexpr std::array<std::string_view, 7> kSecretParts{"API_KEY",  "APIKEY", "SECRET",    "TOKEN",
                                                       "PASSWORD", "PASSWD", "CREDENTIAL"};
constexpr std::array<std::string_view, 16> kSecretPrefixes{
    "AWS_",      "GOOGLE_", "GCLOUD_", "GCP_", "AZURE_",  "ARM_CLIENT", "OPENAI_", "ANTHROPIC_",
    "DEEPSEEK_", "HF_",     "HUGGING", "GH_",  "GITHUB_", "DOCKER_",    "KUBE",    "VAULT_"};
constexpr std::array<std::string_view, 10> kSecretNames{
    "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",           "GNUPGHOME",
    "KRB5CCNAME",    "NETRC",         "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR",
    "HISTFILE",      "PROXY"};

constexpr std::array<std::string_view, 22> kAllowedNames{"PATH",
                                                         "LANG",
                                                         "LANGUAGE",
                                                         "TZ",
                                                         "TERM",
                                                         "USER",
                                                         "LOGNAME",
                                                         "LD_LIBRARY_PATH",
                                                         "PYTHONPATH",
                                                         "PYTHONHOME",
                                                         "PYTHONUNBUFFERED",
                                                         "PYTHONHASHSEED",
                                                         "PYTHONDONTWRITEBYTECODE",
                                                         "PYTHONWARNINGS",
                                                         "VIRTUAL_ENV",
                                                         "CONDA_PREFIX",
                                                         "CC",
                                                         "CXX",
                                                         "CUDAHOSTCXX",
                                                         "MALLOC_PERTURB_",
                                                         "MALLOC_CHECK_",
                                                         "SOURCE_DATE_EPOCH"};
constexpr std::array<std::string_view, 17> kAllowedPrefixes{
    "LC_",     "CUDA_",    "NVIDIA_", "NVCC_", "CUBLAS",    "CUDNN_", "CUPTI_", "TORCH", "PYTORCH_",
    "TRITON_", "INDUCTOR", "OMP_",    "MKL_",  "OPENBLAS_", "KMP_",   "GOMP_",  "HONE_"};

}  // namespace

bool is_secret_name(std::string_view name) {
  const std::string u = upper(name);
  const std::string_view v(u);
  for (auto s : kSecretSuffixes)
    if (v.ends_with(s)) return true;
  for (auto s : kSecretParts)
    if (v.find(s) != std::string_view::npos) return true;
  for (auto s : kSecretPrefixes)
    if (v.starts_with(s)) return true;
  for (auto s : kSecretNames)
    if (v == s) return true;
  return false;
}

bool is_allowed_name(std::string_view name) {
  if (is_secret_name(name)) return false;
  for (auto s : kAllowedNames)
    if (name == s) return true;
  for (auto s : kAllowedPrefixes)
    if (name.starts_with(s)) return true;
  return false;
}

std::map<std::string, std::string> confined_environment(const std::map<std::string, std::string>& env,
                                                        bool explicit_env, const std::filesystem::path& scratch,
                                                        const std::map<std::string, std::string>& set_env) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : env) {
    if (is_secret_name(name)) continue;
    if (!explicit_env && !is_allowed_name(name)) continue;
    out[name] = value;
  }
  if (!out.count("PATH")) out["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  out["HOME"] = scratch.string();
  out["XDG_CACHE_HOME"] = (scratch / ".cache").string();
  out["TMPDIR"] = "/tmp";
  for (const auto& [name, value] : set_env) {
    if (is_secret_name(name))
      throw std::invalid_argument("sandbox policy: refusing to pass " + name + " (it looks like a secret)");
    out[name] = value;
  }
  return out;
}

}  // namespace hone::sandbox
