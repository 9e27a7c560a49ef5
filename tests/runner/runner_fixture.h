// tests/runner/runner_fixture.h: the fixture of hone-runner's tests: a started runner on a device
// whose ready event has been read, the test kernels' paths, and float arenas the test fills.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "runner_client.h"

namespace hone::runner_test {

inline std::string kernel_path(const std::string& name) { return std::string(HONE_RUNNER_TEST_KERNELS) + "/" + name + ".so"; }

class RunnerTest : public ::testing::Test {
 protected:
  // Starts hone-runner on `device` and reads its ready event.
  void start(const std::string& device = "cpu", const std::vector<std::pair<std::string, std::string>>& env = {}) {
    runner_ = std::make_unique<RunnerProcess>(std::vector<std::string>{HONE_RUNNER_EXE, "--device", device}, env);
    std::optional<json> ready = runner_->receive(60s);
    ASSERT_TRUE(ready.has_value()) << "hone-runner ended before ready; stderr:\n" << runner_->stderr_text();
    ready_ = *ready;
  }

  // map of one host arena (id) backed by a memfd the test keeps mapped.
  json map_host(int id, const MemfdArena& arena, bool register_it = false) {
    json spec = {{"arena", id}, {"kind", "host"}, {"bytes", arena.bytes()}, {"register", register_it}};
    return runner_->request("map", {{"arenas", json::array({spec})}}, {arena.fd()});
  }

  json load(const std::string& kernel) { return runner_->request("load", {{"form", "raw"}, {"library", kernel_path(kernel)}}); }

  static void fill(float* p, std::size_t n, float base) {
    for (std::size_t i = 0; i < n; ++i) p[i] = base + static_cast<float>(i);
  }
  static void poison(float* p, std::size_t n) { std::memset(p, 0xFF, n * sizeof(float)); }

  RunnerProcess& runner() { return *runner_; }

  std::unique_ptr<RunnerProcess> runner_;
  json ready_;
};

// An error reply's kind, or "ok" for a success (for readable assertions).
inline std::string kind_of(const json& reply) {
  if (reply.value("ok", false)) return "ok";
  return reply.contains("error") ? reply["error"].value("kind", "?") : "?";
}

}  // namespace hone::runner_test
