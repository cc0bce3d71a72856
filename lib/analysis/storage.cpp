#include "analysis/storage.hpp"

#include <cstdint>
#include <unordered_map>

namespace hfi {
namespace {

std::string strip(const std::string& s, std::string_view suffix) { return s.substr(0, s.size() - suffix.size()); }

std::string_view strip_view(std::string_view s, std::string_view suffix) { return s.substr(0, s.size() - suffix.size()); }

}  // namespace

StorageView decode_storage(const std::vector<ShardHeader>& shards) {
  StorageView view;
  size_t tensor_count = 0;
  for (const auto& s : shards) tensor_count += s.header.tensors.size();
  // One map for every lookup below. Keys are views of the names inside `shards`, which outlive it;
  // `logical` is filled in as each stored tensor becomes (part of) a logical one.
  struct Entry {
    const TensorInfo* tensor;
    size_t logical = SIZE_MAX;
  };
  std::unordered_map<std::string_view, Entry> by_name;
  by_name.reserve(tensor_count);
  std::vector<Entry*> entry_of;  // each stored tensor's entry, in shard order (nodes never move)
  entry_of.reserve(tensor_count);
  for (const auto& s : shards) {
    view.stored_bytes += s.header.data_bytes;
    view.file_bytes += s.header.file_size();
    for (const auto& t : s.header.tensors) {
      auto [it, inserted] = by_name.insert_or_assign(t.name, Entry{&t});
      entry_of.push_back(&it->second);
      view.stored_elements += t.elements;
    }
  }
  view.logical.reserve(tensor_count);
  std::vector<const TensorInfo*> deferred;  // bookkeeping whose owner may come later
  size_t stored_index = 0;
  for (const auto& s : shards) {
    for (const auto& t : s.header.tensors) {
      Entry* entry = entry_of[stored_index++];
      // FP8 block scales: W.weight (1 byte per element) + W.weight_scale_inv.
      if (t.name.ends_with("_scale_inv")) {
        auto it = by_name.find(strip_view(t.name, "_scale_inv"));
        if (it != by_name.end() && dtype_bits(it->second.tensor->dtype) == 8) {
          deferred.push_back(&t);
          continue;
        }
      }
      // MXFP4: W_blocks (U8 [..., n/32, 16]) + W_scales (U8 [..., n/32]).
      if (t.name.ends_with("_scales") && by_name.count(strip(t.name, "_scales") + "_blocks")) {
        deferred.push_back(&t);
        continue;
      }
      LogicalTensor l;
      l.name = t.name;
      l.shape = t.shape;
      l.format = dtype_name(t.dtype);
      l.stored_bytes = t.bytes();
      l.params = t.shape.empty() ? 0 : t.elements;
      if (t.shape.empty()) ++view.scalar_tensors;
      if (t.name.ends_with("_blocks") && t.dtype == Dtype::U8 && t.shape.size() >= 2 && t.shape.back() == 16 &&
          by_name.count(strip(t.name, "_blocks") + "_scales")) {
        l.name = strip(t.name, "_blocks");
        l.shape.pop_back();
        l.shape.back() *= 32;  // 16 bytes = 32 four-bit values per block
        l.params = t.elements * 2;
        l.format = "MXFP4";
      }
      entry->logical = view.logical.size();
      view.logical.push_back(std::move(l));
    }
  }
  view.bookkeeping.reserve(deferred.size());
  for (const TensorInfo* t : deferred) {
    BookkeepingTensor b;
    b.name = t->name;
    b.dtype = t->dtype;
    b.elements = t->elements;
    b.bytes = t->bytes();
    bool block_scale = t->name.ends_with("_scale_inv");
    // The owner's stored name: W for an FP8 scale, W_blocks for MXFP4 exponents.
    auto owner = block_scale ? by_name.find(strip_view(t->name, "_scale_inv"))
                             : by_name.find(strip(t->name, "_scales") + "_blocks");
    b.owner = block_scale ? strip(t->name, "_scale_inv") : strip(t->name, "_scales");
    b.kind = block_scale ? "block scale" : "mx exponent";
    if (owner != by_name.end() && owner->second.logical != SIZE_MAX) {
      LogicalTensor& l = view.logical[owner->second.logical];
      l.bookkeeping_bytes += b.bytes;
      l.block_scaled = l.block_scaled || block_scale;
    }
    view.bookkeeping.push_back(std::move(b));
  }
  return view;
}

}  // namespace hfi
