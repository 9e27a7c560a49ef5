// toolchain/torch_glue.cpp: compiling and caching hone's torch registration glue.
#include "toolchain/torch_glue.h"

#include <mutex>

#include "support/hash.h"
#include "toolchain/build_cache.h"
#include "toolchain/command_runner.h"
#include "toolchain/compile_plan.h"

namespace hone::toolchain {
namespace fs = std::filesystem;

namespace {

struct GluePlan {
  std::vector<std::string> argv;
  std::string key;
  std::string error;
};

GluePlan plan_glue(const GlueRequest& r) {
  GluePlan p;
  const fs::path source = r.share_dir / "include" / "hone" / "torch_glue.cpp";
  p.argv = {r.host_compiler.string(), "-O2", "-fPIC"};
  auto flags = torch_compile_flags(*r.torch);
  p.argv.insert(p.argv.end(), flags.begin(), flags.end());
  p.argv.insert(p.argv.end(), {"-I" + (r.share_dir / "include").string(), "-c", source.string(), "-o", "torch_glue.o"});
  try {
    Sha256 h;
    h.field("hone-torch-glue-v1").field(read_file(source)).field(read_file(r.share_dir / "include" / "hone" / "torch_abi.h"));
    h.field(r.host_compiler_version).field(r.torch->version).field(r.torch->torch_dir.string());
    for (const auto& a : p.argv) h.field(a);
    p.key = h.hex();
  } catch (const std::exception& e) {
    p.error = std::string("hone's torch glue is missing from the share folder: ") + e.what();
  }
  return p;
}

}  // namespace

std::optional<fs::path> torch_glue_object(const GlueRequest& r, std::string* error) {
  GluePlan p = plan_glue(r);
  if (!p.error.empty()) {
    if (error) *error = p.error;
    return std::nullopt;
  }
  return BuildCache(r.cache_dir / "glue").entry_dir(p.key) / "torch_glue.o";
}

GlueResult ensure_torch_glue(const GlueRequest& r) {
  GlueResult result;
  GluePlan plan = plan_glue(r);
  if (!plan.error.empty()) {
    result.error = plan.error;
    return result;
  }
  const std::vector<std::string>& argv = plan.argv;
  const std::string& key = plan.key;

  BuildCache cache(r.cache_dir / "glue");
  const fs::path object = cache.entry_dir(key) / "torch_glue.o";
  std::error_code ec;
  if (fs::is_regular_file(object, ec)) {
    result.object = object;
    return result;
  }
  // One glue compile at a time in this process; the others find it cached when they get the lock.
  static std::mutex mu;
  std::lock_guard lock(mu);
  if (fs::is_regular_file(object, ec)) {
    result.object = object;
    return result;
  }
  const fs::path work = cache.make_work_dir(key);
  result.process = run_compiler({argv, work, r.timeout, r.stop, r.wrap_command});
  result.compiled = true;
  if (!result.process.ok() || !fs::is_regular_file(work / "torch_glue.o", ec)) {
    result.error = "compiling hone's torch glue failed (" + result.process.describe() + "): " + command_line(argv) + "\n" +
                   result.process.err + result.process.out;
    BuildCache::discard(work);
    return result;
  }
  result.object = cache.publish(work, key, false) / "torch_glue.o";
  return result;
}

}  // namespace hone::toolchain
