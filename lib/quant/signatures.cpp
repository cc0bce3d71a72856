// The suffix vocabulary (quant-formats.md §1), the exact-name index, the helpers every decoder
// shares, and the choice of decoder from the terms a module shows.
#include <algorithm>
#include <bit>

#include "quant/decode.hpp"

namespace hfi::quant {
namespace {

// Last components that name a term on their own ("P.<component>").
const std::unordered_map<std::string_view, Term>& dot_terms() {
  static const std::unordered_map<std::string_view, Term> terms = {
      {"weight_scale_inv", Term::WeightScaleInv},
      {"weight_scale", Term::WeightScale},
      {"weight_scale_2", Term::WeightScale2},
      {"input_scale", Term::InputScale},
      {"input_zero_point", Term::InputZeroPoint},
      {"output_scale", Term::OutputScale},
      {"pre_quant_scale", Term::PreQuantScale},
      {"weight_scales", Term::EetqScales},
      {"qweight", Term::QWeight},
      {"qzeros", Term::QZeros},
      {"g_idx", Term::GIdx},
      {"B", Term::MarlinB},
      {"SCB", Term::Scb},
      {"weight_format", Term::WeightFormat},
      {"weight_packed", Term::WeightPacked},
      {"weight_shape", Term::WeightShape},
      {"weight_zero_point", Term::WeightZeroPoint},
      {"weight_g_idx", Term::WeightGIdx},
      {"weight_global_scale", Term::WeightGlobalScale},
      {"input_global_scale", Term::InputGlobalScale},
      {"W_q", Term::HqqWq},
      {"k_scale", Term::KvScale},
      {"v_scale", Term::KvScale},
  };
  return terms;
}

// "a.b.weight" minus ".weight" when it ends so.
std::optional<std::string_view> strip_suffix(std::string_view s, std::string_view suffix) {
  if (!s.ends_with(suffix)) return std::nullopt;
  return s.substr(0, s.size() - suffix.size());
}

std::string_view last_component(std::string_view s) {
  auto dot = s.rfind('.');
  return dot == std::string_view::npos ? s : s.substr(dot + 1);
}

}  // namespace

bool term_is_distinctive(Term t) {
  switch (t) {
    case Term::FusedScale:   // "per_dim_scale", "layer_scale": ordinary parameters elsewhere
    case Term::F8Weight:     // an anchor: always a logical tensor anyway
    case Term::KvScale:
    case Term::ActScales:
      return false;
    default:
      return true;
  }
}

std::optional<Classified> classify(const TensorInfo& t) {
  std::string_view name = t.name;
  auto dot = name.rfind('.');
  std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
  std::string_view head = dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
  if (last == "weight") {
    if (dtype_is_fp8(t.dtype)) return Classified{Term::F8Weight, head};
    return std::nullopt;
  }
  auto it = dot_terms().find(last);
  if (it != dot_terms().end()) {
    if (it->second == Term::MarlinB && t.dtype != Dtype::I32) return std::nullopt;
    return Classified{it->second, head};
  }
  // bitsandbytes 4-bit: P.weight.absmax, P.weight.quant_map, P.weight.nested_*, P.weight.quant_state.bitsandbytes__nf4
  if (last == "absmax" || last == "quant_map" || last == "nested_absmax" || last == "nested_quant_map") {
    if (auto p = strip_suffix(head, ".weight")) {
      Term term = last == "absmax"          ? Term::BnbAbsmax
                  : last == "quant_map"     ? Term::BnbQuantMap
                  : last == "nested_absmax" ? Term::BnbNestedAbsmax
                                            : Term::BnbNestedQuantMap;
      return Classified{term, *p};
    }
    return std::nullopt;
  }
  if (last.starts_with("bitsandbytes__")) {
    if (auto p = strip_suffix(head, ".weight.quant_state")) return Classified{Term::BnbQuantState, *p};
    return std::nullopt;
  }
  // optimum-quanto: P.weight._data (8-bit), P.weight._data._data (packed), P.weight._scale, P.weight._shift
  if (last == "_data") {
    if (auto p = strip_suffix(head, ".weight._data")) return Classified{Term::QuantoPacked, *p};
    if (auto p = strip_suffix(head, ".weight")) return Classified{Term::QuantoData, *p};
    return std::nullopt;
  }
  if (last == "_scale" || last == "_shift") {
    if (auto p = strip_suffix(head, ".weight")) return Classified{last == "_scale" ? Term::QuantoScale : Term::QuantoShift, *p};
    return std::nullopt;
  }
  // AWQ smoothing vectors of falcon/mpt/bloom/...: "...mlp.act.scales", "...gelu_impl.scales".
  if (last == "scales") {
    std::string_view owner = last_component(head);
    if (owner == "act" || owner == "gelu_impl") return Classified{Term::ActScales, head};
    return std::nullopt;
  }
  // Suffixes glued to a fused name (no dot): DeepSeek's rule "scale of X is X_scale_inv",
  // gpt-oss MXFP4 "X_blocks" / "X_scales", FBGEMM Llama-4 experts "X_scale".
  if (last.ends_with("_scale_inv")) return Classified{Term::FusedScaleInv, name.substr(0, name.size() - 10)};
  if (last.ends_with("_blocks") && t.dtype == Dtype::U8 && t.shape.size() >= 2 && t.shape.back() == 16)
    return Classified{Term::MxBlocks, name.substr(0, name.size() - 7)};
  if (last.ends_with("_scales") && (t.dtype == Dtype::U8 || t.dtype == Dtype::F8_E8M0))
    return Classified{Term::MxScales, name.substr(0, name.size() - 7)};
  // ModelOpt stacked experts (vLLM-fused layout): X_weight_scale, X_weight_scale_2, X_input_scale.
  if (last.ends_with("_weight_scale_2")) return Classified{Term::WeightScale2, name.substr(0, name.size() - 15)};
  if (last.ends_with("_weight_scale")) return Classified{Term::WeightScale, name.substr(0, name.size() - 13)};
  if (last.ends_with("_input_scale")) return Classified{Term::InputScale, name.substr(0, name.size() - 12)};
  if (last.ends_with("_scale") && last.size() > 6) return Classified{Term::FusedScale, name.substr(0, name.size() - 6)};
  return std::nullopt;
}

TensorIndex::TensorIndex(const std::vector<ShardHeader>& shards) {
  size_t n = 0;
  for (const auto& s : shards) n += s.header.tensors.size();
  tensors_.reserve(n);
  for (const auto& s : shards)
    for (const auto& t : s.header.tensors) tensors_.push_back(&t);
}

void TensorIndex::index_names() const {
  by_name_.reserve(tensors_.size());
  auto name_of = [this](uint32_t i) { return std::string_view(tensors_[i]->name); };
  // A name stored twice (two shards): the later one wins, as the loaders' dict update does.
  for (uint32_t i = 0; i < tensors_.size(); ++i) by_name_.insert(tensors_[i]->name, i, name_of, true);
}

std::optional<uint32_t> TensorIndex::find(std::string_view name) const {
  if (!names_indexed_) {
    index_names();
    names_indexed_ = true;
  }
  uint32_t i = by_name_.find(name, [this](uint32_t k) { return std::string_view(tensors_[k]->name); });
  if (i == FlatIndex::kEmpty) return std::nullopt;
  return i;
}

std::optional<uint32_t> TensorIndex::find(std::string_view prefix, std::string_view suffix) const {
  joined_.assign(prefix);
  joined_.append(suffix);
  return find(std::string_view(joined_));
}

std::optional<uint32_t> Candidate::get(Term t) const {
  if (!has(t)) return std::nullopt;
  for (size_t k = 0; k < terms.size(); ++k)
    if (terms[k].first == t) return terms[k].second;
  return std::nullopt;
}

Builder::Builder(const TensorIndex& idx, std::string_view prefix, QuantScheme scheme, uint32_t anchor, std::string_view stored_name)
    : idx_(idx), prefix_(prefix) {
  d_.anchor = anchor;
  d_.logical.name = stored_name;
  d_.logical.scheme = scheme;
  d_.module.module = prefix;
  d_.module.scheme = scheme;
}

Builder::Builder(const TensorIndex& idx, std::string_view prefix, QuantScheme scheme, uint32_t anchor, MadeName name)
    : Builder(idx, prefix, scheme, anchor, std::string_view{}) {
  d_.made_name = std::move(name.text);
}

const TensorInfo* Builder::add(std::optional<uint32_t> tensor, const char* kind) {
  if (!tensor || *tensor == d_.anchor) return nullptr;
  for (size_t k = 0; k < d_.companions.size(); ++k)
    if (d_.companions[k].tensor == *tensor) return &idx_.at(*tensor);
  d_.companions.push_back({*tensor, kind});
  return &idx_.at(*tensor);
}

const TensorInfo* Builder::add(std::string_view suffix, const char* kind) { return add(idx_.find(prefix_, suffix), kind); }

const TensorInfo* Builder::require(std::optional<uint32_t> tensor, std::string_view suffix, const char* kind) {
  const TensorInfo* t = add(tensor, kind);
  if (!t) {
    std::string_view s = suffix.starts_with('.') ? suffix.substr(1) : suffix;
    d_.module.missing.emplace_back(s);
  }
  return t;
}

const TensorInfo* Builder::require(std::string_view suffix, const char* kind) { return require(idx_.find(prefix_, suffix), suffix, kind); }

std::optional<Decoded> Builder::finish(Shape shape, std::string_view format) {
  const TensorInfo& a = anchor();
  d_.logical.params = shape.empty() ? 0 : product(shape);
  d_.logical.shape = std::move(shape);
  d_.format = FormatText(format);
  d_.logical.stored_bytes = a.bytes();
  d_.module.value_bytes = a.bytes();
  d_.module.stored_tensors = static_cast<uint32_t>(1 + d_.companions.size());
  uint64_t book = 0;
  d_.companions.each([&](const Companion& c) { book += idx_.at(c.tensor).bytes(); });
  d_.logical.bookkeeping_bytes = book;
  d_.module.bookkeeping_bytes = book;
  return std::optional<Decoded>(std::move(d_));
}

uint64_t product(std::span<const uint64_t> shape) {
  uint64_t p = 1;
  for (uint64_t d : shape) p *= d;
  return p;
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

std::optional<uint32_t> group_from(uint64_t in, uint64_t groups) {
  if (groups <= 1 || in == 0) return std::nullopt;
  if (in % groups == 0) return static_cast<uint32_t>(in / groups);
  uint64_t p = std::bit_ceil(ceil_div(in, groups));
  if (ceil_div(in, p) == groups) return static_cast<uint32_t>(p);
  return static_cast<uint32_t>(ceil_div(in, groups));
}

uint64_t block_from(uint64_t dim, uint64_t blocks) {
  if (blocks == 0) return 0;
  if (blocks == 1) return dim;
  if (dim % blocks == 0) return dim / blocks;
  uint64_t p = std::bit_ceil(ceil_div(dim, blocks));
  return ceil_div(dim, p) == blocks ? p : ceil_div(dim, blocks);
}

std::optional<uint32_t> bits_from_words(uint64_t count, uint64_t words, uint32_t pack) {
  if (count == 0) return std::nullopt;
  for (uint32_t b = 2; b <= 8; ++b)
    if (ceil_div(count * b, pack) == words) return b;
  return std::nullopt;
}

std::string group_text(std::optional<uint32_t> g) { return g ? "g" + std::to_string(*g) : "per-channel"; }

Shape flat_or_from_bias(const TensorIndex& idx, std::string_view prefix, uint64_t n) {
  if (auto b = idx.find(prefix, ".bias")) {
    const TensorInfo& bias = idx.at(*b);
    if (bias.shape.size() == 1 && bias.shape[0] > 0 && n % bias.shape[0] == 0) return {bias.shape[0], n / bias.shape[0]};
  }
  return {n};
}

std::optional<Decoded> decode_candidate(const TensorIndex& idx, const Candidate& c) {
  auto any = [&](std::initializer_list<Term> ts) {
    return std::any_of(ts.begin(), ts.end(), [&](Term t) { return c.has(t); });
  };
  if (any({Term::QWeight, Term::QZeros, Term::GIdx})) return decode_gptq_awq(idx, c);
  if (c.has(Term::MarlinB)) return decode_marlin(idx, c);
  if (any({Term::WeightPacked, Term::WeightShape, Term::WeightZeroPoint, Term::WeightGIdx, Term::WeightGlobalScale,
           Term::InputGlobalScale}))
    return decode_ct(idx, c);
  if (c.has(Term::HqqWq)) return decode_hqq(idx, c);
  if (any({Term::QuantoData, Term::QuantoPacked, Term::QuantoScale, Term::QuantoShift, Term::OutputScale}))
    return decode_quanto(idx, c);
  if (any({Term::MxBlocks, Term::MxScales})) return decode_mxfp4(idx, c);
  if (any({Term::BnbAbsmax, Term::BnbQuantMap, Term::BnbNestedAbsmax, Term::BnbNestedQuantMap, Term::BnbQuantState}))
    return decode_bnb4(idx, c);
  if (any({Term::Scb, Term::WeightFormat})) return decode_bnb8(idx, c);
  if (c.has(Term::EetqScales)) return decode_eetq(idx, c);
  return decode_fp8_or_modelopt(idx, c);
}

}  // namespace hfi::quant
