// The one Report model every renderer reads. build_report() is the whole analysis pipeline:
// snapshot -> spec -> storage decode -> reconcile -> metrics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/infer.hpp"
#include "analysis/metrics.hpp"
#include "analysis/reconcile.hpp"
#include "core/json.hpp"
#include "analysis/quant_audit.hpp"
#include "source/snapshot.hpp"

namespace hfi {

inline constexpr int kReportSchemaVersion = 1;

struct ReportOptions {
  std::string repo_id;               // as the user named it (or the directory)
  std::string revision;
  uint64_t context = 8192;           // --ctx
  std::optional<std::string> kv_dtype;  // --kv-dtype; default: the config's torch_dtype
};

struct UnknownField {
  std::string name;
  Json value;
  std::string file = "config.json";
  // How findings and baselines name it: the bare key for config.json, "file:key" otherwise.
  std::string subject() const { return file == "config.json" ? name : file + ":" + name; }
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
  std::string params_source;  // "safetensors" or "none"
  ParamBreakdown params;
  std::optional<uint64_t> formula_total, formula_active;
  FlopsPerToken flops;
  KvCache kv;
  std::string kv_dtype;
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
  std::vector<std::string> notes;
};

// The architecture model a config.json describes, built apart from the report: it needs nothing
// but the config, so a caller can build it while the shard headers are still on the wire
// (DeepSeek-V3's 92k expected tensors take a few milliseconds that otherwise follow the last one).
struct PreparedSpec {
  ModelConfig config;                // the copy the spec read: its keys_read() say what was used
  std::optional<ArchModel> spec;     // none: no spec for this model_type, or `error`
  std::optional<Error> error;        // the spec refused the config
};
PreparedSpec prepare_spec(ModelConfig config);

// `prepared`, when given, must come from the snapshot's own config.json.
Result<Report> build_report(const Snapshot& snapshot, const ReportOptions& options,
                            std::optional<PreparedSpec> prepared = std::nullopt);

// Renderers: deterministic, no trailing state. `color` only affects text.
std::string render_text(const Report& report, bool color);
std::string render_json(const Report& report);
std::string render_markdown(const Report& report);

}  // namespace hfi
