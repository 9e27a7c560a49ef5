// tests/lsp/fuzz/lsp_fuzzer.cpp: libFuzzer target over hone-server's input path: Content-Length
// framing (fed in two chunks), JSON parsing with resync, JSON-RPC dispatch into the typed LSP
// params, the document store's edits, and the protocol's parsers and the renderers applied to
// whatever JSON arrives.
// Built with clang when HONE_BUILD_FUZZERS is on; ctest runs it for a bounded time.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lsp/dispatcher.h"
#include "lsp/documents.h"
#include "lsp/framing.h"
#include "lsp/protocol.h"
#include "lsp/render.h"
#include "protocol/verdict_text.h"

namespace {

using nlohmann::json;
using namespace hone::lsp;
namespace protocol = hone::protocol;

// The renderers over `params` read as each shape they accept; a shape it is not is skipped.
json render_all(const json& params, const std::string& text) {
  json out = json::object();
  try {
    protocol::Verdict v = params.get<protocol::Verdict>();
    out["summary"] = protocol::verdict_headline(v);
    out["details"] = protocol::verdict_details(v);
    out["verdict_hover"] = protocol::verdict_hover_markdown(v);
    out["problems"] = verdict_diagnostics(v, text, params.value("forward", 0) & 0xffff, PositionEncoding::utf8);
    if (v.profile) {
      out["profile"] = protocol::profile_text(*v.profile);
      for (const protocol::Suggestion& s : v.profile->suggestions)
        out["suggestions"].push_back({protocol::suggestion_text(s), suggestion_diagnostic(s, text, PositionEncoding::utf16).value_or(json())});
    }
  } catch (const std::exception&) {
  }
  try {
    protocol::KernelStatic k = params.get<protocol::KernelStatic>();
    out["hint"] = protocol::kernel_hint_label(k);
    out["hover"] = protocol::kernel_hover_markdown(k, nullptr);
  } catch (const std::exception&) {
  }
  try {
    out["diagnostic"] = to_lsp_diagnostic(params.get<protocol::Diagnostic>(), text, PositionEncoding::utf16);
  } catch (const std::exception&) {
  }
  return out;
}

struct Harness {
  DocumentStore documents;
  Dispatcher dispatcher{[](const json& message) {
                          std::string out = message.dump(-1, ' ', false, json::error_handler_t::replace);
                          (void)out;
                        },
                        [](const std::string&) {}};
  Harness() {
    auto& d = dispatcher;
    d.notification<DidOpenParams>("textDocument/didOpen", [this](const DidOpenParams& p) { documents.open(p.textDocument); });
    d.notification<DidChangeParams>("textDocument/didChange", [this](const DidChangeParams& p) {
      documents.change(p, PositionEncoding::utf16);
      documents.change(p, PositionEncoding::utf8);
    });
    d.notification<DidCloseParams>("textDocument/didClose", [this](const DidCloseParams& p) { documents.close(p.textDocument.uri); });
    d.request<TextDocumentPositionParams>("textDocument/hover", [this](const TextDocumentPositionParams& p, Reply r, std::stop_token) {
      auto doc = documents.get(p.textDocument.uri);
      if (!doc) return r(nullptr);
      std::size_t offset = offset_of(doc->text, p.position, PositionEncoding::utf16);
      Position back = position_of(doc->text, offset, PositionEncoding::utf16);
      r({{"line", back.line}, {"character", back.character}, {"length", line_length(doc->text, p.position.line, PositionEncoding::utf8)}});
    });
    d.request("hone/render", [this](const json& params, Reply r, std::stop_token) {
      std::string text;
      if (auto doc = documents.get(params.value("uri", std::string()))) text = doc->text;
      r(render_all(params, text));
    });
    d.request<JobParams>("hone/check", [](const JobParams&, Reply r, std::stop_token) { r(nullptr); });
    d.request<ProposalParams>("hone/proposal", [](const ProposalParams&, Reply r, std::stop_token) { r(nullptr); });
    d.notification<WorkDoneProgressCancelParams>("window/workDoneProgress/cancel", [](const WorkDoneProgressCancelParams&) {});
    d.notification<ConfigurationParams>("workspace/didChangeConfiguration", [](const ConfigurationParams&) {});
    d.request<RangeParams>("textDocument/inlayHint", [](const RangeParams&, Reply r, std::stop_token) { r(json::array()); });
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Harness harness;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  MessageReader reader(1u << 16);
  std::size_t split = size > 0 ? data[0] % (size + 1) : 0;
  std::string_view parts[2] = {bytes.substr(0, split), bytes.substr(split)};
  for (std::string_view part : parts) {
    reader.feed(part);
    while (auto frame = reader.next()) {
      if (frame->kind != Frame::Kind::message) continue;
      json message = json::parse(frame->body, nullptr, false);
      if (message.is_discarded()) {
        reader.resync_within(frame->body);
        continue;
      }
      try {
        harness.dispatcher.dispatch(message);
      } catch (const json::exception&) {
        // Handlers may reject shapes the typed params accept; the server logs these.
      }
    }
  }
  return 0;
}
