#include "source/snapshot.hpp"

#include "core/flat_index.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <system_error>
#include <unordered_map>

namespace hfi {
namespace {

constexpr uint64_t kMaxConfigBytes = 16u << 20;
constexpr uint64_t kMaxIndexBytes = 64u << 20;

std::string parent_dir(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

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

Result<QuantDeclaration> parse_quant_sidecar(std::string_view text, std::string_view file) {
  auto json = parse_json(text, file, JsonLimits{kMaxConfigBytes, 64});
  if (!json) return json.error();
  return parse_quant_declaration(*json, std::string(file));
}

// One read per shard that covers typical headers; a second only for the longer ones. A header
// that a source hands over while the others are still travelling is parsed at once; the rest are
// parsed afterwards, on every core: a 163-shard MoE holds about 100k tensor entries. An error is
// reported for the first failing shard in order.
Result<std::vector<SafetensorsHeader>> read_shard_headers(Source& source, const std::vector<std::string>& paths,
                                                          const std::unordered_map<std::string, uint64_t>& sizes,
                                                          const LoadOptions& options) {
  std::vector<RangeRequest> probes;
  for (const auto& p : paths) probes.push_back({p, 0, std::min(options.header_probe_bytes, sizes.at(p)), true});
  std::vector<Result<std::string>> first;
  std::vector<std::string> prefixes(paths.size());
  // Every shard's bytes go back to the source once parsed, or when a read fails: a source that
  // caches keeps them, the others free them. Headers can be tens of MB: one copy, never two.
  auto hand_back = [&](size_t i) {
    if (!prefixes[i].empty()) source.keep_header(paths[i], std::move(prefixes[i]));
    else if (i < first.size() && first[i] && !first[i]->empty()) source.keep_header(paths[i], std::move(first[i].value()));
    std::string().swap(prefixes[i]);
  };
  auto fail = [&](Error e) {
    for (size_t i = 0; i < paths.size(); ++i) hand_back(i);
    return e;
  };
  std::vector<std::optional<Result<SafetensorsHeader>>> parsed(paths.size());
  // Where the header that shard i's `bytes` open ends (8 + N). Bytes that reach that far are cut
  // there: the probe also brought tensor bytes.
  auto header_end = [&](size_t i, std::string& bytes) -> Result<uint64_t> {
    auto n = read_safetensors_header_length(as_bytes(bytes), paths[i], sizes.at(paths[i]));
    if (!n) return n.error();
    if (bytes.size() >= 8 + *n) bytes.resize(static_cast<size_t>(8 + *n));
    return 8 + *n;
  };
  // A whole header that arrives early is parsed now; anything else (a longer header, a bad
  // length) waits for the pass below, which also reports it. Two arrivals may be parsed at once
  // (each call touches only its own index, and keep_header() allows it).
  auto parse_arrival = [&](size_t i, std::string& bytes) {
    auto end = header_end(i, bytes);
    if (!end || bytes.size() < *end) return;
    prefixes[i] = std::move(bytes);
    parsed[i] = parse_safetensors_header(as_bytes(prefixes[i]), paths[i], sizes.at(paths[i]));
    hand_back(i);
  };
  first = source.read_ranges_as_they_arrive(probes, parse_arrival);
  // Parses the listed shards on every core, then hands their bytes back.
  auto parse_all = [&](const std::vector<size_t>& which) {
    std::atomic<size_t> next{0};
    auto parse_some = [&] {
      for (size_t k; (k = next++) < which.size();) {
        size_t i = which[k];
        parsed[i] = parse_safetensors_header(as_bytes(prefixes[i]), paths[i], sizes.at(paths[i]));
      }
    };
    std::vector<std::thread> pool;
    size_t helpers = which.size() >= 16 ? std::min<size_t>(std::thread::hardware_concurrency(), 8) : 1;
    try {
      for (size_t w = 1; w < helpers; ++w) pool.emplace_back(parse_some);
    } catch (const std::system_error&) {  // no threads to be had: this one does it all
    }
    parse_some();
    for (auto& t : pool) t.join();
    for (size_t i : which) hand_back(i);
  };
  std::vector<size_t> complete;
  std::vector<std::pair<size_t, RangeRequest>> longer;  // headers past the first read
  for (size_t i = 0; i < paths.size(); ++i) {
    if (parsed[i]) continue;  // parsed on arrival
    if (!first[i]) return fail(first[i].error());
    prefixes[i] = std::move(first[i].value());
    auto end = header_end(i, prefixes[i]);
    if (!end) return fail(end.error());
    if (prefixes[i].size() < *end) longer.push_back({i, {paths[i], prefixes[i].size(), *end - prefixes[i].size()}});
    else complete.push_back(i);
  }
  parse_all(complete);
  // Long headers (up to 100 MB each) are fetched in batches of at most ~512 MB, each parsed and
  // released before the next, so a repository of huge headers cannot exhaust memory.
  constexpr uint64_t kBatchBytes = 512u << 20;
  for (size_t from = 0; from < longer.size();) {
    std::vector<RangeRequest> batch;
    std::vector<size_t> owners;
    uint64_t bytes = 0;
    for (; from < longer.size() && (batch.empty() || bytes + longer[from].second.length <= kBatchBytes); ++from) {
      bytes += longer[from].second.length;
      batch.push_back(longer[from].second);
      owners.push_back(longer[from].first);
    }
    auto rest = source.read_ranges(batch);
    for (size_t j = 0; j < batch.size(); ++j) {
      if (!rest[j]) return fail(rest[j].error());
      prefixes[owners[j]] += rest[j].value();
      std::string().swap(rest[j].value());
    }
    parse_all(owners);
  }
  std::vector<SafetensorsHeader> out;
  out.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!*parsed[i]) return parsed[i]->error();
    out.push_back(std::move(parsed[i]->value()));
  }
  return out;
}

}  // namespace

Result<Snapshot> load_snapshot(Source& source, const LoadOptions& options) {
  Snapshot snap;
  snap.source_kind = source.kind();
  snap.location = source.location();
  snap.commit = source.commit();
  auto listing = source.list_files();
  if (!listing) return listing.error();
  std::unordered_map<std::string, uint64_t> sizes;
  for (const auto& f : *listing) sizes[f.path] = f.size;

  auto config = read_optional<ModelConfig>(source, "config.json", kMaxConfigBytes, ModelConfig::parse);
  if (!config) return config.error();
  snap.config = std::move(config.value());
  if (snap.config && options.on_config) options.on_config(*snap.config);
  auto generation = read_optional<GenerationConfig>(source, "generation_config.json", kMaxConfigBytes,
                                                    parse_generation_config);
  if (!generation) return generation.error();
  snap.generation = std::move(generation.value());
  auto tokenizer = read_optional<TokenizerConfig>(source, "tokenizer_config.json", kMaxIndexBytes, parse_tokenizer_config);
  if (!tokenizer) return tokenizer.error();
  snap.tokenizer = std::move(tokenizer.value());

  if (snap.config) {
    for (const Json* level : {&snap.config->text(), &snap.config->root()}) {
      const Json* qc = level->find("quantization_config");
      // compressed-tensors before transformers took its block over (2024) wrote it as
      // "compression_config" (ModelCompressor.update_config; its loader still reads that key).
      if (!qc || qc->is_null()) qc = level->find("compression_config");
      if (!qc || qc->is_null()) continue;
      auto declared = parse_quant_declaration(*qc, "config.json");
      if (!declared) return declared.error();
      snap.quant_declarations.push_back(std::move(declared.value()));
      break;  // a text_config's own block wins over the wrapper's copy
    }
  }
  for (const char* sidecar : {"quantize_config.json", "hf_quant_config.json"}) {
    auto declared = read_optional<QuantDeclaration>(source, sidecar, kMaxConfigBytes, parse_quant_sidecar);
    if (!declared) return declared.error();
    if (*declared) snap.quant_declarations.push_back(std::move(**declared));
  }

  std::vector<std::string> shard_paths;
  snap.index_path = choose_index(*listing);
  if (!snap.index_path.empty()) {
    auto index = read_optional<SafetensorsIndex>(source, snap.index_path, kMaxIndexBytes, parse_safetensors_index);
    if (!index) return index.error();
    snap.index = std::move(index.value());
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
      return not_found(p, "is named by " + snap.index_path + " but is not in the repository");

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
  return snap;
}

namespace {

std::string grouped_digits(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// A shard name with each run of digits turned into "N": "mtp_float-2.safetensors" -> "mtp_float-N.safetensors".
std::string name_family(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    bool digit = name[i] >= '0' && name[i] <= '9';
    if (!digit) out += name[i];
    else if (i == 0 || !(name[i - 1] >= '0' && name[i - 1] <= '9')) out += 'N';
  }
  return out;
}

// metadata.total_size is the tensor data of the shards the weight_map names (transformers and
// huggingface_hub write it so); with every one of them read, it must equal their headers' tensor
// bytes. A difference that one family of shard names makes up exactly (shards appended to the
// weight_map without updating total_size) is named.
std::optional<std::string> total_size_mismatch(const Snapshot& snap, const std::vector<uint32_t>& index_shard) {
  if (!snap.index->total_size) return std::nullopt;
  for (uint32_t s : index_shard)
    if (s == FlatIndex::kEmpty) return std::nullopt;  // a shard not read: its bytes are unknown
  uint64_t held = 0;
  std::map<std::string, std::pair<uint64_t, size_t>> families;  // name family -> bytes, shards
  for (size_t i = 0; i < index_shard.size(); ++i) {
    uint64_t bytes = 0;
    for (const auto& t : snap.shards[index_shard[i]].header.tensors) bytes += t.bytes();
    held += bytes;
    auto& f = families[name_family(snap.index->shards[i])];
    f.first += bytes;
    ++f.second;
  }
  uint64_t total = *snap.index->total_size;
  if (held == total) return std::nullopt;
  uint64_t diff = held > total ? held - total : total - held;
  std::string line = "metadata.total_size: " + grouped_digits(total) + " B, but the " + std::to_string(index_shard.size()) +
                     " shard(s) the weight_map names hold " + grouped_digits(held) + " B of tensor data (" + grouped_digits(diff) +
                     " B " + (held > total ? "more" : "less");
  if (held > total)
    for (const auto& [family, f] : families)
      if (f.first == diff && f.second < index_shard.size()) {
        line += ": exactly the " + std::to_string(f.second) + " " + family + " shard(s), which total_size leaves out";
        break;
      }
  return line + ")";
}

// True when the index lists every header tensor, each under its own shard and nothing else, in
// the order the headers store them. Writers sort both by name, so this is the usual case; it is
// settled with one string comparison per tensor, walking both in order, where the general check
// below costs a hash lookup into a table of every name.
bool index_lists_headers_in_order(const Snapshot& snap, const std::vector<uint32_t>& index_shard) {
  const SafetensorsIndex& index = *snap.index;
  std::vector<size_t> next(snap.shards.size(), 0);  // per shard, its next header tensor
  for (const auto& [name, shard] : index.weight_map) {
    uint32_t s = index_shard[shard];
    if (s == FlatIndex::kEmpty) return false;
    const auto& tensors = snap.shards[s].header.tensors;
    if (next[s] == tensors.size() || tensors[next[s]].name != name) return false;
    ++next[s];
  }
  for (size_t s = 0; s < snap.shards.size(); ++s)
    if (next[s] != snap.shards[s].header.tensors.size()) return false;
  return true;
}

}  // namespace

std::vector<std::string> find_index_mismatches(const Snapshot& snap) {
  std::vector<std::string> out;
  if (!snap.index || snap.shards.empty()) return out;
  const SafetensorsIndex& index = *snap.index;
  // Each shard the index names, as a position in snap.shards (or none).
  std::string base = parent_dir(snap.index_path);
  std::unordered_map<std::string_view, uint32_t> shard_position;
  for (uint32_t s = 0; s < snap.shards.size(); ++s) shard_position.emplace(snap.shards[s].path, s);
  std::vector<uint32_t> index_shard(index.shards.size(), FlatIndex::kEmpty);
  for (size_t i = 0; i < index.shards.size(); ++i)
    if (auto it = shard_position.find(base + index.shards[i]); it != shard_position.end()) index_shard[i] = it->second;
  if (index_lists_headers_in_order(snap, index_shard)) {
    if (auto line = total_size_mismatch(snap, index_shard)) out.push_back(std::move(*line));
    return out;
  }
  // Otherwise every header tensor is looked up in a table of the index's names (the parse builds
  // one for a map out of name order; built here otherwise); whatever index entry stays unmatched
  // is missing from the headers.
  auto name_of = [&](uint32_t id) { return index.name_of(id); };
  FlatIndex rebuilt;
  const FlatIndex* by_name = &index.by_name;
  if (index.by_name.size() != index.weight_map.size()) {
    rebuilt.reserve(index.weight_map.size());
    for (uint32_t id = 0; id < index.weight_map.size(); ++id) rebuilt.insert(index.name_of(id), id, name_of, false);
    by_name = &rebuilt;
  }
  std::vector<bool> matched(index.weight_map.size(), false);
  for (uint32_t s = 0; s < snap.shards.size(); ++s)
    for (const auto& t : snap.shards[s].header.tensors) {
      uint32_t id = by_name->find(t.name, name_of);
      if (id == FlatIndex::kEmpty) {
        out.push_back(std::string(t.name) + ": in " + snap.shards[s].path + " but not in the index");
        continue;
      }
      if (matched[id]) continue;  // a second copy in another shard: reconcile reports those
      matched[id] = true;
      uint32_t listed_shard = index.weight_map[id].second;
      if (index_shard[listed_shard] != s)
        out.push_back(std::string(t.name) + ": index says " + index.shards[listed_shard] + ", header of " + snap.shards[s].path + " holds it");
    }
  for (uint32_t id = 0; id < index.weight_map.size(); ++id)
    if (!matched[id]) out.push_back(index.weight_map[id].first + ": listed in the index but in no shard header");
  if (auto line = total_size_mismatch(snap, index_shard)) out.push_back(std::move(*line));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace hfi
