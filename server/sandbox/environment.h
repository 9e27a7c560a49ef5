// sandbox/environment.h: the environment a confined command gets: an allowlist of what compilers,
// Python, torch and CUDA need, never a secret (API keys, tokens, cloud credentials, agent sockets).
// Used by Sandbox::wrap (any thread) and its tests.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace hone::sandbox {

// Whether a variable name looks like a credential: *_KEY, *_TOKEN, *_SECRET, passwords,
// AWS_*/GOOGLE_*/AZURE_*/... cloud settings, SSH/GPG agent sockets, proxies (which carry
// passwords). Case-insensitive.
bool is_secret_name(std::string_view name);

// Whether an inherited variable is passed on (PATH, locale, CUDA_*, TORCH*, PYTHON*, HONE_*, ...).
bool is_allowed_name(std::string_view name);

// The confined command's environment. `explicit_env` true: the caller chose every variable
// (ProcessSpec::env was set), so only secrets are removed; false: the inherited environment is
// cut to the allowlist too. Then HOME and XDG_CACHE_HOME point into `scratch` (the real home is
// not visible) and TMPDIR at the private /tmp. Variables in `set_env` are added last; a secret
// name there throws std::invalid_argument.
std::map<std::string, std::string> confined_environment(const std::map<std::string, std::string>& env,
                                                        bool explicit_env, const std::filesystem::path& scratch,
                                                        const std::map<std::string, std::string>& set_env);

}  // namespace hone::sandbox
