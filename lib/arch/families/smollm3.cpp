// Hugging Face SmolLM3: Llama's tensor layout (no biases, tied embeddings by default) with NoPE
// layers. no_rope_layers marks per layer whether RoPE is applied (1) or not (0); absent, every
// no_rope_layer_interval-th layer is NoPE. Position encoding changes neither tensors nor KV size.
// Sliding windows, when enabled, apply only to the NoPE layers (unless layer_types spells it out).
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> smollm3_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m = dense_decoder(cfg, "smollm3", false, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  // transformers' SmolLM3Config ties the head unless told otherwise.
  bool tied = r.flag({"tie_word_embeddings"}, true);
  m.tied_embeddings = tied;
  for (auto& t : m.tensors)
    if (t.name == "lm_head.weight") t.optional = tied;

  std::vector<bool> rope(layers, true);
  if (const Json* list = cfg.field({"no_rope_layers"}); list && list->is_array()) {
    if (list->items().size() < layers)
      throw SpecError("config.json: no_rope_layers has " + std::to_string(list->items().size()) + " entries for " +
                      std::to_string(layers) + " layers");
    for (uint64_t i = 0; i < layers; ++i) rope[i] = list->items()[i].as_int().value_or(1) != 0;
  } else {
    uint64_t interval = r.get({"no_rope_layer_interval"}, 4);
    for (uint64_t i = 0; i < layers; ++i) rope[i] = interval == 0 || (i + 1) % interval != 0;
  }
  (void)cfg.field({"no_rope_layer_interval"});  // only a fallback for no_rope_layers

  // Without layer_types the sliding layers are the NoPE ones (use_sliding_window and a window set);
  // dense_decoder's generic rule (max_window_layers) does not apply.
  const Json* types = cfg.field({"layer_types"});
  if (!(types && types->is_array())) {
    uint64_t window = r.get({"sliding_window"}, 0);
    bool use = r.flag({"use_sliding_window"}, false);
    for (uint64_t i = 0; i < layers; ++i) {
      bool sliding = use && window > 0 && !rope[i];
      m.attention[i].kind = sliding ? AttentionKind::Sliding : AttentionKind::Full;
      m.attention[i].window = sliding ? window : 0;
    }
  }

  std::string nope;
  uint64_t nope_count = 0;
  for (uint64_t i = 0; i < layers; ++i)
    if (!rope[i]) {
      nope += (nope.empty() ? "" : ",") + std::to_string(i);
      ++nope_count;
    }
  if (nope_count > 0)
    m.position_summary += "; NoPE on " + std::to_string(nope_count) + " of " + std::to_string(layers) +
                          " layers (" + nope + ")";
  return m;
}

}  // namespace hfi::arch
