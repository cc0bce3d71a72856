// Everything hfinspect reads about one model, gathered from a Source: the config files, the
// index and one parsed header per safetensors shard.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "formats/adapter_config.hpp"
#include "formats/gguf_header.hpp"
#include "formats/pipeline_layout.hpp"
#include "formats/model_config.hpp"
#include "formats/safetensors_header.hpp"
#include "formats/safetensors_index.hpp"
#include "formats/side_configs.hpp"
#include "source/source.hpp"

namespace hfi {

struct PipelineComponent;

struct Snapshot {
  SourceKind source_kind = SourceKind::Local;
  std::string location;
  std::string commit;
  std::optional<ModelConfig> config;
  std::optional<GenerationConfig> generation;
  std::optional<TokenizerConfig> tokenizer;
  std::optional<AdapterConfig> adapter;  // adapter_config.json: the folder is a PEFT adapter
  // The quantization side-cars present (quantize_config.json, hf_quant_config.json), in that
  // order, as JSON: what they declare is read by the analysis, with config.json's own block.
  std::vector<JsonFile> quant_sidecars;
  std::optional<SafetensorsIndex> index;
  std::string index_path;
  std::vector<ShardHeader> shards;
  // Without safetensors weights: every *.gguf file's header (split parts and projectors too).
  std::vector<GgufFile> gguf;
  std::vector<std::string> other_weight_files;  // pytorch_model*.bin, *.gguf: present but not read
  std::vector<std::string> notes;               // things worth telling the user about the files
  // model_index.json (diffusers) or modules.json (sentence-transformers): the repository is a
  // pipeline, and each component with a folder of its own is loaded as a snapshot of that folder.
  std::optional<PipelineLayout> pipeline;
  std::vector<PipelineComponent> components;
};

struct PipelineComponent {
  PipelineComponentRef ref;
  Snapshot snapshot;  // its folder's files; for a module at the root ("" path), empty
};

struct LoadOptions {
  // The first request for each shard asks for this many bytes; it covers most real headers.
  uint64_t header_probe_bytes = 100'000 + 8;
};

Result<Snapshot> load_snapshot(Source& source, const LoadOptions& options = {});

}  // namespace hfi
