// The analysis step: a Snapshot becomes a Report, one stage after the other: the architecture
// spec from config.json, the stored tensors as logical weights, the match against the spec, the
// quantization audit, then the figures (parameters, FLOPs, KV cache, memory) and the config
// fields nothing explained.
#include "pipeline/analyse.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "analysis/gguf_model.hpp"
#include "analysis/index_check.hpp"
#include "core/checked.hpp"
#include "formats/config_defaults.hpp"
#include "quant/declared.hpp"
#include "report/format.hpp"

namespace hfi {
namespace {

// Config keys that never change the tensor layout or the per-token cost: bookkeeping written by
// every transformers version. Anything else a spec does not read is reported as unknown.
const std::set<std::string> kStructureIrrelevant = {
    "_name_or_path", "architectures", "model_type", "torch_dtype", "dtype", "transformers_version",
    "bos_token_id", "eos_token_id", "pad_token_id", "initializer_range", "use_cache", "rms_norm_eps",
    "layer_norm_eps", "attention_dropout", "hidden_dropout", "dropout", "auto_map", "output_router_logits",
    "router_aux_loss_coef", "aux_loss_alpha", "seq_aux", "pretraining_tp", "tie_word_embeddings",
    "max_position_embeddings", "rope_theta", "rope_scaling", "rope_parameters", "hidden_act",
    "quantization_config", "compression_config", "text_config", "vision_config", "audio_config", "is_llama_config",
    "rope_interleaved", "ep_size", "norm_topk_prob", "routed_scaling_factor", "scoring_func", "topk_group",
    "n_group", "topk_method", "initial_context_length", "swiglu_limit", "use_sliding_window",
    "max_window_layers", "sliding_window", "layer_types", "mlp_only_layers", "decoder_sparse_step",
    "qkv_bias", "attention_bias", "mlp_bias", "head_dim", "experts_per_token", "router_jitter_noise",
};

bool is_default_like(const Json& v) {
  return v.is_null() || (v.is_bool() && !v.as_bool()) || (v.is_array() && v.items().empty()) ||
         (v.is_object() && v.members().empty());
}


std::string join(std::initializer_list<std::string> parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts)
    if (!p.empty()) out += (out.empty() ? "" : sep) + p;
  return out;
}

// A model_type without a spec whose architectures class is a registered family's
// (model_type "my_llama" with LlamaForCausalLM): that family, the one it was derived from.
const SpecEntry* spec_by_architecture(const ModelConfig& config, std::string& used) {
  for (const std::string& cls : config.architectures()) {
    std::string_view base = cls;
    for (std::string_view suffix : {"ForCausalLM", "ForConditionalGeneration", "LMHeadModel"})
      if (base.ends_with(suffix)) {
        base.remove_suffix(suffix.size());
        for (const std::string& type : supported_model_types())
          if (squashed_name(type) == squashed_name(base)) {
            used = cls;
            return find_spec(type);
          }
      }
  }
  return nullptr;
}

// A multimodal family with its own spec (gemma3, llama4) is found by its root model_type; one
// without (a VLM around a known text model) by its language model's model_type; a type without a
// spec by the family its architectures class names (`borrowed_from` says which class). None: no
// spec.
std::optional<Result<ArchModel>> build_spec(const ModelConfig& config, std::string& borrowed_from) {
  const SpecEntry* entry = find_spec(config.model_type());
  if (!entry) entry = find_spec(config.text_model_type());
  if (!entry) entry = spec_by_architecture(config, borrowed_from);
  if (!entry) return std::nullopt;
  return entry->build(config);
}

// Python's json module keeps the last of a repeated key, and so does hfinspect; a reader that
// keeps the first would see another model, so each repeat is said.
void note_repeated_keys(const Snapshot& snap, Report& r) {
  auto note = [&r](const char* file, const std::vector<std::string>& keys) {
    for (const auto& key : keys)
      r.notes.push_back(std::string(file) + " repeats the key " + key + ": its last value is read, as Python's json module does");
  };
  if (snap.config) note("config.json", snap.config->repeated_keys());
  if (snap.generation) note("generation_config.json", snap.generation->repeated_keys);
  if (snap.tokenizer) note("tokenizer_config.json", snap.tokenizer->repeated_keys);
}

// Whether tensors were read: safetensors headers, or a GGUF variant's tensor infos.
bool tensors_read(const Report& r) { return counted_from_tensors(r.params_source); }

// Copies what the files say as they are, and decodes the stored tensors.
void read_files(const Snapshot& snap, Report& r) {
  r.commit = snap.commit;
  r.source_kind = snap.source_kind;
  r.location = snap.location;
  r.generation = snap.generation;
  r.tokenizer = snap.tokenizer;
  r.notes = snap.notes;
  note_repeated_keys(snap, r);
  r.other_weight_files = snap.other_weight_files;
  r.storage = decode_storage(snap.shards);
  r.index_mismatches = find_index_mismatches({snap.index ? &*snap.index : nullptr, snap.index_path, snap.shards});
  if (snap.index) r.index_total_size = snap.index->total_size;
  r.shard_count = snap.shards.size();
  for (const auto& s : snap.shards) r.tensor_count += s.header.tensors.size();
  if (!snap.shards.empty()) r.params_source = ParamsSource::Safetensors;
}

// Once decoded and checked, the headers' tensor lists and the index have told all they hold: at
// half a million tensors they are a third of the peak memory. The names stay, viewed by the
// storage. Without headers the index is still to be reconciled, so it stays.
void release_decoded(Snapshot& snap) {
  if (snap.shards.empty()) return;
  for (auto& s : snap.shards) std::vector<TensorInfo>().swap(s.header.tensors);
  snap.index.reset();
}

// The architecture: what config.json names, and the spec built from it (read through `cfg`,
// whose keys_read() then say what the spec used).
Status describe_architecture(const ModelConfig* cfg, const DeclaredQuantization& declared, Report& r) {
  if (!cfg) {
    r.notes.push_back("no config.json: the report is built from the safetensors headers alone");
    return Ok{};
  }
  std::string borrowed_from;
  auto built = build_spec(*cfg, borrowed_from);
  r.config = *cfg;
  r.model_type = cfg->model_type();
  r.text_model_type = cfg->text_model_type();
  r.architectures = cfg->architectures();
  r.quant_method = declared.config_quant_method;
  if (built && !*built) return built->error();
  if (built) {
    r.spec = std::move(built->value());
    r.family = r.spec->family;
    // The safety checker's CLIPConfig carries a text_config its model never builds.
    if (r.spec->tokens_are_image_patches) r.text_model_type = r.model_type;
    if (!borrowed_from.empty())
      r.notes.push_back((r.model_type.empty() ? std::string("config.json names no model_type") : "no spec for model_type '" + r.model_type + "'") +
                        ": read with the " + r.family + " spec, which its architectures class " + borrowed_from +
                        " names (reconcile shows whether the layout agrees)");
    r.notes.insert(r.notes.end(), r.spec->notes.begin(), r.spec->notes.end());  // e.g. the vision tower
  } else if (!r.gguf) {  // a GGUF's own note says which architecture has no mapping
    r.notes.push_back("no architecture spec for model_type '" + r.model_type + "'" +
                      (r.text_model_type != r.model_type ? " nor '" + r.text_model_type + "'" : std::string()) +
                      ": totals come from the headers alone, the structure is inferred from tensor names");
  }
  if (r.spec) {
    const ArchModel& spec = *r.spec;
    r.summary = join({spec.attention_summary, spec.position_summary, spec.norm_summary, spec.activation_summary,
                      spec.head_summary(), spec.layer_summary},
                     "; ");
  }
  return Ok{};
}

// The stored tensors against the spec, and the parameters they hold; without headers, what the
// config formula and the index say instead.
void count_parameters(const Snapshot& snap, uint32_t weight_bytes, Report& r) {
  const ArchModel* spec = r.spec ? &*r.spec : nullptr;
  const bool stored = tensors_read(r);
  if (!stored && !snap.index) {
    const bool pickles = std::any_of(r.other_weight_files.begin(), r.other_weight_files.end(), [](const std::string& f) {
      return f.ends_with(".bin") || f.ends_with(".pt") || f.ends_with(".pth") || f.ends_with(".ckpt");
    });
    r.notes.push_back(r.other_weight_files.empty()
                          ? "no safetensors weights found: parameter totals are from the config formula only"
                      : pickles
                          ? "the weights are only in " + first_and_others(r.other_weight_files) +
                                ": pickled PyTorch files, which hfinspect never opens (loading a pickle runs code), so the parameter "
                                "totals and the weights' size are the config formula's"
                          : "weights are only in " + first_and_others(r.other_weight_files) +
                                ", whose headers hfinspect does not read: parameter totals are from the config formula only");
  }
  r.reconcile = reconcile(spec, r.storage);  // also files AutoGPTQ's all-zero bias buffers as bookkeeping
  if (stored) r.reconcile.source = ReconcileSource::Headers;
  if (!spec && r.params_source == ParamsSource::Safetensors) r.inferred = infer_structure(r.storage);
  r.params = compute_params(spec, r.storage, r.reconcile);
  if (!spec && !stored && r.index_total_size && weight_bytes > 0) {
    // Nothing to count and no formula: the index's total_size at torch_dtype, and said to be so.
    r.params.total = *r.index_total_size / weight_bytes;
    r.params.non_embedding = r.params.total;
    r.params_source = ParamsSource::IndexTotalSize;
  }
  if (!spec) return;
  ParamBreakdown formula = formula_params(*spec);
  r.formula_total = formula.total;
  r.formula_active = formula.active;
  if (stored) return;
  // No headers to count: the config formula is the best figure there is, and says so.
  r.params_source = ParamsSource::Formula;
  r.params = formula;
  r.reconcile = Reconciliation{};
  r.reconcile.status = ReconcileStatus::NoWeights;
  if (!snap.index) return;
  r.index_reconcile = reconcile_index(*spec, *snap.index, weight_bytes, r.reconcile);
  // What the index lists is what the repo stores: a tied head or a buffer it lists counts.
  r.params = formula_params(*spec, r.index_reconcile->listed_optional);
}

void audit_quantization(const DeclaredQuantization& declared, Report& r) {
  const auto& declarations = declared.declarations;
  if (!declarations.empty() || !r.storage.quant_modules.empty() || !r.storage.bookkeeping.empty())
    r.quant = audit_quantization(declarations, r.storage, r.spec ? &*r.spec : nullptr, r.reconcile, r.params.total);
  if (!r.quant_method && !declarations.empty()) r.quant_method = declarations.front().quant_method;
}

// An encoder whose every attention layer is capped by its position table (a CLIP or SigLIP text
// tower whose config leaves max_position_embeddings to the class default) reads at most that many
// tokens; 0 when some layer has no such cap or the model is not an encoder.
uint64_t longest_encoder_input(const ArchModel* spec) {
  if (!spec || !spec->encoder_only) return 0;
  uint64_t longest = 0;
  for (const auto& a : spec->attention) {
    if (a.kind == AttentionKind::None) continue;
    if (a.window == 0) return 0;
    longest = std::max(longest, a.window);
  }
  return longest;
}

// The context the figures are given at: --ctx, else the maximum the config declares, else
// kDefaultContext. Either way the declared maximum is kept, and a --ctx past it is said. MPT and
// DBRX call it max_seq_len (MPT's ALiBi refuses a longer sequence unless the config is raised).
uint64_t resolve_context(const ModelConfig* cfg, const ReportOptions& options, Report& r) {
  // An image model's tokens are its patches, which no max_position_embeddings of a text side bounds.
  if (r.spec && r.spec->tokens_are_image_patches) return options.context.value_or(longest_encoder_input(&*r.spec));
  if (cfg)
    if (auto max = cfg->integer({"max_position_embeddings", "n_positions", "max_sequence_length", "seq_length", "max_seq_len"}); max && *max > 0)
      r.max_context = static_cast<uint64_t>(*max);
  if (options.context) {
    if (r.max_context && *options.context > *r.max_context)
      r.notes.push_back("--ctx " + with_commas(*options.context) + " is past the " + with_commas(*r.max_context) +
                        " positions the config declares");
    return *options.context;
  }
  if (r.max_context) return *r.max_context;
  if (uint64_t longest = longest_encoder_input(r.spec ? &*r.spec : nullptr)) return longest;
  if (r.spec && !r.spec->encoder_only)
    r.notes.push_back("config.json declares no maximum context: the figures are at " + with_commas(kDefaultContext) +
                      " tokens (--ctx sets another)");
  return kDefaultContext;
}

// A recurrent layer's state: the conv inputs in torch_dtype, the SSM state in mamba_ssm_dtype when
// the config names one (what vLLM's mamba_ssm_cache_dtype "auto" takes).
StateDtypes state_dtypes(const ModelConfig* cfg) {
  StateDtypes s;
  s.conv_bytes = torch_dtype_bytes(cfg);
  s.ssm_bytes = s.conv_bytes;
  if (cfg)
    if (auto name = cfg->string({"mamba_ssm_dtype"}))
      if (auto b = kv_dtype_bytes(*name)) s.ssm_bytes = *b;
  return s;
}

// The KV cache's element size: --kv-dtype, else the KV scheme the quantization config declares
// (what an engine allocates unless told otherwise), else torch_dtype.
Result<uint32_t> resolve_kv_dtype(const ModelConfig* cfg, const ReportOptions& options, Report& r) {
  uint32_t bytes = torch_dtype_bytes(cfg);
  r.kv_dtype = cfg ? cfg->string({"torch_dtype", "dtype"}).value_or("bfloat16") : "bfloat16";
  if (r.quant && r.quant->kv_cache_dtype)
    if (auto b = kv_dtype_bytes(*r.quant->kv_cache_dtype)) {
      bytes = *b;
      r.kv_dtype = *r.quant->kv_cache_dtype + " (declared KV-cache scheme)";
    }
  if (options.kv_dtype && *options.kv_dtype != "auto") {
    auto b = kv_dtype_bytes(*options.kv_dtype);
    if (!b) return Error{ErrorKind::Usage, "--kv-dtype", "", "unknown dtype '" + *options.kv_dtype + "'", "use auto, bf16, fp16, fp8 or fp32"};
    bytes = *b;
    r.kv_dtype = *options.kv_dtype;
  }
  return bytes;
}

// The weights' bytes: as the headers give them, else the index's total_size, else the config
// formula's parameters at torch_dtype (an estimate, and said to be one).
void weight_bytes(const ModelConfig* cfg, Report& r) {
  r.memory.weight_bytes = r.storage.stored_bytes;
  r.memory.weight_source = WeightSource::Headers;
  if (tensors_read(r)) return;
  if (r.index_total_size) {
    r.memory.weight_bytes = *r.index_total_size;
    r.memory.weight_source = WeightSource::IndexTotalSize;
  } else if (r.formula_total) {
    // formula_total × a dtype's size: both bounded (the spec's elements fit 64 bits, 4 bytes at most)
    // yet the product may not; saturate rather than wrap, it is an estimate.
    r.memory.weight_bytes = checked_mul(*r.formula_total, torch_dtype_bytes(cfg)).value_or(UINT64_MAX);
    r.memory.weight_source = WeightSource::Formula;
  }
}

// Without a spec, what the generic fields give: every layer a full-attention layer of
// num_key_value_heads × head_dim (hidden_size / heads when absent), and FLOPs of a dense model.
// Labelled inferred; left at 0 when the fields are not there or do not fit 64 bits.
void infer_figures(const ModelConfig& cfg, uint64_t context, uint32_t kv_bytes, Report& r) {
  const auto layers = cfg.integer({"num_hidden_layers", "n_layer", "num_layers"});
  const auto heads = cfg.integer({"num_attention_heads", "n_head"});
  const auto hidden = cfg.integer({"hidden_size", "n_embd", "d_model"});
  if (!layers || !heads || *layers <= 0 || *heads <= 0 || *layers > (1 << 20)) return;
  const auto kv_heads = cfg.integer({"num_key_value_heads", "num_kv_heads"}).value_or(*heads);
  const auto head_dim = cfg.integer({"head_dim"}).value_or(hidden ? *hidden / *heads : 0);
  if (kv_heads <= 0 || head_dim <= 0) return;
  auto per_token = checked_mul(static_cast<uint64_t>(*layers), static_cast<uint64_t>(kv_heads));
  if (per_token) per_token = checked_mul(*per_token, 2 * static_cast<uint64_t>(head_dim));
  if (per_token) per_token = checked_mul(*per_token, kv_bytes);
  auto at_context = per_token ? checked_mul(*per_token, context) : std::nullopt;
  auto attention = checked_mul(4 * static_cast<uint64_t>(*layers), static_cast<uint64_t>(*heads));
  if (attention) attention = checked_mul(*attention, static_cast<uint64_t>(head_dim));
  if (attention) attention = checked_mul(*attention, context);
  if (!at_context || !attention) return;
  r.kv.bytes_per_token = *per_token;
  r.kv.bytes_at_context = *at_context;
  r.kv.attention_layers = static_cast<uint32_t>(*layers);
  r.kv.inferred = true;
  r.flops.attention = *attention;
  const bool experts = r.inferred && r.inferred->experts > 0;
  if (!experts) r.flops.fixed = checked_mul(r.params.total, 2).value_or(0);
  r.notes.push_back(std::string("no spec: the KV cache is inferred from num_hidden_layers, num_key_value_heads and head_dim as if every layer "
                                "were full attention") +
                    (experts ? "; the fixed FLOPs are not (the experts' routing is unknown)" : ", the fixed FLOPs as if every parameter were active"));
}

// FLOPs per token, the KV cache at the context asked for, and the memory both take.
Status compute_figures(const ModelConfig* cfg, const ReportOptions& options, Report& r) {
  const ArchModel* spec = r.spec ? &*r.spec : nullptr;
  const uint64_t context = resolve_context(cfg, options, r);
  auto kv_bytes = resolve_kv_dtype(cfg, options, r);
  if (!kv_bytes) return kv_bytes.error();
  // A context the user did not give is the config's: an overflow there names the field.
  auto named = [&](Error e) {
    if (!options.context) {
      e.kind = ErrorKind::Malformed;
      e.file = "config.json";
      e.field = "max_position_embeddings";
      e.hint = "--ctx gives a context to report at";
    }
    return e;
  };
  auto flops = compute_flops(spec, r.params, context);
  if (!flops) return named(flops.error());
  r.flops = *flops;
  auto kv = compute_kv_cache(spec, context, *kv_bytes, state_dtypes(cfg));
  if (!kv) return named(kv.error());
  r.kv = *kv;
  if (!spec && cfg) infer_figures(*cfg, context, *kv_bytes, r);
  weight_bytes(cfg, r);
  r.memory.batch = options.batch;
  auto per_sequence = checked_add(r.kv.bytes_at_context, r.kv.recurrent_state_bytes);
  auto kv_total = per_sequence ? checked_mul(*per_sequence, options.batch) : std::nullopt;
  auto total = kv_total ? checked_add(r.memory.weight_bytes, *kv_total) : std::nullopt;
  if (!total)
    return named(Error{ErrorKind::Usage, "--ctx", std::to_string(context), "the memory total at this context and batch overflows 64 bits",
                       "give a context and batch the model can hold"});
  r.memory.kv_bytes = *kv_total;
  r.memory.total_bytes = *total;
  return Ok{};
}

bool is_spec_irrelevant(const ArchModel& spec, const std::string& key) {
  return std::find(spec.structure_irrelevant_fields.begin(), spec.structure_irrelevant_fields.end(), key) !=
         spec.structure_irrelevant_fields.end();
}

// config.json fields the spec neither read nor knows to be irrelevant (the text model's level,
// then the root's), and the side files' keys hfinspect does not know.
void find_unknown_fields(const ModelConfig* cfg, Report& r) {
  // Each line lookup scans the file: only the first fields get one, so a config of a million junk
  // keys stays linear. The names already reported are a set for the same reason.
  constexpr size_t kFieldsWithLines = 256;
  std::set<std::string> reported;
  if (cfg && r.spec) {
    for (const Json* obj : {&cfg->text(), &cfg->root()}) {
      for (const auto& member : obj->members()) {
        const std::string& key = member.first;  // named, not bound: clang 14 cannot capture a binding
        const Json& value = member.second;
        if (kStructureIrrelevant.count(key) || cfg->keys_read().count(key) || is_default_like(value)) continue;
        if (const Json* unset = pretrained_config_defaults().find(key); unset && *unset == value) continue;
        if (is_spec_irrelevant(*r.spec, key)) continue;
        if (reported.count(key)) continue;
        if (obj == &cfg->root() && cfg->has_text_config() && key.ends_with("_config")) continue;
        reported.insert(key);
        std::optional<size_t> line;
        if (r.unknown_fields.size() < kFieldsWithLines) line = cfg->line_of(key, obj != &cfg->root());
        r.unknown_fields.push_back({key, value, "config.json", line});
      }
      if (!cfg->has_text_config()) break;
    }
  }
  // Side files: reported whatever the spec, since an engine reads them for every model.
  if (r.generation)
    for (const auto& [key, value] : r.generation->unrecognized)
      if (!is_default_like(value)) r.unknown_fields.push_back({key, value, "generation_config.json"});
  if (r.tokenizer)
    for (const auto& [key, value] : r.tokenizer->unrecognized)
      if (!is_default_like(value)) r.unknown_fields.push_back({key, value, "tokenizer_config.json"});
}

// A PEFT adapter: its pairs against the base's linear layers, when the base's config is at hand.
void check_adapter(const AdapterConfig& adapter, const ReportOptions& options, Report& r) {
  std::optional<ArchModel> base;
  if (options.adapter_base) {
    std::string borrowed;
    if (auto built = build_spec(*options.adapter_base, borrowed); built && *built) base = std::move(built->value());
    else r.notes.push_back("the base model's config has no spec hfinspect knows: the adapter's pairs are checked for their ranks only");
  }
  r.adapter = analyse_adapter(adapter, r.storage, base ? &*base : nullptr);
  if (!options.adapter_base)
    r.notes.push_back("a PEFT adapter" + (adapter.base_model.empty() ? std::string() : " of " + adapter.base_model) +
                      ": without the base model's config (--base DIR or org/name) only its ranks are checked");
}


GgufSummary summarize_variants(const std::vector<GgufVariant>& variants) {
  GgufSummary g;
  for (const auto& v : variants)
    g.variants.push_back({v.first_file, v.projector ? "projector" : v.label, v.file_bytes, v.tensor_bytes, v.elements, v.bits_per_weight(),
                          v.parts.size(), static_cast<size_t>(v.expected_parts), v.projector});
  return g;
}

// The variant to report on: the one --variant names, else the repository's only model; nullptr
// when there are several and none was named (the report is then the table alone).
Result<const GgufVariant*> choose_variant(const std::vector<GgufVariant>& variants, const ReportOptions& options, Report& r) {
  const GgufVariant* chosen = nullptr;
  if (!options.gguf_variant.empty()) {
    auto selected = select_gguf_variant(variants, options.gguf_variant);
    if (!selected) return selected.error();
    chosen = *selected;
  } else {
    const auto models = std::count_if(variants.begin(), variants.end(), [](const GgufVariant& v) { return !v.projector; });
    if (models == 0)
      return not_found(r.location, "holds only multimodal projectors (" + first_and_others([&] {
                                     std::vector<std::string> files;
                                     for (const auto& v : variants) files.push_back(v.first_file);
                                     return files;
                                   }()) + "), not the model they belong to",
                       "give the repository that holds the language model's GGUF");
    if (models > 1) {
      r.notes.push_back(std::to_string(models) + " GGUF variants: the table alone; --variant TYPE or FILE gives the full report of one");
      return chosen;
    }
    chosen = &*std::find_if(variants.begin(), variants.end(), [](const GgufVariant& v) { return !v.projector; });
  }
  if (!chosen->complete())
    return not_found(chosen->first_file, "is one of a set of " + std::to_string(chosen->expected_parts) + " parts, of which " +
                                             std::to_string(chosen->parts.size()) + " are present",
                     "a download cut short? fetch the missing parts");
  return chosen;
}

// The variant's header as the report shows it, and the config its keys make (config.json, when
// beside it, is compared field by field).
Result<ModelConfig> read_gguf_variant(const Snapshot& snap, const GgufVariant& v, Report& r) {
  auto model = gguf_model(v);
  if (!model) return model.error();
  GgufSummary& g = *r.gguf;
  g.selected = v.first_file;
  g.architecture = model->architecture;
  g.name = v.header().string("general.name").value_or("");
  g.type = v.label;
  g.version = v.header().version;
  g.types = v.by_type;
  g.bits_per_weight = v.bits_per_weight();
  if (snap.config) g.config_mismatches = compare_with_config(model->config, *snap.config);
  r.notes.insert(r.notes.end(), model->notes.begin(), model->notes.end());
  r.notes.push_back("the KV cache is given at F16, llama.cpp's default cache type (--kv-dtype gives another)");
  r.params_source = ParamsSource::Gguf;
  r.shard_count = v.parts.size();
  for (const GgufFile* f : v.parts) r.tensor_count += f->header.tensors.size();
  return std::move(model->config);
}


// A pipeline: each component's own report, and their sums. sentence-transformers keeps its
// transformer at the root: the root's own files are that component.
Result<Report> build_pipeline_report(Snapshot snap, const ReportOptions& options) {
  Report r;
  r.repo_id = options.repo_id;
  r.revision = options.revision;
  r.commit = snap.commit;
  r.source_kind = snap.source_kind;
  r.location = snap.location;
  r.notes = snap.notes;
  PipelineSummary p{snap.pipeline->kind, snap.pipeline->file, snap.pipeline->class_name, {}};
  std::map<std::string, uint64_t> by_dtype;
  std::vector<PipelineComponent> components = std::move(snap.components);
  snap.components.clear();
  snap.pipeline.reset();
  snap.notes.clear();  // the root's notes are the pipeline's, said above
  for (auto& component : components) {
    ComponentReport c{component.ref, nullptr};
    // The root's own files (sentence-transformers' transformer), or the component's folder.
    Snapshot own = component.ref.path.empty() ? std::move(snap) : std::move(component.snapshot);
    // A model: weights, or a config that names a model_type (a pooling module's config names none).
    const bool model = !own.shards.empty() || own.index || !own.gguf.empty() || (own.config && !own.config->model_type().empty());
    if (model) {
      ReportOptions for_component = options;
      for_component.repo_id = component.ref.name;
      auto built = build_report(std::move(own), for_component);
      if (!built) {
        Error e = built.error();
        e.message = "(component " + component.ref.name + ") " + e.message;
        return e;
      }
      const Report& sub = *built;
      r.params.total += sub.params.total;
      r.params.active += sub.params.active;
      r.memory.weight_bytes += sub.memory.weight_bytes;
      r.storage.stored_bytes += sub.storage.stored_bytes;
      r.storage.file_bytes += sub.storage.file_bytes;
      r.shard_count += sub.shard_count;
      r.tensor_count += sub.tensor_count;
      for (const auto& [dtype, n] : sub.params.by_dtype) by_dtype[dtype] += n;
      if (sub.params_source == ParamsSource::Safetensors) r.params_source = ParamsSource::Safetensors;
      c.report = std::make_shared<const Report>(std::move(built.value()));
    }
    p.components.push_back(std::move(c));
  }
  r.params.by_dtype.assign(by_dtype.begin(), by_dtype.end());
  r.params.non_embedding = r.params.total;
  r.memory.total_bytes = r.memory.weight_bytes;
  r.memory.weight_source = WeightSource::Headers;
  r.pipeline = std::move(p);
  return r;
}

}  // namespace

uint32_t torch_dtype_bytes(const ModelConfig* cfg) {
  if (!cfg) return 2;
  auto name = cfg->string({"torch_dtype", "dtype"});
  if (!name) return 2;
  return kv_dtype_bytes(*name).value_or(2);
}

Result<Report> build_report(Snapshot snap, const ReportOptions& options) {
  if (snap.pipeline) return build_pipeline_report(std::move(snap), options);
  if (!snap.config && snap.shards.empty() && !snap.index && snap.gguf.empty())
    return not_found(snap.location,
                     snap.other_weight_files.empty()
                         ? "holds neither config.json nor safetensors or GGUF weights: there is nothing to inspect"
                         : "holds no config.json and no safetensors weights, only " + first_and_others(snap.other_weight_files) +
                               ", which hfinspect does not read",
                     "give the folder (or repository) that holds the model's config.json");
  Report r;
  r.repo_id = options.repo_id;
  r.revision = options.revision;
  read_files(snap, r);
  release_decoded(snap);
  std::optional<ModelConfig> config_read = snap.config;  // the copy the spec reads
  std::vector<GgufVariant> variants;
  const GgufVariant* variant = nullptr;
  if (!snap.gguf.empty()) {
    auto grouped = group_gguf_variants(snap.gguf);
    if (!grouped) return grouped.error();
    variants = std::move(grouped.value());
    r.gguf = summarize_variants(variants);
    auto chosen = choose_variant(variants, options, r);
    if (!chosen) return chosen.error();
    if (!*chosen) return r;
    variant = *chosen;
    auto gguf_config = read_gguf_variant(snap, *variant, r);
    if (!gguf_config) return gguf_config.error();
    config_read = std::move(gguf_config.value());
  }
  const ModelConfig* cfg = config_read ? &*config_read : nullptr;
  auto declared = declared_quantization(variant ? nullptr : cfg, snap.quant_sidecars);
  if (!declared) return declared.error();
  if (auto described = describe_architecture(cfg, *declared, r); !described) return described.error();
  if (variant) r.storage = gguf_storage(*variant, r.spec ? &*r.spec : nullptr);
  count_parameters(snap, torch_dtype_bytes(cfg), r);
  audit_quantization(*declared, r);
  if (auto figures = compute_figures(cfg, options, r); !figures) return figures.error();
  find_unknown_fields(variant ? nullptr : cfg, r);
  if (snap.adapter) check_adapter(*snap.adapter, options, r);
  return r;
}

}  // namespace hfi
