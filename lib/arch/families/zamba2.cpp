// Zamba2 (Zyphra): a Mamba2 backbone whose "hybrid" layers first run one of num_mem_blocks shared
// transformer blocks, then a per-layer linear [H, H], then the layer's own Mamba2 decoder.
//
//   model.embed_tokens, model.final_layernorm, lm_head (tied by default)
//   mamba layer N:  model.layers.N.{input_layernorm, mamba.*}
//   hybrid layer N: model.layers.N.{linear, mamba_decoder.input_layernorm, mamba_decoder.mamba.*}
//                   + the shared block it calls (model.layers.S.shared_transformer.*)
//
// The shared block reads concat(hidden, original embeddings), so its input_layernorm and q/k/v
// take 2H; head_dim = 2H / heads and o_proj maps back to H. Its MLP is a fused gate_up_proj
// [2I, H] and down_proj [H, I]. The j-th hybrid use calls block j % num_mem_blocks, and each use
// has its own rank-r adapters (two bias-free linears) on gate_up_proj, plus on q, k and v when
// use_shared_attention_adapter is set; a block's adapter lists hold an entry only at the uses that
// call it. The shared weights are counted once: checkpoints store block k, with all its adapters,
// under the hybrid layer of its first use (the k-th hybrid layer); the other hybrid layers'
// shared_transformer.* names are tied to those and not stored.
//
// FLOPs count the shared weights at every use (runs_per_token), active parameters once.
//
// Every hybrid use keeps its own KV cache (the cache is indexed by layer), and every layer keeps a
// Mamba2 state. transformers ignores config's mamba_headdim (it derives mamba_expand × H /
// n_mamba_heads) and use_conv_bias (the conv always has a bias); use_shared_mlp_adapter too, as the
// gate_up adapters are always built.
#include <algorithm>

#include "arch/families/families.hpp"
#include "arch/families/ssm_mixers.hpp"

namespace hfi::arch {
namespace {

// layers_block_type as a per-layer "hybrid" flag. Zamba2Config's default list fits only its
// default 54 layers, so a config without the list must have 54.
std::vector<bool> zamba2_hybrid_layers(const ConfigReader& r, uint64_t layers) {
  const Json* f = r.field({"layers_block_type"});
  if (!f || f->is_null()) {
    if (layers != 54)
      throw SpecError("config.json: zamba2 without layers_block_type has the 54-layer default pattern, but num_hidden_layers is " +
                      std::to_string(layers));
    std::vector<bool> hybrid(54, false);
    // Zamba2Config's default: one mamba, then 7 × (5 mamba + hybrid), 4 mamba, hybrid, 3 mamba, hybrid, 2 mamba.
    for (int i = 0; i < 7; ++i) hybrid[static_cast<size_t>(6 + 6 * i)] = true;
    hybrid[47] = hybrid[51] = true;
    return hybrid;
  }
  if (!f->is_array()) throw SpecError("config.json: layers_block_type is not a list");
  std::vector<bool> hybrid;
  for (const Json& v : f->items()) {
    if (!v.is_string()) throw SpecError("config.json: layers_block_type holds a non-string entry");
    const std::string& s = v.as_string();
    if (s != "mamba" && s != "hybrid")
      throw SpecError("config.json: layers_block_type entry \"" + s + "\" is neither \"mamba\" nor \"hybrid\"");
    hybrid.push_back(s == "hybrid");
  }
  if (hybrid.size() != layers)
    throw SpecError("config.json: layers_block_type lists " + std::to_string(hybrid.size()) + " layers, num_hidden_layers says " +
                    std::to_string(layers));
  return hybrid;
}

// One rank-r adapter: Linear(in -> r) then Linear(r -> out), both bias-free.
void add_adapter(ArchModel& m, const std::string& prefix, int layer, uint64_t in, uint64_t rank, uint64_t out, Role role) {
  add(m, prefix + ".0.weight", {rank, in}, role, layer);
  add(m, prefix + ".1.weight", {out, rank}, role, layer);
}

}  // namespace

Result<ArchModel> zamba2_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "zamba2";
  uint64_t hidden = r.get({"hidden_size"}, 2560);
  uint64_t layers = r.get({"num_hidden_layers"}, 54);
  uint64_t vocab = r.get({"vocab_size"}, 32000);
  uint64_t inter = r.get({"intermediate_size"}, checked_product("4 × hidden_size", {4, hidden}));
  uint64_t mem_blocks = r.get({"num_mem_blocks"}, 1);
  uint64_t rank = r.get({"adapter_rank"}, 128);
  bool attn_adapters = r.flag({"use_shared_attention_adapter"}, false);
  bool bias = r.flag({"add_bias_linear"}, false);
  bool tied = r.flag({"tie_word_embeddings"}, true);
  if (mem_blocks == 0) throw SpecError("config.json: num_mem_blocks is 0");

  // The shared attention works on the 2H concatenation.
  AttentionDims a;
  a.hidden = checked_product("2 × hidden_size", {2, hidden});
  a.heads = r.get({"num_attention_heads"}, 32);
  a.kv_heads = r.get({"num_key_value_heads"}, a.heads);
  if (a.heads == 0 || a.hidden % a.heads != 0)
    throw SpecError("config.json: zamba2 needs 2 × hidden_size divisible by num_attention_heads");
  a.head_dim = a.hidden / a.heads;

  ssm::Mamba2Dims d;
  d.hidden = hidden;
  d.d_inner = checked_product("mamba_expand × hidden_size", {r.get({"mamba_expand"}, 2), hidden});
  d.heads = r.get({"n_mamba_heads"}, 8);
  d.head_dim = d.heads ? d.d_inner / d.heads : 0;
  d.groups = r.get({"mamba_ngroups"}, 1);
  d.state = r.get({"mamba_d_state"}, 64);
  d.kernel = r.get({"mamba_d_conv"}, 4);
  d.conv_bias = true;
  d.proj_bias = bias;
  ssm::check_mamba2_heads(d, "zamba2");

  auto hybrid = zamba2_hybrid_layers(r, layers);
  std::vector<uint64_t> hybrid_ids;
  for (uint64_t i = 0; i < layers; ++i)
    if (hybrid[i]) hybrid_ids.push_back(i);
  const uint64_t uses = hybrid_ids.size();

  reserve_layers(m, layers, 12);
  add(m, "model.embed_tokens.weight", {vocab, hidden}, Role::Embedding);

  // `use` counts hybrid layers so far; a block no hybrid layer calls is never built into the layer
  // list, so it is never stored.
  for (uint64_t i = 0, use = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    if (!hybrid[i]) {
      add(m, p + "input_layernorm.weight", {hidden}, Role::Norm, l);
      ssm::add_mamba2_mixer(m, p + "mamba.", l, d);
      m.attention.push_back(ssm::mamba2_layer(d));
      continue;
    }
    const uint64_t block = use % mem_blocks;
    if (use < mem_blocks) {
      // First use of this block: its weights, and the adapters of every use that calls it, live here.
      std::string s = p + "shared_transformer.";
      const size_t first_shared = m.tensors.size();
      add(m, s + "input_layernorm.weight", {a.hidden}, Role::Norm, l);
      add_linear(m, s + "self_attn.q_proj", a.heads * a.head_dim, a.hidden, Role::Attention, l, false);
      add_linear(m, s + "self_attn.k_proj", a.kv_heads * a.head_dim, a.hidden, Role::Attention, l, false);
      add_linear(m, s + "self_attn.v_proj", a.kv_heads * a.head_dim, a.hidden, Role::Attention, l, false);
      add_linear(m, s + "self_attn.o_proj", hidden, a.heads * a.head_dim, Role::Attention, l, false);
      for (uint64_t j = block; j < uses; j += mem_blocks) {
        if (!attn_adapters) break;
        int lj = static_cast<int>(hybrid_ids[j]);  // the adapter runs at the j-th hybrid layer
        for (const char* x : {"q", "k", "v"})
          add_adapter(m, s + "self_attn.linear_" + x + "_adapter_list." + std::to_string(j), lj, a.hidden, rank, a.hidden,
                      Role::Attention);
      }
      add(m, s + "pre_ff_layernorm.weight", {hidden}, Role::Norm, l);
      add_linear(m, s + "feed_forward.gate_up_proj", checked_product("2 × intermediate_size", {2, inter}), hidden, Role::Mlp, l, bias);
      add_linear(m, s + "feed_forward.down_proj", hidden, inter, Role::Mlp, l, bias);
      for (uint64_t j = block; j < uses; j += mem_blocks)
        add_adapter(m, s + "feed_forward.gate_up_proj_adapter_list." + std::to_string(j), static_cast<int>(hybrid_ids[j]), hidden,
                    rank, 2 * inter, Role::Mlp);
      // Every use of the block runs its weights again; each adapter runs at its own use only.
      const auto runs = static_cast<uint16_t>(std::min<uint64_t>((uses - block + mem_blocks - 1) / mem_blocks, UINT16_MAX));
      for (size_t t = first_shared; t < m.tensors.size(); ++t)
        if (m.tensors[t].name.find("_adapter_list.") == std::string::npos) m.tensors[t].runs_per_token = runs;
    }
    // The per-layer linear carries the block's output into this layer's Mamba input.
    add_linear(m, p + "linear", hidden, hidden, Role::Attention, l, false);
    add(m, p + "mamba_decoder.input_layernorm.weight", {hidden}, Role::Norm, l);
    ssm::add_mamba2_mixer(m, p + "mamba_decoder.mamba.", l, d);
    // Both caches on the one layer: KV for this use of the shared attention, and the Mamba2 state.
    AttentionLayer layer = attention_layer(a);
    AttentionLayer state = ssm::mamba2_layer(d);
    layer.recurrent_state_elements = state.recurrent_state_elements;
    layer.recurrent_ssm_elements = state.recurrent_ssm_elements;
    layer.recurrent_kind = state.recurrent_kind;
    m.attention.push_back(layer);
    ++use;
  }
  add(m, "model.final_layernorm.weight", {hidden}, Role::Norm);
  add_lm_head(m, "lm_head", vocab, hidden, tied);

  const uint64_t built_blocks = std::min(mem_blocks, uses);
  m.attention_summary = std::to_string(uses) + " hybrid layers calling " + std::to_string(built_blocks) + " shared block" +
                        (built_blocks == 1 ? "" : "s") + " (attention over concat(hidden, embeddings): " + describe_attention(a) +
                        ") + Mamba2 in all " + std::to_string(layers) + " layers (" + ssm::describe_mamba2(d) + ")";
  m.position_summary = r.flag({"use_mem_rope"}, false) ? describe_rope(r) + " (shared attention only)" : "none (use_mem_rope off)";
  m.norm_summary = "RMSNorm; gated RMSNorm in Mamba2";
  m.activation_summary = describe_activation(r, true, "gelu");  // Zamba2Config: hidden_act "gelu"
  m.layer_summary = std::to_string(layers) + " × Mamba2; " + std::to_string(uses) + " of them first run a shared transformer block" +
                    " (rank-" + std::to_string(rank) + " adapters per use" + (attn_adapters ? " on q/k/v and gate_up" : " on gate_up") +
                    ") and a per-layer linear";
  m.structure_irrelevant_fields = {"chunk_size", "time_step_min", "time_step_max", "time_step_floor", "time_step_limit",
                                   "use_mem_eff_path", "use_mamba_kernels", "num_logits_to_keep", "rms_norm_eps",
                                   "mamba_headdim", "use_conv_bias", "use_shared_mlp_adapter", "use_long_context",
                                   "attention_hidden_size", "attention_head_dim", "kv_channels", "num_query_groups",
                                   "hybrid_layer_ids", "ffn_hidden_size"};
  return m;
}

}  // namespace hfi::arch
