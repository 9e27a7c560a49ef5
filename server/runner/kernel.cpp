// runner/kernel.cpp: loading a raw-form kernel library and checking its ABI.
#include "runner/kernel.h"

#include <dlfcn.h>

#include <cstring>

#include "runner/wire.h"

namespace hone::runner {

void Kernel::load_raw(const std::string& path) {
  (void)dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw OpError(ErrorKind::LoadError, "cannot load kernel library " + path + ": " + (why ? why : "dlopen failed"));
  }
  std::string missing;
  void* symbols[3] = {};
  const char* names[3] = {"hone_abi_version", "hone_raw_signature", "hone_raw_forward"};
  for (int i = 0; i < 3; ++i) {
    symbols[i] = dlsym(handle, names[i]);
    if (!symbols[i]) missing += std::string(missing.empty() ? "" : ", ") + names[i];
  }
  if (!missing.empty())
    throw OpError(ErrorKind::LoadError,
                  path + " is not a raw-form hone kernel (no " + missing +
                      "); was it built by `hone build` from a file with void forward(hone::In<...>..., "
                      "hone::Out<...>...)?");
  const auto version = reinterpret_cast<std::int32_t (*)()>(symbols[0])();
  if (version != 1)
    throw OpError(ErrorKind::LoadError, path + " uses hone raw ABI version " + std::to_string(version) +
                                            "; this runner speaks version 1");
  const char* signature = reinterpret_cast<const char* (*)()>(symbols[1])();
  declared_ = signature ? signature : "";
  forward_ = reinterpret_cast<Forward>(symbols[2]);
  handle_ = handle;
}

}  // namespace hone::runner
