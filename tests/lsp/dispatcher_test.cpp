// tests/lsp/dispatcher_test.cpp: typed dispatch, JSON-RPC error codes, reply-once, cancellation
// and the server's own outgoing calls.
#include <gtest/gtest.h>

#include "lsp/dispatcher.h"
#include "lsp/protocol.h"

namespace hone::lsp {
namespace {

using nlohmann::json;

struct Fixture : ::testing::Test {
  std::vector<json> sent;
  std::vector<std::string> logged;
  Dispatcher d{[this](const json& m) { sent.push_back(m); }, [this](const std::string& l) { logged.push_back(l); }};
  json request(json id, const std::string& method, json params) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
  }
};

TEST_F(Fixture, TypedHandlerGetsParsedParams) {
  d.request<TextDocumentPositionParams>("textDocument/hover", [](const TextDocumentPositionParams& p, Reply r, std::stop_token) {
    r({{"line", p.position.line}, {"uri", p.textDocument.uri}});
  });
  d.dispatch(request(1, "textDocument/hover", {{"textDocument", {{"uri", "file:///a"}}}, {"position", {{"line", 3}, {"character", 0}}}}));
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["id"], 1);
  EXPECT_EQ(sent[0]["result"]["line"], 3);
}

TEST_F(Fixture, InvalidParamsUnknownMethodsAndInvalidRequests) {
  d.request<TextDocumentPositionParams>("textDocument/hover", [](const TextDocumentPositionParams&, Reply r, std::stop_token) { r(nullptr); });
  d.dispatch(request(2, "textDocument/hover", {{"textDocument", {{"uri", "file:///a"}}}, {"position", {{"line", -1}, {"character", 0}}}}));
  d.dispatch(request("s", "no/such", json::object()));
  d.dispatch({{"jsonrpc", "2.0"}, {"method", "no/such/notification"}});
  d.dispatch(json::array({1, 2}));
  d.dispatch({{"jsonrpc", "2.0"}, {"id", json::array()}, {"method", "x"}});
  d.dispatch({{"jsonrpc", "2.0"}, {"id", 5}, {"method", "textDocument/hover"}, {"params", 3}});
  ASSERT_EQ(sent.size(), 5u);
  EXPECT_EQ(sent[0]["error"]["code"], rpc::kInvalidParams);
  EXPECT_NE(sent[0]["error"]["message"].get<std::string>().find("'line'"), std::string::npos);
  EXPECT_EQ(sent[1]["id"], "s");
  EXPECT_EQ(sent[1]["error"]["code"], rpc::kMethodNotFound);
  EXPECT_EQ(sent[2]["error"]["code"], rpc::kInvalidRequest);
  EXPECT_TRUE(sent[2]["id"].is_null());
  EXPECT_EQ(sent[3]["error"]["code"], rpc::kInvalidRequest);
  EXPECT_EQ(sent[4]["error"]["code"], rpc::kInvalidRequest);
  EXPECT_EQ(sent[4]["id"], 5);
}

TEST_F(Fixture, ReplyIsSentExactlyOnce) {
  std::optional<Reply> kept;
  d.request("twice", [](const json&, Reply r, std::stop_token) {
    r(1);
    r(2);
    r.error({rpc::kInternalError, "late"});
  });
  d.request("never", [](const json&, Reply, std::stop_token) {});
  d.request("later", [&](const json&, Reply r, std::stop_token) { kept = r; });
  d.dispatch(request(1, "twice", {}));
  d.dispatch(request(2, "never", {}));
  d.dispatch(request(3, "later", {}));
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0]["result"], 1);
  EXPECT_EQ(sent[1]["id"], 2);
  EXPECT_EQ(sent[1]["error"]["code"], rpc::kInternalError);
  EXPECT_NE(sent[1]["error"]["message"].get<std::string>().find("did not reply to never"), std::string::npos);
  (*kept)("done");
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[2]["result"], "done");
}

TEST_F(Fixture, CancelRequestStopsTheHandlersToken) {
  std::optional<std::stop_token> token;
  std::optional<Reply> reply;
  d.request("long", [&](const json&, Reply r, std::stop_token stop) {
    token = stop;
    reply = r;
  });
  d.dispatch(request(9, "long", {}));
  EXPECT_FALSE(token->stop_requested());
  d.dispatch({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", 9}}}});
  EXPECT_TRUE(token->stop_requested());
  d.dispatch({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", 12345}}}});
  EXPECT_TRUE(sent.empty());
}

TEST_F(Fixture, OutgoingCallsMatchTheirResponses) {
  json got;
  std::optional<int> error_code;
  d.call("window/workDoneProgress/create", {{"token", "t"}}, [&](const json& result, const RpcError* e) {
    got = result;
    if (e) error_code = e->code;
  });
  d.call("workspace/codeLens/refresh", nullptr, [&](const json&, const RpcError* e) {
    if (e) error_code = e->code;
  });
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_FALSE(sent[1].contains("params"));
  d.dispatch({{"jsonrpc", "2.0"}, {"id", sent[0]["id"]}, {"result", "ok"}});
  EXPECT_EQ(got, "ok");
  d.dispatch({{"jsonrpc", "2.0"}, {"id", sent[1]["id"]}, {"error", {{"code", -32601}, {"message", "no"}}}});
  EXPECT_EQ(error_code, -32601);
  d.dispatch({{"jsonrpc", "2.0"}, {"id", "unknown"}, {"result", 1}});
  EXPECT_EQ(sent.size(), 2u);
}

}  // namespace
}  // namespace hone::lsp
