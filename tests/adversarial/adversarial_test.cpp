// tests/adversarial/adversarial_test.cpp: drives every case of tests/adversarial/cases.json (the
// cheating kernels, the honest examples and the flagged-but-passing cases) through the real
// Engine::check: real builds, the real worker and torch. Each case must get its status, a reason
// containing its substring, and its flags. One engine for the whole suite, so its workers start
// once; CUDA cases skip visibly where the worker sees no GPU.
#include <fstream>
#include <memory>

#include <gtest/gtest.h>

#include "protocol/verdict_text.h"
#include "engine/engine.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kManifest = HONE_ADVERSARIAL_MANIFEST;

struct Case {
  std::string name;
  fs::path kernel;
  fs::path task;
  std::string device;
  std::string status;
  std::string reason;
  std::vector<std::string> flags;
  std::string cheat;
};

// gtest prints a failing case by this, not as raw bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> load_cases() {
  std::ifstream in(kManifest);
  if (!in) throw std::runtime_error("cannot read " + kManifest.string());
  json manifest = json::parse(in);
  std::vector<Case> cases;
  const fs::path base = kManifest.parent_path();
  for (const auto& c : manifest.at("cases")) {
    Case k;
    k.name = c.at("name").get<std::string>();
    k.kernel = (base / c.at("file").get<std::string>()).lexically_normal();
    k.task = (base / c.at("task").get<std::string>()).lexically_normal();
    k.device = c.at("device").get<std::string>();
    k.status = c.at("status").get<std::string>();
    k.reason = c.value("reason", std::string());
    k.flags = c.value("flags", std::vector<std::string>{});
    k.cheat = c.value("cheat", std::string());
    cases.push_back(std::move(k));
  }
  return cases;
}

Engine& shared_engine() {
  static Engine engine([] {
    EngineOptions o;
    o.check_timeout = std::chrono::seconds(120);
    return o;
  }());
  return engine;
}

bool gpu_visible() {
  static const bool visible = !shared_engine().environment(DeviceKind::Cuda).devices.empty();
  return visible;
}

class Adversarial : public testing::TestWithParam<Case> {};

TEST_P(Adversarial, GetsItsVerdict) {
  const Case& c = GetParam();
  if (c.device == "cuda" && !gpu_visible()) GTEST_SKIP() << c.name << ": CUDA case, no GPU visible to the eval worker here";
  CheckRequest request;
  request.kernel.path = c.kernel;
  request.task = c.task;
  request.device = c.device == "cuda" ? DeviceKind::Cuda : DeviceKind::Cpu;
  request.compile_baseline = false;  // eager speedups suffice to judge a cheat; torch.compile is slow
  protocol::Verdict v = shared_engine().check(request);
  const std::string shown = verdict_headline(v) + "\n" + verdict_details(v) + "(cheat: " + c.cheat + ")";
  EXPECT_EQ(protocol::to_string(v.status), c.status) << shown;
  if (!c.reason.empty()) {
    ASSERT_TRUE(v.reason) << shown;
    EXPECT_NE(v.reason->find(c.reason), std::string::npos) << "reason lacks '" << c.reason << "'\n" << shown;
  }
  for (const auto& f : c.flags) EXPECT_TRUE(v.has_flag(f)) << "missing flag " << f << "\n" << shown;
  if (c.status == "correct" && c.flags.empty()) {
    // An honest kernel passes clean: none of the flags that mark a pass as suspect.
    for (const char* suspect : {"library_ops", "constant_output", "weak_task", "speedup_over_10x"})
      EXPECT_FALSE(v.has_flag(suspect)) << "honest kernel flagged " << suspect << "\n" << shown;
  }
}

std::string case_name(const testing::TestParamInfo<Case>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Manifest, Adversarial, testing::ValuesIn(load_cases()), case_name);

TEST(AdversarialManifest, HasTheRequiredCheats) {
  auto cases = load_cases();
  int cheats = 0, flagged_passes = 0, honest = 0;
  for (const auto& c : cases) {
    if (c.status != "correct") ++cheats;
    else if (!c.flags.empty()) ++flagged_passes;
    else ++honest;
  }
  EXPECT_GE(cheats, 12);
  EXPECT_GE(flagged_passes, 2);
  EXPECT_GE(honest, 1);
}

}  // namespace
}  // namespace hone
