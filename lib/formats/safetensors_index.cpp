#include "formats/safetensors_index.hpp"

#include <algorithm>

#include "core/flat_index.hpp"
#include "core/json_dom.hpp"
#include "core/json_cursor.hpp"
#include "core/text.hpp"

namespace hfi {

std::string unsafe_shard_name_reason(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.front() == '/') return "is an absolute path";
  if (name.find("://") != std::string_view::npos) return "is a URL";
  if (name.find('\\') != std::string_view::npos) return "contains a backslash";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "contains a control character";
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    std::string_view part = name.substr(start, slash == std::string_view::npos ? name.npos : slash - start);
    if (part == "..") return "contains a '..' path component";
    if (part.empty() || part == ".") return "contains an empty or '.' path component";
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return {};
}

namespace {

// metadata.total_size: some writers store it as a string or a float; any non-negative whole value.
std::optional<uint64_t> size_value(simdjson::dom::element e) {
  return e.is_string() ? parse_decimal(std::string_view(e)) : whole_number(e);
}

Status read_metadata(simdjson::dom::element meta, const std::string& f, SafetensorsIndex& index) {
  if (meta.is_null()) return Ok{};
  if (!meta.is_object()) return malformed(f, "metadata", "is not a JSON object");
  simdjson::dom::object fields(meta);
  if (simdjson::dom::element ts; !fields["total_size"].get(ts)) {
    auto v = size_value(ts);
    if (!v) return malformed(f, "metadata.total_size", "is not a non-negative integer");
    index.total_size = v;
  }
  if (simdjson::dom::element tp; !fields["total_parameters"].get(tp)) {
    auto v = size_value(tp);
    if (!v || tp.is_string()) return malformed(f, "metadata.total_parameters", "is not a non-negative integer");
    index.total_parameters = v;
  }
  return Ok{};
}

// The weight_map's entries, in file order, into `index`. Shard names are views that must outlive
// the builder (the DOM, or the text the cursor reads): a few hundred distinct names among 100k
// entries, and runs of the same one, so the last one is checked first. A tensor listed twice is
// found through index.by_name, which is only built once a name comes out of order: transformers
// writes the map sorted, and a name greater than the one before cannot repeat an earlier one.
class WeightMapBuilder {
 public:
  // `expected` entries and `name_bytes` of names, as far as the caller can tell: only the first
  // allocations are sized by it.
  WeightMapBuilder(SafetensorsIndex& index, const std::string& file, size_t expected, size_t name_bytes)
      : index_(index), file_(file), expected_(expected) {
    index_.weight_map.reserve(expected, name_bytes);
  }

  Status add(std::string_view tensor, std::string_view shard) {
    auto shard_name_of = [&](uint32_t id) { return shard_names_[id]; };
    uint32_t sid = last_shard_ != FlatIndex::kEmpty && shard_names_[last_shard_] == shard ? last_shard_ : shard_ids_.find(shard, shard_name_of);
    if (sid == FlatIndex::kEmpty) {
      if (auto reason = unsafe_shard_name_reason(shard); !reason.empty())
        return malformed(file_, "weight_map." + std::string(tensor), "shard name \"" + std::string(shard) + "\" " + reason);
    }
    if (in_order_ && !index_.weight_map.empty() && !(index_.weight_map.back().tensor < tensor)) {
      in_order_ = false;  // from here on every name goes through the table, the earlier ones first
      index_.by_name.reserve(std::max(expected_, index_.weight_map.size() + 1));
      for (uint32_t k = 0; k < index_.weight_map.size(); ++k)
        index_.by_name.insert(index_.name_of(k), k, [&](uint32_t j) { return index_.name_of(j); }, false);
    }
    // The next entry's id is its position in weight_map; insert() reads only earlier entries' names.
    auto id = static_cast<uint32_t>(index_.weight_map.size());
    if (!in_order_ && index_.by_name.insert(tensor, id, [&](uint32_t k) { return index_.name_of(k); }, false) != FlatIndex::kEmpty) {
      index_.claimed_twice.emplace_back(tensor);
      return Ok{};
    }
    if (sid == FlatIndex::kEmpty) {
      sid = static_cast<uint32_t>(shard_names_.size());
      shard_names_.push_back(shard);
      shard_ids_.insert(shard, sid, shard_name_of, false);
      index_.shards.emplace_back(shard);
    }
    last_shard_ = sid;
    index_.weight_map.add(tensor, sid);
    return Ok{};
  }

 private:
  SafetensorsIndex& index_;
  const std::string& file_;
  size_t expected_;
  bool in_order_ = true;  // every name so far greater than the one before
  std::vector<std::string_view> shard_names_;
  FlatIndex shard_ids_;
  uint32_t last_shard_ = FlatIndex::kEmpty;
};

constexpr JsonLimits kIndexLimits{};

// The common index, {"metadata": {...}, "weight_map": {"name": "shard", ...}} with plain names,
// read with JsonCursor; nullopt for anything else, which the full parser then reads.
std::optional<SafetensorsIndex> parse_plain_index(std::string_view text, const std::string& f) {
  if (text.size() > kIndexLimits.max_bytes) return std::nullopt;
  JsonCursor c(text);
  SafetensorsIndex index;
  bool saw_map = false, saw_metadata = false;
  if (!c.consume('{')) return std::nullopt;
  if (c.consume('}')) return std::nullopt;  // no weight_map: the full parser words that
  do {
    std::string_view key;
    if (!c.plain_string(key) || !c.consume(':')) return std::nullopt;
    if (key == "weight_map" && !saw_map) {
      saw_map = true;
      // ~100 bytes per entry in real indexes, a little over half of them the name. The names
      // cannot outgrow the text, so their block never moves; what is reserved but never written
      // costs address space, not memory.
      WeightMapBuilder map(index, f, text.size() / 96 + 16, text.size());
      if (!c.consume('{')) return std::nullopt;
      if (c.consume('}')) continue;
      do {
        std::string_view tensor, shard;
        if (!c.plain_string(tensor) || !c.consume(':') || !c.plain_string(shard)) return std::nullopt;
        if (!map.add(tensor, shard)) return std::nullopt;
      } while (c.consume(','));
      if (!c.consume('}')) return std::nullopt;
    } else if (key == "metadata" && !saw_metadata) {
      saw_metadata = true;
      std::string_view value;
      // One level less than the whole document allows, and one more for safety: when in doubt
      // the full parser decides.
      if (!c.skip_value(value, static_cast<int>(kIndexLimits.max_depth) - 2)) return std::nullopt;
      JsonDom dom;
      auto meta = dom.parse(value, f, JsonLimits{kIndexLimits.max_bytes, kIndexLimits.max_depth - 2});
      if (!meta || !read_metadata(*meta, f, index)) return std::nullopt;
    } else {
      return std::nullopt;  // other members, or a repeated one: rare, and the full parser's business
    }
  } while (c.consume(','));
  if (!c.consume('}') || !c.at_end() || !saw_map) return std::nullopt;
  return index;
}

}  // namespace

Result<SafetensorsIndex> parse_safetensors_index(std::string_view text, std::string_view file) {
  std::string f(file);
  if (auto plain = parse_plain_index(text, f)) return std::move(*plain);
  return parse_safetensors_index_fully(text, file);
}

Result<SafetensorsIndex> parse_safetensors_index_fully(std::string_view text, std::string_view file) {
  std::string f(file);
  JsonDom dom;
  auto root = dom.parse(text, file, kIndexLimits);
  if (!root) return root.error();
  if (!root->is_object()) return malformed(f, "", "is not a JSON object");
  simdjson::dom::object top(*root);
  SafetensorsIndex index;
  if (simdjson::dom::element meta; !top["metadata"].get(meta)) {
    auto status = read_metadata(meta, f, index);
    if (!status) return status.error();
  }
  simdjson::dom::element map;
  if (top["weight_map"].get(map) || !map.is_object()) return malformed(f, "weight_map", "missing or not a JSON object");
  simdjson::dom::object entries(map);
  WeightMapBuilder builder(index, f, entries.size(), text.size());  // names are views into the DOM, which outlives it
  for (auto [tensor, shard] : entries) {
    std::string_view name;
    if (shard.get_string().get(name)) return malformed(f, "weight_map." + std::string(tensor), "shard name is not a string");
    auto status = builder.add(tensor, name);
    if (!status) return status.error();
  }
  return index;
}

}  // namespace hfi
