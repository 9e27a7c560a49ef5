// tests/lsp/server_lifecycle_test.cpp: the real HoneLspServer through the in-process client:
// initialize/shutdown/exit, the JSON-RPC errors for requests outside the lifecycle, bad input
// that must not stop the server, and requests that need no engine.
#include <gtest/gtest.h>

#include "lsp/framing.h"
#include "lsp_client.h"

namespace hone::lsp::test {
namespace {

using nlohmann::json;

TEST(ServerLifecycle, RequestsBeforeInitializeAndAfterShutdown) {
  LspClient client(quiet_options());
  json early = client.call("textDocument/hover", {{"textDocument", {{"uri", "file:///k.cu"}}}, {"position", {{"line", 0}, {"character", 0}}}});
  EXPECT_EQ(early["error"]["code"], -32002);
  json init = client.initialize({{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}});
  EXPECT_EQ(init["result"]["serverInfo"]["name"], "hone-server");
  EXPECT_EQ(init["result"]["capabilities"]["positionEncoding"], "utf-8");
  EXPECT_EQ(init["result"]["capabilities"]["textDocumentSync"]["change"], 2);
  EXPECT_EQ(client.call("initialize", {{"capabilities", json::object()}})["error"]["code"], -32600);
  EXPECT_EQ(client.call("no/such/method", json::object())["error"]["code"], -32601);
  client.notify("no/such/notification", json::object());
  EXPECT_EQ(client.call("shutdown", nullptr)["result"], nullptr);
  json late = client.call("textDocument/codeLens", {{"textDocument", {{"uri", "file:///k.cu"}}}});
  EXPECT_EQ(late["error"]["code"], -32600);
  client.notify("exit", nullptr);
}

TEST(ServerLifecycle, ExitCodeIsZeroAfterShutdown) {
  LspClient client(quiet_options());
  client.initialize();
  EXPECT_EQ(client.stop(), 0);
}

TEST(ServerLifecycle, MalformedInputGetsErrorsAndTheServerKeepsServing) {
  LspClient client(quiet_options(), 1u << 20);
  client.initialize();
  client.send_raw(frame_message("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": "));
  client.send_raw("Content-Length: nope\r\n\r\n");
  std::string big = R"({"jsonrpc":"2.0","id":"big","method":"hone/result","params":{"pad":")" + std::string(3u << 20, 'x') + "\"}}";
  client.send_raw(frame_message(big));
  json reply = client.response("big");
  EXPECT_EQ(reply["error"]["code"], -32600);
  EXPECT_NE(reply["error"]["message"].get<std::string>().find("exceeds the limit"), std::string::npos);
  json params_wrong = client.call("textDocument/hover", {{"textDocument", 5}});
  EXPECT_EQ(params_wrong["error"]["code"], -32602);
  json still = client.call("textDocument/codeLens", {{"textDocument", {{"uri", "file:///nowhere.cu"}}}});
  EXPECT_EQ(still["result"], json::array());
  auto unparsed = client.take_null_id_responses();
  ASSERT_EQ(unparsed.size(), 2u);
  EXPECT_EQ(unparsed[0]["error"]["code"], -32700);
  EXPECT_EQ(unparsed[1]["error"]["code"], -32700);
}

TEST(ServerLifecycle, JobRequestsValidateTheirParams) {
  LspClient client(quiet_options());
  client.initialize();
  EXPECT_EQ(client.call("hone/check", {{"textDocument", {{"uri", "file:///not-open.cpp"}}}})["error"]["code"], -32602);
  client.notify("textDocument/didOpen", {{"textDocument", {{"uri", "file:///tmp/hone-lsp-test-k.h"}, {"languageId", "cpp"}, {"version", 1}, {"text", ""}}}});
  json bad = client.call("hone/check", {{"textDocument", {{"uri", "file:///tmp/hone-lsp-test-k.h"}}}, {"options", {{"seeds", "three"}}}});
  EXPECT_EQ(bad["error"]["code"], -32602);
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("'seeds'"), std::string::npos);
  json bad_hint = client.call("hone/optimize", {{"textDocument", {{"uri", "file:///tmp/hone-lsp-test-k.h"}}}, {"options", {{"hint", 16}}}});
  EXPECT_EQ(bad_hint["error"]["code"], -32602);
  EXPECT_NE(bad_hint["error"]["message"].get<std::string>().find("'hint' must be a string"), std::string::npos) << bad_hint;
  EXPECT_EQ(client.call("hone/proposal", {{"textDocument", {{"uri", "file:///tmp/hone-lsp-test-k.h"}}}})["error"]["code"], -32803);
  json result = client.call("hone/result", {{"textDocument", {{"uri", "file:///tmp/hone-lsp-test-k.h"}}}});
  EXPECT_EQ(result["result"]["version"], 1);
  EXPECT_EQ(result["result"]["running"], json::array());
}

}  // namespace
}  // namespace hone::lsp::test
