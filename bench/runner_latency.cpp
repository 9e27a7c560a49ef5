// bench/runner_latency.cpp: how fast hone-runner answers: start to ready (fresh processes), the
// round trip of a warm `call` of a tiny kernel, and of a `time` op of 100 calls, on the CPU or a
// CUDA device (there also how many calls fit behind a held stream). Prints one JSON object. Usage: runner_latency [--device cpu|cuda:0] [--starts N]
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

// How many calls fit behind hone_hold before enqueueing blocks (then the hold times out): mode
// device with growing call counts, each released right after its "enqueued" event (then comes
// "finished", then the reply).
json held_depth(RunnerProcess& runner, const json& call) {
  MemfdArena words(4096);
  json arena = {{"arena", 2}, {"kind", "host"}, {"bytes", words.bytes()}, {"register", true}};
  check(runner.request("map", {{"arenas", json::array({arena})}}, {words.fd()}), "map (release word)");
  json out = json::array();
  for (int calls : {100, 250, 500, 1000, 2000, 4000}) {
    json schedule = json::array();
    for (int i = 0; i < calls; ++i) schedule.push_back({{"set", 0}, {"slot", 0}});
    json request = {{"id", runner.next_id()}, {"op", "time"}, {"mode", "device"}, {"args", call["args"]},
                    {"outputs", json::array({call["outputs"]})}, {"schedule", schedule}, {"flush_bytes", 1 << 20},
                    {"release", buf(2, 0, {1}, std::nullopt, "int32")}, {"spin_timeout_ms", 3000}};
    runner.send(request);
    std::optional<json> reply = runner.receive(std::chrono::seconds(30));
    while (reply && reply->contains("event")) {  // "enqueued": release the hold; "finished": the calls ran
      if ((*reply)["event"] == "enqueued") __atomic_store_n(words.at<std::uint32_t>(), 1u, __ATOMIC_SEQ_CST);
      reply = runner.receive(std::chrono::seconds(30));
    }
    if (!reply) throw std::runtime_error("hone-runner ended during the held-depth probe");
    check(*reply, "time (mode device)");
    out.push_back({{"calls", calls}, {"enqueue_ms", (*reply)["enqueue_s"].get<double>() * 1e3},
                   {"spin_timed_out", (*reply)["spin_timed_out"]}});
  }
  return out;
}

}  // namespace

int measure(const std::string& device, int starts, int calls);

int main(int argc, char** argv) {
  CLI::App app{"hone-runner latency"};
  std::string device = "cpu";
  int starts = 20, calls = 1000;
  app.add_option("--device", device);
  app.add_option("--starts", starts);
  app.add_option("--calls", calls);
  CLI11_PARSE(app, argc, argv);
  try {
    return measure(device, starts, calls);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "runner_latency: %s\n", e.what());
    return 1;
  }
}

int measure(const std::string& device, int starts, int calls) {
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
  json result = {{"device", device},
                 {"start_to_ready_ms", summary(ready_ms)},
                 {"call_round_trip_us", summary(call_us)},
                 {"time_100_calls_round_trip_ms", summary(time_ms)}};
  if (cuda) result["held_depth"] = held_depth(*runner, call);
  check(runner->request("exit"), "exit");
  runner->wait();
  std::printf("%s\n", result.dump().c_str());
  return 0;
}
