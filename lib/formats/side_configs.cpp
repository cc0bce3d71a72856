#include "formats/side_configs.hpp"

#include <array>

namespace hfi {
namespace {

// generation_config.json keys that change what generate() produces; the report shows them all.
constexpr std::array<std::string_view, 36> kDecodingKeys{
    "do_sample", "temperature", "top_p", "top_k", "min_p", "typical_p", "epsilon_cutoff", "eta_cutoff",
    "repetition_penalty", "encoder_repetition_penalty", "no_repeat_ngram_size", "encoder_no_repeat_ngram_size",
    "num_beams", "num_beam_groups", "diversity_penalty", "length_penalty", "early_stopping", "penalty_alpha",
    "max_new_tokens", "max_length", "min_new_tokens", "min_length", "max_time", "stop_strings",
    "use_cache", "cache_implementation", "bad_words_ids", "suppress_tokens", "begin_suppress_tokens",
    "forced_bos_token_id", "forced_eos_token_id", "renormalize_logits", "sequence_bias", "guidance_scale",
    "exponential_decay_length_penalty", "remove_invalid_values"};

// Keys every writer adds that do not change decoding (ids are parsed separately).
constexpr std::array<std::string_view, 12> kGenerationBookkeeping{
    "_from_model_config", "transformers_version", "bos_token_id", "eos_token_id", "pad_token_id",
    "decoder_start_token_id", "output_attentions", "output_hidden_states", "output_scores", "output_logits",
    "return_dict_in_generate", "num_return_sequences"};

// tokenizer_config.json keys that are routine: read by the parser below, or saved by tokenizer
// classes for their own reload and not changing which ids a text maps to beyond what is shown.
constexpr std::array<std::string_view, 44> kRoutineTokenizerKeys{
    "tokenizer_class", "bos_token", "eos_token", "pad_token", "unk_token", "add_bos_token", "add_eos_token",
    "model_max_length", "padding_side", "chat_template", "added_tokens_decoder", "clean_up_tokenization_spaces",
    "legacy", "sp_model_kwargs", "spaces_between_special_tokens", "use_default_system_prompt",
    "model_input_names", "additional_special_tokens", "extra_special_tokens", "tokenizer_file", "name_or_path",
    "auto_map", "truncation_side", "errors", "add_prefix_space", "do_lower_case", "split_special_tokens",
    "mask_token", "sep_token", "cls_token", "strip_accents", "tokenize_chinese_chars", "never_split",
    "do_basic_tokenize", "processor_class", "vocab_file", "merges_file", "from_slow", "use_fast",
    "trim_offsets", "max_len", "init_inputs", "special_tokens_map_file", "pad_token_type_id"};

template <size_t N>
bool listed(const std::array<std::string_view, N>& keys, const std::string& key) {
  for (std::string_view k : keys)
    if (key == k) return true;
  return false;
}

// Token ids appear as an integer or a list of integers.
Result<std::vector<Json>> token_ids(const Json& v, const std::string& file, const std::string& field) {
  std::vector<Json> out;
  if (v.is_null()) return out;
  if (v.is_integer()) {
    out.push_back(v);
    return out;
  }
  if (!v.is_array()) return malformed(file, field, "is neither a token id nor a list of token ids");
  for (const Json& item : v.items()) {
    if (!item.is_integer()) return malformed(file, field, "holds a value that is not a token id");
    out.push_back(item);
  }
  return out;
}

// Special tokens are a string or an AddedToken object {"content": "...", ...}.
std::optional<std::string> token_text(const Json* v) {
  if (!v) return std::nullopt;
  if (v->is_string()) return v->as_string();
  if (v->is_object())
    if (const Json* c = v->find("content"); c && c->is_string()) return c->as_string();
  return std::nullopt;
}

}  // namespace

Result<GenerationConfig> parse_generation_config(std::string_view text, std::string_view file) {
  std::string f(file);
  GenerationConfig g;
  auto json = parse_json(text, file, JsonLimits{16u << 20, 64}, &g.repeated_keys);
  if (!json) return json.error();
  if (!json->is_object()) return malformed(f, "", "is not a JSON object");
  g.raw = std::move(json.value());
  for (const auto& [key, value] : g.raw.members()) {
    if (listed(kDecodingKeys, key)) g.decoding.emplace_back(key, value);
    else if (!listed(kGenerationBookkeeping, key)) g.unrecognized.emplace_back(key, value);
  }
  if (const Json* eos = g.raw.find("eos_token_id")) {
    auto ids = token_ids(*eos, f, "eos_token_id");
    if (!ids) return ids.error();
    g.eos_token_ids = std::move(ids.value());
  }
  for (auto [key, slot] : {std::pair{"bos_token_id", &g.bos_token_id}, std::pair{"pad_token_id", &g.pad_token_id}}) {
    if (const Json* v = g.raw.find(key); v && !v->is_null()) {
      auto ids = token_ids(*v, f, key);
      if (!ids) return ids.error();
      if (!ids->empty()) *slot = ids->front();
    }
  }
  return g;
}

Result<TokenizerConfig> parse_tokenizer_config(std::string_view text, std::string_view file) {
  std::string f(file);
  TokenizerConfig t;
  auto json = parse_json(text, file, JsonLimits{64u << 20, 64}, &t.repeated_keys);
  if (!json) return json.error();
  if (!json->is_object()) return malformed(f, "", "is not a JSON object");
  t.raw = std::move(json.value());
  const Json& r = t.raw;
  if (const Json* c = r.find("tokenizer_class"); c && c->is_string()) t.tokenizer_class = c->as_string();
  t.bos_token = token_text(r.find("bos_token"));
  t.eos_token = token_text(r.find("eos_token"));
  t.pad_token = token_text(r.find("pad_token"));
  t.unk_token = token_text(r.find("unk_token"));
  if (const Json* v = r.find("add_bos_token"); v && v->is_bool()) t.add_bos_token = v->as_bool();
  if (const Json* v = r.find("add_eos_token"); v && v->is_bool()) t.add_eos_token = v->as_bool();
  if (const Json* v = r.find("model_max_length"); v && v->is_number()) {
    // transformers writes int(1e30) when a tokenizer has no limit; treat anything past 2^53 so.
    auto d = v->as_double();
    if (d && *d >= 0 && *d < 9.0e15) t.model_max_length = static_cast<uint64_t>(*d);
  }
  if (const Json* v = r.find("padding_side"); v && v->is_string()) t.padding_side = v->as_string();
  if (const Json* ct = r.find("chat_template")) {
    if (ct->is_string()) {
      t.has_chat_template = !ct->as_string().empty();
    } else if (ct->is_array()) {
      for (const Json& item : ct->items())
        if (const Json* name = item.find("name"); name && name->is_string())
          t.chat_template_names.push_back(name->as_string());
      t.has_chat_template = !ct->items().empty();
    }
  }
  if (const Json* added = r.find("added_tokens_decoder"); added && added->is_object())
    t.added_tokens = added->members().size();
  for (const auto& [key, value] : r.members())
    if (!listed(kRoutineTokenizerKeys, key)) t.unrecognized.emplace_back(key, value);
  return t;
}

}  // namespace hfi
