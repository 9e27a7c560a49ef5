// tests/attention/attention_emulation_test.cpp: the GPU kernel's own text (tasks/attention/*.cu and
// flash_attention.cuh) run on the host under emulation/cuda_emulation.h, as a CPU raw-form kernel
// through the real `hone check` and PyTorch, at small shapes whose query and key counts are no
// multiple of any tile: every variant, the tuner's other configurations, a configuration too big
// for shared memory (a clear error), and two broken kernels the emulation must catch. There is no
// GPU on the build machine; scripts/gpu/attention.sh runs the same kernels on the H200.
#include <tuple>

#include "attention_test_util.h"

namespace hone::attention_test {
namespace {

const fs::path kEmulation = HONE_EMULATION_DIR;

struct Staged {
  std::string variant;
  int warps = 4, block_n = 32, stages = 1;
  bool wgmma = false;  // the sm90 path (flash_attention_sm90.cuh), under wgmma_emulation.h; else the WMMA kernel
  std::vector<std::pair<std::string, std::string>> edits;         // applied to the variant's .cu
  std::vector<std::pair<std::string, std::string>> kernel_edits;  // applied to flash_attention.cuh
};

// Writes dir/<name>/: the kernel files, the emulator, the variant's twin task shrunk to
// 1 x 2 x 100 x head_dim (window 40, prefix 70, in the task and the kernel alike) and a wrapper
// emulated.cpp paired with it. Returns the wrapper's path.
fs::path stage(const fs::path& root, const std::string& name, const Staged& s) {
  const fs::path dir = root / name;
  fs::create_directories(dir);
  for (const fs::path& f :
       {kEmulation / "cuda_emulation.h", kEmulation / "wmma_emulation.h", kEmulation / "wgmma_emulation.h"})
    fs::copy_file(f, dir / f.filename());
  std::vector<std::string> edited(s.kernel_edits.size());  // each edit must apply to one of the headers
  for (const char* header : {"flash_attention.cuh", "flash_attention_sm90.cuh", "wgmma_ops.cuh"}) {
    std::string kernel = read_text(kTasks / header);
    for (std::size_t i = 0; i < s.kernel_edits.size(); ++i)
      if (kernel.find(s.kernel_edits[i].first) != std::string::npos) {
        kernel = replace_all(kernel, s.kernel_edits[i].first, s.kernel_edits[i].second);
        edited[i] = header;
      }
    write_text(dir / header, kernel);
  }
  for (std::size_t i = 0; i < edited.size(); ++i)
    if (edited[i].empty()) throw std::runtime_error("edit target not found: " + s.kernel_edits[i].first);
  std::string cu = read_text(kTasks / (s.variant + ".cu"));
  cu = replace_line(cu, "constexpr int WARPS = ", "constexpr int WARPS = " + std::to_string(s.warps) + ";");
  cu = replace_line(cu, "constexpr int BLOCK_N = ", "constexpr int BLOCK_N = " + std::to_string(s.block_n) + ";");
  cu = replace_line(cu, "constexpr int STAGES = ", "constexpr int STAGES = " + std::to_string(s.stages) + ";");
  // The path is always set here: the bf16 variant files default to the sm90 path (WGMMA = true).
  if (s.wgmma || cu.find("constexpr bool WGMMA = ") != std::string::npos)  // causal_fp32 has no sm90 path
    cu = replace_line(cu, "constexpr bool WGMMA = ", s.wgmma ? "constexpr bool WGMMA = true;" : "constexpr bool WGMMA = false;");
  std::string task = read_text(kTasks / "cpu" / (s.variant + ".py"));
  task = replace_line(replace_line(replace_line(task, "batch = ", "batch = 1"), "heads = ", "heads = 2"), "seq = ",
                      "seq = 100");
  if (s.variant == "sliding_window") {
    cu = replace_line(cu, "constexpr int kWindow = ", "constexpr int kWindow = 40;");
    task = replace_line(task, "window = ", "window = 40");
  }
  if (s.variant == "prefix_lm") {
    cu = replace_line(cu, "constexpr int kPrefix = ", "constexpr int kPrefix = 70;");
    task = replace_line(task, "prefix = ", "prefix = 70");
  }
  for (const auto& [from, to] : s.edits) cu = replace_all(cu, from, to);
  write_text(dir / (s.variant + ".cu"), cu);
  write_text(dir / (s.variant + ".py"), task);
  write_text(dir / "emulated.cpp", "// hone: task=" + s.variant + ".py\n#include \"hone.h\"\n\n#include \"cuda_emulation.h\"\n\n#include \"" +
                                       s.variant + ".cu\"\n");
  return dir / "emulated.cpp";
}

std::vector<json> check_staged(const std::vector<std::pair<std::string, Staged>>& cases, const TempDir& dir) {
  std::vector<fs::path> kernels;
  for (const auto& [name, s] : cases) kernels.push_back(stage(dir.path, name, s));
  return check_on_cpu(kernels);
}

TEST(AttentionGpuKernelEmulated, EveryVariantIsCorrect) {
  TempDir dir;
  std::vector<std::pair<std::string, Staged>> cases;
  for (const auto& v : kVariants) cases.push_back({v, Staged{v}});
  auto verdicts = check_staged(cases, dir);
  ASSERT_EQ(verdicts.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(verdicts[i]["status"], "correct") << cases[i].first << ": " << summary(verdicts[i]);
}

TEST(AttentionGpuKernelEmulated, OtherConfigurationsAreCorrectOrRefusedClearly) {
  TempDir dir;
  // causal has head_dim 128 (bf16), causal_fp32 and relative_position 64 (3xTF32, bf16).
  auto verdicts = check_staged({{"causal_8_64_2", Staged{"causal", 8, 64, 2}},
                                {"causal_4_128_2", Staged{"causal", 4, 128, 2}},
                                {"causal_fp32_8_64_3", Staged{"causal_fp32", 8, 64, 3}},
                                {"relative_position_4_128_3", Staged{"relative_position", 4, 128, 3}},
                                {"causal_4_128_3", Staged{"causal", 4, 128, 3}}},
                               dir);
  ASSERT_EQ(verdicts.size(), 5u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(verdicts[i]["status"], "correct") << summary(verdicts[i]);
  // 4 warps, 128-key tiles, 3 stages at head_dim 128 need 271 KiB of shared memory (227 KiB allowed).
  EXPECT_EQ(verdicts[4]["status"], "runtime_error") << summary(verdicts[4]);
  EXPECT_NE(verdicts[4].value("reason", "").find("bytes of shared memory"), std::string::npos) << summary(verdicts[4]);
}

// The sm90 path's own text (wgmma chains, S and P in registers, swizzled tiles) under the
// emulated wgmma: every bf16 variant, one and two warpgroups, head_dim 64 and 128, 32- to 128-key
// tiles, one to three stages. (Its reading of the PTX layouts is checked on a Hopper GPU by
// bench/probes/wgmma_probe.cu.)
TEST(AttentionGpuKernelEmulated, Sm90PathIsCorrect) {
  TempDir dir;
  std::vector<std::pair<std::string, Staged>> cases;
  for (const auto& v : kVariants) {
    if (v == "causal_fp32") continue;  // float32 stays on the WMMA kernel (3xTF32)
    Staged s{v};
    s.wgmma = true;
    cases.push_back({v + "_sm90", s});
  }
  for (auto [variant, warps, block_n, stages] : {std::tuple{"causal", 8, 64, 2}, std::tuple{"relative_position", 8, 128, 3},
                                                 std::tuple{"causal", 4, 128, 2}, std::tuple{"sliding_window", 8, 32, 3}}) {
    Staged s{variant, warps, block_n, stages};
    s.wgmma = true;
    cases.push_back({std::string(variant) + "_sm90_" + std::to_string(warps) + "_" + std::to_string(block_n) + "_" +
                         std::to_string(stages),
                     s});
  }
  auto verdicts = check_staged(cases, dir);
  ASSERT_EQ(verdicts.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(verdicts[i]["status"], "correct") << cases[i].first << ": " << summary(verdicts[i]);
}

// Broken sm90 kernels the emulation catches: reading S before the MMAs finish (no wait), and P
// fragments packed from the wrong accumulator elements (which also shows that WGMMA = true runs
// the sm90 path: the WMMA kernel has no such line).
TEST(AttentionGpuKernelEmulated, BrokenSm90KernelsAreCaught) {
  TempDir dir;
  Staged early{"relative_position"};
  early.wgmma = true;
  early.kernel_edits = {{"      commit();\n      wait_all();\n      fence_operands(s);", "      commit();\n      fence_operands(s);"}};
  Staged swapped{"causal"};
  swapped.wgmma = true;
  swapped.kernel_edits = {{"p[kk][1] = pack_bf16(s[8 * kk + 2], s[8 * kk + 3]);", "p[kk][1] = pack_bf16(s[8 * kk + 4], s[8 * kk + 5]);"}};
  auto verdicts = check_staged({{"sm90_no_wait", early}, {"sm90_swapped_fragment", swapped}}, dir);
  ASSERT_EQ(verdicts.size(), 2u);
  // Without the wait the scores read as NaN: an error from the emulation or NaN outputs.
  EXPECT_NE(verdicts[0]["status"], "correct") << summary(verdicts[0]);
  EXPECT_EQ(verdicts[1]["status"], "incorrect") << summary(verdicts[1]);
}

TEST(AttentionGpuKernelEmulated, BrokenKernelsAreCaught) {
  TempDir dir;
  // A key range that holds only the first tile: every query past it loses keys.
  Staged narrow{"causal"};
  narrow.edits = {{"{0, q_last + 1}", "{0, q_first + 1}"}, {"kv_range(int, int q_last, int)", "kv_range(int q_first, int, int)"}};
  // No barrier between the cp.async waits and the reads of K and V: the tiles other threads copy
  // have not landed (the emulation lands a thread's copies only at its own wait).
  Staged no_barrier{"relative_position"};
  no_barrier.kernel_edits = {{"    __syncthreads();  // tile j has landed for every thread", "    // no barrier"}};
  auto verdicts = check_staged({{"narrow_range", narrow}, {"no_barrier", no_barrier}}, dir);
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[0]["status"], "incorrect") << summary(verdicts[0]);
  EXPECT_EQ(verdicts[1]["status"], "incorrect") << summary(verdicts[1]);
}

}  // namespace
}  // namespace hone::attention_test
