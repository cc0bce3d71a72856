// decode_storage(): the stored tensors of all shards as logical weights, bookkeeping and quantized
// modules, in passes over them: classify every name, decode each candidate module and let it claim
// its tensors, attach the attention-level scales, then place everything in stored order. The
// format knowledge lives in lib/quant/ (decode.hpp); this file runs the passes.
#include "analysis/storage.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>

#include "quant/decode.hpp"

namespace hfi {
namespace {

constexpr int32_t kUnclaimed = -1;
constexpr int32_t kStandalone = -2;  // bookkeeping with no quantized weight: KV-cache scales, AWQ act.scales

bool is_awq(QuantScheme s) { return s == QuantScheme::AwqGemm || s == QuantScheme::AwqGemv; }

// Every stored name sorted by its suffix: quantization vocabulary gathers under its module prefix.
struct Classification {
  std::vector<quant::Candidate> candidates;  // in the stored order of their first tensor
  FlatIndex candidate_of;                    // module prefix -> candidate
  std::vector<std::pair<uint32_t, std::string_view>> attention_level;  // KV scales, act.scales: tensor, prefix
  std::vector<uint8_t> distinctive;          // per stored tensor: left unclaimed, it is an orphan
};

Classification classify_all(const quant::TensorIndex& idx) {
  Classification out;
  const auto n = static_cast<uint32_t>(idx.size());
  out.distinctive.assign(n, 0);
  out.candidates.reserve(n / 2 + 1);  // a module has two or more tensors (lone orphans may exceed this: growth is safe)
  out.candidate_of.reserve(n / 2 + 1);
  auto prefix_of = [&out](uint32_t k) { return out.candidates[k].prefix; };
  uint32_t last = FlatIndex::kEmpty;  // a module's tensors mostly sit side by side: one lookup serves them
  for (uint32_t i = 0; i < n; ++i) {
    auto cl = quant::classify(idx.at(i));
    if (!cl) continue;
    out.distinctive[i] = quant::term_is_distinctive(cl->term);
    if (cl->term == quant::Term::KvScale || cl->term == quant::Term::ActScales) {
      out.attention_level.emplace_back(i, cl->prefix);
      continue;
    }
    uint32_t k = last;
    if (k == FlatIndex::kEmpty || out.candidates[k].prefix != cl->prefix) {
      // Found, or stored as the next candidate, in one probe.
      auto next = static_cast<uint32_t>(out.candidates.size());
      k = out.candidate_of.insert(cl->prefix, next, prefix_of, false);
      if (k == FlatIndex::kEmpty) {
        k = next;
        out.candidates.emplace_back().prefix = cl->prefix;
      }
    }
    out.candidates[k].add(cl->term, i);
    last = k;
  }
  return out;
}

// What claiming decided. Per stored tensor: the module that claimed it; per module, in the order
// they were claimed: the stored tensor its weight is placed at, the weight, the module.
struct Claims {
  Claims(size_t tensors, std::vector<uint8_t> distinctive_terms)
      : module_of(tensors, kUnclaimed), kind(tensors, nullptr), distinctive(std::move(distinctive_terms)) {}
  std::vector<int32_t> module_of;  // per stored tensor: index into `modules`, kUnclaimed or kStandalone
  std::vector<const char*> kind;   // per stored tensor: its BookkeepingTensor::kind once claimed
  std::vector<uint8_t> distinctive;
  std::unordered_map<uint32_t, std::string_view> standalone_prefix;  // a kStandalone tensor's module
  std::vector<uint32_t> anchors;
  std::vector<LogicalTensor> weights;
  std::vector<QuantModule> modules;
};

// The logical names no stored tensor has (GPTQ's "P.weight"), collected back to back and handed
// over as one block once complete: a view into the growing text would move with it.
class MadeNames {
 public:
  void add(size_t module, std::string_view name) {
    made_.push_back({module, text_.size(), name.size()});
    text_ += name;
  }
  // Points each module's weight at its name and keeps the block in `names`.
  void name_weights(std::vector<LogicalTensor>& weights, std::vector<std::shared_ptr<const std::string>>& names) {
    if (made_.empty()) return;
    auto block = std::make_shared<const std::string>(std::move(text_));
    for (const auto& m : made_) weights[m.module].name = std::string_view(*block).substr(m.at, m.size);
    names.push_back(std::move(block));
  }

 private:
  struct Made {
    size_t module, at, size;
  };
  std::vector<Made> made_;
  std::string text_;
};

// A stored tensor belongs to at most one module: the first candidate to claim all of its tensors.
bool all_unclaimed(const quant::Decoded& d, const std::vector<int32_t>& module_of) {
  bool free = module_of[d.anchor] == kUnclaimed;
  d.companions.each([&](const quant::Companion& c) { free = free && module_of[c.tensor] == kUnclaimed; });
  return free;
}

// Makes `d` the next module, with its tensors; returns the module's index.
int32_t claim(quant::Decoded&& d, Claims& claims, FormatTexts& formats, MadeNames& made) {
  auto k = static_cast<int32_t>(claims.modules.size());
  claims.module_of[d.anchor] = k;
  d.companions.each([&](const quant::Companion& c) {
    claims.module_of[c.tensor] = k;
    claims.kind[c.tensor] = c.kind;
  });
  d.logical.format = formats.keep(d.format.view());
  if (!d.made_name.empty()) made.add(claims.modules.size(), d.made_name);
  claims.anchors.push_back(d.anchor);
  claims.weights.push_back(std::move(d.logical));
  claims.modules.push_back(std::move(d.module));
  return k;
}

// Decodes each candidate in turn and claims the tensors of those it recognises. Returns each
// candidate's module, or kUnclaimed.
std::vector<int32_t> decode_and_claim(const quant::TensorIndex& idx, const std::vector<quant::Candidate>& candidates,
                                      Claims& claims, StorageView& view) {
  std::vector<int32_t> module_of_candidate(candidates.size(), kUnclaimed);
  claims.anchors.reserve(candidates.size());
  claims.weights.reserve(candidates.size());
  claims.modules.reserve(candidates.size());
  MadeNames made;
  for (size_t ci = 0; ci < candidates.size(); ++ci) {
    std::optional<quant::Decoded> d = quant::decode_candidate(idx, candidates[ci]);
    if (d && all_unclaimed(*d, claims.module_of)) module_of_candidate[ci] = claim(std::move(*d), claims, view.formats, made);
  }
  made.name_weights(claims.weights, view.names);
  return module_of_candidate;
}

// Scales that belong to an attention module (k_scale, v_scale) or to an AWQ activation
// (act.scales): part of a quantized module when one has the same prefix (ModelOpt puts k_scale
// on k_proj), else bookkeeping of their own module.
void claim_attention_scales(const quant::TensorIndex& idx, const Classification& cls,
                            const std::vector<int32_t>& module_of_candidate, Claims& claims) {
  const bool any_awq =
      std::any_of(claims.modules.begin(), claims.modules.end(), [](const QuantModule& m) { return is_awq(m.scheme); });
  auto prefix_of = [&cls](uint32_t k) { return cls.candidates[k].prefix; };
  for (const auto& [i, prefix] : cls.attention_level) {
    const TensorInfo& t = idx.at(i);
    const bool kv = !t.name.ends_with(".scales");
    if (!kv && !any_awq) continue;  // "act.scales" outside an AWQ checkpoint: an ordinary tensor
    claims.kind[i] = kv ? "kv scale" : "scale";
    uint32_t ci = cls.candidate_of.find(prefix, prefix_of);
    int32_t k = ci == FlatIndex::kEmpty ? kUnclaimed : module_of_candidate[ci];
    if (k == kUnclaimed) {
      claims.module_of[i] = kStandalone;
      claims.standalone_prefix.emplace(i, prefix);
      continue;
    }
    claims.module_of[i] = k;
    const auto m = static_cast<size_t>(k);
    claims.weights[m].bookkeeping_bytes += t.bytes();
    claims.modules[m].bookkeeping_bytes += t.bytes();
    ++claims.modules[m].stored_tensors;
  }
}

// Classification, each candidate decoded and claimed in turn, then the attention-level scales.
// The classification is done with once this returns.
Claims claim_tensors(const quant::TensorIndex& idx, StorageView& view) {
  Classification cls = classify_all(idx);
  Claims claims(idx.size(), std::move(cls.distinctive));
  std::vector<int32_t> module_of_candidate = decode_and_claim(idx, cls.candidates, claims, view);
  claim_attention_scales(idx, cls, module_of_candidate, claims);
  return claims;
}

LogicalTensor plain_weight(const TensorInfo& t) {
  LogicalTensor l;
  l.name = t.name;
  l.shape = t.shape;
  l.format = dtype_name(t.dtype);
  l.stored_bytes = t.bytes();
  l.params = t.shape.empty() ? 0 : t.elements;
  return l;
}

BookkeepingTensor bookkeeping_of(const TensorInfo& t, const char* kind) {
  BookkeepingTensor b;
  b.name = t.name;
  b.kind = kind;
  b.dtype = t.dtype;
  b.elements = t.elements;
  b.bytes = t.bytes();
  return b;
}

// Moves every item to its place `to[k]` within the vector, swapping along the permutation's
// cycles: linear, and no second vector of modules. The modules are nearly in stored order already
// (a scale stored in an earlier shard than its weight puts one out of place), which a sort gains
// nothing from.
template <typename T>
void put_in_order(std::vector<T>& items, std::vector<size_t> to) {
  for (size_t k = 0; k < items.size(); ++k)
    while (to[k] != k) {
      std::swap(items[k], items[to[k]]);
      std::swap(to[k], to[to[k]]);
    }
}

// Logical weights in stored order (a module's where its anchor is), bookkeeping aside, and the
// modules in the stored order of their weights.
void place_in_stored_order(const quant::TensorIndex& idx, Claims& claims, StorageView& view) {
  const size_t n = idx.size();
  const auto claimed = static_cast<size_t>(n - std::count(claims.module_of.begin(), claims.module_of.end(), kUnclaimed));
  view.logical.reserve(n - claimed + claims.modules.size());
  view.bookkeeping.reserve(claimed - claims.modules.size());
  std::vector<size_t> stored_rank(claims.modules.size());  // per module: its place in stored order
  size_t placed = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const TensorInfo& t = idx.at(i);
    const int32_t k = claims.module_of[i];
    if (k >= 0 && claims.anchors[static_cast<size_t>(k)] == i) {
      const auto m = static_cast<size_t>(k);
      claims.modules[m].logical = view.logical.size();
      view.logical.push_back(std::move(claims.weights[m]));
      stored_rank[m] = placed++;
    } else if (k != kUnclaimed) {
      BookkeepingTensor& b = view.bookkeeping.emplace_back(bookkeeping_of(t, claims.kind[i]));
      if (k == kStandalone) b.module = claims.standalone_prefix.at(i);
      else b.owner = static_cast<size_t>(k);  // the module for now: its weight may be stored later
    } else {
      view.logical.push_back(plain_weight(t));
      if (t.shape.empty()) ++view.scalar_tensors;
      if (claims.distinctive[i]) view.orphan_quant_tensors.emplace_back(t.name);
    }
  }
  // A scale can precede its weight (DeepSeek-V3: 3 in 45,808, stored in an earlier shard).
  for (auto& b : view.bookkeeping)
    if (b.owner != BookkeepingTensor::kNoOwner) b.owner = claims.modules[b.owner].logical;
  put_in_order(claims.modules, std::move(stored_rank));
  view.quant_modules = std::move(claims.modules);
}

}  // namespace

std::string_view FormatTexts::keep(std::string_view format) {
  for (const auto& text : texts_)  // a checkpoint holds a handful of formats
    if (*text == format) return *text;
  return *texts_.emplace_back(std::make_shared<const std::string>(format));
}

StorageView decode_storage(const std::vector<ShardHeader>& shards) {
  StorageView view;
  for (const auto& s : shards) {
    view.stored_bytes += s.header.data_bytes;
    view.file_bytes += s.header.file_size();
    for (const auto& t : s.header.tensors) view.stored_elements += t.elements;
    if (s.header.names) view.names.push_back(s.header.names);  // what the names below view
  }
  quant::TensorIndex idx(shards);
  Claims claims = claim_tensors(idx, view);
  place_in_stored_order(idx, claims, view);
  return view;
}

std::string_view owner_name(const StorageView& view, const BookkeepingTensor& b) {
  if (b.owner < view.logical.size()) return view.logical[b.owner].name;
  return b.module;
}

}  // namespace hfi
