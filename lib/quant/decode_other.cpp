// HQQ (quant-formats.md §10.1), EETQ (§10.2) and optimum-quanto (§10.4).
//
// HQQ stores its logical shape and nbits as tensor data (`.shape`, `.nbits`), so they are read from
// shapes instead: with axis 1 (transformers' default) W_q is [n/g/(8/nbits), g] and scale/zero are
// [n/g, 1], so n = scale elements x g and nbits = 8 x W_q bytes / n (I32 W_q is the 3-bit packing).
// With axis 0 (scale [1, n/g]) nothing in the header pins nbits: 4 is assumed and said.
// quanto 4/2-bit: `_data._data` U8 [rows, g], `_scale` [n/g, 1], so n = scale elements x g.
// The logical shape of both is [n], or [out, n / out] when a bias [out] divides n.
#include "quant/decode.hpp"

namespace hfi::quant {

std::optional<Decoded> decode_hqq(const TensorIndex& idx, const Candidate& c) {
  auto wq = c.get(Term::HqqWq);
  if (!wq) return std::nullopt;
  const TensorInfo& w = idx.at(*wq);
  Builder b(idx, c.prefix, QuantScheme::Hqq, *wq, MadeName{std::string(c.prefix) + ".weight"});
  const TensorInfo* scale = b.require(".scale", "scale");
  const TensorInfo* zero = b.require(".zero", "zero point");
  b.require(".shape", "weight shape");
  b.require(".nbits", "metadata");
  for (std::string_view meta : {".group_size", ".axis", ".packing", ".unpack_view_dtype", ".compute_dtype", ".view_as_float",
                                ".channel_wise", ".optimize", ".round_zero", ".offload_meta", ".stores_quant_config",
                                ".encoded_state_dict", ".quant_scale", ".quant_zero"})
    b.add(meta, "metadata");
  uint64_t n = w.bytes() * 2;  // 4-bit unless the shapes say otherwise
  std::optional<uint32_t> bits;
  if (scale && scale->shape.size() == 2 && scale->shape[1] == 1 && w.shape.size() == 2 && w.shape[1] > 0) {
    uint64_t groups = scale->elements, g = w.shape[1];
    n = groups * g;
    b.module().group_size = static_cast<uint32_t>(g);
    if (w.dtype == Dtype::I32) {
      bits = 3;  // "3bit_32": ten 3-bit codes per int32 along dim 0
      if (w.shape[0] != ceil_div(groups, 10)) b.problem("3-bit W_q rows " + std::to_string(w.shape[0]) + " do not pack " + std::to_string(groups) + " groups");
    } else if (n > 0 && (w.bytes() * 8) % n == 0 && (w.bytes() * 8 / n == 1 || w.bytes() * 8 / n == 2 || w.bytes() * 8 / n == 4 || w.bytes() * 8 / n == 8)) {
      bits = static_cast<uint32_t>(w.bytes() * 8 / n);
    } else {
      b.problem("W_q " + shape_text(w.shape) + " packs " + std::to_string(n) + " values at no whole bit width");
    }
  } else if (scale) {
    b.problem("scale " + shape_text(scale->shape) + " is not [n/g, 1] (axis 1): nbits not implied, 4 assumed");
    if (scale->elements > 0 && n % scale->elements == 0) b.module().group_size = static_cast<uint32_t>(n / scale->elements);
  }
  b.module().bits = bits;
  if (scale && zero && scale->elements != zero->elements)
    b.problem("zero has " + std::to_string(zero->elements) + " elements, scale " + std::to_string(scale->elements));
  std::string format = "HQQ int" + (bits ? std::to_string(*bits) : std::string("?")) + " " + group_text(b.module().group_size);
  return b.finish(flat_or_from_bias(idx, c.prefix, n), std::move(format));
}

// EETQ: weight I8 [in, out] (transposed, CUTLASS order) + weight_scales F16 [out].
std::optional<Decoded> decode_eetq(const TensorIndex& idx, const Candidate& c) {
  auto wi = idx.find(c.prefix, ".weight");
  if (!wi) return std::nullopt;
  const TensorInfo& w = idx.at(*wi);
  if (w.dtype != Dtype::I8 || w.shape.size() != 2) return std::nullopt;
  Builder b(idx, c.prefix, QuantScheme::Eetq, *wi, w.name);
  b.module().bits = 8;
  const TensorInfo* s = b.require(c.get(Term::EetqScales), "weight_scales", "scale");
  if (s && (s->shape.size() != 1 || s->shape[0] != w.shape[1]))
    b.problem("weight_scales " + shape_text(s->shape) + " do not match out = " + std::to_string(w.shape[1]) + " (weight is [in, out])");
  return b.finish({w.shape[1], w.shape[0]}, "EETQ int8");
}

std::optional<Decoded> decode_quanto(const TensorIndex& idx, const Candidate& c) {
  auto packed = c.get(Term::QuantoPacked);
  auto data = packed ? packed : c.get(Term::QuantoData);
  if (!data) return std::nullopt;
  const TensorInfo& w = idx.at(*data);
  Builder b(idx, c.prefix, QuantScheme::Quanto, *data, MadeName{std::string(c.prefix) + ".weight"});
  const TensorInfo* scale = b.require(c.get(Term::QuantoScale), "weight._scale", "scale");
  if (packed) b.require(c.get(Term::QuantoShift), "weight._shift", "zero point");
  else b.add(c.get(Term::QuantoShift), "zero point");
  b.add(c.get(Term::InputScale), "input scale");
  b.add(c.get(Term::OutputScale), "output scale");
  if (!packed) {
    b.module().bits = dtype_bits(w.dtype);
    if (scale && (w.shape.empty() || scale->shape.empty() || scale->shape[0] != w.shape[0]))
      b.problem("_scale " + shape_text(scale->shape) + " rows do not match weight " + shape_text(w.shape));
    std::string kind = dtype_is_float(w.dtype) ? "float" : "int";
    return b.finish(w.shape, "quanto " + kind + std::to_string(dtype_bits(w.dtype)));
  }
  uint64_t n = w.bytes() * 2;
  if (scale && w.shape.size() == 2 && w.shape[1] > 0) {
    uint64_t g = w.shape[1];
    n = scale->elements * g;
    if (g > 1) b.module().group_size = static_cast<uint32_t>(g);
    uint64_t bits8 = n ? w.bytes() * 8 / n : 0;
    if (n && (w.bytes() * 8) % n == 0 && (bits8 == 2 || bits8 == 4)) b.module().bits = static_cast<uint32_t>(bits8);
    else b.problem("_data._data " + shape_text(w.shape) + " packs " + std::to_string(n) + " values at neither 2 nor 4 bits");
  }
  std::string format = "quanto int" + (b.module().bits ? std::to_string(*b.module().bits) : std::string("?")) + " " +
                       group_text(b.module().group_size);
  return b.finish(flat_or_from_bias(idx, c.prefix, n), std::move(format));
}

}  // namespace hfi::quant
