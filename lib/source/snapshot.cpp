#include "source/snapshot.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

#include "core/json_dom.hpp"
#include "core/text.hpp"
#include "source/gguf_headers.hpp"
#include "source/subdir_source.hpp"

namespace hfi {
namespace {

constexpr uint64_t kMaxConfigBytes = 16u << 20;
constexpr uint64_t kMaxIndexBytes = 64u << 20;


std::span<const unsigned char> as_bytes(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

// Picks the index to follow: the root model.safetensors.index.json, else the shallowest other one.
std::string choose_index(const std::vector<FileEntry>& files) {
  std::string best;
  for (const auto& f : files) {
    if (!f.path.ends_with(".safetensors.index.json")) continue;
    if (f.path == "model.safetensors.index.json") return f.path;
    auto depth = [](const std::string& p) { return std::count(p.begin(), p.end(), '/'); };
    if (best.empty() || depth(f.path) < depth(best)) best = f.path;
  }
  return best;
}

// diffusers saves a component's weights once per precision beside each other:
// diffusion_pytorch_model.safetensors and diffusion_pytorch_model.fp16.safetensors. With the plain
// file there, the variants ("X.<variant>.safetensors") are the same weights again.
void drop_precision_variants(std::vector<std::string>& shards, std::vector<std::string>& notes) {
  std::vector<std::string> variants;
  std::erase_if(shards, [&](const std::string& p) {
    const std::string stem = p.substr(0, p.size() - std::string(".safetensors").size());
    const size_t dot = stem.rfind('.');
    const size_t slash = stem.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return false;
    const std::string plain = stem.substr(0, dot) + ".safetensors";
    if (std::find(shards.begin(), shards.end(), plain) == shards.end()) return false;
    variants.push_back(p);
    return true;
  });
  if (!variants.empty())
    notes.push_back("left out " + std::to_string(variants.size()) + " precision variant(s) of the weights (" + variants.front() +
                    (variants.size() > 1 ? ", ..." : "") + "), which hold the same tensors as the plain file");
}

// Without an index: every root-level .safetensors file, or those of the shallowest folder that
// has any. Mistral repos ship consolidated.safetensors beside the HF shards; prefer the shards.
std::vector<std::string> choose_unindexed_shards(const std::vector<FileEntry>& files, std::vector<std::string>& notes) {
  std::map<std::string, std::vector<std::string>> by_dir;
  for (const auto& f : files)
    if (f.path.ends_with(".safetensors")) by_dir[parent_dir(f.path)].push_back(f.path);
  if (by_dir.empty()) return {};
  auto chosen = by_dir.begin();
  for (auto it = by_dir.begin(); it != by_dir.end(); ++it)
    if (std::count(it->first.begin(), it->first.end(), '/') < std::count(chosen->first.begin(), chosen->first.end(), '/'))
      chosen = it;
  std::vector<std::string> shards = chosen->second;
  drop_precision_variants(shards, notes);
  if (shards.size() > 1) {
    auto consolidated = std::remove_if(shards.begin(), shards.end(), [](const std::string& p) {
      return p.find("consolidated") != std::string::npos;
    });
    if (consolidated != shards.end()) {
      notes.push_back("skipped " + std::to_string(shards.end() - consolidated) +
                      " consolidated*.safetensors file(s), which repeat the Hugging Face shards in another layout");
      shards.erase(consolidated, shards.end());
    }
  }
  if (!chosen->first.empty()) notes.push_back("weights found in subfolder " + chosen->first);
  // Shorter names first: of a shard and its copy ("model (1).safetensors"), the original is read
  // first and stays (drop_copied_shards).
  std::stable_sort(shards.begin(), shards.end(), [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  return shards;
}

template <class T, class Parse>
Result<std::optional<T>> read_optional(Source& source, const std::string& path, uint64_t cap, Parse parse) {
  auto bytes = source.read_file(path, cap);
  if (!bytes) return bytes.error();
  if (!bytes->has_value()) return std::optional<T>{};
  auto parsed = parse(**bytes, path);
  if (!parsed) return parsed.error();
  return std::optional<T>(std::move(parsed.value()));
}

Result<JsonFile> parse_json_file(std::string_view text, std::string_view file) {
  auto json = parse_json(text, file, JsonLimits{kMaxConfigBytes, 64});
  if (!json) return json.error();
  return JsonFile{std::string(file), std::move(json.value())};
}

std::optional<uint64_t> header_length(const std::string& bytes, const std::string& path, uint64_t size, Error& error) {
  auto n = read_safetensors_header_length(as_bytes(bytes), path, size);
  if (!n) {
    error = n.error();
    return std::nullopt;
  }
  return 8 + *n;
}

// Ranges of `requests` from `from` on, at most `budget` bytes of them (at least one): a batch.
size_t batch_end(const std::vector<RangeRequest>& requests, size_t from, uint64_t budget) {
  size_t end = from;
  for (uint64_t bytes = 0; end < requests.size(); ++end) {
    if (end > from && bytes + requests[end].length > budget) break;
    bytes += requests[end].length;
  }
  return end;
}

// The headers a source parsed already (the Hub's, on arrival); for the others one read per shard
// that covers typical headers (a source may hand over more: the Hub's read sized from the index),
// a second only for the longer ones. Reads go in batches of at most ~512 MB, and each header is
// parsed as soon as it is whole, its bytes then handed back to the source (a source that caches
// keeps them): a repository of huge headers cannot exhaust memory. A read that fails ends the
// load; otherwise the first shard, in order, whose header fails to parse is reported.
Result<std::vector<SafetensorsHeader>> read_shard_headers(Source& source, const std::vector<std::string>& paths,
                                                          const std::unordered_map<std::string, uint64_t>& sizes,
                                                          const LoadOptions& options) {
  std::vector<std::optional<Result<SafetensorsHeader>>> parsed(paths.size());
  std::vector<size_t> to_read;  // shards the source has not parsed already
  for (size_t i = 0; i < paths.size(); ++i) {
    parsed[i] = source.take_parsed_header(paths[i], sizes.at(paths[i]));
    if (!parsed[i]) to_read.push_back(i);
  }
  JsonDom dom;
  std::vector<std::string> bytes(paths.size());
  auto parse = [&](size_t i) {
    parsed[i] = parse_safetensors_header(as_bytes(bytes[i]), paths[i], sizes.at(paths[i]), dom);
    source.keep_header(paths[i], std::move(bytes[i]));
    std::string().swap(bytes[i]);
  };
  std::vector<RangeRequest> probes;
  for (size_t i : to_read) probes.push_back({paths[i], 0, std::min(options.header_probe_bytes, sizes.at(paths[i])), true});
  std::vector<RangeRequest> rests;
  std::vector<size_t> longer;  // shards whose header goes past the first read, as `rests`
  for (size_t from = 0; from < probes.size();) {
    const size_t end = batch_end(probes, from, kReadBatchBytes);
    auto first = source.read_ranges({probes.begin() + static_cast<std::ptrdiff_t>(from), probes.begin() + static_cast<std::ptrdiff_t>(end)});
    for (size_t k = from; k < end; ++k) {
      const size_t i = to_read[k];
      if (!first[k - from]) return first[k - from].error();
      bytes[i] = std::move(first[k - from].value());
      Error error;
      auto header_end = header_length(bytes[i], paths[i], sizes.at(paths[i]), error);
      if (!header_end) return error;
      if (bytes[i].size() < *header_end) {
        rests.push_back({paths[i], bytes[i].size(), *header_end - bytes[i].size(), false});
        longer.push_back(i);
        continue;
      }
      bytes[i].resize(static_cast<size_t>(*header_end));  // a probe also brings tensor bytes
      parse(i);
    }
    from = end;
  }
  for (size_t from = 0; from < rests.size();) {
    const size_t end = batch_end(rests, from, kReadBatchBytes);
    auto rest = source.read_ranges({rests.begin() + static_cast<std::ptrdiff_t>(from), rests.begin() + static_cast<std::ptrdiff_t>(end)});
    for (size_t k = from; k < end; ++k) {
      if (!rest[k - from]) return rest[k - from].error();
      bytes[longer[k]] += rest[k - from].value();
      parse(longer[k]);
    }
    from = end;
  }
  std::vector<SafetensorsHeader> out;
  out.reserve(paths.size());
  for (auto& header : parsed) {
    if (!*header) return header->error();
    out.push_back(std::move(header->value()));
  }
  return out;
}

// A listing that names a file twice (a repository info with a repeated sibling) would have it
// read, and counted, twice. The first entry stays.
void drop_repeated_entries(std::vector<FileEntry>& files, std::vector<std::string>& notes) {
  std::unordered_map<std::string, size_t> seen;
  std::vector<FileEntry> kept;
  std::vector<std::string> repeated;
  kept.reserve(files.size());
  for (auto& f : files) {
    if (seen.emplace(f.path, kept.size()).second) kept.push_back(std::move(f));
    else repeated.push_back(f.path);
  }
  files = std::move(kept);
  if (repeated.empty()) return;
  // One note, however many: a listing doubled whole would otherwise bury the report in them.
  std::string names;
  for (size_t i = 0; i < repeated.size() && i < 3; ++i) names += (i ? ", " : "") + repeated[i];
  if (repeated.size() > 3) names += " and " + std::to_string(repeated.size() - 3) + " more";
  notes.push_back("the file listing names " + std::to_string(repeated.size()) + " file(s) more than once (" + names + "): each is read once");
}

// Without an index nothing says which files make up the checkpoint: a second copy of a shard
// (model.safetensors beside "model (1).safetensors") would double every count. A shard whose
// tensors are exactly those of an earlier one is left out, and said; one that shares only some
// is kept, and said, since its tensors are then counted twice.
void drop_copied_shards(std::vector<ShardHeader>& shards, std::vector<std::string>& notes) {
  std::unordered_map<std::string_view, size_t> holder;  // tensor name -> first shard that holds it
  std::vector<ShardHeader> kept;
  for (auto& s : shards) {
    std::optional<size_t> copy_of;
    size_t shared = 0;
    for (const auto& t : s.header.tensors)
      if (auto it = holder.find(t.name); it != holder.end()) {
        ++shared;
        copy_of = it->second;
      }
    const bool same_tensors = copy_of && shared == s.header.tensors.size() &&
                              kept[*copy_of].header.tensors.size() == s.header.tensors.size();
    if (same_tensors) {
      notes.push_back(s.path + " holds exactly the tensors of " + kept[*copy_of].path + ": a copy, left out of the counts");
      continue;
    }
    if (shared > 0)
      notes.push_back(s.path + " repeats " + std::to_string(shared) + " tensor(s) of " + kept[*copy_of].path +
                      ", and no index says which file holds them: they are counted twice");
    for (const auto& t : s.header.tensors) holder.emplace(t.name, kept.size());
    kept.push_back(std::move(s));
  }
  shards = std::move(kept);
}


// model_index.json or modules.json, when the listing names one at the root.
Result<std::optional<PipelineLayout>> read_pipeline_layout(Source& source, const std::vector<FileEntry>& files) {
  auto named = [&](const char* path) { return std::any_of(files.begin(), files.end(), [&](const FileEntry& f) { return f.path == path; }); };
  for (const char* file : {"model_index.json", "modules.json"}) {
    if (!named(file)) continue;
    auto bytes = source.read_file(file, kMaxConfigBytes);
    if (!bytes) return bytes.error();
    if (!*bytes) continue;
    auto layout = std::string_view(file) == "model_index.json" ? parse_model_index(**bytes, file) : parse_modules_json(**bytes, file);
    if (!layout) return layout.error();
    return std::optional<PipelineLayout>(std::move(layout.value()));
  }
  return std::optional<PipelineLayout>{};
}

// Every component with a folder of its own, loaded as a snapshot of that folder. What they will
// read is announced first, so that a network source fetches every component's configs and
// headers in one round rather than one component after the other.
Status load_components(Source& source, const std::vector<FileEntry>& files, const LoadOptions& options, Snapshot& snap) {
  std::vector<std::string> metadata;
  std::vector<RangeRequest> headers;
  std::vector<const PipelineComponentRef*> with_files;
  for (const auto& c : snap.pipeline->components) {
    snap.components.push_back({c, {}});
    if (c.path.empty() || c.class_name.empty()) continue;  // the root itself, or a component switched off (null)
    const std::string folder = c.path + "/";
    bool any = false;
    for (const auto& f : files) {
      if (!f.path.starts_with(folder)) continue;
      any = true;
      const std::string rest = f.path.substr(folder.size());
      if (rest.find('/') != std::string::npos) continue;
      if (rest.ends_with(".json")) metadata.push_back(f.path);
      else if (rest.ends_with(".safetensors")) headers.push_back({f.path, 0, std::min(options.header_probe_bytes, f.size), true});
    }
    if (any) with_files.push_back(&c);
  }
  source.prefetch(metadata, headers);
  for (auto& component : snap.components) {
    if (std::find(with_files.begin(), with_files.end(), &snap.pipeline->components[static_cast<size_t>(&component - &snap.components[0])]) ==
        with_files.end())
      continue;
    SubdirSource folder(source, component.ref.path);
    auto loaded = load_snapshot(folder, options);
    if (!loaded) return loaded.error();
    component.snapshot = std::move(loaded.value());
  }
  return Ok{};
}

}  // namespace

Result<Snapshot> load_snapshot(Source& source, const LoadOptions& options) {
  Snapshot snap;
  snap.source_kind = source.kind();
  snap.location = source.location();
  snap.commit = source.commit();
  auto listing = source.list_files();
  if (!listing) return listing.error();
  drop_repeated_entries(*listing, snap.notes);
  std::unordered_map<std::string, uint64_t> sizes;
  for (const auto& f : *listing) sizes[f.path] = f.size;

  auto config = read_optional<ModelConfig>(source, "config.json", kMaxConfigBytes, ModelConfig::parse);
  if (!config) return config.error();
  snap.config = std::move(config.value());
  auto generation = read_optional<GenerationConfig>(source, "generation_config.json", kMaxConfigBytes,
                                                    parse_generation_config);
  if (!generation) return generation.error();
  snap.generation = std::move(generation.value());
  auto tokenizer = read_optional<TokenizerConfig>(source, "tokenizer_config.json", kMaxIndexBytes, parse_tokenizer_config);
  if (!tokenizer) return tokenizer.error();
  snap.tokenizer = std::move(tokenizer.value());

  auto adapter = read_optional<AdapterConfig>(source, "adapter_config.json", kMaxConfigBytes, parse_adapter_config);
  if (!adapter) return adapter.error();
  snap.adapter = std::move(adapter.value());

  for (const char* sidecar : {"quantize_config.json", "hf_quant_config.json"}) {
    auto file = read_optional<JsonFile>(source, sidecar, kMaxConfigBytes, parse_json_file);
    if (!file) return file.error();
    if (*file) snap.quant_sidecars.push_back(std::move(**file));
  }

  auto pipeline = read_pipeline_layout(source, *listing);
  if (!pipeline) return pipeline.error();
  snap.pipeline = std::move(pipeline.value());
  if (snap.pipeline && snap.pipeline->kind == PipelineKind::Diffusers) {
    // The root holds no model of its own: its weights are the components'.
    if (auto loaded = load_components(source, *listing, options, snap); !loaded) return loaded.error();
    return snap;
  }

  std::vector<std::string> shard_paths;
  snap.index_path = choose_index(*listing);
  if (!snap.index_path.empty()) {
    if (auto parsed = source.take_parsed_index(snap.index_path)) {
      if (!*parsed) return parsed->error();
      snap.index = std::move(parsed->value());
    } else {
      auto index = read_optional<SafetensorsIndex>(source, snap.index_path, kMaxIndexBytes, parse_safetensors_index);
      if (!index) return index.error();
      snap.index = std::move(index.value());
    }
    for (const auto& s : snap.index->shards) shard_paths.push_back(parent_dir(snap.index_path) + s);
    for (const auto& t : snap.index->claimed_twice)
      snap.notes.push_back("index lists tensor " + t + " more than once");
  } else {
    shard_paths = choose_unindexed_shards(*listing, snap.notes);
  }
  for (const auto& f : *listing)
    if (f.path.ends_with(".bin") || f.path.ends_with(".gguf") || f.path.ends_with(".pt") || f.path.ends_with(".pth"))
      snap.other_weight_files.push_back(f.path);

  size_t present = std::count_if(shard_paths.begin(), shard_paths.end(), [&](const std::string& p) { return sizes.count(p) > 0; });
  if (snap.index && present == 0 && !shard_paths.empty()) {
    // Metadata-only folder (config + index, no weights): reconcile by names against the index.
    snap.notes.push_back("none of the " + std::to_string(shard_paths.size()) + " shards named by " + snap.index_path +
                         " is present: tensor names are checked against the index, sizes against its total_size");
    shard_paths.clear();
  }
  for (const auto& p : shard_paths)
    if (!sizes.count(p))
      return not_found(p, "is named by " + snap.index_path + " but is not in the repository",
                       "a download cut short? finish it; or leave out every shard and the index alone is read");

  // Shards are read in chunks so that memory stays bounded for repositories with thousands of
  // them; a chunk is as wide as the transport's own limit on transfers in flight, so it costs no
  // extra round trips.
  constexpr size_t kChunk = 256;
  for (size_t from = 0; from < shard_paths.size(); from += kChunk) {
    std::vector<std::string> chunk(shard_paths.begin() + static_cast<std::ptrdiff_t>(from),
                                   shard_paths.begin() + static_cast<std::ptrdiff_t>(std::min(shard_paths.size(), from + kChunk)));
    auto headers = read_shard_headers(source, chunk, sizes, options);
    if (!headers) return headers.error();
    for (size_t i = 0; i < chunk.size(); ++i) snap.shards.push_back({chunk[i], std::move((*headers)[i])});
  }
  if (!snap.index) drop_copied_shards(snap.shards, snap.notes);
  if (snap.pipeline)  // sentence-transformers: the transformer at the root, the other modules in folders
    if (auto loaded = load_components(source, *listing, options, snap); !loaded) return loaded.error();
  if (shard_paths.empty() && !snap.index) {
    std::vector<std::string> gguf_paths;
    for (const auto& f : *listing)
      if (f.path.ends_with(".gguf")) gguf_paths.push_back(f.path);
    if (!gguf_paths.empty()) {
      auto headers = read_gguf_headers(source, gguf_paths, sizes);
      if (!headers) return headers.error();
      snap.gguf = std::move(headers.value());
      std::erase_if(snap.other_weight_files, [](const std::string& f) { return f.ends_with(".gguf"); });
    }
  }
  return snap;
}

}  // namespace hfi
