// decode_storage(): the stored tensors of all shards as logical weights, bookkeeping and quantized
// modules. The format knowledge lives in lib/quant/ (decode.hpp); this file runs the passes.
#include "analysis/storage.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "quant/decode.hpp"

namespace hfi {
namespace {

constexpr int32_t kUnclaimed = -1;
constexpr int32_t kStandalone = -2;  // bookkeeping with no quantized weight: KV-cache scales, AWQ act.scales

bool is_awq(QuantScheme s) { return s == QuantScheme::AwqGemm || s == QuantScheme::AwqGemv; }

// The decoded candidates, one slot per candidate, column by column. A column frees on its own
// once its pass is done, and `module` becomes StorageView::quant_modules where it lies: decoding
// DeepSeek-V3 (46k modules) touched 50 MB of fresh memory with one array of whole results moved
// into the view afterwards, and fresh memory is what a cold run waits on most on a VM that hands
// freed pages back to its host.
struct DecodedColumns {
  std::vector<uint8_t> ok;  // the decoder recognised the candidate
  std::vector<uint32_t> anchor;
  // The module's scheme again, one byte apiece: the claim pass reads it for every candidate, and
  // reading it from `module` (136 bytes apart) took a quarter of that pass in cache misses.
  std::vector<QuantScheme> scheme;
  std::vector<LogicalTensor> logical;
  std::vector<QuantModule> module;
  std::vector<quant::SmallList<quant::Companion, 4>> companions;
  // The logical names no stored tensor has (GPTQ's "P.weight"), back to back; the logical column
  // views them.
  std::shared_ptr<const std::string> made_names;
};

// Decodes every candidate; each is independent of the others, so a large checkpoint (DeepSeek-V3:
// 46k quantized linears) is split across a few threads. The logical column gets room for
// `plain` more entries, the tensors no module can claim: it becomes StorageView::logical.
DecodedColumns decode_all(const quant::TensorIndex& idx, const std::vector<quant::Candidate>& candidates, size_t plain) {
  DecodedColumns out;
  // Making the columns writes ~16 MB for DeepSeek-V3, fresh memory unless this thread's heap was
  // warmed (core/heap_warmer.hpp); its page faults are most of that cost. The module column, 6 MB
  // of it, is taken from this thread's heap here and written on a second thread while this one
  // makes the others.
  out.module.reserve(candidates.size());
  auto make_modules = [&out, n = candidates.size()] { out.module.resize(n); };  // within capacity: no move
  std::thread modules_maker;
  if (candidates.size() >= 4096) {
    try {
      modules_maker = std::thread(make_modules);
    } catch (const std::system_error&) {  // no thread to be had: made below
    }
  }
  out.ok.assign(candidates.size(), 0);
  out.anchor.assign(candidates.size(), 0);
  out.scheme.assign(candidates.size(), QuantScheme::None);
  out.logical.reserve(candidates.size() + plain);
  out.logical.resize(candidates.size());
  out.companions.resize(candidates.size());
  if (modules_maker.joinable()) modules_maker.join();
  else make_modules();
  size_t threads = candidates.size() >= 4096 ? std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), 4) : 1;
  using MadeNames = std::vector<std::pair<size_t, std::string>>;  // candidate, name; in candidate order
  std::vector<MadeNames> made(threads + 1);                       // one list per range, one spare
  auto run = [&](size_t from, size_t to, MadeNames& names) {
    for (size_t ci = from; ci < to; ++ci) {
      auto d = quant::decode_candidate(idx, candidates[ci]);
      if (!d) continue;
      out.ok[ci] = 1;
      out.anchor[ci] = d->anchor;
      out.scheme[ci] = d->module.scheme;
      out.logical[ci] = std::move(d->logical);
      out.module[ci] = std::move(d->module);
      out.companions[ci] = std::move(d->companions);
      if (!d->made_name.empty()) names.emplace_back(ci, std::move(d->made_name));
    }
  };
  std::vector<std::thread> pool;
  size_t per = (candidates.size() + threads - 1) / threads;
  try {
    for (size_t t = 1; t < threads; ++t)
      pool.emplace_back(run, std::min(candidates.size(), t * per), std::min(candidates.size(), (t + 1) * per), std::ref(made[t]));
  } catch (const std::system_error&) {  // no thread to be had: this one does the rest
    for (auto& th : pool) th.join();
    pool.clear();
    for (size_t t = 1; t < threads; ++t) made[t].clear();
    run(per, candidates.size(), made[threads]);
  }
  run(0, std::min(candidates.size(), per), made[0]);
  for (auto& th : pool) th.join();

  size_t bytes = 0;
  for (const auto& list : made)
    for (const auto& entry : list) bytes += entry.second.size();
  if (bytes > 0) {
    auto block = std::make_shared<std::string>();
    block->reserve(bytes);
    for (const auto& list : made)
      for (const auto& entry : list) block->append(entry.second);
    size_t at = 0;  // the block is complete: its views stay put
    for (const auto& list : made)
      for (const auto& [ci, name] : list) {
        out.logical[ci].name = std::string_view(block->data() + at, name.size());
        at += name.size();
      }
    out.made_names = std::move(block);
  }
  return out;
}

// Moves the placed slots (`placed`: candidates whose anchor has been placed, in stored order) to
// the front of `column`, in that order, where they lie. Candidates are numbered by their first
// tensor and placed by their anchor, so `placed` rises except where a module's scale is stored
// before its weight, in another shard (DeepSeek-V3: 3 places in 45,808). Walking forward, a slot
// is written only after it has been read, except the source of such a step back: those few
// values are set aside first. (Copying the column whenever `placed` fell once cost 12 MB.)
template <typename T>
void compact_in_place(std::vector<T>& column, const std::vector<size_t>& placed) {
  std::vector<std::pair<size_t, T>> set_aside;  // (destination, value), by destination
  for (size_t k = 0; k < placed.size(); ++k)
    if (placed[k] < k) set_aside.emplace_back(k, std::move(column[placed[k]]));
  size_t next = 0;
  for (size_t k = 0; k < placed.size(); ++k) {
    if (next < set_aside.size() && set_aside[next].first == k) column[k] = std::move(set_aside[next++].second);
    else if (placed[k] != k) column[k] = std::move(column[placed[k]]);
  }
}

// The claimed modules, in the order their anchors are stored.
std::vector<QuantModule> modules_in_stored_order(std::vector<QuantModule>& column, const std::vector<size_t>& placed) {
  compact_in_place(column, placed);
  column.resize(placed.size());
  return std::move(column);
}

// StorageView::logical: the placed modules' weights (by candidate, `placed`, in stored order) and
// the plain tensors (`plain`: final position, tensor), merged in stored order into `column`
// itself. Filled from the back, a module's weight only moves up (the k-th placed module lands at
// k or later) and lands on a slot whose occupant has already moved.
std::vector<LogicalTensor> logical_in_stored_order(std::vector<LogicalTensor>& column, const std::vector<size_t>& placed,
                                                   std::vector<std::pair<size_t, LogicalTensor>>& plain) {
  const size_t total = placed.size() + plain.size();
  compact_in_place(column, placed);
  column.resize(total);
  size_t m = placed.size(), p = plain.size();
  for (size_t pos = total; pos-- > 0;) {
    if (p > 0 && plain[p - 1].first == pos) {
      column[pos] = std::move(plain[--p].second);
    } else if (--m != pos) {
      column[pos] = std::move(column[m]);
    }
  }
  return std::move(column);
}

// Gives a container's memory back to the heap now rather than at the end of the function.
template <typename T>
void release(T& container) {
  container = T{};
}

}  // namespace

StorageView decode_storage(const std::vector<ShardHeader>& shards) {
  StorageView view;
  for (const auto& s : shards) {
    view.stored_bytes += s.header.data_bytes;
    view.file_bytes += s.header.file_size();
  }
  quant::TensorIndex idx(shards);
  const size_t n = idx.size();
  for (const auto& s : shards)
    if (s.header.names) view.names.push_back(s.header.names);  // what the names below view

  // 1. Classify every name by its suffix; quantization vocabulary gathers under its module prefix.
  std::vector<uint8_t> distinctive(n, 0);  // an unclaimed distinctive term is an orphan
  std::vector<quant::Candidate> candidates;
  candidates.reserve(n / 2 + 1);  // a module has two or more tensors (lone orphans may exceed this: growth is safe)
  quant::FlatIndex candidate_of;
  candidate_of.reserve(n / 2 + 1);
  auto prefix_of = [&candidates](uint32_t k) { return candidates[k].prefix; };
  std::vector<std::pair<uint32_t, std::string_view>> attention_level;  // KV scales, act.scales
  uint32_t last = quant::FlatIndex::kEmpty;  // a module's tensors mostly sit side by side: one lookup serves them
  size_t unclassified = 0;
  for (uint32_t i = 0; i < n; ++i) {
    view.stored_elements += idx.at(i).elements;  // this pass reads every tensor anyway
    auto cl = quant::classify(idx.at(i));
    if (!cl) {
      ++unclassified;
      continue;
    }
    distinctive[i] = quant::term_is_distinctive(cl->term);
    if (cl->term == quant::Term::KvScale || cl->term == quant::Term::ActScales) {
      attention_level.emplace_back(i, cl->prefix);
      continue;
    }
    uint32_t k = last;
    if (k == quant::FlatIndex::kEmpty || candidates[k].prefix != cl->prefix) {
      // Found, or stored as the next candidate, in one probe.
      auto next = static_cast<uint32_t>(candidates.size());
      k = candidate_of.insert(cl->prefix, next, prefix_of, false);
      if (k == quant::FlatIndex::kEmpty) {
        k = next;
        candidates.emplace_back().prefix = cl->prefix;
      }
    }
    candidates[k].add(cl->term, i);
    last = k;
  }

  // 2. Decode each candidate module; a stored tensor belongs to at most one module, the first
  // candidate to claim all of its tensors. claim[i] is that candidate's index.
  std::vector<int32_t> claim(n, kUnclaimed);
  std::vector<const char*> kind(n, nullptr);
  std::vector<uint8_t> claimed(candidates.size(), 0);
  size_t modules = 0;
  bool any_awq = false;
  DecodedColumns decoded = decode_all(idx, candidates, unclassified);
  if (decoded.made_names) view.names.push_back(decoded.made_names);
  for (size_t ci = 0; ci < candidates.size(); ++ci) {
    if (!decoded.ok[ci]) continue;
    const auto& companions = decoded.companions[ci];
    bool free = claim[decoded.anchor[ci]] == kUnclaimed;
    companions.each([&](const quant::Companion& c) { free = free && claim[c.tensor] == kUnclaimed; });
    if (!free) continue;
    auto k = static_cast<int32_t>(ci);
    claim[decoded.anchor[ci]] = k;
    companions.each([&](const quant::Companion& c) {
      claim[c.tensor] = k;
      kind[c.tensor] = c.kind;
    });
    any_awq = any_awq || is_awq(decoded.scheme[ci]);
    claimed[ci] = 1;
    ++modules;
  }
  release(decoded.companions);
  release(decoded.scheme);

  // 3. Scales that belong to an attention module (k_scale, v_scale) or to an AWQ activation
  // (act.scales): part of a quantized module when one has the same prefix (ModelOpt puts k_scale
  // on k_proj), else bookkeeping of their own module.
  std::unordered_map<uint32_t, std::string_view> standalone_owner;
  for (const auto& [i, prefix] : attention_level) {
    bool kv = !idx.at(i).name.ends_with(".scales");
    if (!kv && !any_awq) continue;  // "act.scales" outside an AWQ checkpoint: an ordinary tensor
    uint32_t ci = candidate_of.find(prefix, prefix_of);
    if (ci != quant::FlatIndex::kEmpty && claimed[ci]) {
      const TensorInfo& t = idx.at(i);
      claim[i] = static_cast<int32_t>(ci);
      kind[i] = kv ? "kv scale" : "scale";
      decoded.logical[ci].bookkeeping_bytes += t.bytes();
      decoded.module[ci].bookkeeping_bytes += t.bytes();
      ++decoded.module[ci].stored_tensors;
      continue;
    }
    claim[i] = kStandalone;
    kind[i] = kv ? "kv scale" : "scale";
    standalone_owner.emplace(i, prefix);
  }
  // What step 4 allocates can reuse what the classification held.
  release(candidate_of);
  release(candidates);
  release(claimed);

  // 4. Everything in stored order: logical weights where their values are (a module where its
  // anchor is), bookkeeping aside.
  const size_t claimed_tensors = n - static_cast<size_t>(std::count(claim.begin(), claim.end(), kUnclaimed));
  view.bookkeeping.reserve(claimed_tensors - modules);
  std::vector<size_t> placed;  // candidates whose anchor has been placed, in stored order
  placed.reserve(modules);
  std::vector<std::pair<size_t, LogicalTensor>> plain;  // unclaimed tensors and their place in view.logical
  std::vector<std::pair<size_t, size_t>> owned_by;  // bookkeeping entry, candidate: owner set once all are placed
  constexpr size_t kNotPlaced = SIZE_MAX;
  std::vector<size_t> module_logical(decoded.ok.size(), kNotPlaced);  // candidate -> its weight's place in view.logical
  size_t next_logical = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const TensorInfo& t = idx.at(i);
    if (claim[i] >= 0 && decoded.anchor[static_cast<size_t>(claim[i])] == i) {
      auto ci = static_cast<size_t>(claim[i]);
      module_logical[ci] = next_logical;
      decoded.module[ci].logical = next_logical++;
      placed.push_back(ci);
      continue;
    }
    if (claim[i] != kUnclaimed) {
      BookkeepingTensor b;
      b.name = t.name;
      if (claim[i] == kStandalone) b.module = standalone_owner.at(i);
      else if (module_logical[static_cast<size_t>(claim[i])] != kNotPlaced) b.owner = module_logical[static_cast<size_t>(claim[i])];  // weight first, as usual
      else owned_by.emplace_back(view.bookkeeping.size(), static_cast<size_t>(claim[i]));
      b.kind = kind[i];
      b.dtype = t.dtype;
      b.elements = t.elements;
      b.bytes = t.bytes();
      view.bookkeeping.push_back(std::move(b));
      continue;
    }
    LogicalTensor& l = plain.emplace_back(next_logical++, LogicalTensor{}).second;
    l.name = t.name;
    l.shape = t.shape;
    l.format = dtype_name(t.dtype);
    l.stored_bytes = t.bytes();
    l.params = t.shape.empty() ? 0 : t.elements;
    if (t.shape.empty()) ++view.scalar_tensors;
    if (distinctive[i]) view.orphan_quant_tensors.emplace_back(t.name);
  }
  view.logical = logical_in_stored_order(decoded.logical, placed, plain);
  view.quant_modules = modules_in_stored_order(decoded.module, placed);
  for (auto [entry, ci] : owned_by) view.bookkeeping[entry].owner = module_logical[ci];
  return view;
}

size_t absorb_gptq_bias_buffers(StorageView& view, const std::vector<int64_t>& expected_of) {
  if (std::none_of(view.quant_modules.begin(), view.quant_modules.end(), [](const QuantModule& m) { return m.scheme == QuantScheme::Gptq; }))
    return 0;  // the common case: no name lookup to build
  auto name_of = [&](uint32_t i) { return std::string_view(view.logical[i].name); };
  FlatIndex logical_of;  // views into view.logical
  logical_of.reserve(view.logical.size());
  for (size_t i = 0; i < view.logical.size(); ++i) logical_of.insert(view.logical[i].name, static_cast<uint32_t>(i), name_of, false);
  std::vector<size_t> owner(view.logical.size(), SIZE_MAX);  // logical index -> module absorbing it
  size_t moved = 0;
  for (size_t k = 0; k < view.quant_modules.size(); ++k) {
    const QuantModule& m = view.quant_modules[k];
    if (m.scheme != QuantScheme::Gptq || m.logical >= view.logical.size()) continue;
    uint32_t found = logical_of.find(std::string(m.module) + ".bias", name_of);
    if (found == FlatIndex::kEmpty || found >= expected_of.size() || expected_of[found] >= 0) continue;
    const LogicalTensor& b = view.logical[found];
    const LogicalTensor& w = view.logical[m.logical];
    if (b.scheme != QuantScheme::None || b.shape.size() != 1 || w.shape.empty() || b.shape[0] != w.shape[0]) continue;
    owner[found] = k;
    ++moved;
  }
  if (moved == 0) return 0;
  std::vector<size_t> new_index(view.logical.size(), SIZE_MAX);
  std::vector<LogicalTensor> kept;
  kept.reserve(view.logical.size() - moved);
  for (size_t i = 0; i < view.logical.size(); ++i)
    if (owner[i] == SIZE_MAX) {
      new_index[i] = kept.size();
      kept.push_back(std::move(view.logical[i]));
    }
  for (auto& b : view.bookkeeping)
    if (b.owner < new_index.size()) b.owner = new_index[b.owner];
  for (size_t i = 0; i < view.logical.size(); ++i) {
    if (owner[i] == SIZE_MAX) continue;
    QuantModule& m = view.quant_modules[owner[i]];
    LogicalTensor& b = view.logical[i];
    LogicalTensor& w = kept[new_index[m.logical]];
    BookkeepingTensor t;
    t.name = b.name;
    t.owner = new_index[m.logical];
    t.kind = "bias buffer";
    t.dtype = parse_dtype(b.format).value_or(Dtype::F16);
    t.elements = b.params;
    t.bytes = b.stored_bytes;
    w.bookkeeping_bytes += t.bytes;
    m.bookkeeping_bytes += t.bytes;
    ++m.stored_tensors;
    view.bookkeeping.push_back(std::move(t));
  }
  for (auto& m : view.quant_modules)
    if (m.logical < new_index.size()) m.logical = new_index[m.logical];
  view.logical = std::move(kept);
  return moved;
}

std::string_view owner_name(const StorageView& view, const BookkeepingTensor& b) {
  if (b.owner < view.logical.size()) return view.logical[b.owner].name;
  return b.module;
}

}  // namespace hfi
