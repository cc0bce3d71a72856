// bitsandbytes (quant-formats.md §7). 4-bit: P.weight holds the flattened [out, in] matrix, two
// codes per byte of whatever dtype `quant_storage` chose, so the logical size is 2 x its bytes;
// absmax per block (F32, or U8 codes under double quant with nested_absmax/nested_quant_map), the
// 16-entry code book, and a JSON quant_state whose name says nf4 or fp4. 8-bit: I8 [out, in] + SCB
// [out] + weight_format.
//
// Logical shape of 4-bit weights: the JSON holding [out, in] is tensor data, not header, so the
// shape is [n] (flattened), or [out, n / out] when the module stores a bias [out] dividing n.
#include "quant/decode.hpp"

namespace hfi::quant {

std::optional<Decoded> decode_bnb4(const TensorIndex& idx, const Candidate& c) {
  auto wi = idx.find(c.prefix, ".weight");
  if (!wi) return std::nullopt;
  const TensorInfo& w = idx.at(*wi);
  Builder b(idx, c.prefix, QuantScheme::Bnb4, *wi, w.name);
  b.module().bits = 4;
  uint64_t n = 2 * w.bytes();
  const TensorInfo* absmax = b.require(c.get(Term::BnbAbsmax), "weight.absmax", "absmax");
  const TensorInfo* map = b.require(c.get(Term::BnbQuantMap), "weight.quant_map", "quant map");
  const TensorInfo* state = b.require(c.get(Term::BnbQuantState), "weight.quant_state", "quant state");
  bool nested = c.has(Term::BnbNestedAbsmax) || c.has(Term::BnbNestedQuantMap) || (absmax && absmax->dtype == Dtype::U8);
  if (nested) {
    b.require(c.get(Term::BnbNestedAbsmax), "weight.nested_absmax", "nested absmax");
    b.require(c.get(Term::BnbNestedQuantMap), "weight.nested_quant_map", "nested quant map");
  }
  if (absmax && absmax->elements > 0) {
    b.module().group_size = group_from(n, absmax->elements);
    if (!b.module().group_size) b.module().group_size = static_cast<uint32_t>(n);  // one block: not "per-channel"
  }
  if (w.shape.size() != 2 || w.shape[1] != 1) b.problem("packed weight " + shape_text(w.shape) + " is not [n/2, 1]");
  if (map && map->elements != 16) b.problem("quant_map " + shape_text(map->shape) + " is not [16]");
  std::string format = "bnb 4-bit";
  if (state) {
    if (state->name.ends_with("__nf4")) format = "NF4";
    else if (state->name.ends_with("__fp4")) format = "FP4 (bitsandbytes)";
  }
  return b.finish(flat_or_from_bias(idx, c.prefix, n), std::move(format));
}

std::optional<Decoded> decode_bnb8(const TensorIndex& idx, const Candidate& c) {
  auto wi = idx.find(c.prefix, ".weight");
  if (!wi) return std::nullopt;
  const TensorInfo& w = idx.at(*wi);
  Builder b(idx, c.prefix, QuantScheme::Bnb8, *wi, w.name);
  b.module().bits = 8;
  const TensorInfo* scb = b.require(c.get(Term::Scb), "SCB", "SCB");
  b.require(c.get(Term::WeightFormat), "weight_format", "weight format");
  if (w.dtype != Dtype::I8) b.problem("LLM.int8 weight is " + std::string(dtype_name(w.dtype)) + ", not I8");
  if (scb && (w.shape.empty() || scb->shape.size() != 1 || scb->shape[0] != w.shape[0]))
    b.problem("SCB " + shape_text(scb->shape) + " does not match the rows of weight " + shape_text(w.shape));
  return b.finish(w.shape, "INT8 (LLM.int8)");
}

}  // namespace hfi::quant
