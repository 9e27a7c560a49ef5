// optimize/prompt_templates.h: the editable prompt templates (system.mustache, user.mustache in
// share/hone/prompts or a --prompts folder), rendered with Mustache (kainjow) without HTML
// escaping. Loaded once per run on the loop's thread; render() is const and thread-safe.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "optimize/chat_types.h"

namespace hone {

class PromptTemplates {
 public:
  // Reads <dir>/system.mustache and <dir>/user.mustache; throws std::runtime_error naming the
  // file for a missing file or a template with a syntax error.
  static PromptTemplates load(const std::filesystem::path& dir);
  // share_dir()/prompts
  static std::filesystem::path default_dir();

  // The chat messages for one request: a system message only when system.mustache renders
  // something other than whitespace, then the user message.
  std::vector<ChatMessage> render(const nlohmann::json& context) const;

 private:
  std::string render_one(const std::string& text, const std::string& name, const nlohmann::json& context) const;
  std::filesystem::path dir_;
  std::string system_;
  std::string user_;
};

}  // namespace hone
