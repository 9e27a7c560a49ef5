// bench/runner_latency.cpp: how fast hone-runner answers: start to ready (fresh processes), the
// round trip of a warm `call` of a tiny kernel, and of a `time` op of 100 calls, on the CPU or a
// CUDA device. Prints one JSON object. Usage: runner_latency [--device cpu|cuda:0] [--starts N]
// [--calls N]. Built with tests/runner (it uses the tests' judge client and kernels).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "runner_client.h"
#if defined(HONE_TEST_HAS_CUDA)
#include "gpu_support.h"
#endif

namespace {

using namespace hone::runner_test;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

json summary(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto q = [&](double p) { return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))]; };
  return {{"min", v.front()}, {"p50", q(0.5)}, {"p90", q(0.9)}, {"max", v.back()}, {"n", v.size()}};
}

std::unique_ptr<RunnerProcess> start(const std::string& device, double& ms) {
  const auto t = Clock::now();
  auto p = std::make_unique<RunnerProcess>(std::vector<std::string>{HONE_RUNNER_EXE, "--device", device});
  if (!p->receive(std::chrono::seconds(60))) throw std::runtime_error("hone-runner ended before ready:\n" + p->stderr_text());
  ms = ms_since(t);
  return p;
}

void check(const json& reply, const char* what) {
  if (!reply.value("ok", false)) throw std::runtime_error(std::string(what) + " failed: " + reply.dump());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hone-runner latency"};
  std::string device = "cpu";
  int starts = 20, calls = 1000;
  app.add_option("--device", device);
  app.add_option("--starts", starts);
  app.add_option("--calls", calls);
  CLI11_PARSE(app, argc, argv);
  const bool cuda = device != "cpu";
  std::vector<double> ready_ms;
  for (int i = 0; i < starts; ++i) {
    double ms = 0;
    auto p = start(device, ms);
    ready_ms.push_back(ms);
    check(p->request("exit"), "exit");
    p->wait();
  }
  double ms = 0;
  auto runner = start(device, ms);
  MemfdArena host(1 << 16);
  json x = tensor_arg(buf(1, 0, {16, 16})), out = buf(1, 4096, {16, 16});
#if defined(HONE_TEST_HAS_CUDA)
  std::unique_ptr<VmmBuffer> vmm;
  if (cuda) {
    vmm = std::make_unique<VmmBuffer>(1 << 20);
    json arena = {{"arena", 1}, {"kind", "cuda"}, {"bytes", vmm->bytes()}};
    check(runner->request("map", {{"arenas", json::array({arena})}}, {vmm->fd()}), "map");
  }
#endif
  if (!cuda) {
    json arena = {{"arena", 1}, {"kind", "host"}, {"bytes", host.bytes()}};
    check(runner->request("map", {{"arenas", json::array({arena})}}, {host.fd()}), "map");
  }
  const std::string kernel = std::string(HONE_RUNNER_TEST_KERNELS) + (cuda ? "/cuda_scale.so" : "/scale.so");
  check(runner->request("load", {{"form", "raw"}, {"library", kernel}}), "load");
  const json call = {{"args", json::array({x, float_arg(2), int_arg(0)})}, {"outputs", json::array({out})}};
  std::vector<double> call_us;
  for (int i = 0; i < calls; ++i) {
    const auto t = Clock::now();
    check(runner->request("call", call), "call");
    call_us.push_back(ms_since(t) * 1000.0);
  }
  json schedule = json::array();
  for (int i = 0; i < 100; ++i) schedule.push_back({{"set", 0}, {"slot", 0}});
  const json time = {{"mode", "call"}, {"args", call["args"]}, {"outputs", json::array({call["outputs"]})},
                     {"schedule", schedule}, {"flush_bytes", 0}};
  std::vector<double> time_ms;
  for (int i = 0; i < 20; ++i) {
    const auto t = Clock::now();
    check(runner->request("time", time), "time");
    time_ms.push_back(ms_since(t));
  }
  check(runner->request("exit"), "exit");
  runner->wait();
  std::printf("%s\n", json({{"device", device},
                            {"start_to_ready_ms", summary(ready_ms)},
                            {"call_round_trip_us", summary(call_us)},
                            {"time_100_calls_round_trip_ms", summary(time_ms)}})
                          .dump()
                          .c_str());
  return 0;
}
