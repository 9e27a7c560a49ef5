// tests/cupti/prologue_test.cpp: hone_cupti_kernel_prologue on a real GPU. Armed, the prologue runs
// before each kernel launch (<<<>>>, cudaLaunchKernel, cuLaunchKernel), on the launch's stream; never for
// the launches it makes itself; not once disarmed. The activity records show its kernel right
// before each launch it preceded. Skips without a GPU (scripts/gpu-check.sh runs it).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu_kernels.h"
#include "hone_cupti.h"

namespace hone::cupti_test {
namespace {

using nlohmann::json;

struct Seen {
  std::vector<void*> streams;
};

int prologue(void* stream, void* user) {
  static_cast<Seen*>(user)->streams.push_back(stream);
  return mark_by_runtime(stream);  // a launch of its own: the prologue must not run for it
}

TEST(KernelPrologue, RunsBeforeEachLaunchOnItsStreamAndNeverForItsOwn) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA GPU here: scripts/gpu-check.sh runs this on the GPU machine";
  void* stream = new_stream();
  work_by_runtime(stream);  // module loaded and buffers allocated before the recording
  (void)mark_by_runtime(stream);
  synchronize_device();
  const json begun = json::parse(hone_cupti_begin(R"({"activity": true, "kernel_prologue": true})"));
  ASSERT_TRUE(begun["ok"].get<bool>()) << begun.dump();
  Seen seen;
  EXPECT_TRUE(json::parse(hone_cupti_kernel_prologue(prologue, &seen))["ok"].get<bool>());
  work_by_runtime(stream);
  work_by_driver(stream);
  work_by_launch_api(stream);
  EXPECT_TRUE(json::parse(hone_cupti_kernel_prologue(nullptr, nullptr))["ok"].get<bool>());
  work_by_runtime(stream);  // disarmed: no prologue
  synchronize_device();
  const json ended = json::parse(hone_cupti_end());
  ASSERT_TRUE(ended["ok"].get<bool>()) << ended.dump();
  const json& summary = ended["kernel_prologue"];
  EXPECT_EQ(summary["launches"], 3) << summary.dump();
  EXPECT_EQ(summary["failures"], 0) << summary.dump();
  EXPECT_EQ(summary["graphs"], 0) << summary.dump();
  // <<<>>> (CUDA 13's __cudaLaunchKernel) carries no stream CUPTI's headers describe: its prologue
  // runs from the driver launch inside it, so CUPTI must report that one.
  EXPECT_EQ(summary["missed"], 0) << summary.dump();
  EXPECT_EQ(seen.streams, (std::vector<void*>{stream, stream, stream}));
  std::vector<json> kernels(ended["activity"]["kernels"].begin(), ended["activity"]["kernels"].end());
  std::sort(kernels.begin(), kernels.end(), [](const json& a, const json& b) {
    return a["start_ns"].get<std::uint64_t>() < b["start_ns"].get<std::uint64_t>();
  });
  std::vector<std::string> names;
  for (const json& k : kernels) names.push_back(k["name"].get<std::string>());
  EXPECT_EQ(names, (std::vector<std::string>{"prologue_mark", "prologue_work", "prologue_mark", "prologue_work",
                                             "prologue_mark", "prologue_work", "prologue_work"}))
      << ended["activity"].dump();
  delete_stream(stream);
}

}  // namespace
}  // namespace hone::cupti_test
