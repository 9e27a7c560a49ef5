// toolchain/build_cache.cpp: entry lookup and atomic publication by rename.
#include "toolchain/build_cache.h"

#include <unistd.h>

#include <atomic>
#include <random>

#include "support/hash.h"

namespace hone::toolchain {
namespace fs = std::filesystem;

BuildCache::BuildCache(fs::path root) : root_(std::move(root)) {}

fs::path BuildCache::entry_dir(const std::string& key) const { return root_ / key; }

std::optional<protocol::CompileReport> BuildCache::lookup(const std::string& key) const {
  const fs::path report = entry_dir(key) / "report.json";
  std::error_code ec;
  if (!fs::is_regular_file(report, ec)) return std::nullopt;
  try {
    auto r = nlohmann::json::parse(read_file(report)).get<protocol::CompileReport>();
    if (r.ok && !fs::is_regular_file(r.library, ec)) return std::nullopt;
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

fs::path BuildCache::make_work_dir(const std::string& key) const {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  fs::create_directories(root_);
  for (int attempt = 0;; ++attempt) {
    fs::path dir = root_ / (".work-" + key.substr(0, 16) + "-" + std::to_string(::getpid()) + "-" +
                            std::to_string(counter++) + "-" + std::to_string(rd() % 100000));
    std::error_code ec;
    if (fs::create_directory(dir, ec)) return dir;
    if (attempt > 100) throw std::runtime_error("cannot create a build folder under " + root_.string() + ": " + ec.message());
  }
}

fs::path BuildCache::publish(const fs::path& work, const std::string& key, bool replace) const {
  const fs::path entry = entry_dir(key);
  std::error_code ec;
  if (replace && fs::exists(entry, ec)) {
    // Move the old entry aside first: readers see either the old or the new one, never half.
    fs::path old = make_work_dir(key);
    fs::remove(old, ec);
    fs::rename(entry, old, ec);
    discard(old);
  }
  fs::rename(work, entry, ec);
  if (ec) {
    // ENOTEMPTY/EEXIST: another build of the same key won the race; its entry is as good as ours.
    discard(work);
    if (!fs::is_directory(entry)) throw std::runtime_error("cannot publish build " + key + " in " + root_.string() + ": " + ec.message());
  }
  return entry;
}

void BuildCache::discard(const fs::path& work) {
  std::error_code ec;
  fs::remove_all(work, ec);
}

}  // namespace hone::toolchain
