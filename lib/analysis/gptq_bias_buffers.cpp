#include "analysis/gptq_bias_buffers.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include "core/flat_index.hpp"

namespace hfi {
namespace {

constexpr size_t kNotABuffer = SIZE_MAX;

// Per logical tensor: the GPTQ module whose bias buffer it is, or kNotABuffer.
std::vector<size_t> find_bias_buffers(const StorageView& view, const std::vector<int64_t>& expected_of) {
  std::vector<size_t> buffer_of(view.logical.size(), kNotABuffer);
  auto name_of = [&](uint32_t i) { return view.logical[i].name; };
  FlatIndex logical_of;  // views into view.logical
  logical_of.reserve(view.logical.size());
  for (size_t i = 0; i < view.logical.size(); ++i) logical_of.insert(view.logical[i].name, static_cast<uint32_t>(i), name_of, false);
  for (size_t k = 0; k < view.quant_modules.size(); ++k) {
    const QuantModule& m = view.quant_modules[k];
    if (m.scheme != QuantScheme::Gptq || m.logical >= view.logical.size()) continue;
    uint32_t found = logical_of.find(std::string(m.module) + ".bias", name_of);
    if (found == FlatIndex::kEmpty || found >= expected_of.size() || expected_of[found] >= 0) continue;
    const LogicalTensor& b = view.logical[found];
    const LogicalTensor& w = view.logical[m.logical];
    if (b.scheme != QuantScheme::None || b.shape.size() != 1 || w.shape.empty() || b.shape[0] != w.shape[0]) continue;
    buffer_of[found] = k;
  }
  return buffer_of;
}

BookkeepingTensor buffer_bookkeeping(const LogicalTensor& bias, size_t owner) {
  BookkeepingTensor t;
  t.name = bias.name;
  t.owner = owner;
  t.kind = "bias buffer";
  t.dtype = parse_dtype(bias.format).value_or(Dtype::F16);
  t.elements = bias.params;
  t.bytes = bias.stored_bytes;
  return t;
}

}  // namespace

size_t absorb_gptq_bias_buffers(StorageView& view, std::vector<int64_t>& expected_of) {
  if (std::none_of(view.quant_modules.begin(), view.quant_modules.end(), [](const QuantModule& m) { return m.scheme == QuantScheme::Gptq; }))
    return 0;  // the common case: no name lookup to build
  const std::vector<size_t> buffer_of = find_bias_buffers(view, expected_of);
  const auto moved = static_cast<size_t>(std::count_if(buffer_of.begin(), buffer_of.end(), [](size_t k) { return k != kNotABuffer; }));
  if (moved == 0) return 0;
  // Where every other logical tensor goes once the buffers are gone.
  std::vector<size_t> new_index(view.logical.size(), SIZE_MAX);
  size_t kept = 0;
  for (size_t i = 0; i < view.logical.size(); ++i)
    if (buffer_of[i] == kNotABuffer) new_index[i] = kept++;
  for (auto& b : view.bookkeeping)
    if (b.owner < new_index.size()) b.owner = new_index[b.owner];
  // Each buffer becomes bookkeeping of its module's weight, in the buffers' stored order.
  for (size_t i = 0; i < view.logical.size(); ++i) {
    if (buffer_of[i] == kNotABuffer) continue;
    QuantModule& m = view.quant_modules[buffer_of[i]];
    BookkeepingTensor t = buffer_bookkeeping(view.logical[i], new_index[m.logical]);
    view.logical[m.logical].bookkeeping_bytes += t.bytes;
    m.bookkeeping_bytes += t.bytes;
    ++m.stored_tensors;
    view.bookkeeping.push_back(t);
  }
  // The others move up in place: a tensor's new position is never after its old one.
  for (size_t i = 0; i < view.logical.size(); ++i) {
    if (new_index[i] == SIZE_MAX || new_index[i] == i) continue;
    view.logical[new_index[i]] = std::move(view.logical[i]);
    if (i < expected_of.size()) expected_of[new_index[i]] = expected_of[i];
  }
  view.logical.resize(kept);
  expected_of.resize(std::min(expected_of.size(), kept));
  for (auto& m : view.quant_modules)
    if (m.logical < new_index.size()) m.logical = new_index[m.logical];
  return moved;
}

}  // namespace hfi
