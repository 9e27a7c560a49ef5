// optimize/chat_stream.cpp: chunk handling for streamed and non-streamed chat completions.
#include "optimize/chat_stream.h"

#include <stdexcept>

namespace hone {
namespace {

std::string string_field(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

std::int64_t int_at(const nlohmann::json& obj, const nlohmann::json::json_pointer& ptr) {
  if (!obj.contains(ptr)) return 0;
  const auto& v = obj.at(ptr);
  return v.is_number_integer() ? v.get<std::int64_t>() : 0;
}

}  // namespace

std::optional<std::string> error_message_from_body(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const nlohmann::json* err = &j;
  if (auto it = j.find("error"); it != j.end()) {
    if (it->is_string()) return it->get<std::string>();
    if (!it->is_object()) return std::nullopt;
    err = &*it;
  }
  std::string msg = string_field(*err, "message");
  if (msg.empty()) return std::nullopt;
  std::string detail;
  for (const char* key : {"type", "code"}) {
    auto it = err->find(key);
    if (it == err->end() || it->is_null()) continue;
    if (!detail.empty()) detail += ", ";
    detail += it->is_string() ? it->get<std::string>() : it->dump();
  }
  return detail.empty() ? msg : msg + " (" + detail + ")";
}

void ChatStreamAssembler::add_text(bool reasoning, const std::string& text) {
  if (text.empty()) return;
  (reasoning ? reasoning_ : content_) += text;
  if (on_delta_) on_delta_(ChatDelta{reasoning, text});
}

void ChatStreamAssembler::add_usage(const nlohmann::json& usage) {
  if (!usage.is_object()) return;
  usage_.prompt_tokens = int_at(usage, "/prompt_tokens"_json_pointer);
  usage_.completion_tokens = int_at(usage, "/completion_tokens"_json_pointer);
  usage_.reasoning_tokens = int_at(usage, "/completion_tokens_details/reasoning_tokens"_json_pointer);
  // DeepSeek reports cache hits at the top level; OpenAI under prompt_tokens_details.
  usage_.cached_prompt_tokens = int_at(usage, "/prompt_cache_hit_tokens"_json_pointer);
  if (usage_.cached_prompt_tokens == 0)
    usage_.cached_prompt_tokens = int_at(usage, "/prompt_tokens_details/cached_tokens"_json_pointer);
  usage_.reported = true;
}

void ChatStreamAssembler::add_payload(std::string_view data) {
  if (data == "[DONE]") {
    done_ = true;
    return;
  }
  auto j = nlohmann::json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw std::runtime_error("the server streamed a chunk that is not a JSON object: " +
                             std::string(data.substr(0, 200)));
  ++chunks_;
  if (j.contains("error")) {
    server_error_ = error_message_from_body(data).value_or(j["error"].dump());
    return;
  }
  if (auto m = string_field(j, "model"); !m.empty()) model_ = m;
  if (auto it = j.find("usage"); it != j.end() && it->is_object()) add_usage(*it);
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) return;
  const auto& choice = (*choices)[0];
  if (auto it = choice.find("delta"); it != choice.end() && it->is_object()) {
    // DeepSeek, SGLang and vLLM call it reasoning_content; OpenRouter and newer vLLM `reasoning`.
    std::string r = string_field(*it, "reasoning_content");
    if (r.empty()) r = string_field(*it, "reasoning");
    add_text(true, r);
    add_text(false, string_field(*it, "content"));
  }
  if (auto fr = string_field(choice, "finish_reason"); !fr.empty()) finish_reason_ = fr;
}

void ChatStreamAssembler::add_completion(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw std::runtime_error("the server's reply is neither an event stream nor a JSON object: " +
                             std::string(body.substr(0, 200)));
  if (j.contains("error")) {
    server_error_ = error_message_from_body(body).value_or(j["error"].dump());
    return;
  }
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty())
    throw std::runtime_error("the server's completion has no choices: " + std::string(body.substr(0, 200)));
  const auto& choice = (*choices)[0];
  if (auto it = choice.find("message"); it != choice.end() && it->is_object()) {
    std::string r = string_field(*it, "reasoning_content");
    if (r.empty()) r = string_field(*it, "reasoning");
    add_text(true, r);
    add_text(false, string_field(*it, "content"));
  }
  finish_reason_ = string_field(choice, "finish_reason");
  if (finish_reason_.empty()) finish_reason_ = "stop";
  model_ = string_field(j, "model");
  if (auto it = j.find("usage"); it != j.end()) add_usage(*it);
  done_ = true;
}

ChatReply ChatStreamAssembler::reply() const {
  ChatReply r;
  auto [think, answer] = split_think_block(content_);
  r.content = answer;
  r.reasoning = reasoning_;
  if (!think.empty()) r.reasoning += (r.reasoning.empty() ? "" : "\n") + think;
  r.finish_reason = finish_reason_;
  r.model = model_;
  r.usage = usage_;
  return r;
}

}  // namespace hone
