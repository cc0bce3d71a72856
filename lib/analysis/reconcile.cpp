#include "analysis/reconcile.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "analysis/gptq_bias_buffers.hpp"
#include "core/text.hpp"
#include "core/flat_index.hpp"
#include "quant/decode.hpp"

namespace hfi {
namespace {

std::vector<std::string_view> split_dots(std::string_view name) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string_view::npos ? name.npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

// Leading components up to three, stopping before an index or the leaf (weight/bias).
std::string structure_of(std::string_view name) {
  auto parts = split_dots(name);
  std::string out;
  for (size_t i = 0; i < parts.size() && i < 3; ++i) {
    if (all_digits(parts[i]) || i + 1 == parts.size()) break;
    out += (out.empty() ? "" : ".") + std::string(parts[i]);
  }
  return out.empty() ? std::string(name) : out;
}

// Where the checkpoint keeps the language model: the shortest name ending in the spec's anchor
// (embed_tokens.weight unless the family says otherwise) outside a layer stack ("model.",
// "model.language_model.", "language_model.model.", "transformer.", or no prefix at all).
void detect_prefixes(const ArchModel& spec, const StorageView& actual, Reconciliation& r) {
  const std::string& anchor = spec.prefix_anchor;
  std::string best;
  bool found = false;
  std::string head;
  for (const auto& t : actual.logical) {
    bool anchored = t.name.ends_with(anchor) && (t.name.size() == anchor.size() || t.name[t.name.size() - anchor.size() - 1] == '.');
    if (anchored && t.name.find(".layers.") == std::string::npos && (!found || t.name.size() < best.size())) {
      best = t.name;
      found = true;
    }
    if (t.name.ends_with("lm_head.weight") && (head.empty() || t.name.size() < head.size())) head = t.name;
  }
  if (found) r.lm_prefix = best.substr(0, best.size() - anchor.size());
  if (!head.empty()) r.head_prefix = head.substr(0, head.size() - std::string("weight").size());
}

// Multimodal checkpoints keep their other towers beside the language model: with the language
// model under "model.language_model." the vision tower is "model.visual." / "model.vision_tower.";
// with it under "model." (original Qwen2-VL uploads) or "language_model.model." (LLaVA) the
// towers sit at the root. Spec names outside "model." and "lm_head." get this prefix.
std::string_view tower_prefix(std::string_view lm_prefix) {
  constexpr std::string_view kLanguageModel = "language_model.";
  return lm_prefix.ends_with(".language_model.") ? lm_prefix.substr(0, lm_prefix.size() - kLanguageModel.size()) : "";
}

// `canonical` is x.name or one of its alternative names; the checkpoint's name goes to `out`, whose
// buffer is reused (a spec of DeepSeek-V3 maps 92k names).
void map_name(const ExpectedTensor& x, std::string_view canonical, const Reconciliation& r, std::string& out) {
  out.clear();
  if (x.verbatim) {
    out += canonical;
  } else if (canonical.starts_with("model.")) {
    out += r.lm_prefix;
    out += canonical.substr(6);
  } else if (canonical.starts_with("lm_head.")) {
    out += r.head_prefix;
    out += canonical.substr(8);
  } else {
    out += tower_prefix(r.lm_prefix);
    out += canonical;
  }
}

std::vector<PatternGroup> sorted_groups(std::map<std::string, PatternGroup>& groups) {
  std::vector<PatternGroup> out;
  for (auto& [k, g] : groups) out.push_back(g);
  std::stable_sort(out.begin(), out.end(), [](const PatternGroup& a, const PatternGroup& b) {
    return a.params != b.params ? a.params > b.params : a.pattern < b.pattern;
  });
  return out;
}

}  // namespace

std::string name_pattern(std::string_view name) {
  static const char* const kVars[] = {"{i}", "{j}", "{k}", "{l}"};
  std::string out;
  size_t var = 0;
  for (auto part : split_dots(name)) {
    if (!out.empty()) out += '.';
    if (all_digits(part)) out += kVars[std::min(var++, size_t{3})];
    else out += part;
  }
  return out;
}

namespace {

// Logical tensor name -> position in `actual` (the first, if a name repeats); views into `actual`.
class NameLookup {
 public:
  explicit NameLookup(const StorageView& actual) : actual_(actual) {
    index_.reserve(actual.logical.size());
    for (size_t i = 0; i < actual.logical.size(); ++i) index_.insert(actual.logical[i].name, static_cast<uint32_t>(i), key(), false);
  }
  std::optional<size_t> find(std::string_view name) const {
    uint32_t id = index_.find(name, key());
    return id == FlatIndex::kEmpty ? std::nullopt : std::optional<size_t>(id);
  }

 private:
  struct Key {
    const StorageView* v;
    std::string_view operator()(uint32_t id) const { return v->logical[id].name; }
  };
  Key key() const { return Key{&actual_}; }
  const StorageView& actual_;
  FlatIndex index_;
};

// A fused expert tensor the spec expects ("...experts.gate_up_proj" [E, 2I, H], "...experts.down_proj")
// stored one Linear per expert instead, as quantizers that work on nn.Linear modules save MoE
// layers: "...experts.{e}.gate_proj.weight" + "up_proj", or "down_proj". All E experts must be
// there and hold the fused tensor's elements between them.
bool match_split_experts(const ExpectedTensor& x, const std::string& name, const StorageView& actual,
                         const NameLookup& actual_index, size_t e, Reconciliation& r) {
  static const std::string kGateUp = "experts.gate_up_proj", kDown = "experts.down_proj";
  bool gate_up = name.ends_with(kGateUp);
  if ((!gate_up && !name.ends_with(kDown)) || x.shape.size() != 3) return false;
  std::string base = name.substr(0, name.size() - (gate_up ? kGateUp : kDown).size()) + "experts.";
  std::vector<size_t> found;
  uint64_t params = 0;
  static const std::vector<std::string> kGateUpParts = {".gate_proj.weight", ".up_proj.weight"};
  static const std::vector<std::string> kDownParts = {".down_proj.weight"};
  for (uint64_t expert = 0; expert < x.shape[0]; ++expert) {
    for (const std::string& part : gate_up ? kGateUpParts : kDownParts) {
      auto it = actual_index.find(base + std::to_string(expert) + part);
      if (!it || r.expected_of[*it] >= 0) return false;
      found.push_back(*it);
      params += actual.logical[*it].params;
    }
  }
  if (params != x.params()) return false;
  for (size_t i : found) {
    r.expected_of[i] = static_cast<int64_t>(e);
    ++r.matched_tensors;
    r.matched_params += actual.logical[i].params;
  }
  return true;
}

// Every spec tensor looked up under the checkpoint's prefixes and alternative names: matched (and
// its shape compared), split into experts, absent by design, or missing.
void match_expected(const ArchModel& expected, const StorageView& actual, Reconciliation& r) {
  NameLookup actual_index(actual);
  std::string name, alternative;
  for (size_t e = 0; e < expected.tensors.size(); ++e) {
    const ExpectedTensor& x = expected.tensors[e];
    const TensorAlternatives& other = expected.alternatives_of(x);
    map_name(x, x.name, r, name);
    auto it = actual_index.find(name);
    for (size_t k = 0; !it && k < other.names.size(); ++k) {
      map_name(x, other.names[k], r, alternative);
      it = actual_index.find(alternative);
    }
    if (!it && match_split_experts(x, name, actual, actual_index, e, r)) continue;
    if (!it) {
      if (x.optional) (x.optional_part || x.role == Role::Buffer ? r.absent_parts : r.absent_by_design).push_back(name);
      else r.missing.push_back({name, x.role, x.params()});
      continue;
    }
    const LogicalTensor& a = actual.logical[*it];
    r.expected_of[*it] = static_cast<int64_t>(e);
    ++r.matched_tensors;
    r.matched_params += a.params;
    bool shape_ok = a.shape == x.shape;
    for (const auto& alt : other.shapes) shape_ok = shape_ok || a.shape == alt;
    // bitsandbytes 4-bit, HQQ and quanto 4/2-bit headers do not carry the logical shape: the
    // element count is all there is to compare.
    bool shape_unknown = a.scheme == QuantScheme::Bnb4 || a.scheme == QuantScheme::Hqq || a.scheme == QuantScheme::Quanto;
    if (shape_unknown && a.params == x.params()) shape_ok = true;
    if (!shape_ok) r.shape_mismatches.push_back({name, x.shape, a.shape});
  }
}

// The logical tensors no spec tensor matched, by name pattern and by leading structure.
void group_unexplained(const StorageView& actual, Reconciliation& r) {
  std::map<std::string, PatternGroup> patterns, structures;
  for (size_t i = 0; i < actual.logical.size(); ++i) {
    if (r.expected_of[i] >= 0) continue;
    const LogicalTensor& t = actual.logical[i];
    for (auto* groups : {&patterns, &structures}) {
      std::string key = groups == &patterns ? name_pattern(t.name) : structure_of(t.name);
      PatternGroup& g = (*groups)[key];
      g.pattern = key;
      ++g.tensors;
      g.params += t.params;
      g.bytes += t.stored_bytes + t.bookkeeping_bytes;
    }
    ++r.unexplained_tensors;
    r.unexplained_params += t.params;
  }
  r.unexplained = sorted_groups(patterns);
  r.unexplained_structures = sorted_groups(structures);
}

ReconcileStatus status_of(const ArchModel* expected, const Reconciliation& r) {
  if (!expected) return ReconcileStatus::NoSpec;
  if (!r.missing.empty() || !r.shape_mismatches.empty()) return ReconcileStatus::Mismatch;
  if (r.unexplained_tensors > 0) return ReconcileStatus::Extras;
  return ReconcileStatus::Complete;
}

}  // namespace

const char* reconcile_source_name(ReconcileSource source) {
  switch (source) {
    case ReconcileSource::None: return "none";
    case ReconcileSource::Headers: return "headers";
    case ReconcileSource::Index: return "index";
  }
  return "none";
}

const char* reconcile_status_name(ReconcileStatus status) {
  switch (status) {
    case ReconcileStatus::NoSpec: return "no-spec";
    case ReconcileStatus::Complete: return "complete";
    case ReconcileStatus::Extras: return "extras";
    case ReconcileStatus::Mismatch: return "mismatch";
    case ReconcileStatus::NamesOnly: return "names-only";
    case ReconcileStatus::NoWeights: return "no-weights";
  }
  return "no-spec";
}

Reconciliation reconcile(const ArchModel* expected, StorageView& actual) {
  Reconciliation r;
  r.expected_of.assign(actual.logical.size(), -1);
  if (expected) {
    detect_prefixes(*expected, actual, r);
    match_expected(*expected, actual, r);
    // Matching decides which GPTQ biases the architecture expects; the others are buffers.
    absorb_gptq_bias_buffers(actual, r.expected_of);
  }
  group_unexplained(actual, r);
  r.status = status_of(expected, r);
  return r;
}

namespace {

// The names an index lists as reconcile sees them without the headers: a quantized weight under
// its logical name (P.qweight -> P.weight, X_blocks -> X), the scales and zero points beside it
// left out. The headers' dtypes and shapes would tell more; names are all an index has.
std::vector<std::string> logical_names(const SafetensorsIndex& index) {
  std::vector<std::string> kept;
  std::unordered_set<std::string> quantized;  // module prefixes with a quantized weight
  for (const auto& [tensor, shard] : index.weight_map) {
    TensorInfo t;
    t.name = tensor;
    t.dtype = Dtype::U8;  // what packed values are stored as: lets "X_blocks" read as MXFP4
    t.shape = {1, 16};
    const auto c = quant::classify(t);
    if (!c || c->term == quant::Term::FusedScale || c->term == quant::Term::ActScales) {
      kept.emplace_back(tensor);
      continue;
    }
    quantized.emplace(c->prefix);
    switch (c->term) {
      case quant::Term::QWeight:
      case quant::Term::WeightPacked:
      case quant::Term::HqqWq:
      case quant::Term::QuantoData:
      case quant::Term::QuantoPacked: kept.push_back(std::string(c->prefix) + ".weight"); break;
      case quant::Term::MxBlocks: kept.emplace_back(c->prefix); break;
      default: break;  // a scale, zero point, g_idx, ...: bookkeeping of its module
    }
  }
  // The generic companions (".scales", ".zeros") mean bookkeeping only beside a quantized weight.
  std::erase_if(kept, [&](const std::string& name) {
    const auto dot = name.rfind('.');
    if (dot == std::string::npos) return false;
    const std::string_view last = std::string_view(name).substr(dot + 1);
    return (last == "scales" || last == "zeros" || last == "s" || last == "zero") && quantized.count(name.substr(0, dot)) > 0;
  });
  return kept;
}

}  // namespace

IndexReconciliation reconcile_index(const ArchModel& expected, const SafetensorsIndex& index, uint32_t bytes_per_param,
                                    Reconciliation& by_name) {
  IndexReconciliation r;
  r.total_size = index.total_size;
  StorageView names_only;
  const std::vector<std::string> names = logical_names(index);
  for (const std::string& name : names) names_only.logical.push_back({name, {}, 0, "", 0, 0});
  by_name = reconcile(&expected, names_only);
  // A name carries no shape and no size: what was compared is presence alone.
  by_name.shape_mismatches.clear();
  by_name.matched_params = 0;
  by_name.status = ReconcileStatus::NamesOnly;
  by_name.source = ReconcileSource::Index;
  const Reconciliation& named = by_name;
  r.listed_tensors = index.weight_map.size();
  r.expected_tensors = expected.tensors.size();
  NameLookup listed(names_only);
  std::string name;
  for (size_t i = 0; i < expected.tensors.size(); ++i) {
    const ExpectedTensor& t = expected.tensors[i];
    map_name(t, t.name, named, name);
    bool is_listed = listed.find(name).has_value();
    const auto& other_names = expected.alternatives_of(t).names;
    for (size_t k = 0; !is_listed && k < other_names.size(); ++k) {
      map_name(t, other_names[k], named, name);
      is_listed = listed.find(name).has_value();
    }
    bool stored_optional = t.optional && is_listed;
    if (stored_optional) r.listed_optional.push_back(i);
    if (!t.optional || stored_optional) r.expected_bytes += t.params() * bytes_per_param;
  }
  by_name.expected_of.clear();  // it indexes the names above, not the report's (empty) storage
  return r;
}

}  // namespace hfi
