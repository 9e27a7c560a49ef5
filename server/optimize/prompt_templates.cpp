// optimize/prompt_templates.cpp: template loading and Mustache rendering of the prompt variables.
#include "optimize/prompt_templates.h"

#include <kainjow/mustache.hpp>

#include <stdexcept>

#include "optimize/prompt_context.h"
#include "protocol/verdict_text.h"
#include "support/hash.h"
#include "support/paths.h"

namespace hone {
namespace {

namespace mus = kainjow::mustache;

// JSON -> Mustache data. Null values and empty strings are left out, so that a section on them
// does not render (kainjow treats every string, even an empty one, as set).
mus::data to_mustache(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      mus::data obj{mus::data::type::object};
      for (const auto& [key, value] : j.items()) {
        if (value.is_null() || (value.is_string() && value.get_ref<const std::string&>().empty())) continue;
        obj.set(key, to_mustache(value));
      }
      return obj;
    }
    case nlohmann::json::value_t::array: {
      mus::data list{mus::data::type::list};
      for (const auto& item : j) list.push_back(to_mustache(item));
      return list;
    }
    case nlohmann::json::value_t::string:
      return mus::data(j.get<std::string>());
    case nlohmann::json::value_t::boolean:
      return mus::data(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return mus::data(j.dump());
    case nlohmann::json::value_t::number_float:
      return mus::data(protocol::format_number(j.get<double>()));
    default:
      return mus::data(false);
  }
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

std::filesystem::path PromptTemplates::default_dir() { return share_dir() / "prompts"; }

PromptTemplates PromptTemplates::load(const std::filesystem::path& dir) {
  PromptTemplates t;
  t.dir_ = dir;
  for (auto [name, slot] : {std::pair{"system.mustache", &t.system_}, std::pair{"user.mustache", &t.user_}}) {
    auto path = dir / name;
    if (!std::filesystem::is_regular_file(path))
      throw std::runtime_error("prompt template missing: " + path.string() +
                               " (a prompts folder holds system.mustache and user.mustache)");
    *slot = read_file(path);
    mus::mustache check{*slot};
    if (!check.is_valid()) throw std::runtime_error("prompt template " + path.string() + ": " + check.error_message());
  }
  return t;
}

std::string PromptTemplates::render_one(const std::string& text, const std::string& name,
                                        const nlohmann::json& context) const {
  mus::mustache tmpl{text};
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  std::string out = tmpl.render(to_mustache(context));
  if (!tmpl.is_valid()) throw std::runtime_error("prompt template " + (dir_ / name).string() + ": " + tmpl.error_message());
  return out;
}

std::vector<ChatMessage> PromptTemplates::render(const nlohmann::json& context) const {
  std::vector<ChatMessage> messages;
  std::string system = trim(render_one(system_, "system.mustache", context));
  if (!system.empty()) messages.push_back({"system", system});
  messages.push_back({"user", trim(render_one(user_, "user.mustache", context)) + "\n"});
  return messages;
}

}  // namespace hone
