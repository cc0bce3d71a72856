// compressed-tensors packed formats (quant-formats.md §8.2), all keyed on `.weight_packed`:
//   pack-quantized  I32 [out, ceil(in*b/32)] + weight_scale + weight_shape (+ weight_zero_point, weight_g_idx)
//   nvfp4-pack      U8 [out, in/2] + weight_scale F8_E4M3 [out, in/16] + weight_global_scale (+ input_global_scale)
//   mxfp4-pack      U8 [out, in/2] + weight_scale U8 (E8M0) [out, in/32]
//
// pack-quantized bits and `in`: weight_shape holds the exact [out, in] as tensor data, unreadable
// from the header. `out` is weight_packed's rows. Bits come from the evidence that pins them: the
// zero points (packed along out: rows = ceil(out*b/32)) or the g_idx length (in, so b = 32 *
// columns / in). Without either (symmetric, no act-order) the bits follow the presets: 4 when the
// scale is grouped (W4A16), 8 when it is per channel or per tensor (W8A16). `in` is then
// g_idx's length, else packed columns x 32 / bits (exact whenever in is a multiple of 32 / bits).
#include "quant/decode.hpp"

namespace hfi::quant {
namespace {

std::optional<Decoded> decode_packed(const TensorIndex& idx, const Candidate& c, uint32_t wp) {
  const TensorInfo& p = idx.at(wp);
  uint32_t pack = dtype_bits(p.dtype);
  Builder b(idx, c.prefix, QuantScheme::CtPacked, wp, MadeName{std::string(c.prefix) + ".weight"});
  const TensorInfo* s = b.require(c.get(Term::WeightScale), "weight_scale", "scale");
  const TensorInfo* z = b.add(c.get(Term::WeightZeroPoint), "zero point");
  const TensorInfo* g = b.add(c.get(Term::WeightGIdx), "g_idx");
  b.require(c.get(Term::WeightShape), "weight_shape", "weight shape");
  b.add(c.get(Term::InputScale), "input scale");
  b.add(c.get(Term::InputZeroPoint), "zero point");
  if (p.shape.size() != 2) {
    b.problem("weight_packed " + shape_text(p.shape) + " is not 2-D");
    return b.finish(p.shape, "CT packed");
  }
  uint64_t out = p.shape[0], cols = p.shape[1];
  bool grouped = s && s->shape.size() == 2 && s->shape[1] > 1;
  std::optional<uint32_t> bits_z, bits_g;
  if (z && z->shape.size() == 2) bits_z = bits_from_words(out, z->shape[0], pack);
  if (g && g->shape.size() == 1) bits_g = bits_from_words(g->shape[0], cols, pack);
  if (z && !bits_z) b.problem("weight_zero_point " + shape_text(z->shape) + " rows pack out = " + std::to_string(out) + " at no 2..8 bits");
  if (g && !bits_g) b.problem("weight_g_idx length " + std::to_string(g->elements) + " is not packed into " + std::to_string(cols) + " words at 2..8 bits");
  if (bits_z && bits_g && *bits_z != *bits_g)
    b.problem("zero points imply " + std::to_string(*bits_z) + " bits, g_idx " + std::to_string(*bits_g));
  uint32_t bits = bits_g ? *bits_g : bits_z ? *bits_z : grouped ? 4 : 8;
  b.module().bits = bits;
  uint64_t in = g && g->shape.size() == 1 ? g->shape[0] : cols * pack / bits;
  std::string granularity = "per-tensor";
  if (s && s->shape.size() == 2) {
    if (s->shape[0] != out) b.problem("weight_scale " + shape_text(s->shape) + " rows do not match out = " + std::to_string(out));
    b.module().group_size = group_from(in, s->shape[1]);
    granularity = group_text(b.module().group_size);
    if (z && z->shape.size() == 2 && z->shape[1] != s->shape[1])
      b.problem("weight_zero_point " + shape_text(z->shape) + " has " + std::to_string(z->shape[1]) + " groups, weight_scale " +
                std::to_string(s->shape[1]));
  } else if (s && s->elements != 1) {
    b.problem("weight_scale " + shape_text(s->shape) + " fits no strategy for weight [" + std::to_string(out) + ", " + std::to_string(in) + "]");
  }
  return b.finish({out, in}, "CT int" + std::to_string(bits) + " " + granularity);
}

// Shared by NVFP4 and MXFP4: U8 [..., out, in/2], scales along in.
std::optional<Decoded> decode_fp4(const TensorIndex& idx, const Candidate& c, uint32_t wp, bool nvfp4) {
  const TensorInfo& p = idx.at(wp);
  Builder b(idx, c.prefix, nvfp4 ? QuantScheme::CtNvfp4 : QuantScheme::Mxfp4, wp, MadeName{std::string(c.prefix) + ".weight"});
  b.module().bits = 4;
  Shape shape = p.shape;
  if (!shape.empty()) shape.back() *= 2;
  const TensorInfo* s = b.require(c.get(Term::WeightScale), "weight_scale", nvfp4 ? "scale" : "mx exponent");
  if (nvfp4) {
    b.require(c.get(Term::WeightGlobalScale), "weight_global_scale", "global scale");
    b.add(c.get(Term::InputGlobalScale), "input scale");
  }
  uint64_t want = nvfp4 ? 16 : 32;
  if (s && !shape.empty() && s->shape.size() == shape.size()) {
    uint64_t in = shape.back();
    b.module().group_size = group_from(in, s->shape.back());
    if (!std::equal(shape.begin(), shape.end() - 1, s->shape.begin()))
      b.problem("weight_scale " + shape_text(s->shape) + " rows do not match out of " + shape_text(shape));
    if (s->shape.back() * want != in)
      b.problem("weight_scale has " + std::to_string(s->shape.back()) + " columns for in = " + std::to_string(in) + " (groups of " +
                std::to_string(want) + " need " + std::to_string(ceil_div(in, want)) + ")");
  } else if (s) {
    b.problem("weight_scale " + shape_text(s->shape) + " does not fit weight_packed " + shape_text(p.shape));
  }
  if (!shape.empty() && shape.back() % want != 0)
    b.problem("in = " + std::to_string(shape.back()) + " is not a multiple of " + std::to_string(want));
  return b.finish(std::move(shape), nvfp4 ? "NVFP4" : "MXFP4");
}

}  // namespace

std::optional<Decoded> decode_ct(const TensorIndex& idx, const Candidate& c) {
  auto wp = c.get(Term::WeightPacked);
  if (!wp) return std::nullopt;
  const TensorInfo& p = idx.at(*wp);
  if (p.dtype == Dtype::U8) {
    auto s = c.get(Term::WeightScale);
    bool mx = s && (idx.at(*s).dtype == Dtype::U8 || idx.at(*s).dtype == Dtype::F8_E8M0) && !c.has(Term::WeightGlobalScale);
    return decode_fp4(idx, c, *wp, !mx);
  }
  if (dtype_is_float(p.dtype)) return std::nullopt;
  return decode_packed(idx, c, *wp);
}

}  // namespace hfi::quant
