// sandbox/kernel_stage.cpp: stages the kernel's own files for a confined build.
#include "sandbox/kernel_stage.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <stdexcept>

#include "support/hash.h"

namespace hone::sandbox {
namespace {

namespace fs = std::filesystem;

constexpr fs::perms kFolder = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec;
constexpr fs::perms kFile = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                            fs::perms::others_read;

void write_readable(const fs::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
  fs::permissions(path, kFile);
}

}  // namespace

StagedKernel stage_kernel_files(const fs::path& kernel_root, const std::vector<LocalFile>& files,
                                const fs::path& stage_root) {
  const fs::path root = fs::absolute(kernel_root).lexically_normal();
  StagedKernel staged;
  Sha256 digest;
  digest.field("hone-kernel-stage-v1");
  for (const auto& f : files) {
    fs::path rel = fs::absolute(f.path).lexically_normal().lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..")
      throw std::runtime_error("sandbox: " + f.path.string() + " is outside the kernel's folder " + root.string());
    digest.field(rel.generic_string()).field(f.contents);
    staged.files.push_back(rel);
  }
  staged.dir = stage_root / digest.hex().substr(0, 32);
  std::error_code ec;
  if (fs::is_directory(staged.dir, ec)) return staged;

  static std::atomic<unsigned> counter{0};
  const fs::path tmp = stage_root / (staged.dir.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(counter++));
  try {
    fs::create_directories(stage_root);
    fs::create_directory(tmp);
    fs::permissions(tmp, kFolder);
    for (std::size_t i = 0; i < files.size(); ++i) {
      fs::path dir = tmp;
      for (const auto& part : staged.files[i].parent_path()) {
        dir /= part;
        if (fs::create_directory(dir)) fs::permissions(dir, kFolder);
      }
      write_readable(tmp / staged.files[i], files[i].contents);
    }
    fs::rename(tmp, staged.dir, ec);
    if (ec && !fs::is_directory(staged.dir)) throw fs::filesystem_error("cannot publish", tmp, staged.dir, ec);
  } catch (const std::exception& e) {
    fs::remove_all(tmp, ec);
    throw std::runtime_error("sandbox: cannot stage the kernel's files under " + stage_root.string() + ": " +
                             e.what());
  }
  if (ec) fs::remove_all(tmp, ec);  // another build staged the same files first
  return staged;
}

}  // namespace hone::sandbox
