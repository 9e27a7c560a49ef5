// tests/optimize/fake_llm_server.h: starts tests/optimize/fake_llm_server.py (a real HTTP server
// speaking the OpenAI chat completions protocol with SSE) for one test, scripts its replies and
// reads back the requests it received. Used by the optimize tests on the test's thread.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace hone::testing {

class FakeLlmServer {
 public:
  explicit FakeLlmServer(const std::filesystem::path& dir) : dir_(dir) {
    std::filesystem::create_directories(dir_);
    script_ = dir_ / "script.json";
    log_ = dir_ / "requests.jsonl";
    set_script(nlohmann::json{{"rules", nlohmann::json::array()}});
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::close(fds[1]);
      std::string script = HONE_FAKE_LLM_SERVER;
      ::execl("/usr/bin/python3", "python3", script.c_str(), script_.c_str(), log_.c_str(), nullptr);
      ::_exit(127);
    }
    ::close(fds[1]);
    std::FILE* out = ::fdopen(fds[0], "r");
    char line[128] = {0};
    if (!std::fgets(line, sizeof line, out) || std::sscanf(line, "PORT %d", &port_) != 1) {
      std::fclose(out);
      stop();
      throw std::runtime_error("the fake LLM server did not start");
    }
    std::fclose(out);
  }
  ~FakeLlmServer() { stop(); }
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  int port() const { return port_; }

  void set_script(const nlohmann::json& script) {
    auto tmp = script_;
    tmp += ".tmp";
    std::ofstream(tmp) << script.dump();
    std::filesystem::rename(tmp, script_);
  }
  // One rule answering every request (or those whose last user message contains `match`).
  void always(const nlohmann::json& response) {
    set_script({{"rules", {{{"match", nullptr}, {"response", response}}}}});
  }

  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(log_);
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    return out;
  }

 private:
  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }
  std::filesystem::path dir_, script_, log_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace hone::testing
