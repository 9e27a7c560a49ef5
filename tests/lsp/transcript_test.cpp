// tests/lsp/transcript_test.cpp: pipes JSON conversations (tests/lsp/transcripts/*.jsonl) through
// the real hone-server binary and checks its replies. A transcript's lines: `> JSON` is sent
// framed; `raw> TEXT` is sent as is (\r \n unescaped); `pad> ID BYTES` sends a request of about
// BYTES bytes; `< JSON` must match the next server message that has these fields (in order; a
// partial match: objects by their listed keys, arrays element by element); `exit N` is the exit
// code; `#` comments. ${DIR} is a fresh temporary folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lsp/framing.h"
#include "support/subprocess.h"

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

class Transcript : public ::testing::TestWithParam<std::string> {};

TEST_P(Transcript, RepliesMatch) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("hone-transcript-" + std::to_string(::getpid()) + "-" + GetParam());
  std::filesystem::create_directories(dir);
  std::ifstream file(std::string(HONE_TRANSCRIPTS) + "/" + GetParam() + ".jsonl");
  ASSERT_TRUE(file) << GetParam();
  std::string input;
  std::vector<std::pair<int, json>> expected;  // (line number, message)
  int exit_code = -1;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    line = replace_all(line, "${DIR}", dir.string());
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("> ", 0) == 0) {
      input += frame_message(line.substr(2));
    } else if (line.rfind("raw> ", 0) == 0) {
      input += replace_all(replace_all(line.substr(5), "\\r", "\r"), "\\n", "\n");
    } else if (line.rfind("pad> ", 0) == 0) {
      std::istringstream args(line.substr(5));
      int id = 0;
      std::size_t bytes = 0;
      args >> id >> bytes;
      std::string body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"hone/result","params":{"pad":")";
      body += std::string(bytes, 'x') + "\"}}";
      input += frame_message(body);
    } else if (line.rfind("< ", 0) == 0) {
      expected.emplace_back(number, json::parse(line.substr(2)));
    } else if (line.rfind("exit ", 0) == 0) {
      exit_code = std::stoi(line.substr(5));
    } else {
      FAIL() << GetParam() << ":" << number << ": unknown line: " << line;
    }
  }
  ProcessSpec spec;
  spec.argv = {HONE_SERVER_BINARY, "--debounce-ms", "0"};
  spec.stdin_data = input;
  spec.timeout = std::chrono::seconds(240);
  spec.max_output_bytes = 64u << 20;
  ProcessResult result = run_process(spec);
  ASSERT_TRUE(result.started) << result.start_error;
  ASSERT_FALSE(result.timed_out) << result.err;
  if (exit_code >= 0) EXPECT_EQ(result.exit_code, exit_code) << result.describe() << "\n" << result.err;

  MessageReader reader(64u << 20);
  reader.feed(result.out);
  std::vector<json> received;
  while (auto frame = reader.next()) {
    ASSERT_EQ(frame->kind, Frame::Kind::message) << frame->error;
    received.push_back(json::parse(frame->body));
  }
  std::size_t next = 0;
  for (const auto& [number, want] : expected) {
    std::size_t at = next;
    while (at < received.size() && !matches(want, received[at])) ++at;
    if (at == received.size()) {
      std::string got;
      for (std::size_t i = next; i < received.size(); ++i) got += received[i].dump().substr(0, 600) + "\n";
      FAIL() << GetParam() << ":" << number << ": no reply matches " << want.dump() << "\nafter the last match came:\n" << got
             << "\nstderr:\n" << result.err;
    }
    next = at + 1;
  }
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Lsp, Transcript, ::testing::Values("lifecycle", "bad_input", "diagnostics"));

}  // namespace
}  // namespace hone::lsp
