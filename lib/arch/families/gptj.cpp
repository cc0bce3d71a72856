// EleutherAI's GPT-J (GPTJForCausalLM): GPT-2's names (transformer.wte, transformer.h.N.ln_1,
// transformer.ln_f, no position table) around a different block. One LayerNorm feeds attention and
// the MLP in parallel, and both outputs join the residual. The attention is MHA with separate
// bias-free q/k/v/out_proj; rotary embeddings turn only the first rotary_dim dimensions of each
// head, in GPT-J's interleaved pairs. The MLP is fc_in / fc_out with biases (n_inner, 4 x n_embd
// when null). The head is untied and, unlike GPT-2's, carries a bias.
//
// Checkpoints written by older transformers also store, per layer, attn.bias (the [1, 1, P, P]
// causal mask, bool) and attn.masked_bias (a rank-0 constant): optional tensors of role Buffer, as
// for gpt2 and gpt_neox; in the stored total, never active.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> gptj_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "gptj";
  m.prefix_anchor = "wte.weight";
  AttentionDims d;
  d.hidden = r.need({"n_embd", "hidden_size"});
  d.heads = r.need({"n_head", "num_attention_heads"});
  d.kv_heads = d.heads;
  d.head_dim = d.hidden / d.heads;
  if (d.head_dim == 0 || d.head_dim * d.heads != d.hidden) throw SpecError("config.json: n_embd is not a multiple of n_head");
  uint64_t layers = r.need({"n_layer", "num_hidden_layers"});
  uint64_t positions = r.get({"n_positions", "max_position_embeddings"}, 2048);
  uint64_t inter = r.get({"n_inner"}, 0);
  if (inter == 0) inter = 4 * d.hidden;
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t rotary_dim = r.get({"rotary_dim"}, 0);  // null: rotary over the whole head
  if (rotary_dim == 0 || rotary_dim > d.head_dim) rotary_dim = d.head_dim;
  bool tied = r.flag({"tie_word_embeddings"}, false);

  reserve_layers(m, layers, 14);
  add(m, "model.wte.weight", {vocab, d.hidden}, Role::Embedding);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.h." + std::to_string(i) + ".";
    add_layernorm(m, p + "ln_1", d.hidden, l);
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
      add_linear(m, p + "attn." + proj, d.hidden, d.hidden, Role::Attention, l, false);
    add_linear(m, p + "mlp.fc_in", inter, d.hidden, Role::Mlp, l, true);
    add_linear(m, p + "mlp.fc_out", d.hidden, inter, Role::Mlp, l, true);
    add_optional_buffer(m, p + "attn.bias", {1, 1, positions, positions}, l);
    add_optional_buffer(m, p + "attn.masked_bias", {}, l);
    m.attention.push_back(attention_layer(d));
  }
  add_layernorm(m, "model.ln_f", d.hidden, -1);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied, true);

  m.attention_summary = describe_attention(d) + ", no q/k/v/out bias";
  m.position_summary = "RoPE on " + std::to_string(rotary_dim) + " of " + std::to_string(d.head_dim) +
                       " head dims, interleaved (GPT-J) pairs, " + std::to_string(positions) + " positions";
  m.norm_summary = "LayerNorm with bias, one per layer shared by the parallel attention and MLP";
  m.activation_summary = describe_activation(r, false, "gelu_new") + " (fc_in/fc_out)";
  m.layer_summary = std::to_string(layers) + " × parallel (attention + dense MLP); lm_head with bias";
  m.notes.push_back("older GPT-J files store attn.bias causal masks and attn.masked_bias per layer; they are counted as stored "
                    "tensors, not parameters of the network");
  m.structure_irrelevant_fields = {"attn_pdrop", "embd_pdrop", "resid_pdrop", "layer_norm_epsilon", "rotary",
                                   "gradient_checkpointing", "scale_attn_weights", "summary_type", "summary_use_proj",
                                   "summary_activation", "summary_proj_to_labels", "summary_first_dropout",
                                   "task_specific_params", "tokenizer_class"};
  return m;
}

}  // namespace hfi::arch
