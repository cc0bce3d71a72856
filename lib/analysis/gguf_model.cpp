#include "analysis/gguf_model.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace hfi {
namespace {

struct ArchMapping {
  const char* gguf;        // general.architecture
  const char* model_type;  // transformers
  const char* architecture_class;
};

// Architectures whose llama.cpp tensors follow the names below. A llama with experts is Mixtral.
constexpr ArchMapping kArchitectures[] = {
    {"llama", "llama", "LlamaForCausalLM"},         {"qwen2", "qwen2", "Qwen2ForCausalLM"},
    {"qwen3", "qwen3", "Qwen3ForCausalLM"},         {"qwen2moe", "qwen2_moe", "Qwen2MoeForCausalLM"},
    {"qwen3moe", "qwen3_moe", "Qwen3MoeForCausalLM"}, {"gemma", "gemma", "GemmaForCausalLM"},
    {"gemma2", "gemma2", "Gemma2ForCausalLM"},     {"gemma3", "gemma3_text", "Gemma3ForCausalLM"},
    {"phi3", "phi3", "Phi3ForCausalLM"},           {"granite", "granite", "GraniteForCausalLM"},
    {"olmo2", "olmo2", "Olmo2ForCausalLM"},        {"smollm3", "smollm3", "SmolLM3ForCausalLM"},
    {"starcoder2", "starcoder2", "Starcoder2ForCausalLM"},
};

// "<arch>.<suffix>" -> config.json key.
struct KeyMapping {
  const char* suffix;
  const char* key;
};
constexpr KeyMapping kKeys[] = {
    {"context_length", "max_position_embeddings"},
    {"embedding_length", "hidden_size"},
    {"block_count", "num_hidden_layers"},
    {"feed_forward_length", "intermediate_size"},
    {"attention.head_count", "num_attention_heads"},
    {"attention.head_count_kv", "num_key_value_heads"},
    {"attention.key_length", "head_dim"},
    {"attention.sliding_window", "sliding_window"},
    {"expert_used_count", "num_experts_per_tok"},
    {"expert_feed_forward_length", "moe_intermediate_size"},
    {"expert_shared_feed_forward_length", "shared_expert_intermediate_size"},
    {"vocab_size", "vocab_size"},
};
constexpr KeyMapping kRealKeys[] = {
    {"rope.freq_base", "rope_theta"},
    {"attention.layer_norm_rms_epsilon", "rms_norm_eps"},
    {"attn_logit_softcapping", "attn_logit_softcapping"},
    {"final_logit_softcapping", "final_logit_softcapping"},
};

const GgufTensor* find_tensor(const GgufVariant& v, std::string_view name) {
  for (const GgufFile* f : v.parts)
    for (const auto& t : f->header.tensors)
      if (t.name == name) return &t;
  return nullptr;
}

std::string number_text(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

// The layer part of a llama.cpp tensor name -> the transformers names it may stand for, in the
// order tried: the first the spec expects wins (Gemma 2's ffn_norm is its pre-feed-forward norm,
// Llama's is post_attention_layernorm).
const std::unordered_map<std::string_view, std::vector<std::string_view>>& layer_names() {
  static const std::unordered_map<std::string_view, std::vector<std::string_view>> names = {
      {"attn_norm", {"input_layernorm"}},
      {"attn_q", {"self_attn.q_proj"}},
      {"attn_k", {"self_attn.k_proj"}},
      {"attn_v", {"self_attn.v_proj"}},
      {"attn_qkv", {"self_attn.qkv_proj"}},
      {"attn_output", {"self_attn.o_proj"}},
      {"attn_q_norm", {"self_attn.q_norm"}},
      {"attn_k_norm", {"self_attn.k_norm"}},
      {"post_attention_norm", {"post_attention_layernorm"}},
      {"ffn_norm", {"pre_feedforward_layernorm", "post_attention_layernorm"}},
      {"post_ffw_norm", {"post_feedforward_layernorm"}},
      {"ffn_gate", {"mlp.gate_proj"}},
      {"ffn_up", {"mlp.up_proj", "mlp.gate_up_proj"}},
      {"ffn_down", {"mlp.down_proj"}},
      {"ffn_gate_inp", {"mlp.gate", "block_sparse_moe.gate"}},
      {"ffn_gate_shexp", {"mlp.shared_expert.gate_proj", "mlp.shared_experts.gate_proj"}},
      {"ffn_up_shexp", {"mlp.shared_expert.up_proj", "mlp.shared_experts.up_proj"}},
      {"ffn_down_shexp", {"mlp.shared_expert.down_proj", "mlp.shared_experts.down_proj"}},
      {"ffn_gate_inp_shexp", {"mlp.shared_expert_gate"}},
  };
  return names;
}

// An expert's projection: "mlp.experts.{e}.gate_proj" (Qwen) or "block_sparse_moe.experts.{e}.w1"
// (Mixtral), for gate, up and down.
const std::unordered_map<std::string_view, std::vector<std::pair<std::string_view, std::string_view>>>& expert_names() {
  static const std::unordered_map<std::string_view, std::vector<std::pair<std::string_view, std::string_view>>> names = {
      {"ffn_gate", {{"mlp.experts.", ".gate_proj"}, {"block_sparse_moe.experts.", ".w1"}}},
      {"ffn_up", {{"mlp.experts.", ".up_proj"}, {"block_sparse_moe.experts.", ".w3"}}},
      {"ffn_down", {{"mlp.experts.", ".down_proj"}, {"block_sparse_moe.experts.", ".w2"}}},
  };
  return names;
}

struct Translated {
  std::string name;
  Shape shape;
  uint64_t elements = 0, bytes = 0;
  std::string_view format;  // the ggml type's name (static)
};

Shape hf_order(const std::vector<uint64_t>& dims, size_t drop_last = 0) {
  return Shape(dims.rbegin() + static_cast<std::ptrdiff_t>(drop_last), dims.rend());
}

uint64_t parse_number(std::string_view text, bool& ok) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  ok = ec == std::errc() && end == text.data() + text.size() && !text.empty();
  return v;
}

class Translator {
 public:
  explicit Translator(const ArchModel* spec) {
    if (!spec) return;
    for (const auto& x : spec->tensors) expected_.emplace(x.name, &x);
  }

  // One GGUF tensor -> one logical weight, or one per expert for a stacked expert tensor.
  std::vector<Translated> translate(const GgufTensor& t) const {
    auto raw = [&] { return std::vector<Translated>{{t.name, hf_order(t.dims), t.elements, t.bytes, t.type.name}}; };
    if (expected_.empty()) return raw();
    std::string_view name = t.name, suffix;
    for (std::string_view s : {".weight", ".bias"})
      if (name.ends_with(s)) {
        suffix = s;
        name.remove_suffix(s.size());
      }
    if (suffix.empty()) return raw();
    if (name == "token_embd") return one(t, {"model.embed_tokens"}, suffix);
    if (name == "output_norm") return one(t, {"model.norm"}, suffix);
    if (name == "output") return one(t, {"lm_head"}, suffix);
    if (!name.starts_with("blk.")) return raw();
    name.remove_prefix(4);
    const size_t dot = name.find('.');
    bool ok = false;
    const uint64_t layer = parse_number(name.substr(0, std::min(dot, name.size())), ok);
    if (!ok || dot == std::string_view::npos) return raw();
    const std::string prefix = "model.layers." + std::to_string(layer) + ".";
    std::string_view part = name.substr(dot + 1);
    if (part.ends_with("_exps") && t.dims.size() == 3) {
      auto it = expert_names().find(part.substr(0, part.size() - 5));
      if (it != expert_names().end()) return experts(t, prefix, it->second, suffix);
    }
    if (const size_t at = part.rfind('.'); at != std::string_view::npos) {  // an old per-expert name: blk.N.ffn_gate.E
      const uint64_t expert = parse_number(part.substr(at + 1), ok);
      auto it = expert_names().find(part.substr(0, at));
      if (ok && it != expert_names().end()) return one_expert(t, prefix, it->second, expert, suffix);
      return raw();
    }
    auto it = layer_names().find(part);
    if (it == layer_names().end()) return raw();
    std::vector<std::string> candidates;
    for (std::string_view hf : it->second) candidates.push_back(prefix + std::string(hf));
    return one(t, candidates, suffix);
  }

 private:
  // The first candidate the spec expects, with the spec's shape when the stored one only lacks
  // its unit dimensions (a router of one output stored as a vector); else the first candidate.
  std::vector<Translated> one(const GgufTensor& t, const std::vector<std::string>& candidates, std::string_view suffix) const {
    Translated out{candidates.front() + std::string(suffix), hf_order(t.dims), t.elements, t.bytes, t.type.name};
    for (const auto& c : candidates) {
      auto it = expected_.find(c + std::string(suffix));
      if (it == expected_.end()) continue;
      out.name = it->first;
      if (squeezed(it->second->shape) == squeezed(out.shape)) out.shape = it->second->shape;
      break;
    }
    return {out};
  }

  std::string expert_name(const std::string& prefix, const std::vector<std::pair<std::string_view, std::string_view>>& forms, uint64_t e,
                          std::string_view suffix) const {
    std::string first;
    for (const auto& [lead, tail] : forms) {
      std::string name = prefix + std::string(lead) + std::to_string(e) + std::string(tail) + std::string(suffix);
      if (first.empty()) first = name;
      if (expected_.count(name)) return name;
    }
    return first;  // the per-expert spelling a fused spec also takes (reconcile matches it)
  }

  std::vector<Translated> experts(const GgufTensor& t, const std::string& prefix,
                                  const std::vector<std::pair<std::string_view, std::string_view>>& forms, std::string_view suffix) const {
    const uint64_t count = t.dims[2];
    std::vector<Translated> out;
    if (count == 0) return out;
    out.reserve(static_cast<size_t>(count));
    for (uint64_t e = 0; e < count; ++e)
      out.push_back({expert_name(prefix, forms, e, suffix), hf_order(t.dims, 1), t.elements / count, t.bytes / count, t.type.name});
    return out;
  }

  std::vector<Translated> one_expert(const GgufTensor& t, const std::string& prefix,
                                     const std::vector<std::pair<std::string_view, std::string_view>>& forms, uint64_t e,
                                     std::string_view suffix) const {
    return {{expert_name(prefix, forms, e, suffix), hf_order(t.dims), t.elements, t.bytes, t.type.name}};
  }

  static std::vector<uint64_t> squeezed(const Shape& s) {
    std::vector<uint64_t> out;
    for (uint64_t d : s)
      if (d != 1) out.push_back(d);
    return out;
  }

  std::unordered_map<std::string, const ExpectedTensor*> expected_;
};

}  // namespace

Result<GgufModel> gguf_model(const GgufVariant& variant) {
  const GgufHeader& h = variant.header();
  GgufModel m;
  auto arch = h.string("general.architecture");
  if (!arch) return malformed(variant.first_file, "general.architecture", "is missing: nothing says which architecture the tensors make");
  m.architecture = *arch;
  const bool experts = h.unsigned_value(*arch + ".expert_count").value_or(0) > 0;
  const char* architecture_class = nullptr;
  for (const auto& a : kArchitectures)
    if (m.architecture == a.gguf) {
      m.model_type = a.model_type;
      architecture_class = a.architecture_class;
    }
  if (m.model_type == "llama" && experts) {
    m.model_type = "mixtral";
    architecture_class = "MixtralForCausalLM";
  }
  std::string json = "{";
  auto add = [&json](const std::string& key, const std::string& value) {
    json += (json.size() > 1 ? "," : "") + ("\"" + key + "\":") + value;
  };
  if (!m.model_type.empty()) {
    add("model_type", "\"" + m.model_type + "\"");
    add("architectures", std::string("[\"") + architecture_class + "\"]");
  }
  // llama.cpp caches keys and values in F16 unless told otherwise: the figures are given at that.
  add("torch_dtype", "\"float16\"");
  for (const auto& k : kKeys)
    if (auto v = h.unsigned_value(*arch + "." + k.suffix)) add(k.key, std::to_string(*v));
  for (const auto& k : kRealKeys)
    if (auto v = h.number(*arch + "." + k.suffix); v && std::isfinite(*v)) add(k.key, number_text(*v));
  if (experts) {
    const char* key = m.model_type == "mixtral" ? "num_local_experts" : "num_experts";
    add(key, std::to_string(*h.unsigned_value(*arch + ".expert_count")));
  }
  if (!h.find(*arch + ".vocab_size")) {
    if (const GgufTensor* embd = find_tensor(variant, "token_embd.weight"); embd && embd->dims.size() == 2)
      add("vocab_size", std::to_string(embd->dims[1]));
  }
  add("tie_word_embeddings", find_tensor(variant, "output.weight") ? "false" : "true");
  json += "}";
  auto config = ModelConfig::parse(json, variant.first_file);
  if (!config) return config.error();
  m.config = std::move(config.value());
  if (m.model_type.empty())
    m.notes.push_back("GGUF architecture '" + m.architecture +
                      "' has no mapping onto a transformers family in hfinspect: the figures come from its generic keys, the tensors are not reconciled");
  return m;
}

StorageView gguf_storage(const GgufVariant& variant, const ArchModel* spec) {
  Translator translator(spec);
  std::vector<Translated> weights;
  std::vector<std::pair<std::string, const GgufTensor*>> tables;  // llama.cpp's own, not weights
  StorageView view;
  for (const GgufFile* f : variant.parts) {
    view.file_bytes += f->size;
    for (const auto& t : f->header.tensors) {
      view.stored_elements += t.elements;
      view.stored_bytes += t.bytes;
      if (t.name == "rope_freqs.weight" || t.name == "rope_factors_long.weight" || t.name == "rope_factors_short.weight") {
        tables.emplace_back(t.name, &t);
        continue;
      }
      for (auto& w : translator.translate(t)) weights.push_back(std::move(w));
    }
  }
  auto block = std::make_shared<std::string>();
  size_t total = 0;
  for (const auto& w : weights) total += w.name.size();
  for (const auto& [name, t] : tables) total += name.size();
  block->reserve(total);
  for (const auto& w : weights) block->append(w.name);
  for (const auto& [name, t] : tables) block->append(name);
  view.names.push_back(block);
  std::string_view names = *block;
  size_t at = 0;
  auto next_name = [&](size_t n) {
    std::string_view v = names.substr(at, n);
    at += n;
    return v;
  };
  for (auto& w : weights) {
    LogicalTensor l;
    l.name = next_name(w.name.size());
    l.shape = std::move(w.shape);
    l.params = w.elements;
    l.format = w.format;
    l.stored_bytes = w.bytes;
    view.logical.push_back(std::move(l));
  }
  for (const auto& [name, t] : tables) {
    BookkeepingTensor b;
    b.name = next_name(name.size());
    b.module = b.name;
    b.kind = "rope factors";
    b.elements = t->elements;
    b.bytes = t->bytes;
    view.bookkeeping.push_back(b);
  }
  return view;
}

std::vector<std::string> compare_with_config(const ModelConfig& gguf, const ModelConfig& config_json) {
  std::vector<std::string> out;
  for (const char* key : {"hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "intermediate_size", "head_dim",
                          "vocab_size", "max_position_embeddings", "num_experts", "num_local_experts", "num_experts_per_tok",
                          "moe_intermediate_size", "sliding_window"}) {
    auto ours = gguf.integer({key});
    auto theirs = config_json.integer({key});
    if (ours && theirs && *ours != *theirs)
      out.push_back(std::string(key) + ": config.json says " + std::to_string(*theirs) + ", the GGUF " + std::to_string(*ours));
  }
  return out;
}

}  // namespace hfi
