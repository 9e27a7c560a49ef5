// runner/cupti_library.h: libhone_cupti.so (server/cupti/hone_cupti.h) for activity records,
// found at $HONE_CUPTI_LIBRARY, else in the share folder ($HONE_SHARE_DIR, else
// <executable>/../share/hone) under lib/, like the engine finds it for the python profiler, and
// dlopened only at the first records op or kernel-records time op (the call-time pass comes
// before both, so it pays no CUPTI tax). Main thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hone::runner {

class CuptiLibrary {
 public:
  // Where the library is expected; empty when no candidate path exists.
  static std::string locate();

  // Loads it (once); throws OpError (unsupported) when it is missing or cannot be loaded.
  void load();
  // hone_cupti_begin / hone_cupti_end; the answers as JSON ({"ok": false, "error": ...} on failure).
  nlohmann::json begin(const nlohmann::json& request);
  nlohmann::json end();
  // hone_cupti_prepare (kernel counters set up ahead of the begin that asks for the same ones);
  // unsupported when the library predates it.
  nlohmann::json prepare(const nlohmann::json& request);
  // hone_cupti_kernel_prologue: arms fn(stream, user) before each kernel launch of the running
  // recording (begun with "kernel_prologue": true), or disarms it (fn NULL); unsupported when the
  // library predates it.
  using Prologue = int (*)(void* stream, void* user);
  nlohmann::json kernel_prologue(Prologue fn, void* user);
  bool has_kernel_prologue() const { return prologue_ != nullptr; }

 private:
  using Begin = const char* (*)(const char*);
  using End = const char* (*)();
  Begin begin_ = nullptr;
  End end_ = nullptr;
  Begin prepare_ = nullptr;
  using Arm = const char* (*)(Prologue, void*);
  Arm prologue_ = nullptr;
};

}  // namespace hone::runner
