// tests/eval/launch_and_plausibility_test.cpp: the worker's scrubbed environment, the launch
// specs of its candidate processes, the physical floor and speedups, and the on-disk baseline cache.
#include <unistd.h>

#include <set>

#include <gtest/gtest.h>

#include "eval/baseline_cache.h"
#include "eval/plausibility.h"
#include "eval/worker_launch.h"
#include "support/hash.h"

namespace hone::eval {
namespace {

TEST(WorkerEnvironment, DropsSecretsKeepsWhatTorchNeeds) {
  std::map<std::string, std::string> parent{{"PATH", "/usr/bin"},
                                           {"HOME", "/home/u"},
                                           {"HONE_LLM_API_KEY", "sk-secret"},
                                           {"OPENAI_API_KEY", "sk-2"},
                                           {"GITHUB_TOKEN", "ghp"},
                                           {"AWS_SECRET_ACCESS_KEY", "aws"},
                                           {"SSH_AUTH_SOCK", "/tmp/agent"},
                                           {"DB_PASSWORD", "pw"},
                                           {"CUDA_VISIBLE_DEVICES", "1"},
                                           {"TORCHINDUCTOR_CACHE_DIR", "/c"},
                                           {"RANDOM_THING", "x"},
                                           {"HONE_CACHE_DIR", "/cache"}};
  auto env = worker_environment(parent, "/opt/hone/share/hone");
  for (const char* gone : {"HONE_LLM_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY",
                           "SSH_AUTH_SOCK", "DB_PASSWORD", "RANDOM_THING"})
    EXPECT_EQ(env.count(gone), 0u) << gone;
  EXPECT_EQ(env["PATH"], "/usr/bin");
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "1");
  EXPECT_EQ(env["TORCHINDUCTOR_CACHE_DIR"], "/c");
  EXPECT_EQ(env["HONE_CACHE_DIR"], "/cache");
  EXPECT_EQ(env["PYTHONPATH"], "/opt/hone/share/hone/worker");
  EXPECT_EQ(env["MALLOC_PERTURB_"], std::to_string(kMallocPerturbByte));
  EXPECT_EQ(env["PYTHONUNBUFFERED"], "1");
}

TEST(WorkerEnvironment, TheWrapHookSeesTheFullCommand) {
  WorkerLaunch launch;
  launch.python = "/usr/bin/python3";
  launch.share_dir = "/opt/share";
  launch.scratch_dir = std::filesystem::temp_directory_path() / ("hone-eval-test-" + std::to_string(::getpid()));
  launch.wrap = [](ProcessSpec s) {
    s.argv.insert(s.argv.begin(), "confine");
    return s;
  };
  ProcessSpec spec = worker_process_spec(launch);
  EXPECT_EQ(spec.argv, (std::vector<std::string>{"confine", "/usr/bin/python3", "-m", "hone_worker"}));
  EXPECT_EQ(spec.cwd, launch.scratch_dir);
  EXPECT_TRUE(std::filesystem::is_directory(launch.scratch_dir));
  std::filesystem::remove_all(launch.scratch_dir);
}

TEST(CandidateLaunch, EverySlotIsWrappedWithAScratchFolderOfItsOwn) {
  const auto root = std::filesystem::temp_directory_path() / ("hone-launch-test-" + std::to_string(::getpid()));
  CandidateLaunch launch;
  launch.python = "/usr/bin/python3";
  launch.share_dir = "/opt/share";
  launch.runner = "/opt/bin/hone-runner";
  launch.harness = "/opt/share/lib/libhone_harness.so";
  launch.scratch_root = root / "candidates";
  launch.native_slots = 2;
  launch.python_slots = 3;
  launch.exit_code_carries_signal = true;
  std::vector<std::filesystem::path> wrapped_with;
  launch.wrap = [&](ProcessSpec s, const std::filesystem::path& scratch) {
    wrapped_with.push_back(scratch);
    s.argv.insert(s.argv.begin(), {"confine", "--scratch", scratch.string(), "--"});
    return s;
  };
  auto env = write_candidate_launch(launch, root / "candidates.json");
  EXPECT_EQ(env["HONE_CANDIDATE_LAUNCH"], (root / "candidates.json").string());
  EXPECT_EQ(env["HONE_RUNNER"], "/opt/bin/hone-runner");
  EXPECT_EQ(env["HONE_HARNESS_LIBRARY"], "/opt/share/lib/libhone_harness.so");
  EXPECT_EQ(std::filesystem::status(root / "candidates.json").permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  auto specs = nlohmann::json::parse(read_file(root / "candidates.json"));
  ASSERT_EQ(specs["native"].size(), 2u);
  ASSERT_EQ(specs["python"].size(), 3u);
  EXPECT_EQ(wrapped_with.size(), 5u);
  std::set<std::string> scratches;
  for (const char* kind : {"native", "python"})
    for (const auto& spec : specs[kind]) {
      const std::string scratch = spec["scratch"].get<std::string>();
      scratches.insert(scratch);
      EXPECT_TRUE(std::filesystem::is_directory(scratch)) << scratch;
      EXPECT_EQ(spec["argv"][0], "confine");
      EXPECT_EQ(spec["argv"][2], scratch);
      EXPECT_TRUE(spec["exit_code_carries_signal"].get<bool>());
      EXPECT_EQ(spec["env"]["HONE_HARNESS_LIBRARY"], "/opt/share/lib/libhone_harness.so");
      EXPECT_EQ(spec["env"]["PYTHONPATH"], "/opt/share/worker");
    }
  EXPECT_EQ(scratches.size(), 5u);
  EXPECT_EQ(specs["native"][0]["argv"].back(), "/opt/bin/hone-runner");
  EXPECT_EQ(specs["python"][0]["argv"].back(), "hone_worker.runner");
  std::filesystem::remove_all(root);
}

TEST(CandidateLaunch, UnwrappedWithoutASandboxAndNoNativeRunnerWithoutItsBinary) {
  const auto root = std::filesystem::temp_directory_path() / ("hone-launch-test2-" + std::to_string(::getpid()));
  CandidateLaunch launch;
  launch.python = "/usr/bin/python3";
  launch.share_dir = "/opt/share";
  launch.scratch_root = root;
  launch.cpu_address_space_bytes = 1u << 30;
  auto specs = candidate_launch_specs(launch);
  EXPECT_TRUE(specs["native"].empty());
  ASSERT_FALSE(specs["python"].empty());
  EXPECT_EQ(specs["python"][0]["argv"][0], "/usr/bin/python3");
  EXPECT_FALSE(specs["python"][0]["exit_code_carries_signal"].get<bool>());
  EXPECT_EQ(specs["python"][0]["address_space_bytes"].get<std::uint64_t>(), 1u << 30);
  std::filesystem::remove_all(root);
}

protocol::TensorSpec tensor(const char* name, const char* dtype, std::vector<std::int64_t> shape) {
  return {name, "tensor", std::string(dtype), std::move(shape)};
}

TEST(Plausibility, CompulsoryBytesCountInputsParamsAndOutputs) {
  protocol::Signature s;
  s.inputs = {tensor("x", "float32", {1024, 1024}), {"alpha", "float", std::nullopt, {}}};
  s.params = {tensor("w", "bfloat16", {1024})};
  s.outputs = {tensor("out0", "float32", {1024, 1024})};
  EXPECT_DOUBLE_EQ(*compulsory_bytes(s), 2.0 * 4 * 1024 * 1024 + 2 * 1024);
  s.outputs.push_back(tensor("weird", "quaternion", {2}));
  EXPECT_FALSE(compulsory_bytes(s).has_value());
}

TEST(Plausibility, FloorRejectsOnlyWhatIsFasterThanDram) {
  // 2^28 floats read + written at 4.8 TB/s: 447 µs (FACTS.md: torch.relu runs at 509 µs on the H200).
  double bytes = 2.0 * 4 * (1 << 28);
  protocol::Floor f = physical_floor(bytes, 4.8e12);
  EXPECT_NEAR(f.floor_us, 447.4, 0.1);
  protocol::Timing honest{509.4, 508, 511, {}, {}, {}, 200, {}, "cuda_events_l2_flush", {}};
  EXPECT_FALSE(below_floor_reason(honest, f));
  protocol::Timing replay{3.1, 3, 4, {}, {}, {}, 200, {}, "cuda_events_l2_flush", {}};
  auto why = below_floor_reason(replay, f);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("below the physical floor of 447 µs"), std::string::npos) << *why;
  EXPECT_NE(why->find("2.15 GB"), std::string::npos) << *why;
  EXPECT_NE(why->find("4.80 TB/s"), std::string::npos) << *why;
  // A device time (the activity records' claim) below the floor is held to it too.
  protocol::Timing claimed = honest;
  claimed.device = protocol::TimeSummary{40.0, 39.0, 41.0, 200, "cupti_kernel_records"};
  why = below_floor_reason(claimed, f);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("device time (cupti_kernel_records) 40.0 µs"), std::string::npos) << *why;
  claimed.device->p50_us = 460.0;
  EXPECT_FALSE(below_floor_reason(claimed, f));
}

TEST(Plausibility, SpeedupsAreBaselineOverCandidate) {
  protocol::Timing t{20, 19, 21, {}, {}, {}, 100, {}, "host_clock", {}};
  protocol::Baselines b;
  b.eager = protocol::Timing{50, 49, 51, {}, {}, {}, 100, {}, "host_clock", {}};
  auto s = speedups(t, b);
  EXPECT_DOUBLE_EQ(*s.eager, 2.5);
  EXPECT_FALSE(s.compile);
  b.compile = protocol::Timing{10, 9, 11, {}, {}, {}, 100, {}, "host_clock", {}};
  b.compile_measured = true;
  EXPECT_DOUBLE_EQ(*speedups(t, b).compile, 0.5);
}

TEST(BaselineCache, StoresTimingsAndUnavailabilityPerKey) {
  auto dir = std::filesystem::temp_directory_path() / ("hone-baselines-" + std::to_string(::getpid()));
  BaselineCache cache(dir);
  BaselineKey eager{"abc", "NVIDIA H200", "2.11.0", "eager"};
  BaselineKey compile{"abc", "NVIDIA H200", "2.11.0", "compile"};
  BaselineKey other_gpu{"abc", "NVIDIA A100", "2.11.0", "eager"};
  EXPECT_FALSE(cache.find(eager));
  cache.store(eager, {protocol::Timing{12.5, 12, 13, 12.6, 11.9, 14, 500, 20, "cuda_events_l2_flush", 3}, ""});
  cache.store(compile, {std::nullopt, "torch.compile needs torch >= 2.0"});
  auto hit = cache.find(eager);
  ASSERT_TRUE(hit && hit->timing);
  EXPECT_DOUBLE_EQ(hit->timing->p50_us, 12.5);
  EXPECT_EQ(hit->timing->reps, 500);
  auto miss = cache.find(compile);
  ASSERT_TRUE(miss);
  EXPECT_FALSE(miss->timing);
  EXPECT_EQ(miss->unavailable, "torch.compile needs torch >= 2.0");
  EXPECT_FALSE(cache.find(other_gpu));
  write_file_atomic(cache.path_for(other_gpu), "{ not json");
  EXPECT_FALSE(cache.find(other_gpu));  // damaged entries are measured again
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hone::eval
