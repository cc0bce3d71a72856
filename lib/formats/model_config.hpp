// config.json: the model's hyper-parameters. Multimodal configs nest the language model under
// `text_config` (or `llm_config`); `text()` is that nested object when present, else the root.
// Families spell the same quantity differently; the accessors take every alias in one call.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"

namespace hfi {

class ModelConfig {
 public:
  static Result<ModelConfig> parse(std::string_view text, std::string_view file);

  // The 1-based line of `key` as a member of the root, or of the text model's object when
  // `in_text_config`: the first `"key":` after where that object starts, so an annotation can point
  // at it. nullopt when it is not found (a key written with escapes, say).
  std::optional<size_t> line_of(std::string_view key, bool in_text_config) const;

  const Json& root() const { return root_; }
  const Json& text() const { return text_ ? *text_ : root_; }
  bool has_text_config() const { return text_ != nullptr; }
  std::string text_config_key() const { return text_key_; }

  std::string model_type() const;       // root model_type
  std::string text_model_type() const;  // the language model's model_type
  std::vector<std::string> architectures() const;

  // Looks the first present alias up in the language-model config, then in the root.
  const Json* field(std::initializer_list<std::string_view> aliases) const;
  std::optional<int64_t> integer(std::initializer_list<std::string_view> aliases) const;
  std::optional<double> number(std::initializer_list<std::string_view> aliases) const;
  std::optional<bool> boolean(std::initializer_list<std::string_view> aliases) const;
  std::optional<std::string> string(std::initializer_list<std::string_view> aliases) const;
  int64_t integer_or(std::initializer_list<std::string_view> aliases, int64_t fallback) const {
    return integer(aliases).value_or(fallback);
  }

  // Keys the analysis has read, per config level; used to find fields nobody understands.
  const std::set<std::string>& keys_read() const { return keys_read_; }
  // For readers that look inside a nested object themselves (arch::ConfigReader's sections).
  void note_read(std::string_view key) const { keys_read_.insert(std::string(key)); }
  // Keys the file repeats in one object (dotted paths): the last value is the one read.
  const std::vector<std::string>& repeated_keys() const { return repeated_keys_; }

 private:
  Json root_;
  std::string source_;  // the file as read, for line_of()
  std::vector<std::string> repeated_keys_;
  const Json* text_ = nullptr;
  std::string text_key_;
  mutable std::set<std::string> keys_read_;

 public:
  ModelConfig() = default;
  ModelConfig(const ModelConfig& other) { *this = other; }
  ModelConfig& operator=(const ModelConfig& other);
};

}  // namespace hfi
