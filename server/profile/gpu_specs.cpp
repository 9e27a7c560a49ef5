// profile/gpu_specs.cpp: the GPU spec table (dense peak rates from NVIDIA's datasheets and
// whitepapers, sources beside each row), name matching, and device-reported facts.
#include "profile/gpu_specs.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace hone::profile {
namespace {

constexpr double T = 1e12;  // tera
constexpr double G = 1e9;
constexpr std::uint64_t MiB = 1024ull * 1024;
constexpr std::uint64_t GB = 1000ull * 1000 * 1000;

// Shared memory per SM and the opt-in maximum per block, from the CUDA C++ Programming Guide,
// "Technical Specifications per Compute Capability": 8.0 = 164/163 KB, 8.9 = 100/99 KB,
// 9.0 and 10.0 = 228/227 KB. Max resident warps per SM: 64 (8.0, 9.0, 10.0), 48 (8.9);
// max resident blocks per SM: 32 (8.0, 9.0, 10.0), 24 (8.9).
constexpr std::uint32_t kSmem90 = 228 * 1024, kSmem90Block = 227 * 1024;
constexpr std::uint32_t kSmem80 = 164 * 1024, kSmem80Block = 163 * 1024;
constexpr std::uint32_t kSmem89 = 100 * 1024, kSmem89Block = 99 * 1024;

GpuSpec hopper(std::string_view name, std::string_view key) {
  GpuSpec s;
  s.name = name;
  s.key = key;
  s.arch = "sm_90";
  s.chip = "GH100";
  s.shared_bytes_per_sm = kSmem90;
  s.shared_bytes_per_block = kSmem90Block;
  return s;
}

// Hopper: H100 (SXM5, PCIe, NVL) and H200 (SXM, NVL).
void add_hopper(std::vector<GpuSpec>& t) {
  // H100 SXM5 80 GB. NVIDIA Hopper architecture whitepaper (table "NVIDIA H100 SXM5"; dense
  // tensor rates, the datasheet prints sparse ones = 2x) and the H100 datasheet
  // (nvidia.com/en-us/data-center/h100): 3.35 TB/s HBM3, 50 MB L2.
  {
    GpuSpec s = hopper("NVIDIA H100 SXM5 80GB", "h100-sxm");
    s.sm_count = 132;
    s.boost_clock_hz = 1980e6;
    s.peak_dram_bytes_per_s = 3.35 * T;
    s.memory_bytes = 80 * GB;
    s.l2_bytes = 50 * MiB;
    s.fp64 = 33.5 * T; s.fp32 = 66.9 * T; s.fp16 = 133.8 * T; s.bf16 = 133.8 * T;
    s.fp64_tensor = 66.9 * T; s.tf32_tensor = 494.7 * T; s.fp16_tensor = 989.4 * T;
    s.bf16_tensor = 989.4 * T; s.fp8_tensor = 1978.9 * T; s.int8_tensor = 1978.9 * T;
    s.source = "NVIDIA Hopper architecture whitepaper (H100 SXM5 table, dense); H100 datasheet";
    t.push_back(s);
  }
  // H100 PCIe 80 GB. Hopper whitepaper (table "NVIDIA H100 PCIe"), H100 datasheet: 2 TB/s HBM2e.
  {
    GpuSpec s = hopper("NVIDIA H100 PCIe 80GB", "h100-pcie");
    s.sm_count = 114;
    s.boost_clock_hz = 1755e6;
    s.peak_dram_bytes_per_s = 2.0 * T;
    s.memory_bytes = 80 * GB;
    s.l2_bytes = 50 * MiB;
    s.fp64 = 25.6 * T; s.fp32 = 51.2 * T; s.fp16 = 102.4 * T; s.bf16 = 102.4 * T;
    s.fp64_tensor = 51.2 * T; s.tf32_tensor = 378 * T; s.fp16_tensor = 756 * T;
    s.bf16_tensor = 756 * T; s.fp8_tensor = 1513 * T; s.int8_tensor = 1513 * T;
    s.source = "NVIDIA Hopper architecture whitepaper (H100 PCIe table, dense); H100 datasheet";
    t.push_back(s);
  }
  // H100 NVL 94 GB. H100 datasheet (NVL column; sparse tensor numbers halved): 3.9 TB/s.
  {
    GpuSpec s = hopper("NVIDIA H100 NVL 94GB", "h100-nvl");
    s.sm_count = 132;
    s.peak_dram_bytes_per_s = 3.9 * T;
    s.memory_bytes = 94 * GB;
    s.l2_bytes = 50 * MiB;
    s.fp64 = 30 * T; s.fp32 = 60 * T;
    s.fp64_tensor = 60 * T; s.tf32_tensor = 417.5 * T; s.fp16_tensor = 835.5 * T;
    s.bf16_tensor = 835.5 * T; s.fp8_tensor = 1670.5 * T; s.int8_tensor = 1670.5 * T;
    s.source = "NVIDIA H100 datasheet, H100 NVL column (sparse tensor rates halved)";
    t.push_back(s);
  }
  // H200 SXM 141 GB. H200 product page (nvidia.com/en-us/data-center/h200): 4.8 TB/s HBM3e,
  // compute identical to H100 SXM5. L2: 60 MiB as the device reports it (PyTorch on the test
  // H200, ../shared/gpu/FACTS.md).
  {
    GpuSpec s = hopper("NVIDIA H200 SXM 141GB", "h200");
    s.sm_count = 132;
    s.boost_clock_hz = 1980e6;
    s.peak_dram_bytes_per_s = 4.8 * T;
    s.memory_bytes = 141 * GB;
    s.l2_bytes = 60 * MiB;
    s.fp64 = 33.5 * T; s.fp32 = 66.9 * T; s.fp16 = 133.8 * T; s.bf16 = 133.8 * T;
    s.fp64_tensor = 66.9 * T; s.tf32_tensor = 494.7 * T; s.fp16_tensor = 989.4 * T;
    s.bf16_tensor = 989.4 * T; s.fp8_tensor = 1978.9 * T; s.int8_tensor = 1978.9 * T;
    s.source = "NVIDIA H200 product page (4.8 TB/s; compute = H100 SXM5 per the Hopper whitepaper); L2 as reported by the device";
    t.push_back(s);
  }
  // H200 NVL 141 GB. H200 product page, NVL column (sparse tensor rates halved).
  {
    GpuSpec s = hopper("NVIDIA H200 NVL 141GB", "h200-nvl");
    s.sm_count = 132;
    s.peak_dram_bytes_per_s = 4.8 * T;
    s.memory_bytes = 141 * GB;
    s.l2_bytes = 60 * MiB;
    s.fp64 = 30 * T; s.fp32 = 60 * T;
    s.fp64_tensor = 60 * T; s.tf32_tensor = 417.5 * T; s.fp16_tensor = 835.5 * T;
    s.bf16_tensor = 835.5 * T; s.fp8_tensor = 1670.5 * T; s.int8_tensor = 1670.5 * T;
    s.source = "NVIDIA H200 product page, H200 NVL column (sparse tensor rates halved)";
    t.push_back(s);
  }
}

// Ampere: A100.
void add_ampere(std::vector<GpuSpec>& t) {
  // A100: NVIDIA A100 datasheet (nvidia.com/en-us/data-center/a100) and the Ampere (GA100)
  // whitepaper: 108 SMs at 1410 MHz, 40 MB L2; FP16 non-tensor 78, BF16 non-tensor 39 TFLOP/s.
  auto a100 = [](std::string_view name, std::string_view key, double dram, std::uint64_t mem) {
    GpuSpec s;
    s.name = name;
    s.key = key;
    s.arch = "sm_80";
    s.chip = "GA100";
    s.sm_count = 108;
    s.boost_clock_hz = 1410e6;
    s.peak_dram_bytes_per_s = dram;
    s.memory_bytes = mem;
    s.l2_bytes = 40 * MiB;
    s.shared_bytes_per_sm = kSmem80;
    s.shared_bytes_per_block = kSmem80Block;
    s.fp64 = 9.7 * T; s.fp32 = 19.5 * T; s.fp16 = 78 * T; s.bf16 = 39 * T;
    s.fp64_tensor = 19.5 * T; s.tf32_tensor = 156 * T; s.fp16_tensor = 312 * T;
    s.bf16_tensor = 312 * T; s.int8_tensor = 624 * T;
    s.source = "NVIDIA A100 datasheet and Ampere GA100 whitepaper (dense rates)";
    return s;
  };
  t.push_back(a100("NVIDIA A100 SXM4 80GB", "a100-sxm-80gb", 2039 * G, 80 * GB));
  t.push_back(a100("NVIDIA A100 PCIe 80GB", "a100-pcie-80gb", 1935 * G, 80 * GB));
  t.push_back(a100("NVIDIA A100 40GB (SXM4 or PCIe)", "a100-40gb", 1555 * G, 40 * GB));
}

// Ada Lovelace: L40S and RTX 4090.
void add_ada(std::vector<GpuSpec>& t) {
  // L40S: NVIDIA L40S datasheet (nvidia.com/en-us/data-center/l40s; sparse rates halved):
  // 864 GB/s GDDR6, FP32 91.6, TF32 183, FP16/BF16 362.05, FP8 733 TFLOP/s; 142 SMs. Ada runs
  // FP16 non-tensor at the FP32 rate and FP64 at 1/64 of it (Ada whitepaper). L2 96 MB from
  // third-party databases (NVIDIA does not print it): the device's own value wins at run time.
  {
    GpuSpec s;
    s.name = "NVIDIA L40S";
    s.key = "l40s";
    s.arch = "sm_89";
    s.chip = "AD102";
    s.sm_count = 142;
    s.boost_clock_hz = 2520e6;
    s.peak_dram_bytes_per_s = 864 * G;
    s.memory_bytes = 48 * GB;
    s.l2_bytes = 96 * MiB;
    s.shared_bytes_per_sm = kSmem89;
    s.shared_bytes_per_block = kSmem89Block;
    s.max_warps_per_sm = 48;
    s.max_blocks_per_sm = 24;
    s.fp64 = 91.6 * T / 64; s.fp32 = 91.6 * T; s.fp16 = 91.6 * T; s.bf16 = 91.6 * T;
    s.tf32_tensor = 183 * T; s.fp16_tensor = 362.05 * T; s.bf16_tensor = 362.05 * T;
    s.fp8_tensor = 733 * T; s.int8_tensor = 733 * T;
    s.source = "NVIDIA L40S datasheet (dense = sparse/2); Ada Lovelace whitepaper for FP64/FP16 ratios";
    t.push_back(s);
  }
  // RTX 4090: NVIDIA Ada Lovelace architecture whitepaper, appendix table: 128 SMs, 2520 MHz
  // boost, 1008 GB/s GDDR6X, 72 MB L2, FP32 82.6, FP16/BF16 tensor 165.2 with FP32 accumulate
  // (330.3 with FP16 accumulate; PyTorch accumulates in FP32), FP8 330.3, INT8 660.6, TF32 82.6.
  {
    GpuSpec s;
    s.name = "NVIDIA GeForce RTX 4090";
    s.key = "rtx-4090";
    s.arch = "sm_89";
    s.chip = "AD102";
    s.sm_count = 128;
    s.boost_clock_hz = 2520e6;
    s.peak_dram_bytes_per_s = 1008 * G;
    s.memory_bytes = 24 * GB;
    s.l2_bytes = 72 * MiB;
    s.shared_bytes_per_sm = kSmem89;
    s.shared_bytes_per_block = kSmem89Block;
    s.max_warps_per_sm = 48;
    s.max_blocks_per_sm = 24;
    s.fp64 = 82.6 * T / 64; s.fp32 = 82.6 * T; s.fp16 = 82.6 * T; s.bf16 = 82.6 * T;
    s.tf32_tensor = 82.6 * T; s.fp16_tensor = 165.2 * T; s.bf16_tensor = 165.2 * T;
    s.fp8_tensor = 330.3 * T; s.int8_tensor = 660.6 * T;
    s.source = "NVIDIA Ada Lovelace architecture whitepaper, appendix (dense, FP32 accumulate)";
    t.push_back(s);
  }
}

// Blackwell: B200.
void add_blackwell(std::vector<GpuSpec>& t) {
  // B200 (HGX B200, 1000 W): NVIDIA HGX B200 datasheet (nvidia.com/en-us/data-center/hgx),
  // 8-GPU totals divided by 8, sparse tensor rates halved: FP64 and FP64 tensor 37, FP32 75,
  // TF32 1125, FP16/BF16 2250, FP8 and INT8 4500 TFLOP/s; 180 GB HBM3e at 8 TB/s. 148 SMs
  // (2 dies x 74, as the device reports). NVIDIA does not publish the L2 size and third-party
  // figures disagree: 0 here, the device's value is used at run time.
  {
    GpuSpec s;
    s.name = "NVIDIA B200";
    s.key = "b200";
    s.arch = "sm_100";
    s.chip = "GB100";
    s.sm_count = 148;
    s.peak_dram_bytes_per_s = 8 * T;
    s.memory_bytes = 180 * GB;
    s.shared_bytes_per_sm = kSmem90;
    s.shared_bytes_per_block = kSmem90Block;
    s.fp64 = 37 * T; s.fp32 = 75 * T;
    s.fp64_tensor = 37 * T; s.tf32_tensor = 1125 * T; s.fp16_tensor = 2250 * T;
    s.bf16_tensor = 2250 * T; s.fp8_tensor = 4500 * T; s.int8_tensor = 4500 * T;
    s.source = "NVIDIA HGX B200 datasheet (per GPU = total/8, dense = sparse/2)";
    t.push_back(s);
  }
}

std::vector<GpuSpec> make_table() {
  std::vector<GpuSpec> t;
  add_hopper(t);
  add_ampere(t);
  add_ada(t);
  add_blackwell(t);
  return t;
}

const std::vector<GpuSpec>& table() {
  static const std::vector<GpuSpec> t = make_table();
  return t;
}

// Splits a name into lower-case alphanumeric tokens, also at letter/digit boundaries, so
// "A100-SXM4-80GB", "a100 sxm4 80gb" and "rtx4090" tokenize alike.
std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!std::isalnum(u)) {
      flush();
      continue;
    }
    if (!cur.empty() && (std::isdigit(u) != 0) != (std::isdigit(static_cast<unsigned char>(cur.back())) != 0)) flush();
    cur.push_back(static_cast<char>(std::tolower(u)));
  }
  flush();
  return out;
}

// How a name selects a row: all `need` tokens present and no `avoid` token present; the row
// with the most `need` tokens wins.
struct MatchRule {
  std::string_view key;
  std::vector<std::string_view> need;
  std::vector<std::string_view> avoid;
};

const std::vector<MatchRule>& rules() {
  static const std::vector<MatchRule> r = {
      {"h100-sxm", {"h", "100"}, {"pcie", "nvl"}},
      {"h100-pcie", {"h", "100", "pcie"}, {}},
      {"h100-nvl", {"h", "100", "nvl"}, {}},
      {"h200", {"h", "200"}, {"nvl"}},
      {"h200-nvl", {"h", "200", "nvl"}, {}},
      {"a100-sxm-80gb", {"a", "100"}, {"pcie", "40"}},
      {"a100-pcie-80gb", {"a", "100", "pcie"}, {"40"}},
      {"a100-40gb", {"a", "100", "40"}, {}},
      {"l40s", {"l", "40", "s"}, {}},
      {"rtx-4090", {"4090"}, {"d"}},
      {"b200", {"b", "200"}, {}},
  };
  return r;
}

}  // namespace

std::optional<GpuSpec> find_gpu_spec(std::string_view device_name) {
  std::vector<std::string> have = tokens(device_name);
  auto has = [&](std::string_view tok) { return std::find(have.begin(), have.end(), tok) != have.end(); };
  const MatchRule* best = nullptr;
  for (const MatchRule& rule : rules()) {
    bool ok = std::all_of(rule.need.begin(), rule.need.end(), has) &&
              std::none_of(rule.avoid.begin(), rule.avoid.end(), has);
    if (ok && (!best || rule.need.size() > best->need.size())) best = &rule;
  }
  if (!best) return std::nullopt;
  for (const GpuSpec& s : table())
    if (s.key == best->key) return s;
  return std::nullopt;
}

std::span<const GpuSpec> all_gpu_specs() { return table(); }

std::optional<double> peak_dram_bytes_per_s(const DeviceFacts& facts) {
  if (auto spec = find_gpu_spec(facts.name)) return spec->peak_dram_bytes_per_s;
  return facts.theoretical_dram_bytes_per_s();
}

}  // namespace hone::profile
