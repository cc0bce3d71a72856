// The one Report model every renderer reads; lib/pipeline/analyse.cpp fills it from a Snapshot.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/adapter.hpp"
#include "analysis/gguf_variants.hpp"
#include "analysis/infer.hpp"
#include "analysis/metrics.hpp"
#include "analysis/reconcile.hpp"
#include "core/json.hpp"
#include "analysis/quant_audit.hpp"
#include "formats/model_config.hpp"
#include "formats/pipeline_layout.hpp"
#include "formats/side_configs.hpp"
#include "report/format.hpp"
#include "source/source.hpp"

namespace hfi {

inline constexpr int kReportSchemaVersion = 1;
// The context figures are given at when neither --ctx nor the config names one.
inline constexpr uint64_t kDefaultContext = 8192;

struct ReportOptions {
  std::string repo_id;               // as the user named it (or the directory)
  std::string revision;
  std::optional<uint64_t> context;   // --ctx; unset: the model's own maximum (kDefaultContext without one)
  uint64_t batch = 1;                // --batch: sequences whose KV cache the memory line holds
  // --kv-dtype; unset or "auto": the KV scheme a quantization config declares, else torch_dtype
  std::optional<std::string> kv_dtype;
  // --variant: the GGUF variant to report on (its type, e.g. Q4_K_M, or its file name)
  std::string gguf_variant;
  // For a PEFT adapter: the base model's config (--base, or the repository its config names).
  std::optional<ModelConfig> adapter_base;
};

struct UnknownField {
  std::string name;
  Json value;
  std::string file = "config.json";
  std::optional<size_t> line = {};  // in config.json, when found
  // How findings and baselines name it: the bare key for config.json, "file:key" otherwise.
  std::string subject() const { return file == "config.json" ? name : file + ":" + name; }
};

// Where the parameter totals come from.
enum class ParamsSource { None, Safetensors, Gguf, Formula, IndexTotalSize };

// How reports name it: "none", "safetensors", "gguf", "formula", "index_total_size".
constexpr const char* params_source_name(ParamsSource source) {
  switch (source) {
    case ParamsSource::None: return "none";
    case ParamsSource::Safetensors: return "safetensors";
    case ParamsSource::Gguf: return "gguf";
    case ParamsSource::Formula: return "formula";
    case ParamsSource::IndexTotalSize: return "index_total_size";
  }
  return "none";
}

// One row of a GGUF repository's variants table.
struct GgufVariantRow {
  std::string file;  // the file, or the first part of a split set
  std::string type;  // "Q4_K_M"
  uint64_t bytes = 0;         // the files' sizes
  uint64_t tensor_bytes = 0;  // their tensors' bytes
  uint64_t params = 0;        // elements over every tensor, as llama.cpp counts them
  double bits_per_weight = 0;
  size_t parts = 1, expected_parts = 1;
  bool projector = false;
};

// What a GGUF repository adds to the report: its variants, and for the one reported on, what its
// header says.
struct GgufSummary {
  std::vector<GgufVariantRow> variants;
  std::string selected;  // the reported variant's first file; empty: the table alone
  std::string architecture, name, type;  // general.architecture, general.name, the variant's type
  uint32_t version = 0;
  std::vector<GgufTypeCount> types;  // tensors, elements and bytes by ggml type
  double bits_per_weight = 0;
  std::vector<std::string> config_mismatches;  // against a config.json beside it
};

// Whether the totals were counted from stored tensors (safetensors headers or GGUF tensor infos).
constexpr bool counted_from_tensors(ParamsSource source) { return source == ParamsSource::Safetensors || source == ParamsSource::Gguf; }

struct Report;

// One component of a pipeline (diffusers' model_index.json, sentence-transformers' modules.json).
struct ComponentReport {
  PipelineComponentRef ref;
  // Its own report, when its folder holds a model (a config or weights); null for a scheduler, a
  // tokenizer, a pooling module, or a component switched off.
  std::shared_ptr<const Report> report;
};

struct PipelineSummary {
  PipelineKind kind = PipelineKind::Diffusers;
  std::string file, class_name;
  std::vector<ComponentReport> components;
};

struct Report {
  int schema_version = kReportSchemaVersion;
  // repo
  std::string repo_id, revision, commit, location;
  SourceKind source_kind = SourceKind::Local;
  // architecture
  std::string model_type, text_model_type, family;
  std::vector<std::string> architectures;
  std::string summary;  // one line
  std::optional<ArchModel> spec;
  std::optional<ModelConfig> config;  // as read; `diff` compares these field by field
  std::optional<InferredStructure> inferred;  // only without a spec: read from tensor names
  // files
  size_t shard_count = 0;
  size_t tensor_count = 0;
  StorageView storage;
  std::vector<std::string> other_weight_files;
  // analysis
  ParamsSource params_source = ParamsSource::None;
  ParamBreakdown params;
  std::optional<uint64_t> formula_total, formula_active;
  FlopsPerToken flops;
  KvCache kv;
  std::string kv_dtype;
  std::optional<uint64_t> max_context;  // the config's max_position_embeddings (or its alias), as declared
  MemoryEstimate memory;
  Reconciliation reconcile;
  std::optional<IndexReconciliation> index_reconcile;
  std::optional<uint64_t> index_total_size;
  std::vector<std::string> index_mismatches;
  std::vector<UnknownField> unknown_fields;
  std::optional<std::string> quant_method;  // quantization_config.quant_method
  std::optional<QuantSummary> quant;        // audit and figures, when anything is quantized or declared
  std::optional<GenerationConfig> generation;
  std::optional<TokenizerConfig> tokenizer;
  std::optional<AdapterSummary> adapter;  // the target is a PEFT adapter
  std::optional<GgufSummary> gguf;        // the weights are GGUF files
  // A pipeline: its components, each with its report; the figures above are their sums.
  std::optional<PipelineSummary> pipeline;
  std::vector<std::string> notes;
};

// Renderers: deterministic, no trailing state. `color` only affects text.
std::string render_text(const Report& report, bool color, size_t width = kDefaultWidth);
std::string render_json(const Report& report);
std::string render_markdown(const Report& report);

}  // namespace hfi
