// runner/cupti_library.cpp: locating and loading libhone_cupti.so.
#include "runner/cupti_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "runner/wire.h"

namespace hone::runner {
namespace {

namespace fs = std::filesystem;

nlohmann::json parse_answer(const char* text, const char* call) {
  if (!text) return {{"ok", false}, {"error", {{"code", "internal"}, {"message", std::string(call) + " returned NULL"}}}};
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded())
    return {{"ok", false}, {"error", {{"code", "internal"}, {"message", std::string(call) + " returned invalid JSON"}}}};
  return j;
}

}  // namespace

std::string CuptiLibrary::locate() {
  if (const char* env = std::getenv("HONE_CUPTI_LIBRARY"); env && *env) return env;
  fs::path share;
  if (const char* env = std::getenv("HONE_SHARE_DIR"); env && *env) {
    share = env;
  } else {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    share = exe.parent_path().parent_path() / "share" / "hone";
  }
  return (share / "lib" / "libhone_cupti.so").string();
}

void CuptiLibrary::load() {
  if (begin_) return;
  const std::string path = locate();
  if (path.empty() || ::access(path.c_str(), R_OK) != 0)
    throw OpError(ErrorKind::Unsupported, "records: libhone_cupti.so was not found (" + (path.empty() ? "no path" : path) +
                                              "): hone was built without CUPTI, or set HONE_CUPTI_LIBRARY");
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw OpError(ErrorKind::Unsupported, "records: cannot load " + path + ": " + (why ? why : "dlopen failed"));
  }
  auto begin = reinterpret_cast<Begin>(dlsym(handle, "hone_cupti_begin"));
  auto end = reinterpret_cast<End>(dlsym(handle, "hone_cupti_end"));
  if (!begin || !end) throw OpError(ErrorKind::Unsupported, "records: " + path + " has no hone_cupti_begin/hone_cupti_end");
  begin_ = begin;
  end_ = end;
  prepare_ = reinterpret_cast<Begin>(dlsym(handle, "hone_cupti_prepare"));
  prologue_ = reinterpret_cast<Arm>(dlsym(handle, "hone_cupti_kernel_prologue"));
}

nlohmann::json CuptiLibrary::begin(const nlohmann::json& request) {
  return parse_answer(begin_(dump(request).c_str()), "hone_cupti_begin");
}

nlohmann::json CuptiLibrary::end() { return parse_answer(end_(), "hone_cupti_end"); }

nlohmann::json CuptiLibrary::prepare(const nlohmann::json& request) {
  if (!prepare_)
    return {{"ok", false}, {"error", {{"code", "unsupported"}, {"message", "this libhone_cupti.so has no hone_cupti_prepare"}}}};
  return parse_answer(prepare_(dump(request).c_str()), "hone_cupti_prepare");
}

nlohmann::json CuptiLibrary::kernel_prologue(Prologue fn, void* user) {
  if (!prologue_)
    return {{"ok", false},
            {"error", {{"code", "unsupported"}, {"message", "this libhone_cupti.so has no hone_cupti_kernel_prologue"}}}};
  return parse_answer(prologue_(fn, user), "hone_cupti_kernel_prologue");
}

}  // namespace hone::runner
