// runner/main.cpp: hone-runner, the native candidate process of protocol/WORKER.md's candidate
// protocol: takes its socket from fd 0/1, makes the device context, says ready, and answers the
// judge's requests until exit or end of input. Raw-form kernels only; no Python.
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

#include "runner/backend.h"
#include "runner/channel.h"
#include "runner/runner.h"
#include "runner/wire.h"

namespace {

// What the judge learns when a reply cannot be sent as it is (e.g. too large for the socket).
std::string undeliverable(const nlohmann::json& reply, const std::system_error& e) {
  return hone::runner::dump({{"id", reply.value("id", nlohmann::json())},
                             {"ok", false},
                             {"error", {{"kind", "internal"}, {"message", std::string("the reply could not be sent: ") + e.what()}}}});
}

[[noreturn]] void finish(int status) {
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(status);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hone::runner;
  std::optional<Channel> channel;
  std::string transport_error;
  try {
    channel.emplace(Channel::adopt_stdio());
  } catch (const std::exception& e) {
    transport_error = e.what();
  }
  CLI::App app{"hone-runner: runs one raw-form candidate for the judge (protocol/WORKER.md, the candidate protocol)"};
  std::string device = "cpu";
  app.add_option("--device", device, "cpu or cuda:N")->required();
  CLI11_PARSE(app, argc, argv);
  if (!channel) {
    log_line(transport_error);
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a candidate's prints reach the stderr pipe promptly
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(device);
  } catch (const std::exception& e) {
    log_line(e.what());
    finish(2);
  }
  Runner runner(*backend, [&](const nlohmann::json& event) { channel->send(dump(event)); });
  try {
    channel->send(dump(runner.ready()));
    while (std::optional<Datagram> datagram = channel->receive()) {
      const nlohmann::json reply = runner.handle(*datagram);
      try {
        channel->send(dump(reply));
      } catch (const std::system_error& e) {
        if (e.code() != std::errc::message_size) throw;
        channel->send(undeliverable(reply, e));
      }
      if (runner.exiting()) break;
    }
  } catch (const std::exception& e) {
    log_line(std::string("the protocol socket failed: ") + e.what());
    finish(1);
  }
  finish(0);
}
