#include "formats/model_config.hpp"

#include <algorithm>

namespace hfi {

ModelConfig& ModelConfig::operator=(const ModelConfig& other) {
  if (this == &other) return *this;
  root_ = other.root_;
  text_key_ = other.text_key_;
  keys_read_ = other.keys_read_;
  repeated_keys_ = other.repeated_keys_;
  source_ = other.source_;
  text_ = text_key_.empty() ? nullptr : root_.find(text_key_);
  return *this;
}

Result<ModelConfig> ModelConfig::parse(std::string_view text, std::string_view file) {
  ModelConfig cfg;
  auto json = parse_json(text, file, JsonLimits{16u << 20, 64}, &cfg.repeated_keys_);
  if (!json) return json.error();
  if (!json->is_object()) return malformed(std::string(file), "", "is not a JSON object");
  cfg.root_ = std::move(json.value());
  cfg.source_ = std::string(text);
  for (std::string_view key : {"text_config", "llm_config", "language_config"}) {
    const Json* nested = cfg.root_.find(key);
    if (nested && nested->is_object()) {
      cfg.text_key_ = std::string(key);
      cfg.text_ = nested;
      break;
    }
  }
  return cfg;
}

namespace {

// Where `"key"` followed by optional whitespace and ':' starts in `text`, from `from` on.
size_t find_member(std::string_view text, std::string_view key, size_t from) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  for (size_t at = text.find(quoted, from); at != std::string_view::npos; at = text.find(quoted, at + 1)) {
    size_t after = at + quoted.size();
    while (after < text.size() && (text[after] == ' ' || text[after] == '\t' || text[after] == '\r' || text[after] == '\n')) ++after;
    if (after < text.size() && text[after] == ':') return at;
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<size_t> ModelConfig::line_of(std::string_view key, bool in_text_config) const {
  size_t from = 0;
  if (in_text_config && text_) {
    from = find_member(source_, text_key_, 0);
    if (from == std::string::npos) return std::nullopt;
  }
  size_t at = find_member(source_, key, from);
  if (at == std::string::npos) return std::nullopt;
  return static_cast<size_t>(std::count(source_.begin(), source_.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
}

std::string ModelConfig::model_type() const {
  const Json* t = root_.find("model_type");
  return t && t->is_string() ? t->as_string() : std::string();
}

std::string ModelConfig::text_model_type() const {
  if (text_) {
    const Json* t = text_->find("model_type");
    if (t && t->is_string()) return t->as_string();
  }
  return model_type();
}

std::vector<std::string> ModelConfig::architectures() const {
  std::vector<std::string> out;
  const Json* a = root_.find("architectures");
  if (a && a->is_array())
    for (const Json& item : a->items())
      if (item.is_string()) out.push_back(item.as_string());
  return out;
}

const Json* ModelConfig::field(std::initializer_list<std::string_view> aliases) const {
  for (const Json* level : {text_, &root_}) {
    if (!level) continue;
    for (std::string_view key : aliases) {
      const Json* v = level->find(key);
      if (v && !v->is_null()) {
        keys_read_.insert(std::string(key));
        return v;
      }
    }
  }
  for (std::string_view key : aliases) keys_read_.insert(std::string(key));
  return nullptr;
}

std::optional<int64_t> ModelConfig::integer(std::initializer_list<std::string_view> aliases) const {
  const Json* v = field(aliases);
  return v ? v->as_int() : std::nullopt;
}

std::optional<double> ModelConfig::number(std::initializer_list<std::string_view> aliases) const {
  const Json* v = field(aliases);
  return v ? v->as_double() : std::nullopt;
}

std::optional<bool> ModelConfig::boolean(std::initializer_list<std::string_view> aliases) const {
  const Json* v = field(aliases);
  if (v && v->is_bool()) return v->as_bool();
  return std::nullopt;
}

std::optional<std::string> ModelConfig::string(std::initializer_list<std::string_view> aliases) const {
  const Json* v = field(aliases);
  if (v && v->is_string()) return v->as_string();
  return std::nullopt;
}

}  // namespace hfi
