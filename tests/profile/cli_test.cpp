// tests/profile/cli_test.cpp: `hone specs` without a GPU (text, JSON, a named GPU, an unknown
// one, saying there is none, --measure refused with what to do instead) and `hone profile`
// refusing what it cannot profile, through the real binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/subprocess.h"

namespace hone {
namespace {

ProcessResult hone_cli(std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {HONE_CLI_BINARY};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = std::chrono::seconds(120);
  return run_process(spec);
}

TEST(SpecsCommand, NamedGpuAsJson) {
  ProcessResult r = hone_cli({"specs", "--gpu", "NVIDIA H100 PCIe", "--json"});
  ASSERT_TRUE(r.ok()) << r.describe() << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["key"], "h100-pcie");
  EXPECT_DOUBLE_EQ(j["peak_dram_bytes_per_s"].get<double>(), 2.0e12);
  EXPECT_EQ(j["sm_count"], 114);
  EXPECT_FALSE(j["source"].get<std::string>().empty());
}

TEST(SpecsCommand, WholeTableAsText) {
  ProcessResult r = hone_cli({"specs", "--all"});
  ASSERT_TRUE(r.ok()) << r.describe() << r.err;
  for (const char* name : {"NVIDIA H100 SXM5 80GB", "NVIDIA H100 PCIe 80GB", "NVIDIA H200 SXM 141GB", "NVIDIA A100 SXM4 80GB",
                           "NVIDIA L40S", "NVIDIA GeForce RTX 4090", "NVIDIA B200"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  EXPECT_NE(r.out.find("DRAM 4.80 TB/s"), std::string::npos);
  EXPECT_NE(r.out.find("source: "), std::string::npos);
}

TEST(SpecsCommand, UnknownGpuIsAUsageError) {
  ProcessResult r = hone_cli({"specs", "--gpu", "voodoo5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no GPU matches 'voodoo5'; known: h100-sxm"), std::string::npos) << r.err;
}

TEST(SpecsCommand, WithoutAGpuSaysSoAndMeasureSaysWhatGpuDoesInstead) {
  if (std::filesystem::exists("/dev/nvidiactl")) GTEST_SKIP() << "this machine has a GPU";
  ProcessResult r = hone_cli({"specs"});
  ASSERT_TRUE(r.ok()) << r.describe() << r.err;
  EXPECT_NE(r.err.find("no GPU found on this machine"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("<- this machine's GPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NVIDIA H200 SXM 141GB"), std::string::npos) << r.out;
  ProcessResult named = hone_cli({"specs", "--gpu", "h200"});
  ASSERT_TRUE(named.ok()) << named.err;
  EXPECT_EQ(named.err.find("no GPU found"), std::string::npos) << named.err;  // a named GPU needs no excuse
  ProcessResult measure = hone_cli({"specs", "--measure"});
  EXPECT_EQ(measure.exit_code, 2) << measure.out << measure.err;
  EXPECT_NE(measure.err.find("no GPU here to measure"), std::string::npos) << measure.err;
  EXPECT_NE(measure.err.find("`hone specs --gpu NAME` shows"), std::string::npos) << measure.err;
  EXPECT_EQ(measure.err.find("sees no GPU 0"), std::string::npos) << measure.err;
}

TEST(ProfileCommand, RefusesAMissingKernelAndABadMetricSet) {
  ProcessResult missing = hone_cli({"profile", "/nonexistent/kernel.cu"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("hone: error"), std::string::npos) << missing.err;
  ProcessResult bad = hone_cli({"profile", "x.cu", "--metrics", "most"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--metrics"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace hone
