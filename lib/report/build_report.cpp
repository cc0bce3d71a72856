#include <algorithm>
#include <set>

#include "analysis/index_check.hpp"
#include "quant/declared.hpp"
#include "report/report.hpp"

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

uint32_t torch_dtype_bytes(const ModelConfig* cfg) {
  if (!cfg) return 2;
  auto name = cfg->string({"torch_dtype", "dtype"});
  if (!name) return 2;
  return kv_dtype_bytes(*name).value_or(2);
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts)
    if (!p.empty()) out += (out.empty() ? "" : sep) + p;
  return out;
}

}  // namespace

// A multimodal family with its own spec (gemma3, llama4) is found by its root model_type; one
// without (a VLM around a known text model) by its language model's model_type. None: no spec.
std::optional<Result<ArchModel>> build_spec(const ModelConfig& config) {
  const SpecEntry* entry = find_spec(config.model_type());
  if (!entry) entry = find_spec(config.text_model_type());
  if (!entry) return std::nullopt;
  return entry->build(config);
}

Result<Report> build_report(const Snapshot& snap, const ReportOptions& options) {
  Report r;
  r.repo_id = options.repo_id;
  r.revision = options.revision;
  r.commit = snap.commit;
  r.source_kind = snap.source_kind;
  r.location = snap.location;
  r.generation = snap.generation;
  r.tokenizer = snap.tokenizer;
  r.notes = snap.notes;
  r.other_weight_files = snap.other_weight_files;
  r.storage = decode_storage(snap.shards);
  r.index_mismatches = find_index_mismatches({snap.index ? &*snap.index : nullptr, snap.index_path, snap.shards});
  if (snap.index) r.index_total_size = snap.index->total_size;

  // The spec reads the config through a copy of its own: its keys_read() say what was used.
  std::optional<ModelConfig> config_read = snap.config;
  const ModelConfig* cfg = config_read ? &*config_read : nullptr;
  std::optional<Result<ArchModel>> built;
  if (cfg) built = build_spec(*cfg);
  auto declared = declared_quantization(snap.config ? &*snap.config : nullptr, snap.quant_sidecars);
  if (!declared) return declared.error();
  if (cfg) {
    r.config = *cfg;
    r.model_type = cfg->model_type();
    r.text_model_type = cfg->text_model_type();
    r.architectures = cfg->architectures();
    r.quant_method = declared->config_quant_method;
    if (built && !*built) return built->error();
    if (built) {
      r.spec = std::move(built->value());
      r.family = r.spec->family;
      r.notes.insert(r.notes.end(), r.spec->notes.begin(), r.spec->notes.end());  // e.g. the vision tower
    } else {
      r.notes.push_back("no architecture spec for model_type '" + r.model_type + "'" +
                        (r.text_model_type != r.model_type ? " nor '" + r.text_model_type + "'" : std::string()) +
                        ": totals come from the headers alone, the structure is inferred from tensor names");
    }
  } else {
    r.notes.push_back("no config.json: the report is built from the safetensors headers alone");
  }
  const ArchModel* spec = r.spec ? &*r.spec : nullptr;

  r.shard_count = snap.shards.size();
  for (const auto& s : snap.shards) r.tensor_count += s.header.tensors.size();
  r.params_source = snap.shards.empty() ? ParamsSource::None : ParamsSource::Safetensors;
  if (snap.shards.empty() && !snap.index) {
    r.notes.push_back(r.other_weight_files.empty()
                          ? "no safetensors weights found: parameter totals are from the config formula only"
                          : "weights are only in " + r.other_weight_files.front() +
                                (r.other_weight_files.size() > 1 ? " and others" : "") +
                                ", whose headers hfinspect does not read: parameter totals are from the config formula only");
  }
  r.reconcile = reconcile(spec, r.storage);  // also files AutoGPTQ's all-zero bias buffers as bookkeeping
  if (!spec && !snap.shards.empty()) r.inferred = infer_structure(r.storage);
  r.params = compute_params(spec, r.storage, r.reconcile);

  uint32_t weight_bytes = torch_dtype_bytes(cfg);
  if (spec) {
    ParamBreakdown formula = formula_params(*spec);
    r.formula_total = formula.total;
    r.formula_active = formula.active;
    if (snap.shards.empty() && snap.index) r.index_reconcile = reconcile_index(*spec, *snap.index, weight_bytes);
    if (snap.shards.empty()) {
      // No headers to count: the config formula is the best figure there is, and says so.
      r.params_source = ParamsSource::Formula;
      // What the index lists is what the repo stores: a tied head or a buffer it lists counts.
      r.params = r.index_reconcile ? formula_params(*spec, r.index_reconcile->listed_optional) : formula;
      r.reconcile = Reconciliation{};
      r.reconcile.status = r.index_reconcile ? ReconcileStatus::NamesOnly : ReconcileStatus::NoWeights;
    }
  }

  const auto& declarations = declared->declarations;
  if (!declarations.empty() || !r.storage.quant_modules.empty() || !r.storage.bookkeeping.empty())
    r.quant = audit_quantization(declarations, r.storage, spec, r.reconcile, r.params.total);
  if (!r.quant_method && !declarations.empty()) r.quant_method = declarations.front().quant_method;

  uint32_t kv_bytes = weight_bytes;
  r.kv_dtype = cfg ? cfg->string({"torch_dtype", "dtype"}).value_or("bfloat16") : "bfloat16";
  // A declared KV-cache scheme (compressed-tensors kv_cache_scheme, ModelOpt kv_cache_quant_algo)
  // is what an engine will allocate unless told otherwise.
  if (r.quant && r.quant->kv_cache_dtype)
    if (auto b = kv_dtype_bytes(*r.quant->kv_cache_dtype)) {
      kv_bytes = *b;
      r.kv_dtype = *r.quant->kv_cache_dtype + " (declared KV-cache scheme)";
    }
  if (options.kv_dtype) {
    auto b = kv_dtype_bytes(*options.kv_dtype);
    if (!b) return Error{ErrorKind::Usage, "--kv-dtype", "", "unknown dtype '" + *options.kv_dtype + "'",
                         "use bf16, fp16, fp8 or fp32"};
    kv_bytes = *b;
    r.kv_dtype = *options.kv_dtype;
  }
  r.flops = compute_flops(spec, r.params, options.context);
  r.kv = compute_kv_cache(spec, options.context, kv_bytes);
  r.memory.weight_bytes = snap.shards.empty() && r.index_total_size ? *r.index_total_size : r.storage.stored_bytes;
  r.memory.kv_bytes = r.kv.bytes_at_context + r.kv.recurrent_state_bytes;
  r.memory.total_bytes = r.memory.weight_bytes + r.memory.kv_bytes;

  if (spec) {
    std::vector<std::string> parts{spec->attention_summary, spec->position_summary, spec->norm_summary,
                                   spec->activation_summary,
                                   spec->tied_embeddings ? "tied embeddings" : "untied embeddings",
                                   spec->layer_summary};
    r.summary = join(parts, "; ");
  }

  if (cfg && spec) {
    const Json& level = cfg->text();
    for (const Json* obj : {&level, &cfg->root()}) {
      for (const auto& member : obj->members()) {
        const std::string& key = member.first;
        const Json& value = member.second;
        if (kStructureIrrelevant.count(key) || cfg->keys_read().count(key) || is_default_like(value)) continue;
        if (std::find(spec->structure_irrelevant_fields.begin(), spec->structure_irrelevant_fields.end(), key) !=
            spec->structure_irrelevant_fields.end())
          continue;
        if (std::any_of(r.unknown_fields.begin(), r.unknown_fields.end(),
                        [&](const UnknownField& u) { return u.name == key; }))
          continue;
        if (obj == &cfg->root() && cfg->has_text_config() && key.size() > 7 &&
            key.compare(key.size() - 7, 7, "_config") == 0)
          continue;
        r.unknown_fields.push_back({key, value});
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
  return r;
}

}  // namespace hfi
