// tests/lsp/transcript_test.cpp: pipes JSON conversations (tests/lsp/transcripts/*.jsonl) through
// the real hone-server binary and checks its replies. A transcript's lines: `> JSON` is sent
// framed; `raw> TEXT` is sent as is (\r \n unescaped); `pad> ID BYTES` sends a request of about
// BYTES bytes; `wait ID` holds further input until the answer to request ID has arrived (so
// jobs finish before shutdown cancels them); `< JSON` must match the next server message that
// has these fields (in order; a partial match: objects by their listed keys, arrays element by
// element); `exit N` is the exit code; `#` comments. ${DIR} is a fresh temporary folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include <sys/wait.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "lsp/framing.h"

namespace hone::lsp {
namespace {

using nlohmann::json;

bool matches(const json& expected, const json& actual) {
  if (expected.is_object()) {
    if (!actual.is_object()) return false;
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key) || !matches(value, actual[key])) return false;
    }
    return true;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) return false;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (!matches(expected[i], actual[i])) return false;
    }
    return true;
  }
  return expected == actual;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

struct Conversation {
  std::vector<std::pair<std::string, json>> segments;  // bytes to send, then the id to wait for (or null)
};

struct Outcome {
  std::vector<json> received;
  int exit_code = -1;
  bool timed_out = false;
};

// Runs hone-server with pipes: a writer thread sends each segment and waits for its awaited
// answer before the next; the reader collects the server's messages.
Outcome converse(const Conversation& conversation) {
  int in[2], out[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::close(in[1]);
    ::close(out[0]);
    ::execl(HONE_SERVER_BINARY, HONE_SERVER_BINARY, "--debounce-ms", "0", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  Outcome outcome;
  std::mutex mutex;
  std::condition_variable arrived;
  bool closed = false;
  std::thread reader([&] {
    MessageReader frames(1u << 30);
    char buffer[65536];
    ssize_t n;
    while ((n = ::read(out[0], buffer, sizeof buffer)) > 0) {
      frames.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
      while (auto frame = frames.next()) {
        std::lock_guard lock(mutex);
        outcome.received.push_back(json::parse(frame->body, nullptr, false));
        arrived.notify_all();
      }
    }
    std::lock_guard lock(mutex);
    closed = true;
    arrived.notify_all();
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
  for (const auto& [bytes, wait_for] : conversation.segments) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(in[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (wait_for.is_null()) continue;
    std::unique_lock lock(mutex);
    arrived.wait_until(lock, deadline, [&] {
      if (closed) return true;
      for (const json& m : outcome.received) {
        if (m.is_object() && m.contains("id") && m["id"] == wait_for && !m.contains("method")) return true;
      }
      return false;
    });
  }
  ::close(in[1]);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      outcome.timed_out = true;
    }
    std::unique_lock lock(mutex);
    arrived.wait_for(lock, std::chrono::milliseconds(20));
  }
  reader.join();
  ::close(out[0]);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

class Transcript : public ::testing::TestWithParam<std::string> {};

TEST_P(Transcript, RepliesMatch) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("hone-transcript-" + std::to_string(::getpid()) + "-" + GetParam());
  std::filesystem::create_directories(dir);
  std::ifstream file(std::string(HONE_TRANSCRIPTS) + "/" + GetParam() + ".jsonl");
  ASSERT_TRUE(file) << GetParam();
  Conversation conversation;
  conversation.segments.emplace_back();
  std::string* input = &conversation.segments.back().first;
  std::vector<std::pair<int, json>> expected;  // (line number, message)
  int exit_code = -1;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    line = replace_all(line, "${DIR}", dir.string());
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("> ", 0) == 0) {
      *input += frame_message(line.substr(2));
    } else if (line.rfind("raw> ", 0) == 0) {
      *input += replace_all(replace_all(line.substr(5), "\\r", "\r"), "\\n", "\n");
    } else if (line.rfind("pad> ", 0) == 0) {
      std::istringstream args(line.substr(5));
      int id = 0;
      std::size_t bytes = 0;
      args >> id >> bytes;
      std::string body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"hone/result","params":{"pad":")";
      body += std::string(bytes, 'x') + "\"}}";
      *input += frame_message(body);
    } else if (line.rfind("wait ", 0) == 0) {
      conversation.segments.back().second = json::parse(line.substr(5));
      conversation.segments.emplace_back();
      input = &conversation.segments.back().first;
    } else if (line.rfind("< ", 0) == 0) {
      expected.emplace_back(number, json::parse(line.substr(2)));
    } else if (line.rfind("exit ", 0) == 0) {
      exit_code = std::stoi(line.substr(5));
    } else {
      FAIL() << GetParam() << ":" << number << ": unknown line: " << line;
    }
  }
  Outcome outcome = converse(conversation);
  ASSERT_FALSE(outcome.timed_out) << GetParam() << ": hone-server did not finish";
  if (exit_code >= 0) {
    EXPECT_EQ(outcome.exit_code, exit_code);
  }
  const std::vector<json>& received = outcome.received;
  std::size_t next = 0;
  for (const auto& [number, want] : expected) {
    std::size_t at = next;
    while (at < received.size() && !matches(want, received[at])) ++at;
    if (at == received.size()) {
      std::string got;
      for (std::size_t i = next; i < received.size(); ++i) got += received[i].dump().substr(0, 600) + "\n";
      FAIL() << GetParam() << ":" << number << ": no reply matches " << want.dump() << "\nafter the last match came:\n" << got;
    }
    next = at + 1;
  }
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Lsp, Transcript, ::testing::Values("lifecycle", "bad_input", "diagnostics", "exit_without_shutdown"));

}  // namespace
}  // namespace hone::lsp
