#include <cmath>
#include <set>

#include "reference/reference_configs.hpp"

namespace hfi {
namespace {

// Size fields that shape the tensors, each with the spellings families use for it.
const std::vector<std::vector<std::string_view>> kSizeFields = {
    {"hidden_size", "d_model", "n_embd"},
    {"num_hidden_layers", "n_layer", "num_layers"},
    {"intermediate_size", "ffn_hidden_size", "n_inner"},
    {"num_attention_heads", "n_head"},
    {"num_key_value_heads", "num_kv_heads"},
    {"head_dim"},
    {"vocab_size"},
    {"n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts"},
    {"num_experts_per_tok", "experts_per_token", "moe_k"},
    {"moe_intermediate_size"},
    {"n_shared_experts"},
    {"first_k_dense_replace"},
    {"q_lora_rank"},
    {"kv_lora_rank"},
    {"qk_rope_head_dim"},
    {"v_head_dim"},
};

// Reads the language-model level without marking keys as read (the analysis owns that record).
std::optional<double> size_field(const ModelConfig& c, const std::vector<std::string_view>& aliases) {
  for (const Json* level : {&c.text(), &c.root()})
    for (auto a : aliases)
      if (const Json* v = level->find(a); v && v->is_number()) {
        auto d = v->as_double();
        if (d && *d > 0) return d;
      }
  return std::nullopt;
}

std::set<std::string> key_set(const ModelConfig& c) {
  std::set<std::string> keys;
  for (const auto& m : c.text().members()) keys.insert(m.first);
  return keys;
}

}  // namespace

double config_distance(const ModelConfig& a, const ModelConfig& b) {
  double d = 0;
  if (a.text_model_type() != b.text_model_type()) d += 4;
  if (a.model_type() != b.model_type()) d += 1;
  for (const auto& aliases : kSizeFields) {
    auto x = size_field(a, aliases), y = size_field(b, aliases);
    // A mechanism one config has and the other lacks (experts, MLA ranks) weighs more than
    // any plausible difference in size.
    if (x && y) d += std::fabs(std::log2(*x / *y));
    else if (x || y) d += 2;
  }
  auto ka = key_set(a), kb = key_set(b);
  size_t common = 0;
  for (const auto& k : ka) common += kb.count(k);
  size_t all = ka.size() + kb.size() - common;
  if (all) d += 0.5 * (1.0 - static_cast<double>(common) / static_cast<double>(all));
  return d;
}

std::optional<NearestReference> nearest_reference(const ModelConfig& config, std::string_view self_repo) {
  std::optional<NearestReference> best;
  for (const auto& ref : reference_configs()) {
    if (ref.repo == self_repo) continue;
    auto parsed = ModelConfig::parse(ref.text, "config.json");
    if (!parsed) continue;
    if (parsed->root() == config.root()) return NearestReference{std::string(ref.repo), 0, "the same config.json, field for field"};
    double d = config_distance(config, *parsed);
    if (!best || d < best->distance) {
      std::string reason = parsed->text_model_type() == config.text_model_type()
                               ? "same language-model type (" + config.text_model_type() + "), closest sizes"
                               : "no bundled " + config.text_model_type() + " config; closest sizes are " +
                                     parsed->text_model_type();
      best = NearestReference{std::string(ref.repo), d, reason};
    }
  }
  return best;
}

std::optional<Snapshot> reference_snapshot(std::string_view repo) {
  for (const auto& ref : reference_configs()) {
    if (ref.repo != repo) continue;
    auto parsed = ModelConfig::parse(ref.text, std::string(repo) + "/config.json");
    if (!parsed) return std::nullopt;
    Snapshot s;
    s.source_kind = SourceKind::BundledReference;
    s.location = std::string(repo);
    s.config = std::move(parsed.value());
    return s;
  }
  return std::nullopt;
}

}  // namespace hfi
