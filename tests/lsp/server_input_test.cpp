// tests/lsp/server_input_test.cpp: hostile or sloppy input through the real HoneLspServer over
// pipes: messages nested deeply enough to overflow a recursive parser, a Content-Length over the
// limit followed by a short body, and params whose nested fields have the wrong type. The server
// answers each with the JSON-RPC error the protocol names and keeps serving.
#include <gtest/gtest.h>

#include "lsp/framing.h"
#include "lsp_client.h"

namespace hone::lsp::test {
namespace {

using nlohmann::json;

json code_lens_of_nothing(LspClient& client) {
  return client.call("textDocument/codeLens", {{"textDocument", {{"uri", "file:///nowhere.cu"}}}});
}

TEST(ServerInput, DeeplyNestedMessagesAreRefusedAndTheServerKeepsServing) {
  LspClient client(quiet_options());
  client.initialize();
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  client.send_raw(frame_message(R"({"jsonrpc":"2.0","method":"$/anything","params":{"x":)" + deep + "}}"));
  client.send_raw(frame_message(R"({"jsonrpc":"2.0","id":"deep","method":"hone/result","params":{"x":)" + deep + "}}"));
  json reply = client.response("deep");
  EXPECT_EQ(reply["error"]["code"], -32700) << reply.dump();
  EXPECT_NE(reply["error"]["message"].get<std::string>().find("deeper than 512 levels"), std::string::npos) << reply.dump();
  EXPECT_EQ(code_lens_of_nothing(client)["result"], json::array());
  auto unparsed = client.take_null_id_responses();
  ASSERT_EQ(unparsed.size(), 1u);
  EXPECT_EQ(unparsed[0]["error"]["code"], -32700);
}

TEST(ServerInput, OverLimitLengthWithAShortBodyDoesNotSwallowLaterMessages) {
  LspClient client(quiet_options(), 1u << 20);
  client.initialize();
  client.send_raw("Content-Length: 104857600\r\n\r\n" +
                  std::string(R"({"jsonrpc":"2.0","id":"liar","method":"hone/waitIdle","params":{}})"));
  EXPECT_EQ(code_lens_of_nothing(client)["result"], json::array());
  json liar = client.response("liar");
  EXPECT_EQ(liar["error"]["code"], -32600) << liar.dump();
  EXPECT_NE(liar["error"]["message"].get<std::string>().find("exceeds the limit"), std::string::npos) << liar.dump();
  EXPECT_EQ(code_lens_of_nothing(client)["result"], json::array());
}

TEST(ServerInput, WronglyTypedNestedParamsAreInvalidParams) {
  LspClient client(quiet_options());
  json init = client.call("initialize", {{"processId", nullptr}, {"capabilities", json::object()},
                                         {"workspaceFolders", json::array({{{"uri", 3}, {"name", "x"}}})}});
  EXPECT_EQ(init["error"]["code"], -32602) << init.dump();
  EXPECT_NE(init["error"]["message"].get<std::string>().find("workspaceFolders[0].uri"), std::string::npos) << init.dump();
  EXPECT_EQ(client.call("initialize", {{"capabilities", json::object()}, {"rootUri", 42}})["error"]["code"], -32602);
  client.initialize();
  json command = client.call("workspace/executeCommand",
                             {{"command", "hone.showPtx"}, {"arguments", json::array({{{"textDocument", {{"uri", 7}}}}})}});
  EXPECT_EQ(command["error"]["code"], -32602) << command.dump();
  // A handler that reads a nested field itself and meets the wrong type: InvalidParams, not "did not reply".
  const std::string uri = "file:///tmp/hone-lsp-input-test.cu";
  client.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "cuda"}, {"version", 1},
                                                          {"text", "__global__ void k(float* x) { x[0] = 1.f; }\n"}}}});
  json option = client.call("workspace/executeCommand", {{"command", "hone.showPtx"}, {"arguments", json::array({uri, {{"function", 5}}})}});
  EXPECT_EQ(option["error"]["code"], -32602) << option.dump();
  EXPECT_EQ(code_lens_of_nothing(client)["result"], json::array());
}

}  // namespace
}  // namespace hone::lsp::test
