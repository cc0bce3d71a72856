#include "arch/blocks.hpp"

#include <cstdio>

#include "core/checked.hpp"

namespace hfi::arch {

namespace {
std::string join_aliases(std::initializer_list<std::string_view> aliases) {
  std::string out;
  for (auto a : aliases) out += (out.empty() ? "" : " / ") + std::string(a);
  return out;
}

}  // namespace

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string ConfigReader::label(std::initializer_list<std::string_view> aliases) const {
  return section_ ? section_name_ + "." + join_aliases(aliases) : join_aliases(aliases);
}

bool ConfigReader::has_section(std::string_view key) const {
  const Json* s = cfg_.root().find(key);
  return s && s->is_object();
}

ConfigReader ConfigReader::section(std::string_view key) const {
  const Json* s = cfg_.root().find(key);
  if (!s || !s->is_object()) throw SpecError("config.json: object '" + std::string(key) + "' is missing");
  return ConfigReader(cfg_, s, std::string(key));
}

const Json* ConfigReader::field(std::initializer_list<std::string_view> aliases) const {
  if (!section_) return cfg_.field(aliases);
  // The text model's own object is where unknown fields are looked for: what is read there counts.
  if (section_ == &cfg_.text())
    for (auto a : aliases) cfg_.note_read(a);
  for (auto a : aliases)
    if (const Json* v = section_->find(a)) return v;
  return nullptr;
}

// Sizes, counts and widths of real models are far below 2^32 (the largest vocabularies hold about
// a million entries). A larger value is a broken or hostile config: refused by name here, it
// cannot wrap a product of sizes or be cut to 32 bits further on.
constexpr uint64_t kMostConfigInteger = UINT32_MAX;

namespace {

// `values` combined by `op` from `start`, or a SpecError naming `what` past 64 bits.
uint64_t checked_fold(std::string_view what, std::initializer_list<uint64_t> values, uint64_t start,
                      std::optional<uint64_t> (*op)(uint64_t, uint64_t)) {
  for (uint64_t v : values) {
    auto next = op(start, v);
    if (!next) throw SpecError("config.json: " + std::string(what) + " does not fit 64 bits");
    start = *next;
  }
  return start;
}

}  // namespace

uint64_t checked_product(std::string_view what, std::initializer_list<uint64_t> factors) {
  return checked_fold(what, factors, 1, checked_mul);
}

uint64_t checked_sum(std::string_view what, std::initializer_list<uint64_t> terms) { return checked_fold(what, terms, 0, checked_add); }

uint64_t ConfigReader::within_range(std::initializer_list<std::string_view> aliases, uint64_t v) const {
  if (v > kMostConfigInteger)
    throw SpecError("config.json: field '" + label(aliases) + "' is " + std::to_string(v) + ", more than any model's (at most " +
                    std::to_string(kMostConfigInteger) + ")");
  return v;
}

uint64_t ConfigReader::need(std::initializer_list<std::string_view> aliases) const {
  std::optional<int64_t> v;
  if (!section_) v = cfg_.integer(aliases);
  else if (const Json* f = field(aliases)) v = f->as_int();
  if (!v || *v <= 0) throw SpecError("config.json: field '" + label(aliases) + "' is missing or not a positive integer");
  return within_range(aliases, static_cast<uint64_t>(*v));
}

uint64_t ConfigReader::get(std::initializer_list<std::string_view> aliases, uint64_t fallback) const {
  std::optional<int64_t> v;
  // Absent or null: the default. Present, it must be an integer: a string, or a number past 64
  // bits, read as the default would be a silent wrong answer.
  if (const Json* f = field(aliases); f && !f->is_null()) {
    v = f->as_int();
    if (!v) {
      std::string text = f->dump();
      if (text.size() > 40) text = text.substr(0, 37) + "...";
      throw SpecError("config.json: field '" + label(aliases) + "' is " + text + ", not an integer in range");
    }
  }
  if (!v) return fallback;
  if (*v < 0) throw SpecError("config.json: field '" + label(aliases) + "' is negative");
  return within_range(aliases, static_cast<uint64_t>(*v));
}

bool ConfigReader::flag(std::initializer_list<std::string_view> aliases, bool fallback) const {
  if (!section_) return cfg_.boolean(aliases).value_or(fallback);
  const Json* f = field(aliases);
  return f && f->is_bool() ? f->as_bool() : fallback;
}

double ConfigReader::number(std::initializer_list<std::string_view> aliases, double fallback) const {
  if (!section_) return cfg_.number(aliases).value_or(fallback);
  const Json* f = field(aliases);
  return f && f->is_number() ? f->as_double().value_or(fallback) : fallback;
}

// Real checkpoints hold under 100k tensors, a 2816-expert DeepSeek-V3 half a million; a config of
// a few bytes can ask for billions. Past this a spec stops with an error instead of exhausting
// memory one tensor at a time.
constexpr size_t kMaxExpectedTensors = size_t{1} << 21;

void reserve_layers(ArchModel& m, uint64_t layers, uint64_t per_layer) {
  auto n = checked_mul(layers, per_layer);
  if (n && *n <= kMaxExpectedTensors) m.tensors.reserve(m.tensors.size() + static_cast<size_t>(*n) + 16);
}

void add(ArchModel& m, std::string name, Shape shape, Role role, int layer) {
  if (m.tensors.size() >= kMaxExpectedTensors)
    throw SpecError("config.json: the layer and expert counts predict more than " + std::to_string(kMaxExpectedTensors) +
                    " tensors; no published checkpoint comes close, so the config is taken as malformed");
  // Every count the report derives is a sum of these, so each is checked once here.
  std::optional<uint64_t> elements = 1;
  for (uint64_t d : shape) elements = elements ? checked_mul(*elements, d) : std::nullopt;
  if (elements) elements = checked_add(m.expected_elements, *elements);
  if (!elements)
    throw SpecError("config.json: the sizes it gives make " + name + " (or the model's total) overflow 64 bits");
  m.expected_elements = *elements;
  ExpectedTensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.role = role;
  t.layer = layer;
  m.tensors.push_back(std::move(t));
}

void add_embeddings(ArchModel& m, uint64_t vocab, uint64_t hidden, bool tied) {
  add(m, "model.embed_tokens.weight", {vocab, hidden}, Role::Embedding);
  add(m, "model.norm.weight", {hidden}, Role::Norm);
  add_lm_head(m, "lm_head", vocab, hidden, tied);
}

void add_optional_buffer(ArchModel& m, const std::string& name, Shape shape, int layer) {
  add(m, name, std::move(shape), Role::Buffer, layer);
  m.tensors.back().optional = true;
}

void add_lm_head(ArchModel& m, const std::string& name, uint64_t vocab, uint64_t hidden, bool tied, bool bias) {
  add(m, name + ".weight", {vocab, hidden}, Role::LmHead);
  m.tensors.back().optional = tied;
  if (bias) add(m, name + ".bias", {vocab}, Role::LmHead);
  m.tied_embeddings = tied;
  m.vocab_size = vocab;
  m.hidden_size = hidden;
}

void add_gqa_attention(ArchModel& m, const std::string& p, int layer, const AttentionDims& d) {
  uint64_t q = d.heads * d.head_dim, kv = d.kv_heads * d.head_dim;
  add(m, p + "q_proj.weight", {q, d.hidden}, Role::Attention, layer);
  add(m, p + "k_proj.weight", {kv, d.hidden}, Role::Attention, layer);
  add(m, p + "v_proj.weight", {kv, d.hidden}, Role::Attention, layer);
  add(m, p + "o_proj.weight", {d.hidden, q}, Role::Attention, layer);
  if (d.qkv_bias) {
    add(m, p + "q_proj.bias", {q}, Role::Attention, layer);
    add(m, p + "k_proj.bias", {kv}, Role::Attention, layer);
    add(m, p + "v_proj.bias", {kv}, Role::Attention, layer);
  }
  if (d.o_bias) add(m, p + "o_proj.bias", {d.hidden}, Role::Attention, layer);
  if (d.qk_norm) {
    add(m, p + "q_norm.weight", {d.head_dim}, Role::Attention, layer);
    add(m, p + "k_norm.weight", {d.head_dim}, Role::Attention, layer);
  }
}

MlaDims read_mla_dims(const ConfigReader& r) {
  MlaDims d;
  d.hidden = r.need({"hidden_size"});
  d.heads = r.need({"num_attention_heads"});
  // MLA caches one latent per token, not per-head keys; num_key_value_heads (= heads) is moot.
  (void)r.get({"num_key_value_heads"}, d.heads);
  d.q_lora = r.get({"q_lora_rank"}, 0);
  d.kv_lora = r.need({"kv_lora_rank"});
  d.nope = r.need({"qk_nope_head_dim"});
  d.rope = r.need({"qk_rope_head_dim"});
  d.v_dim = r.need({"v_head_dim"});
  return d;
}

void add_mla_attention(ArchModel& m, const std::string& p, int layer, const MlaDims& d) {
  uint64_t qk = d.nope + d.rope;
  if (d.q_lora > 0) {
    add(m, p + "q_a_proj.weight", {d.q_lora, d.hidden}, Role::Attention, layer);
    if (d.bias) add(m, p + "q_a_proj.bias", {d.q_lora}, Role::Attention, layer);
    add(m, p + "q_a_layernorm.weight", {d.q_lora}, Role::Attention, layer);
    add(m, p + "q_b_proj.weight", {d.heads * qk, d.q_lora}, Role::Attention, layer);
  } else {
    add(m, p + "q_proj.weight", {d.heads * qk, d.hidden}, Role::Attention, layer);
  }
  add(m, p + "kv_a_proj_with_mqa.weight", {d.kv_lora + d.rope, d.hidden}, Role::Attention, layer);
  if (d.bias) add(m, p + "kv_a_proj_with_mqa.bias", {d.kv_lora + d.rope}, Role::Attention, layer);
  add(m, p + "kv_a_layernorm.weight", {d.kv_lora}, Role::Attention, layer);
  add(m, p + "kv_b_proj.weight", {d.heads * (d.nope + d.v_dim), d.kv_lora}, Role::Attention, layer);
  add(m, p + "o_proj.weight", {d.hidden, d.heads * d.v_dim}, Role::Attention, layer);
  if (d.bias) add(m, p + "o_proj.bias", {d.hidden}, Role::Attention, layer);
}

void add_mla_layers(ArchModel& m, uint64_t layers, const MlaDims& d) {
  for (uint64_t i = 0; i < layers; ++i) {
    AttentionLayer a;
    a.kind = AttentionKind::Mla;
    a.heads = static_cast<uint32_t>(d.heads);
    a.kv_heads = static_cast<uint32_t>(d.heads);
    a.qk_dim = static_cast<uint32_t>(d.nope + d.rope);
    a.v_dim = static_cast<uint32_t>(d.v_dim);
    a.mla_latent = static_cast<uint32_t>(d.kv_lora);
    a.mla_rope = static_cast<uint32_t>(d.rope);
    m.attention.push_back(a);
  }
}

std::string describe_mla(const MlaDims& d) {
  return "MLA " + std::to_string(d.heads) + " heads, kv_lora_rank " + std::to_string(d.kv_lora) +
         (d.q_lora ? ", q_lora_rank " + std::to_string(d.q_lora) : ", no q LoRA") + ", qk " + std::to_string(d.nope) +
         "+" + std::to_string(d.rope) + " rope, v " + std::to_string(d.v_dim);
}

void add_swiglu(ArchModel& m, const std::string& p, int layer, uint64_t hidden, uint64_t inter, Role role, bool bias) {
  add(m, p + "gate_proj.weight", {inter, hidden}, role, layer);
  add(m, p + "up_proj.weight", {inter, hidden}, role, layer);
  add(m, p + "down_proj.weight", {hidden, inter}, role, layer);
  if (bias) {
    add(m, p + "gate_proj.bias", {inter}, role, layer);
    add(m, p + "up_proj.bias", {inter}, role, layer);
    add(m, p + "down_proj.bias", {hidden}, role, layer);
  }
}

void add_attention_sublayer(ArchModel& m, const std::string& p, int layer, const AttentionDims& d) {
  add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, layer);
  add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, layer);
  add_gqa_attention(m, p + "self_attn.", layer, d);
}

void finish_llama_like(ArchModel& m, const ConfigReader& r, uint64_t layers, const AttentionDims& d) {
  add_attention_layers(m, r, layers, d);
  m.attention_summary = describe_attention(d);
  m.position_summary = describe_rope(r);
  m.norm_summary = "RMSNorm";
  m.activation_summary = describe_activation(r, true);
}

void mark_routed(ArchModel& m, size_t first, uint32_t top_k, uint32_t experts) {
  for (size_t i = first; i < m.tensors.size(); ++i) {
    m.tensors[i].active_num = top_k;
    m.tensors[i].active_den = experts;
  }
}

void add_layernorm(ArchModel& m, const std::string& name, uint64_t width, int layer, bool bias, Role role) {
  add(m, name + ".weight", {width}, role, layer);
  if (bias) add(m, name + ".bias", {width}, role, layer);
}

void add_linear(ArchModel& m, const std::string& name, uint64_t out, uint64_t in, Role role, int layer, bool bias) {
  add(m, name + ".weight", {out, in}, role, layer);
  if (bias) add(m, name + ".bias", {out}, role, layer);
}

void add_swiglu_experts(ArchModel& m, const std::string& prefix, int layer, uint64_t hidden, uint64_t inter,
                        uint64_t experts, uint64_t top_k) {
  size_t first = m.tensors.size();
  for (uint64_t e = 0; e < experts; ++e)
    add_swiglu(m, prefix + std::to_string(e) + ".", layer, hidden, inter, Role::RoutedExpert);
  mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
}

void add_mixtral_moe(ArchModel& m, const std::string& prefix, int layer, uint64_t hidden, uint64_t inter,
                     uint64_t experts, uint64_t top_k) {
  add(m, prefix + "gate.weight", {experts, hidden}, Role::Router, layer);
  size_t first = m.tensors.size();
  for (uint64_t e = 0; e < experts; ++e) {
    std::string q = prefix + "experts." + std::to_string(e) + ".";
    add(m, q + "w1.weight", {inter, hidden}, Role::RoutedExpert, layer);  // gate
    add(m, q + "w2.weight", {hidden, inter}, Role::RoutedExpert, layer);  // down
    add(m, q + "w3.weight", {inter, hidden}, Role::RoutedExpert, layer);  // up
  }
  mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
}

void add_deepseek_moe(ArchModel& m, const std::string& prefix, int layer, uint64_t hidden, uint64_t inter,
                      uint64_t experts, uint64_t top_k, uint64_t shared, bool selection_bias) {
  add(m, prefix + "gate.weight", {experts, hidden}, Role::Router, layer);
  if (selection_bias) add(m, prefix + "gate.e_score_correction_bias", {experts}, Role::RoutingBias, layer);
  add_swiglu_experts(m, prefix + "experts.", layer, hidden, inter, experts, top_k);
  if (shared > 0) add_swiglu(m, prefix + "shared_experts.", layer, hidden, inter * shared, Role::SharedExpert);
}

void add_mtp_glue(ArchModel& m, const std::string& p, int layer, uint64_t vocab, uint64_t hidden, size_t first) {
  add(m, p + "embed_tokens.weight", {vocab, hidden}, Role::Mtp, layer);
  add(m, p + "enorm.weight", {hidden}, Role::Mtp, layer);
  add(m, p + "hnorm.weight", {hidden}, Role::Mtp, layer);
  add(m, p + "eh_proj.weight", {hidden, 2 * hidden}, Role::Mtp, layer);
  add(m, p + "shared_head.norm.weight", {hidden}, Role::Mtp, layer);
  add(m, p + "shared_head.head.weight", {vocab, hidden}, Role::Mtp, layer);
  for (size_t t = first; t < m.tensors.size(); ++t) m.tensors[t].mtp = true;
}

std::vector<AttentionKind> attention_kinds(const ConfigReader& r, uint64_t layers) {
  const ModelConfig& cfg = r.config();
  std::vector<AttentionKind> kinds(layers, AttentionKind::Full);
  if (const Json* types = cfg.field({"layer_types"}); types && types->is_array()) {
    if (types->items().size() != layers)
      throw SpecError("config.json: layer_types has " + std::to_string(types->items().size()) + " entries for " +
                      std::to_string(layers) + " layers");
    for (size_t i = 0; i < layers; ++i) {
      const Json& t = types->items()[i];
      std::string s = t.is_string() ? t.as_string() : "";
      if (s == "sliding_attention") kinds[i] = AttentionKind::Sliding;
      else if (s == "chunked_attention") kinds[i] = AttentionKind::Chunked;
      else if (s == "full_attention" || s == "attention") kinds[i] = AttentionKind::Full;
      else throw SpecError("config.json: layer_types[" + std::to_string(i) + "] is \"" + s + "\", not an attention kind");
    }
    return kinds;
  }
  uint64_t window = r.get({"sliding_window"}, 0);
  if (window == 0) return kinds;
  // Qwen2-style configs gate the window with use_sliding_window and max_window_layers.
  auto use = cfg.boolean({"use_sliding_window"});
  if (use.has_value() && !*use) return kinds;
  uint64_t from = use.has_value() ? r.get({"max_window_layers"}, 0) : 0;
  for (uint64_t i = from; i < layers; ++i) kinds[i] = AttentionKind::Sliding;
  return kinds;
}

AttentionLayer attention_layer(const AttentionDims& d, AttentionKind kind, uint64_t window) {
  // A layer without heads (num_key_value_heads: 0) would report a KV cache of 0 B, silently.
  if (d.heads == 0 || d.kv_heads == 0 || d.head_dim == 0)
    throw SpecError("config.json: an attention layer with " + std::to_string(d.heads) + " query heads, " + std::to_string(d.kv_heads) +
                    " key/value heads (num_key_value_heads) and head_dim " + std::to_string(d.head_dim) +
                    " cannot be; each must be at least 1");
  AttentionLayer a;
  a.kind = kind;
  a.heads = static_cast<uint32_t>(d.heads);
  a.kv_heads = static_cast<uint32_t>(d.kv_heads);
  a.qk_dim = a.v_dim = static_cast<uint32_t>(d.head_dim);
  a.window = window;
  return a;
}

void add_attention_layers(ArchModel& m, const ConfigReader& r, uint64_t layers, const AttentionDims& d) {
  auto kinds = attention_kinds(r, layers);
  uint64_t window = r.get({"sliding_window"}, 0);
  uint64_t chunk = r.get({"attention_chunk_size"}, 0);
  for (auto kind : kinds) {
    AttentionLayer a =
        attention_layer(d, kind, kind == AttentionKind::Sliding ? window : kind == AttentionKind::Chunked ? chunk : 0);
    if (a.window == 0 && kind != AttentionKind::Full) a.kind = AttentionKind::Full;
    m.attention.push_back(a);
  }
}

std::string describe_attention(const AttentionDims& d) {
  std::string kind = d.kv_heads == d.heads ? "MHA" : d.kv_heads == 1 ? "MQA" : "GQA";
  std::string out = kind + " " + std::to_string(d.heads) + "q/" + std::to_string(d.kv_heads) + "kv heads, head_dim " +
                    std::to_string(d.head_dim);
  if (d.qk_norm) out += ", QK-norm";
  if (d.qkv_bias) out += ", qkv bias";
  return out;
}

std::string describe_rope(const ConfigReader& r) {
  const ModelConfig& cfg = r.config();
  std::string out = "RoPE";
  double theta = r.number({"rope_theta"}, 0);
  const Json* scaling = cfg.field({"rope_scaling", "rope_parameters"});
  if (theta == 0 && scaling && scaling->is_object())
    if (const Json* t = scaling->find("rope_theta")) theta = t->as_double().value_or(0);
  if (theta > 0) out += " θ=" + format_number(theta);
  if (scaling && scaling->is_object()) {
    std::string type;
    for (const char* key : {"rope_type", "type"})
      if (const Json* t = scaling->find(key); t && t->is_string()) { type = t->as_string(); break; }
    if (!type.empty() && type != "default") {
      out += ", " + type + " scaling";
      if (const Json* f = scaling->find("factor"); f && f->is_number()) out += " ×" + format_number(*f->as_double());
      if (const Json* o = scaling->find("original_max_position_embeddings"); o && o->is_number())
        out += " from " + format_number(*o->as_double());
    }
  }
  if (auto ctx = cfg.integer({"max_position_embeddings"})) out += ", max " + std::to_string(*ctx) + " positions";
  return out;
}

bool architecture_has(const ConfigReader& r, std::string_view suffix) {
  for (const auto& a : r.config().architectures())
    if (a.ends_with(suffix)) return true;
  return false;
}

std::string describe_activation(const ConfigReader& r, bool gated, std::string_view fallback) {
  const Json* named = r.field({"hidden_act", "hidden_activation", "activation_function"});
  std::string act = named && named->is_string() ? named->as_string() : std::string(fallback);
  return gated ? act + " (gated: " + (act == "silu" ? "SwiGLU" : act == "gelu_pytorch_tanh" || act == "gelu" ? "GeGLU" : act + "-GLU") + ")"
               : act;
}

std::string layer_prefix(const char* stack, uint64_t i) { return std::string(stack) + std::to_string(i) + "."; }

void add_up_down_mlp(ArchModel& m, const std::string& prefix, int layer, uint64_t hidden, uint64_t inter, bool bias) {
  add_linear(m, prefix + "up_proj", inter, hidden, Role::Mlp, layer, bias);
  add_linear(m, prefix + "down_proj", hidden, inter, Role::Mlp, layer, bias);
}

}  // namespace hfi::arch
