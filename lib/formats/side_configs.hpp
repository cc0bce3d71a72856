// generation_config.json and tokenizer_config.json: the decoding and tokenizer defaults a user
// inherits without asking. Only the fields that change behaviour are typed; the rest is kept raw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"

namespace hfi {

struct GenerationConfig {
  Json raw;
  std::vector<std::string> repeated_keys;  // keys repeated in one object (dotted paths): the last value is read
  // Decoding fields present in the file, in file order (do_sample, temperature, top_p, ...).
  std::vector<std::pair<std::string, Json>> decoding;
  // Token ids as the file writes them, integers of any size: a stray 2^64 - 1 is shown as it is,
  // not squeezed into 64 signed bits.
  std::vector<Json> eos_token_ids;
  std::optional<Json> bos_token_id;
  std::optional<Json> pad_token_id;
  // Keys that are neither decoding settings hfinspect shows nor known bookkeeping: an engine that
  // ignores them may decode differently from what the authors intended.
  std::vector<std::pair<std::string, Json>> unrecognized;
};

Result<GenerationConfig> parse_generation_config(std::string_view text, std::string_view file);

struct TokenizerConfig {
  Json raw;
  std::vector<std::string> repeated_keys;  // keys repeated in one object (dotted paths): the last value is read
  std::optional<std::string> tokenizer_class;
  std::optional<std::string> bos_token, eos_token, pad_token, unk_token;
  std::optional<bool> add_bos_token, add_eos_token;
  std::optional<uint64_t> model_max_length;  // absent when the file says "unbounded" (1e30)
  std::optional<std::string> padding_side;
  bool has_chat_template = false;
  std::vector<std::string> chat_template_names;  // named templates when the file holds a list
  size_t added_tokens = 0;
  // Keys hfinspect neither reads nor knows to be routine (see kRoutineTokenizerKeys).
  std::vector<std::pair<std::string, Json>> unrecognized;
};

Result<TokenizerConfig> parse_tokenizer_config(std::string_view text, std::string_view file);

}  // namespace hfi
