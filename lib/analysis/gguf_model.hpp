// A GGUF variant in the terms the rest of the analysis speaks: a config.json made from the GGUF's
// hyper-parameter keys (<arch>.block_count, .attention.head_count_kv, ...) under the model_type
// transformers gives the same architecture, and the tensors as logical weights under the names
// transformers gives them (token_embd -> model.embed_tokens, blk.N.attn_q ->
// model.layers.N.self_attn.q_proj, stacked experts -> one weight per expert). The spec, the
// reconcile, the KV cache and fit then run unchanged.
#pragma once

#include <string>
#include <vector>

#include "analysis/gguf_variants.hpp"
#include "analysis/storage.hpp"
#include "arch/spec.hpp"
#include "core/error.hpp"
#include "formats/model_config.hpp"

namespace hfi {

struct GgufModel {
  std::string architecture;  // general.architecture
  std::string model_type;    // transformers' name for it; empty when hfinspect has no mapping
  ModelConfig config;        // from the GGUF's keys
  std::vector<std::string> notes;
};

// The config a variant's keys describe. Fails only on a header without general.architecture.
Result<GgufModel> gguf_model(const GgufVariant& variant);

// The variant's tensors as logical weights. With a spec, names are translated to the spec's; a
// name with no translation, or without a spec, stays as llama.cpp wrote it. llama.cpp's own
// tables (rope_freqs) are bookkeeping, not parameters.
StorageView gguf_storage(const GgufVariant& variant, const ArchModel* spec);

// config.json beside a GGUF: the fields both give, where they disagree ("num_key_value_heads:
// config.json 8, GGUF 4").
std::vector<std::string> compare_with_config(const ModelConfig& gguf, const ModelConfig& config_json);

}  // namespace hfi
