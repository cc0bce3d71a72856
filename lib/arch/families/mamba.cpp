// Pure state-space decoders, stored as transformers writes them under `backbone.`:
// backbone.embeddings, backbone.layers.N.{norm, mixer.*}, backbone.norm_f, then lm_head (tied by
// default, so a tied checkpoint stores no lm_head).
//   mamba        Mamba-1 mixers (selective scan). use_bias defaults to true in MambaConfig; the
//                released state-spaces/*-hf configs set it false.
//   falcon_mamba the same mixer and names; the RMS norms it applies to B, C and dt carry no weights
//                (their all-ones buffers are not persistent), so the layout is Mamba's with
//                use_bias defaulting to false.
//   mamba2       Mamba2 (SSD) mixers: grouped B/C, per-head dt/A/D, gated RMSNorm.
// No layer caches keys and values: each keeps a conv state and an SSM state per sequence.
#include "arch/families/families.hpp"
#include "arch/families/ssm_mixers.hpp"

namespace hfi::arch {
namespace {

// The inner width: intermediate_size when config.json writes it (transformers lets the saved
// value win over expand × hidden_size), else expand × hidden_size.
uint64_t inner_width(const ConfigReader& r, uint64_t hidden) {
  double expand = r.number({"expand"}, 2.0);
  uint64_t from_expand = static_cast<uint64_t>(expand * static_cast<double>(hidden));
  return r.get({"intermediate_size"}, from_expand);
}

// The backbone both specs share: embeddings, norm_f, the head, and per layer a pre-norm.
void add_backbone_ends(ArchModel& m, uint64_t vocab, uint64_t hidden, bool tied) {
  m.prefix_anchor = "embeddings.weight";  // backbone.embeddings.weight
  add(m, "model.embeddings.weight", {vocab, hidden}, Role::Embedding);
  add(m, "model.norm_f.weight", {hidden}, Role::Norm);
  add_lm_head(m, "lm_head", vocab, hidden, tied);
}

ArchModel mamba1_decoder(const ModelConfig& cfg, const char* family, bool bias_default) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = family;
  ssm::Mamba1Dims d;
  d.hidden = r.need({"hidden_size"});
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t vocab = r.need({"vocab_size"});
  d.d_inner = inner_width(r, d.hidden);
  d.state = r.get({"state_size"}, 16);
  d.kernel = r.get({"conv_kernel"}, 4);
  if (d.kernel == 0 || d.d_inner == 0 || d.state == 0) throw SpecError("config.json: a Mamba width is 0");
  d.dt_rank = ssm::read_dt_rank(r, {"time_step_rank"}, d.hidden);
  d.proj_bias = r.flag({"use_bias"}, bias_default);
  d.conv_bias = r.flag({"use_conv_bias"}, true);
  bool tied = r.flag({"tie_word_embeddings"}, true);  // PretrainedConfig's default; the configs omit it

  reserve_layers(m, layers, 12);
  add_backbone_ends(m, vocab, d.hidden, tied);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "norm.weight", {d.hidden}, Role::Norm, l);
    ssm::add_mamba1_mixer(m, p + "mixer.", l, d);
    m.attention.push_back(ssm::mamba1_layer(d));
  }
  m.attention_summary = std::to_string(layers) + " Mamba layers (" + ssm::describe_mamba1(d) + "), no attention";
  m.position_summary = "no positional encoding (the recurrence carries order)";
  m.norm_summary = std::string("RMSNorm") + (std::string(family) == "falcon_mamba" ? "; weightless RMSNorm on B, C and dt" : "");
  m.activation_summary = "silu (gated by z)";
  m.layer_summary = std::to_string(layers) + " × (RMSNorm + Mamba mixer), no MLP";
  // Not structural: initialisation and kernel switches, norm epsilons, residual precision. The
  // mamba_ssm leftovers of the first -hf conversions (d_model, d_inner, n_layer, rms_norm,
  // fused_add_norm, pad_vocab_size_multiple, ssm_cfg) are not read by transformers.
  m.structure_irrelevant_fields = {"layer_norm_epsilon", "mixer_rms_eps", "residual_in_fp32", "rescale_prenorm_residual",
                                   "time_step_scale", "time_step_min", "time_step_max", "time_step_init_scheme",
                                   "time_step_floor", "use_mambapy", "use_falcon_mambapy", "d_model", "d_inner",
                                   "n_layer", "rms_norm", "fused_add_norm", "pad_vocab_size_multiple", "ssm_cfg"};
  return m;
}

}  // namespace

Result<ArchModel> mamba_spec(const ModelConfig& cfg) { return mamba1_decoder(cfg, "mamba", true); }

Result<ArchModel> falcon_mamba_spec(const ModelConfig& cfg) { return mamba1_decoder(cfg, "falcon_mamba", false); }

Result<ArchModel> mamba2_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "mamba2";
  // Mamba2Config's defaults are Mamba-Codestral-7B's: 128 heads of 64, 8 groups, state 128.
  ssm::Mamba2Dims d;
  d.hidden = r.get({"hidden_size"}, 4096);
  uint64_t layers = r.get({"num_hidden_layers"}, 64);
  uint64_t vocab = r.get({"vocab_size"}, 32768);
  d.d_inner = inner_width(r, d.hidden);
  d.heads = r.get({"num_heads"}, 128);
  d.head_dim = r.get({"head_dim"}, 64);
  d.groups = r.get({"n_groups"}, 8);
  d.state = r.get({"state_size"}, 128);
  d.kernel = r.get({"conv_kernel"}, 4);
  d.proj_bias = r.flag({"use_bias"}, false);
  d.conv_bias = r.flag({"use_conv_bias"}, true);
  ssm::check_mamba2_heads(d, "mamba2");
  bool tied = r.flag({"tie_word_embeddings"}, false);

  reserve_layers(m, layers, 10);
  add_backbone_ends(m, vocab, d.hidden, tied);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "norm.weight", {d.hidden}, Role::Norm, l);
    ssm::add_mamba2_mixer(m, p + "mixer.", l, d);
    m.attention.push_back(ssm::mamba2_layer(d));
  }
  m.attention_summary = std::to_string(layers) + " Mamba2 layers (" + ssm::describe_mamba2(d) + "), no attention";
  m.position_summary = "no positional encoding (the recurrence carries order)";
  m.norm_summary = "RMSNorm; gated RMSNorm in Mamba2";
  m.activation_summary = "silu (gated by z)";
  m.layer_summary = std::to_string(layers) + " × (RMSNorm + Mamba2 mixer), no MLP";
  // Not structural: SSD chunking, dt initialisation and clamping, the norm's place relative to the
  // gate (norm_before_gate), epsilons; time_step_rank is a Mamba-1 field Mamba2 does not use, and
  // rms_norm is always on in transformers' Mamba2.
  m.structure_irrelevant_fields = {"chunk_size", "layer_norm_epsilon", "residual_in_fp32", "rescale_prenorm_residual",
                                   "time_step_min", "time_step_max", "time_step_floor", "time_step_limit",
                                   "time_step_rank", "time_step_scale", "time_step_init_scheme", "norm_before_gate",
                                   "rms_norm"};
  return m;
}

}  // namespace hfi::arch
