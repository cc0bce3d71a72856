// Everything hfinspect reads about one model, gathered from a Source: the config files, the
// index and one parsed header per safetensors shard.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/deferred_work.hpp"
#include "core/error.hpp"
#include "formats/model_config.hpp"
#include "formats/safetensors_header.hpp"
#include "formats/safetensors_index.hpp"
#include "formats/side_configs.hpp"
#include "quant/quant_config.hpp"
#include "source/source.hpp"

namespace hfi {

struct Snapshot {
  SourceKind source_kind = SourceKind::Local;
  std::string location;
  std::string commit;
  std::optional<ModelConfig> config;
  std::optional<GenerationConfig> generation;
  std::optional<TokenizerConfig> tokenizer;
  // quantization_config of config.json (root or text_config), then the side-cars
  // quantize_config.json and hf_quant_config.json, in that order, as far as present.
  std::vector<QuantDeclaration> quant_declarations;
  std::optional<SafetensorsIndex> index;
  std::string index_path;
  std::vector<ShardHeader> shards;
  std::vector<std::string> other_weight_files;  // pytorch_model*.bin, *.gguf: present but not read
  std::vector<std::string> notes;               // things worth telling the user about the files
};

struct LoadOptions {
  // The first request for each shard asks for this many bytes; it covers most real headers.
  uint64_t header_probe_bytes = 100'000 + 8;
  // Where cache writes that nothing waits for may go (the shard-header pack of a Hub read);
  // null: written before loading returns. The caller waits for it before relying on the cache.
  DeferredWork* deferred_writes = nullptr;
  // Called once config.json is parsed, before the shard headers are read: what needs only the
  // config can be built while they travel.
  std::function<void(const ModelConfig&)> on_config;
};

Result<Snapshot> load_snapshot(Source& source, const LoadOptions& options = {});

// Index entries whose tensor is not in the shard the index names (or in no header at all), and
// header tensors the index does not list; sorted. Empty without an index or without headers.
std::vector<std::string> find_index_mismatches(const Snapshot& snapshot);

}  // namespace hfi
