// The suffix vocabulary of every quantization format (../shared/docs/quant-formats.md §1) and
// one decoder per family of formats, as analysis/storage.cpp runs them.
//
// How it works: one pass classifies every stored name by its last component (signatures.cpp).
// A name in a quantization vocabulary registers its module prefix as a candidate, remembering
// which terms were seen. Each candidate then goes to the decoder of its family, which looks the
// generic companions up by exact name (".scales", ".s", ".zero": too common to classify alone)
// and returns the logical weight, the module and the tensors it claims.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "core/flat_index.hpp"
#include "formats/safetensors_header.hpp"
#include "quant/storage_model.hpp"

namespace hfi::quant {

// Vocabulary terms that classify a stored name on their own.
enum class Term : uint8_t {
  F8Weight,         // P.weight stored in an FP8 dtype
  WeightScaleInv,   // P.weight_scale_inv
  FusedScaleInv,    // X_scale_inv next to a one-byte X that is not a ".weight" (fused experts)
  FusedScale,       // X_scale next to an FP8 X (FBGEMM Llama-4 experts); not distinctive alone
  WeightScale,      // P.weight_scale
  WeightScale2,     // P.weight_scale_2 (ModelOpt NVFP4 / W4A8 global)
  InputScale,       // P.input_scale
  InputZeroPoint,   // P.input_zero_point (compressed-tensors static int activations)
  OutputScale,      // P.output_scale (quanto)
  PreQuantScale,    // P.pre_quant_scale (ModelOpt AWQ)
  EetqScales,       // P.weight_scales
  QWeight,          // P.qweight
  QZeros,           // P.qzeros
  GIdx,             // P.g_idx
  MarlinB,          // P.B stored as I32
  Scb,              // P.SCB
  WeightFormat,     // P.weight_format
  BnbAbsmax,        // P.weight.absmax
  BnbQuantMap,      // P.weight.quant_map
  BnbNestedAbsmax,  // P.weight.nested_absmax
  BnbNestedQuantMap,// P.weight.nested_quant_map
  BnbQuantState,    // P.weight.quant_state.bitsandbytes__{nf4,fp4}
  WeightPacked,     // P.weight_packed
  WeightShape,      // P.weight_shape
  WeightZeroPoint,  // P.weight_zero_point
  WeightGIdx,       // P.weight_g_idx
  WeightGlobalScale,// P.weight_global_scale
  InputGlobalScale, // P.input_global_scale
  HqqWq,            // P.W_q
  QuantoData,       // P.weight._data
  QuantoPacked,     // P.weight._data._data
  QuantoScale,      // P.weight._scale
  QuantoShift,      // P.weight._shift
  MxBlocks,         // X_blocks, U8 [..., n/32, 16]
  MxScales,         // X_scales, U8 or F8_E8M0
  KvScale,          // P.k_scale / P.v_scale: attention-level, attached afterwards
  ActScales,        // P.scales where P ends in ".act" / ".gelu_impl" (AWQ smoothing vector)
};

static_assert(static_cast<unsigned>(Term::ActScales) < 64, "Candidate::mask holds one bit per Term");

// Whether a term left unclaimed is listed in orphan_quant_tensors: generic spellings are not.
bool term_is_distinctive(Term t);

struct Classified {
  Term term;
  std::string_view prefix;  // module prefix (for fused names: the fused tensor's own name)
};

// By the last component (and, for bitsandbytes and quanto, the one or two before it). No regex.
std::optional<Classified> classify(const TensorInfo& t);

// Every stored tensor of all shards, in stored order, with an exact-name lookup.
class TensorIndex {
 public:
  explicit TensorIndex(const std::vector<ShardHeader>& shards);
  TensorIndex(const TensorIndex&) = delete;
  TensorIndex& operator=(const TensorIndex&) = delete;
  size_t size() const { return tensors_.size(); }
  const TensorInfo& at(uint32_t i) const { return *tensors_[i]; }
  // By exact name; a name stored twice (two shards) finds the later one. Not for use from
  // several threads at once: the first call builds the name table.
  std::optional<uint32_t> find(std::string_view name) const;
  // prefix + suffix, joined in a buffer the index keeps (no allocation once it is large enough).
  std::optional<uint32_t> find(std::string_view prefix, std::string_view suffix) const;

 private:
  // The name table (a hash of every name) is built at the first find(): most checkpoints never
  // ask. Classification hands the decoders their tensors by term, and DeepSeek-V3's 46k FP8
  // modules need no lookup by name at all.
  void index_names() const;
  std::vector<const TensorInfo*> tensors_;
  mutable bool names_indexed_ = false;
  mutable FlatIndex by_name_;
  mutable std::string joined_;  // find(prefix, suffix)'s buffer
};

// A fixed-capacity list: decoding DeepSeek-V3 makes ~46k of each, and a heap block apiece showed.
template <typename V, size_t N>
class SmallList {
 public:
  void push_back(const V& v) {
    if (size_ < N) inline_[size_++] = v;
    else overflow_.push_back(v);
  }
  size_t size() const { return size_ + overflow_.size(); }
  const V& operator[](size_t i) const { return i < N ? inline_[i] : overflow_[i - N]; }
  template <typename F>
  void each(F&& f) const {
    for (size_t i = 0; i < size_; ++i) f(inline_[i]);
    for (const auto& v : overflow_) f(v);
  }

 private:
  std::array<V, N> inline_{};
  size_t size_ = 0;
  std::vector<V> overflow_;
};

struct Candidate {
  std::string_view prefix;
  SmallList<std::pair<Term, uint32_t>, 4> terms;  // usually one to four
  uint64_t mask = 0;                              // bit per Term present
  void add(Term t, uint32_t tensor) {
    terms.push_back({t, tensor});
    mask |= uint64_t{1} << static_cast<unsigned>(t);
  }
  bool has(Term t) const { return mask & (uint64_t{1} << static_cast<unsigned>(t)); }
  std::optional<uint32_t> get(Term t) const;
};

struct Companion {
  uint32_t tensor;
  const char* kind;        // BookkeepingTensor::kind vocabulary
};

// A format text held inline ("FP8 block 128x128"): every module's decoder makes one, and a heap
// block apiece is what a checkpoint of many modules would pay. 64 bytes hold the longest a
// decoder writes, "FP8 E4M3FNUZ block " and two 20-digit edges.
class FormatText {
 public:
  FormatText() = default;
  explicit FormatText(std::string_view s) { *this += s; }
  FormatText& operator+=(std::string_view s) {
    size_t n = std::min(s.size(), sizeof text_ - size_);
    std::copy_n(s.data(), n, text_ + size_);
    size_ += n;
    return *this;
  }
  FormatText& operator+=(uint64_t v) {
    auto r = std::to_chars(text_ + size_, text_ + sizeof text_, v);
    if (r.ec == std::errc()) size_ = static_cast<size_t>(r.ptr - text_);
    return *this;
  }
  std::string_view view() const { return {text_, size_}; }

 private:
  char text_[64];
  size_t size_ = 0;
};

// What a decoder returns for one quantized linear.
struct Decoded {
  uint32_t anchor = 0;     // the stored tensor that becomes the logical weight
  // Its name is empty when `made_name` holds it, its format is empty: `format` holds the text,
  // for the caller to keep where the logical weight can view it.
  LogicalTensor logical;
  QuantModule module;      // `logical` index filled in when placed
  SmallList<Companion, 4> companions;
  std::string made_name;   // a logical name no stored tensor has (GPTQ's "P.weight")
  FormatText format;       // "FP8 block 128x128", "GPTQ int4 g128", ...
};

// The name of a logical weight that no stored tensor has: GPTQ's "P.weight" beside "P.qweight".
struct MadeName {
  std::string text;
};

// Helpers shared by decoders.
class Builder {
 public:
  // `stored_name` views a stored tensor's name, or a leading part of one: it lives as long as the
  // headers. A name built here goes as a MadeName (a std::string would be a view of a temporary).
  Builder(const TensorIndex& idx, std::string_view prefix, QuantScheme scheme, uint32_t anchor, std::string_view stored_name);
  Builder(const TensorIndex& idx, std::string_view prefix, QuantScheme scheme, uint32_t anchor, MadeName name);
  Builder(const TensorIndex& idx, std::string_view prefix, QuantScheme scheme, uint32_t anchor, std::string&& name) = delete;
  const TensorInfo& anchor() const { return idx_.at(d_.anchor); }
  // Adds a companion by index or by suffix; returns it if stored.
  const TensorInfo* add(std::optional<uint32_t> tensor, const char* kind);
  const TensorInfo* add(std::string_view suffix, const char* kind);
  // Adds a required companion; lists `suffix` in `missing` when it is not stored.
  const TensorInfo* require(std::optional<uint32_t> tensor, std::string_view suffix, const char* kind);
  const TensorInfo* require(std::string_view suffix, const char* kind);
  void problem(std::string text) { d_.module.problems.push_back(std::move(text)); }
  QuantModule& module() { return d_.module; }
  LogicalTensor& logical() { return d_.logical; }
  // Fills shape/params/format/bytes and returns the result.
  std::optional<Decoded> finish(Shape shape, std::string_view format);
  const TensorIndex& index() const { return idx_; }
  std::string_view prefix() const { return prefix_; }

 private:
  const TensorIndex& idx_;
  std::string_view prefix_;
  Decoded d_;
};

uint64_t product(std::span<const uint64_t> shape);
uint64_t ceil_div(uint64_t a, uint64_t b);
// The group size g with ceil(in / g) == groups: in / groups when exact, else the smallest power of
// two that fits, else ceil(in / groups). nullopt for one group (per-channel: the configs' -1).
std::optional<uint32_t> group_from(uint64_t in, uint64_t groups);
// The same for an FP8 block edge: always a value (one block spanning the dimension is the dimension).
uint64_t block_from(uint64_t dim, uint64_t blocks);
// Bits b in 2..8 with ceil(count * b / pack) == words (codes of `count` values packed into words of
// `pack` bits); nullopt when none fits.
std::optional<uint32_t> bits_from_words(uint64_t count, uint64_t words, uint32_t pack);
// "g128", or "per-channel" for no group.
std::string group_text(std::optional<uint32_t> g);

// Family decoders: nullopt when the candidate is not (or not recognisably) a quantized linear;
// then its distinctive terms become orphans.
std::optional<Decoded> decode_fp8_or_modelopt(const TensorIndex& idx, const Candidate& c);  // decode_fp8.cpp
std::optional<Decoded> decode_mxfp4(const TensorIndex& idx, const Candidate& c);            // decode_fp4.cpp
std::optional<Decoded> decode_gptq_awq(const TensorIndex& idx, const Candidate& c);         // decode_gptq_awq.cpp
std::optional<Decoded> decode_marlin(const TensorIndex& idx, const Candidate& c);           // decode_gptq_awq.cpp
std::optional<Decoded> decode_bnb4(const TensorIndex& idx, const Candidate& c);             // decode_bnb.cpp
std::optional<Decoded> decode_bnb8(const TensorIndex& idx, const Candidate& c);             // decode_bnb.cpp
std::optional<Decoded> decode_ct(const TensorIndex& idx, const Candidate& c);               // decode_ct.cpp
std::optional<Decoded> decode_hqq(const TensorIndex& idx, const Candidate& c);              // decode_other.cpp
std::optional<Decoded> decode_eetq(const TensorIndex& idx, const Candidate& c);             // decode_other.cpp
std::optional<Decoded> decode_quanto(const TensorIndex& idx, const Candidate& c);           // decode_other.cpp

// Picks the decoder from the terms seen.
std::optional<Decoded> decode_candidate(const TensorIndex& idx, const Candidate& c);        // signatures.cpp

// For packed formats whose [out, in] is not in the header (bitsandbytes 4-bit, HQQ, quanto
// 4/2-bit): [out, n / out] when the module stores a bias [out] that divides n, else [n].
Shape flat_or_from_bias(const TensorIndex& idx, std::string_view prefix, uint64_t n);

}  // namespace hfi::quant
