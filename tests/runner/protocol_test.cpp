// tests/runner/protocol_test.cpp: hone-runner's transport and dispatch on the CPU: the ready
// event, malformed and unknown requests answered as bad_request without ending the protocol, map
// errors, exit and end of input.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "runner_fixture.h"

namespace hone::runner_test {
namespace {

TEST_F(RunnerTest, ReadyEventSaysWhoItIs) {
  const auto started = std::chrono::steady_clock::now();
  start();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  std::printf("hone-runner --device cpu: start to ready %.2f ms\n", ms);
  EXPECT_EQ(ready_["event"], "ready");
  EXPECT_EQ(ready_["protocol"], 1);
  EXPECT_EQ(ready_["runner"], "native");
  EXPECT_EQ(ready_["device"], "cpu");
  EXPECT_EQ(ready_["pid"], runner().pid());
  EXPECT_EQ(ready_["forms"], json::array({"raw", "null"}));
  EXPECT_TRUE(ready_["torch"].is_null());
  EXPECT_EQ(ready_["cupti"], false);
  EXPECT_LT(ms, 2000.0);
}

TEST_F(RunnerTest, MalformedJsonIsABadRequestAndTheProtocolGoesOn) {
  start();
  runner().send_text("{\"id\": 1, \"op\": ");
  auto reply = runner().receive();
  ASSERT_TRUE(reply);
  EXPECT_EQ(kind_of(*reply), "bad_request");
  EXPECT_TRUE((*reply)["id"].is_null());
  runner().send_text("[1, 2, 3]");
  reply = runner().receive();
  ASSERT_TRUE(reply);
  EXPECT_EQ(kind_of(*reply), "bad_request");
  runner().send_text(std::string("{\"id\": 5, \"op\": \"exit\", \"x\": \"\xff\xfe\"}"));
  reply = runner().receive();
  ASSERT_TRUE(reply);
  EXPECT_EQ(kind_of(*reply), "bad_request") << reply->dump();
  EXPECT_EQ(kind_of(runner().request("map", {{"arenas", json::array()}})), "ok");
}

TEST_F(RunnerTest, UnknownOpsAndBadFieldsAreBadRequests) {
  start();
  json r = runner().request("frobnicate");
  EXPECT_EQ(kind_of(r), "bad_request");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("frobnicate"), std::string::npos);
  EXPECT_EQ(r["id"], 1);
  EXPECT_EQ(kind_of(runner().request("call", {{"args", "nope"}, {"outputs", json::array()}})), "bad_request");
  EXPECT_EQ(kind_of(runner().request("load", {{"form", "sideways"}})), "bad_request");
  EXPECT_EQ(kind_of(runner().request("state", {{"outputs", json::array()}})), "unsupported");
  EXPECT_EQ(kind_of(runner().request("load", {{"form", "torch"}, {"library", "/x.so"}})), "unsupported");
  runner().send({{"op", "map"}, {"arenas", json::array()}});  // no id: answered with "id": null
  auto reply = runner().receive();
  ASSERT_TRUE(reply);
  EXPECT_TRUE((*reply)["id"].is_null());
  EXPECT_EQ(kind_of(*reply), "ok");
}

TEST_F(RunnerTest, MapChecksDescriptorsSizesAndBounds) {
  start();
  MemfdArena small(4096);
  // Two arenas, one fd.
  const json one = {{"arena", 1}, {"kind", "host"}, {"bytes", 4096}};
  const json other = {{"arena", 2}, {"kind", "host"}, {"bytes", 4096}};
  json two = {{"arenas", json::array({one, other})}};
  EXPECT_EQ(kind_of(runner().request("map", two, {small.fd()})), "bad_request");
  // The memfd is smaller than the arena claims.
  json big = {{"arenas", json::array({json{{"arena", 1}, {"kind", "host"}, {"bytes", 1 << 20}}})}};
  json r = runner().request("map", big, {small.fd()});
  EXPECT_EQ(kind_of(r), "bad_request");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("4096"), std::string::npos) << r.dump();
  // A cuda arena on the CPU.
  json cuda = {{"arenas", json::array({json{{"arena", 1}, {"kind", "cuda"}, {"bytes", 4096}}})}};
  EXPECT_EQ(kind_of(runner().request("map", cuda, {small.fd()})), "unsupported");
  ASSERT_EQ(kind_of(map_host(1, small)), "ok");
  EXPECT_EQ(kind_of(map_host(1, small)), "bad_request");  // already mapped
  ASSERT_EQ(kind_of(load("scale")), "ok");
  const json out_of_bounds = tensor_arg(buf(1, 4000, {64}));
  r = runner().request("call", {{"args", json::array({out_of_bounds, float_arg(1), int_arg(0)})},
                                {"outputs", json::array({buf(1, 0, {64})})}});
  EXPECT_EQ(kind_of(r), "bad_request");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("runs past the end"), std::string::npos) << r.dump();
  auto call = [&](json x, json out) {
    return runner().request("call", {{"args", json::array({tensor_arg(std::move(x)), float_arg(1), int_arg(0)})},
                                     {"outputs", json::array({std::move(out)})}});
  };
  EXPECT_EQ(kind_of(call(buf(7, 0, {4}), buf(1, 0, {4}))), "bad_request");  // no arena 7
  EXPECT_EQ(kind_of(call(buf(1, 2, {4}), buf(1, 0, {4}))), "bad_request");  // misaligned
  EXPECT_EQ(kind_of(call(buf(1, 0, {4}, std::nullopt, "complex64"), buf(1, 0, {4}))), "bad_request");
  EXPECT_EQ(kind_of(call(buf(1, 0, {4}, std::vector<std::int64_t>{1, 1}), buf(1, 0, {4}))), "bad_request");
  r = call(buf(1, 0, {4}), buf(1, 64, {4}));
  EXPECT_EQ(kind_of(r), "ok") << r.dump();
}

TEST_F(RunnerTest, ExitAnswersThenEndsWithStatusZero) {
  start();
  EXPECT_EQ(runner().request("exit"), json({{"id", 1}, {"ok", true}}));
  const int status = runner().wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_F(RunnerTest, EndOfInputEndsWithStatusZero) {
  start();
  runner().close_socket();
  const int status = runner().wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(RunnerStart, WithoutASocketItSaysWhyAndExits2) {
  // Started through sh with stdin from /dev/null: fd 0 is not the socket.
  RunnerProcess q({"/bin/sh", "-c", std::string("exec ") + HONE_RUNNER_EXE + " --device cpu </dev/null"});
  const int status = q.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(q.stderr_text().find("not an AF_UNIX SOCK_SEQPACKET socket"), std::string::npos) << q.stderr_text();
}

TEST(RunnerStart, ABadDeviceIsReportedOnStderr) {
  RunnerProcess p({HONE_RUNNER_EXE, "--device", "tpu:0"});
  EXPECT_FALSE(p.receive().has_value());
  const int status = p.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(p.stderr_text().find("expected cpu or cuda:N"), std::string::npos) << p.stderr_text();
}

}  // namespace
}  // namespace hone::runner_test
