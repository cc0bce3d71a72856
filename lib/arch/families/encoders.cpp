// Encoder-only transformers: bert, roberta, xlm-roberta, distilbert, modernbert. What sets them apart from the
// decoder specs: attention is bidirectional and recomputed over the whole sequence on every pass,
// so there is no KV cache (ArchModel::encoder_only); the stack is not under "model." but under the
// task model's own prefix ("bert.", "roberta.", "model." for ModernBERT), found through the word
// embedding; and checkpoints carry whatever heads the class that saved them had (pooler, masked-LM
// and next-sentence heads, classifiers), so those are optional parts. The masked-LM decoder matrix
// is tied to the word embedding and normally not stored. Head transforms, poolers and classifiers
// have Role::Other: lm_head then counts only that decoder matrix, so when it is absent the FLOPs
// still include its projection (2 × vocab × hidden per token), as for a tied decoder head.
//
// BERT / RoBERTa / XLM-R: learned absolute positions (RoBERTa's start after the padding index, so
// max_position_embeddings is 514 for 512 usable tokens), token-type embeddings, post-LayerNorm
// layers with biased q/k/v, output, intermediate and output projections. TF-era BERT checkpoints
// name LayerNorm parameters gamma/beta instead of weight/bias.
// ModernBERT: fused Wqkv, GeGLU MLP (Wi holds both halves), pre-norm without biases (layer 0 has no
// attention norm: the embedding norm precedes it), RoPE with one theta for global and one for local
// layers, and global attention every global_attn_every_n_layers layers, local windows elsewhere.
// DistilBERT: six BERT layers with their own names (q_lin..., sa_layer_norm, ffn.lin1/lin2), no token
// types, no pooler.
#include "arch/blocks.hpp"
#include "arch/families/families.hpp"

#include <cstdio>

namespace hfi::arch {

namespace {

// Classifier heads name their label count through id2label (transformers defaults to 2).
uint64_t num_labels(const ConfigReader& r) {
  if (const Json* labels = r.field({"id2label"}); labels && labels->is_object() && !labels->members().empty())
    return labels->members().size();
  return r.get({"num_labels"}, 2);
}

void add_part(ArchModel& m, std::string name, Shape shape, Role role) {
  add(m, std::move(name), std::move(shape), role);
  m.tensors.back().optional = true;
  m.tensors.back().optional_part = true;
}

// LayerNorm weight and bias under `p` ("....LayerNorm."), accepting the TF-era gamma/beta names.
void add_layer_norm(ArchModel& m, const std::string& p, uint64_t hidden, Role role, int layer, bool legacy_names,
                    bool optional_part = false) {
  for (auto [leaf, old] : {std::pair{"weight", "gamma"}, std::pair{"bias", "beta"}}) {
    add(m, p + leaf, {hidden}, role, layer);
    if (legacy_names) m.last_alternatives().names.push_back(p + old);
    m.tensors.back().optional = m.tensors.back().optional_part = optional_part;
  }
}

void add_dense(ArchModel& m, const std::string& p, uint64_t out, uint64_t in, Role role, int layer, bool bias = true,
               bool optional_part = false) {
  add(m, p + "weight", {out, in}, role, layer);
  m.tensors.back().optional = m.tensors.back().optional_part = optional_part;
  if (!bias) return;
  add(m, p + "bias", {out}, role, layer);
  m.tensors.back().optional = m.tensors.back().optional_part = optional_part;
}

// The tied masked-LM decoder matrix: normally not stored; a writer that keeps a copy still matches.
void add_tied_decoder(ArchModel& m, const std::string& name, uint64_t vocab, uint64_t hidden) {
  add(m, name, {vocab, hidden}, Role::LmHead);
  m.tensors.back().optional = true;
  m.tied_embeddings = true;
}

// An encoder reads at most `longest` tokens (its position table), and every token attends over the
// whole sequence. `window` caps the attention-FLOP span there when --ctx asks for more; there is no
// cache for it to cap (encoder_only).
AttentionLayer encoder_attention(const AttentionDims& d, AttentionKind kind, uint64_t window) {
  AttentionLayer a;
  a.kind = kind;
  a.heads = a.kv_heads = static_cast<uint32_t>(d.heads);
  a.qk_dim = a.v_dim = static_cast<uint32_t>(d.head_dim);
  a.window = window;
  return a;
}

enum class BertFlavour { Bert, Roberta };

Result<ArchModel> bert_like(const ModelConfig& cfg, const char* family, BertFlavour flavour) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = family;
  m.encoder_only = true;
  m.prefix_anchor = "embeddings.word_embeddings.weight";
  AttentionDims d = read_attention_dims(r);
  d.kv_heads = d.heads;
  d.qkv_bias = d.o_bias = true;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t positions = r.need({"max_position_embeddings"});
  uint64_t types = r.get({"type_vocab_size"}, 2);
  std::string position_type = cfg.string({"position_embedding_type"}).value_or("absolute");
  bool relative = position_type == "relative_key" || position_type == "relative_key_query";
  if (!relative && position_type != "absolute")
    throw SpecError("config.json: position_embedding_type \"" + position_type + "\" is not absolute / relative_key / relative_key_query");
  if (r.flag({"is_decoder"}, false) || r.flag({"add_cross_attention"}, false))
    throw SpecError("config.json: is_decoder / add_cross_attention describe a causal BERT decoder, which this encoder spec does not cover");
  bool legacy = flavour == BertFlavour::Bert;
  m.vocab_size = vocab;
  m.hidden_size = d.hidden;

  add(m, "model.embeddings.word_embeddings.weight", {vocab, d.hidden}, Role::Embedding);
  // Stored with relative position types too (the embedding module always builds it).
  add(m, "model.embeddings.position_embeddings.weight", {positions, d.hidden}, Role::Embedding);
  if (types > 0) add(m, "model.embeddings.token_type_embeddings.weight", {types, d.hidden}, Role::Embedding);
  add_layer_norm(m, "model.embeddings.LayerNorm.", d.hidden, Role::Norm, -1, legacy);
  // A buffer older transformers versions saved (the Hub counts its int64 elements as parameters).
  add_part(m, "model.embeddings.position_ids", {1, positions}, Role::Embedding);

  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.encoder.layer." + std::to_string(i) + ".";
    for (const char* proj : {"query", "key", "value"})
      add_dense(m, p + "attention.self." + proj + ".", d.heads * d.head_dim, d.hidden, Role::Attention, l);
    if (relative)
      add(m, p + "attention.self.distance_embedding.weight", {2 * positions - 1, d.head_dim}, Role::Attention, l);
    add_dense(m, p + "attention.output.dense.", d.hidden, d.heads * d.head_dim, Role::Attention, l);
    add_layer_norm(m, p + "attention.output.LayerNorm.", d.hidden, Role::Norm, l, legacy);
    add_dense(m, p + "intermediate.dense.", inter, d.hidden, Role::Mlp, l);
    add_dense(m, p + "output.dense.", d.hidden, inter, Role::Mlp, l);
    add_layer_norm(m, p + "output.LayerNorm.", d.hidden, Role::Norm, l, legacy);
  }
  // RoBERTa numbers positions from padding_idx + 1, so two slots of its table are never used.
  uint64_t pad = flavour == BertFlavour::Roberta ? r.get({"pad_token_id"}, 1) : 0;
  if (flavour == BertFlavour::Roberta && positions <= pad + 1)
    throw SpecError("config.json: max_position_embeddings leaves no positions past the padding index");
  uint64_t longest = flavour == BertFlavour::Roberta ? positions - pad - 1 : positions;
  for (uint64_t i = 0; i < layers; ++i) m.attention.push_back(encoder_attention(d, AttentionKind::Full, longest));

  // Heads. Which ones a file holds depends on the class that saved it, not on the config
  // (bert-base-uncased says BertForMaskedLM but stores the pretraining heads and the pooler), so
  // all are optional parts; a classifier named by `architectures` is required.
  add_dense(m, "model.pooler.dense.", d.hidden, d.hidden, Role::Other, -1, true, true);
  if (flavour == BertFlavour::Bert) {
    add_dense(m, "cls.predictions.transform.dense.", d.hidden, d.hidden, Role::Other, -1, true, true);
    add_layer_norm(m, "cls.predictions.transform.LayerNorm.", d.hidden, Role::Other, -1, legacy, true);
    add_part(m, "cls.predictions.bias", {vocab}, Role::Other);
    add_part(m, "cls.predictions.decoder.bias", {vocab}, Role::Other);  // same values as cls.predictions.bias
    add_tied_decoder(m, "cls.predictions.decoder.weight", vocab, d.hidden);
    add_dense(m, "cls.seq_relationship.", 2, d.hidden, Role::Other, -1, true, true);
    if (architecture_has(r, "ForSequenceClassification") || architecture_has(r, "ForTokenClassification"))
      add_dense(m, "classifier.", num_labels(r), d.hidden, Role::Other, -1);
  } else {
    add_dense(m, "lm_head.dense.", d.hidden, d.hidden, Role::Other, -1, true, true);
    add_layer_norm(m, "lm_head.layer_norm.", d.hidden, Role::Other, -1, false, true);
    add_part(m, "lm_head.bias", {vocab}, Role::Other);
    add_part(m, "lm_head.decoder.bias", {vocab}, Role::Other);  // same values as lm_head.bias
    add_tied_decoder(m, "lm_head.decoder.weight", vocab, d.hidden);
    if (architecture_has(r, "ForSequenceClassification")) {
      add_dense(m, "classifier.dense.", d.hidden, d.hidden, Role::Other, -1);
      add_dense(m, "classifier.out_proj.", num_labels(r), d.hidden, Role::Other, -1);
    } else if (architecture_has(r, "ForTokenClassification")) {
      add_dense(m, "classifier.", num_labels(r), d.hidden, Role::Other, -1);
    }
  }

  m.attention_summary = describe_attention(d) + ", bidirectional";
  if (relative) m.position_summary = position_type + " relative position embeddings";
  else if (flavour == BertFlavour::Roberta) m.position_summary = "learned absolute positions, " + std::to_string(positions) + " slots numbered past the padding index";
  else m.position_summary = "learned absolute positions";
  m.position_summary += ", sequences of at most " + std::to_string(longest) + " tokens (attention FLOPs capped there)";
  if (types > 0) m.position_summary += ", " + std::to_string(types) + " token type" + (types == 1 ? "" : "s");
  m.norm_summary = "LayerNorm after each sublayer (post-LN)";
  m.activation_summary = describe_activation(r, false, "gelu");
  m.layer_summary = std::to_string(layers) + " × (bidirectional attention + dense MLP), encoder";
  m.structure_irrelevant_fields = {"attention_probs_dropout_prob", "hidden_dropout_prob", "classifier_dropout",
                                   "gradient_checkpointing", "output_past", "directionality", "pooler_fc_size",
                                   "pooler_num_attention_heads", "pooler_num_fc_layers", "pooler_size_per_head",
                                   "pooler_type", "id2label", "label2id", "num_labels", "problem_type"};
  return m;
}

double rope_theta_of(const ConfigReader& r, const char* legacy_key, const char* kind, double fallback) {
  if (const Json* params = r.field({"rope_parameters"}); params && params->is_object())
    if (const Json* k = params->find(kind); k && k->is_object())
      if (const Json* t = k->find("rope_theta"); t && t->is_number()) return t->as_double().value_or(fallback);
  return r.number({legacy_key}, fallback);
}

}  // namespace

Result<ArchModel> modernbert_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "modernbert";
  m.encoder_only = true;
  m.prefix_anchor = "embeddings.tok_embeddings.weight";
  AttentionDims d = read_attention_dims(r);
  d.kv_heads = d.heads;
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  bool mlp_bias = r.flag({"mlp_bias"}, false);
  bool norm_bias = r.flag({"norm_bias"}, false);
  bool classifier_bias = r.flag({"classifier_bias"}, false);
  bool decoder_bias = r.flag({"decoder_bias"}, true);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t positions = r.need({"max_position_embeddings"});
  uint64_t every = r.get({"global_attn_every_n_layers"}, 1);
  uint64_t local = r.get({"local_attention"}, 0);
  m.vocab_size = vocab;
  m.hidden_size = d.hidden;

  auto norm = [&](const std::string& p, int layer, bool part = false) {
    add(m, p + "weight", {d.hidden}, part ? Role::Other : Role::Norm, layer);
    m.tensors.back().optional = m.tensors.back().optional_part = part;
    if (!norm_bias) return;
    add(m, p + "bias", {d.hidden}, part ? Role::Other : Role::Norm, layer);
    m.tensors.back().optional = m.tensors.back().optional_part = part;
  };
  add(m, "model.embeddings.tok_embeddings.weight", {vocab, d.hidden}, Role::Embedding);
  norm("model.embeddings.norm.", -1);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    if (i != 0) norm(p + "attn_norm.", l);  // layer 0 reads the embedding norm's output directly
    add_dense(m, p + "attn.Wqkv.", 3 * d.heads * d.head_dim, d.hidden, Role::Attention, l, d.qkv_bias);
    add_dense(m, p + "attn.Wo.", d.hidden, d.heads * d.head_dim, Role::Attention, l, d.o_bias);
    norm(p + "mlp_norm.", l);
    add_dense(m, p + "mlp.Wi.", 2 * inter, d.hidden, Role::Mlp, l, mlp_bias);  // GeGLU: input and gate halves
    add_dense(m, p + "mlp.Wo.", d.hidden, inter, Role::Mlp, l, mlp_bias);
  }
  norm("model.final_norm.", -1);

  // Prediction head shared by the masked-LM and classifier classes, then their own outputs.
  add_dense(m, "head.dense.", d.hidden, d.hidden, Role::Other, -1, classifier_bias, true);
  norm("head.norm.", -1, true);
  if (decoder_bias) add_part(m, "decoder.bias", {vocab}, Role::Other);
  add_tied_decoder(m, "decoder.weight", vocab, d.hidden);
  m.tied_embeddings = r.flag({"tie_word_embeddings"}, true);
  if (!m.tied_embeddings) m.tensors.back().optional = false;
  if (architecture_has(r, "ForSequenceClassification") || architecture_has(r, "ForTokenClassification"))
    add_dense(m, "classifier.", num_labels(r), d.hidden, Role::Other, -1);

  // Global layers attend over the whole sequence; local ones over the keys within local_attention / 2
  // positions either side of the token, itself included: local_attention + 1 keys (129 for 128).
  std::vector<AttentionKind> kinds(layers, AttentionKind::Full);
  if (r.field({"layer_types"})) kinds = attention_kinds(r, layers);
  else if (every > 0 && local > 0)
    for (uint64_t i = 0; i < layers; ++i) kinds[i] = i % every == 0 ? AttentionKind::Full : AttentionKind::Sliding;
  uint64_t sliding = 0;
  for (auto kind : kinds) {
    bool is_local = kind == AttentionKind::Sliding && local > 0;
    sliding += is_local;
    m.attention.push_back(encoder_attention(d, is_local ? AttentionKind::Sliding : AttentionKind::Full,
                                            is_local ? local / 2 * 2 + 1 : positions));
  }

  double global_theta = rope_theta_of(r, "global_rope_theta", "full_attention", 160000.0);
  double local_theta = rope_theta_of(r, "local_rope_theta", "sliding_attention", 10000.0);
  m.attention_summary = describe_attention(d) + ", bidirectional; " + std::to_string(layers - sliding) + " global + " +
                        std::to_string(sliding) + " local (window " + std::to_string(local) + ")";
  m.position_summary = "RoPE θ=" + format_number(global_theta) + " global / " + format_number(local_theta) + " local, max " +
                       std::to_string(positions) + " positions";
  m.norm_summary = std::string("LayerNorm before each sublayer (pre-LN)") + (norm_bias ? "" : ", no biases");
  m.activation_summary = describe_activation(r, true, "gelu");
  m.layer_summary = std::to_string(layers) + " × (bidirectional attention + GeGLU MLP), encoder";
  m.structure_irrelevant_fields = {"attention_dropout", "classifier_activation", "classifier_dropout", "classifier_pooling",
                                   "cls_token_id", "sep_token_id", "deterministic_flash_attn", "embedding_dropout",
                                   "gradient_checkpointing", "initializer_cutoff_factor", "mlp_dropout", "norm_eps",
                                   "position_embedding_type", "reference_compile", "repad_logits_with_grad",
                                   "sparse_prediction", "sparse_pred_ignore_index", "id2label", "label2id",
                                   "num_labels", "problem_type"};
  return m;
}

// DistilBERT: BERT-base halved in depth, pre-named q/k/v/out_lin and ffn.lin1/lin2, no token types
// and no pooler; its masked-LM head is vocab_transform + vocab_layer_norm + vocab_projector.
Result<ArchModel> distilbert_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "distilbert";
  m.encoder_only = true;
  m.prefix_anchor = "embeddings.word_embeddings.weight";
  AttentionDims d;
  d.hidden = r.need({"dim", "hidden_size"});
  d.heads = d.kv_heads = r.need({"n_heads", "num_attention_heads"});
  if (d.hidden % d.heads) throw SpecError("config.json: dim is not a multiple of n_heads");
  d.head_dim = d.hidden / d.heads;
  d.qkv_bias = d.o_bias = true;
  uint64_t layers = r.need({"n_layers", "num_hidden_layers"});
  uint64_t inter = r.need({"hidden_dim", "intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t positions = r.need({"max_position_embeddings"});
  bool sinusoidal = r.flag({"sinusoidal_pos_embds"}, false);
  m.vocab_size = vocab;
  m.hidden_size = d.hidden;

  add(m, "model.embeddings.word_embeddings.weight", {vocab, d.hidden}, Role::Embedding);
  // Sinusoidal tables are still an nn.Embedding filled at init, so they are stored either way.
  add(m, "model.embeddings.position_embeddings.weight", {positions, d.hidden}, Role::Embedding);
  add_layer_norm(m, "model.embeddings.LayerNorm.", d.hidden, Role::Norm, -1, false);
  add_part(m, "model.embeddings.position_ids", {1, positions}, Role::Embedding);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.transformer.layer." + std::to_string(i) + ".";
    for (const char* proj : {"q_lin", "k_lin", "v_lin", "out_lin"})
      add_dense(m, p + "attention." + proj + ".", d.hidden, d.hidden, Role::Attention, l);
    add_layer_norm(m, p + "sa_layer_norm.", d.hidden, Role::Norm, l, false);
    add_dense(m, p + "ffn.lin1.", inter, d.hidden, Role::Mlp, l);
    add_dense(m, p + "ffn.lin2.", d.hidden, inter, Role::Mlp, l);
    add_layer_norm(m, p + "output_layer_norm.", d.hidden, Role::Norm, l, false);
  }
  for (uint64_t i = 0; i < layers; ++i) m.attention.push_back(encoder_attention(d, AttentionKind::Full, positions));

  add_dense(m, "vocab_transform.", d.hidden, d.hidden, Role::Other, -1, true, true);
  add_layer_norm(m, "vocab_layer_norm.", d.hidden, Role::Other, -1, false, true);
  add_part(m, "vocab_projector.bias", {vocab}, Role::Other);
  add_tied_decoder(m, "vocab_projector.weight", vocab, d.hidden);
  if (architecture_has(r, "ForSequenceClassification") || architecture_has(r, "ForMultipleChoice"))
    add_dense(m, "pre_classifier.", d.hidden, d.hidden, Role::Other, -1);
  if (architecture_has(r, "ForSequenceClassification") || architecture_has(r, "ForTokenClassification"))
    add_dense(m, "classifier.", num_labels(r), d.hidden, Role::Other, -1);
  else if (architecture_has(r, "ForMultipleChoice"))
    add_dense(m, "classifier.", 1, d.hidden, Role::Other, -1);
  else if (architecture_has(r, "ForQuestionAnswering"))
    add_dense(m, "qa_outputs.", 2, d.hidden, Role::Other, -1);

  m.attention_summary = describe_attention(d) + ", bidirectional";
  m.position_summary = std::string(sinusoidal ? "sinusoidal" : "learned") + " absolute positions, sequences of at most " +
                       std::to_string(positions) + " tokens (attention FLOPs capped there)";
  m.norm_summary = "LayerNorm after each sublayer (post-LN)";
  std::string act = cfg.string({"activation"}).value_or("gelu");
  m.activation_summary = act;
  m.layer_summary = std::to_string(layers) + " × (bidirectional attention + dense MLP), encoder";
  m.structure_irrelevant_fields = {"dropout", "attention_dropout", "qa_dropout", "seq_classif_dropout", "output_past",
                                   "tie_weights_", "id2label", "label2id", "num_labels", "problem_type",
                                   "finetuning_task"};
  return m;
}

Result<ArchModel> bert_spec(const ModelConfig& cfg) { return bert_like(cfg, "bert", BertFlavour::Bert); }
Result<ArchModel> roberta_spec(const ModelConfig& cfg) { return bert_like(cfg, "roberta", BertFlavour::Roberta); }
Result<ArchModel> xlm_roberta_spec(const ModelConfig& cfg) { return bert_like(cfg, "xlm-roberta", BertFlavour::Roberta); }

}  // namespace hfi::arch
