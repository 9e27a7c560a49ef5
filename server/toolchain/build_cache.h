// toolchain/build_cache.h: the content-addressed build cache: <root>/<key>/ holds kernel.so,
// report.json, the PTX, the cubin, the generated TU and the compiler's output. Builds happen in
// a private work folder that is renamed into place, so two processes building the same key at
// once both succeed (the second rename loses and uses the winner's entry). Any thread/process.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "protocol/build_report.h"

namespace hone::toolchain {

class BuildCache {
 public:
  explicit BuildCache(std::filesystem::path root);

  // The finished entry's report, when the entry exists and is complete.
  std::optional<protocol::CompileReport> lookup(const std::string& key) const;

  std::filesystem::path entry_dir(const std::string& key) const;

  // A new, empty private folder for building `key`.
  std::filesystem::path make_work_dir(const std::string& key) const;

  // Moves a finished work folder into place and returns the entry folder. When another build
  // published the key first, the work folder is removed and theirs is kept, unless `replace`.
  std::filesystem::path publish(const std::filesystem::path& work, const std::string& key, bool replace) const;

  // Removes a work folder (a failed, timed-out or cancelled build).
  static void discard(const std::filesystem::path& work);

 private:
  std::filesystem::path root_;
};

}  // namespace hone::toolchain
