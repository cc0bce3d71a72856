// One-byte weights with a scale beside them: FP8 block / per-channel / per-tensor (quant-formats.md
// §2, §3, §8 float-quantized, §9 FP8), the ModelOpt U8 layouts (§9: NVFP4, INT4-AWQ), and int8
// weights with a weight_scale (compressed-tensors int-quantized, ModelOpt W8A16: no QuantScheme of
// their own, decoded as Unsupported so the scale is not counted as a parameter).
#include "quant/decode.hpp"

namespace hfi::quant {
namespace {

enum class Granularity { Tensor, Channel, Block, Unfit };

// How a scale of shape `s` covers a weight of shape `w`.
Granularity granularity(const Shape& w, const Shape& s) {
  if (s.empty() || (s.size() == 1 && s[0] == 1)) return Granularity::Tensor;
  if (s.size() == 1) return w.size() == 2 && s[0] == w[0] ? Granularity::Channel : Granularity::Unfit;
  if (s.size() != w.size() || w.size() < 2) return Granularity::Unfit;
  size_t ones = 0, equal = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == w[i]) ++equal;
    else if (s[i] == 1) ++ones;
  }
  if (ones == 1 && equal + 1 == s.size()) return Granularity::Channel;
  // FBGEMM Llama-4 down_proj [E, I, H] with scale [E, H, 1]: one scale per output, either axis.
  if (s.size() >= 3 && ones == 1 && s[0] == w[0] && (s.end()[-2] == 1 || s.back() == 1)) {
    uint64_t kept = s.end()[-2] == 1 ? s.back() : s.end()[-2];
    if (kept == w.back() || kept == w.end()[-2]) return Granularity::Channel;
  }
  // Blocks tile the last two dimensions; leading (expert) dimensions match.
  for (size_t i = 0; i + 2 < s.size(); ++i)
    if (s[i] != w[i]) return Granularity::Unfit;
  return Granularity::Block;
}

// "FP8" for E4M3, "FP8 E5M2", "FP8 E4M3FNUZ", ...; the dtype's own name for a one-byte non-float.
void append_fp8_name(FormatText& out, Dtype d) {
  if (d == Dtype::F8_E4M3) out += "FP8";
  else if (dtype_is_fp8(d)) (out += "FP8 ") += dtype_name(d).substr(3);
  else out += dtype_name(d);
}

std::optional<Decoded> decode_fp8(const TensorIndex& idx, const Candidate& c, uint32_t anchor, bool fused) {
  const TensorInfo& w = idx.at(anchor);
  std::string_view base = w.name;  // X for fused names, P.weight otherwise: scales are base + suffix
  std::optional<uint32_t> scale_inv = fused ? idx.find(base, "_scale_inv") : c.get(Term::WeightScaleInv);
  std::optional<uint32_t> scale = c.get(Term::WeightScale);  // P.weight_scale, or X_weight_scale (ModelOpt stacked)
  if (fused && !scale) scale = idx.find(base, "_scale");
  std::optional<uint32_t> s = scale_inv ? scale_inv : scale;
  Granularity g = s ? granularity(w.shape, idx.at(*s).shape) : Granularity::Tensor;
  QuantScheme scheme = g == Granularity::Channel ? QuantScheme::Fp8Channel
                       : g == Granularity::Tensor ? QuantScheme::Fp8Tensor
                                                  : QuantScheme::Fp8Block;
  Builder b(idx, fused ? base : c.prefix, scheme, anchor, w.name);
  b.module().bits = dtype_bits(w.dtype);
  FormatText format;
  append_fp8_name(format, w.dtype);
  if (!s) {
    b.require(std::nullopt, "weight_scale", "scale");
    b.problem("FP8 weight " + std::string(w.name) + " has no scale tensor (weight_scale_inv or weight_scale)");
    format += " per-tensor";
  } else {
    const TensorInfo& st = idx.at(*s);
    b.add(s, g == Granularity::Block || g == Granularity::Unfit ? "block scale" : "scale");
    if (scale_inv && scale) b.problem("both weight_scale_inv and weight_scale are stored");
    if (scale_inv && scale) b.add(scale, "scale");
    if (g == Granularity::Block) {
      size_t r = w.shape.size();
      uint64_t bo = block_from(w.shape[r - 2], st.shape[r - 2]), bi = block_from(w.shape[r - 1], st.shape[r - 1]);
      b.module().block = {bo, bi};
      b.logical().block_scaled = true;
      if (ceil_div(w.shape[r - 2], bo) != st.shape[r - 2] || ceil_div(w.shape[r - 1], bi) != st.shape[r - 1])
        b.problem("block scale " + shape_text(st.shape) + " is not a tiling of weight " + shape_text(w.shape));
      format += " block ";
      format += bo;
      format += "x";
      format += bi;
    } else if (g == Granularity::Unfit) {
      b.problem("scale " + shape_text(st.shape) + " does not fit weight " + shape_text(w.shape));
      format += " scaled";
    } else {
      format += g == Granularity::Channel ? " per-channel" : " per-tensor";
    }
  }
  b.add(c.get(Term::InputScale), "input scale");
  return b.finish(w.shape, format.view());
}

// ModelOpt NVFP4: weight U8 [out, in/2] + weight_scale F8_E4M3 [out, in/16] + weight_scale_2 [] (+ input_scale).
std::optional<Decoded> decode_modelopt_nvfp4(const TensorIndex& idx, const Candidate& c, uint32_t anchor) {
  const TensorInfo& w = idx.at(anchor);
  Builder b(idx, c.prefix, QuantScheme::ModeloptNvfp4, anchor, w.name);
  b.module().bits = 4;
  Shape shape = w.shape;
  if (!shape.empty()) shape.back() *= 2;
  const TensorInfo* s = b.require(c.get(Term::WeightScale), "weight_scale", "scale");
  b.require(c.get(Term::WeightScale2), "weight_scale_2", "global scale");
  b.add(c.get(Term::InputScale), "input scale");
  if (s && !shape.empty() && s->shape.size() == shape.size()) {
    uint64_t in = shape.back();
    b.module().group_size = group_from(in, s->shape.back());
    if (!std::equal(shape.begin(), shape.end() - 1, s->shape.begin()))
      b.problem("weight_scale " + shape_text(s->shape) + " rows do not match out of " + shape_text(shape));
    if (s->shape.back() * 16 != in)
      b.problem("weight_scale has " + std::to_string(s->shape.back()) + " columns for in = " + std::to_string(in) +
                " (NVFP4 groups of 16 need " + std::to_string(ceil_div(in, 16)) + ")");
    if (s->dtype != Dtype::F8_E4M3) b.problem("NVFP4 weight_scale is " + std::string(dtype_name(s->dtype)) + ", not F8_E4M3");
  } else if (s) {
    b.problem("weight_scale " + shape_text(s->shape) + " does not fit weight " + shape_text(w.shape));
  }
  if (!shape.empty() && shape.back() % 16 != 0) b.problem("in = " + std::to_string(shape.back()) + " is not a multiple of 16");
  return b.finish(std::move(shape), "NVFP4");
}

// ModelOpt INT4-AWQ: weight U8 [out/2, in] (two int4 along out) + weight_scale [out, in/g] + pre_quant_scale [in].
std::optional<Decoded> decode_modelopt_int4(const TensorIndex& idx, const Candidate& c, uint32_t anchor) {
  const TensorInfo& w = idx.at(anchor);
  Builder b(idx, c.prefix, QuantScheme::ModeloptInt4Awq, anchor, w.name);
  b.module().bits = 4;
  Shape shape = w.shape;
  if (shape.size() == 2) shape[0] *= 2;
  else b.problem("INT4-AWQ weight " + shape_text(w.shape) + " is not 2-D");
  const TensorInfo* s = b.require(c.get(Term::WeightScale), "weight_scale", "scale");
  const TensorInfo* pre = b.require(c.get(Term::PreQuantScale), "pre_quant_scale", "pre-quant scale");
  b.add(c.get(Term::WeightScale2), "global scale");
  b.add(c.get(Term::InputScale), "input scale");
  if (s && shape.size() == 2) {
    if (s->shape.size() != 2 || s->shape[0] != shape[0]) {
      b.problem("weight_scale " + shape_text(s->shape) + " rows do not match out = " + std::to_string(shape[0]));
    } else {
      auto g = group_from(shape[1], s->shape[1]);
      b.module().group_size = g;
      if (g && shape[1] % *g != 0) b.problem("in = " + std::to_string(shape[1]) + " is not divisible by group " + std::to_string(*g));
    }
  }
  if (pre && shape.size() == 2 && (pre->shape.size() != 1 || pre->shape[0] != shape[1]))
    b.problem("pre_quant_scale " + shape_text(pre->shape) + " does not match in = " + std::to_string(shape[1]));
  std::string format = "ModelOpt INT4-AWQ " + group_text(b.module().group_size);
  return b.finish(std::move(shape), std::move(format));
}

// int8 weight + weight_scale: compressed-tensors int-quantized (W8A8) or ModelOpt W8A16/W8A8_SQ.
std::optional<Decoded> decode_int8_scaled(const TensorIndex& idx, const Candidate& c, uint32_t anchor) {
  const TensorInfo& w = idx.at(anchor);
  Builder b(idx, c.prefix, QuantScheme::Unsupported, anchor, w.name);
  b.module().bits = 8;
  const TensorInfo* s = b.require(c.get(Term::WeightScale), "weight_scale", "scale");
  b.add(c.get(Term::InputScale), "input scale");
  b.add(c.get(Term::InputZeroPoint), "zero point");
  std::string format = "INT8";
  if (s) {
    Granularity g = granularity(w.shape, s->shape);
    format += g == Granularity::Tensor ? " per-tensor" : g == Granularity::Channel ? " per-channel" : " scaled";
    if (g == Granularity::Block || g == Granularity::Unfit)
      b.problem("weight_scale " + shape_text(s->shape) + " does not fit weight " + shape_text(w.shape));
  }
  return b.finish(w.shape, std::move(format));
}

}  // namespace

std::optional<Decoded> decode_fp8_or_modelopt(const TensorIndex& idx, const Candidate& c) {
  bool fused = c.has(Term::FusedScaleInv) || c.has(Term::FusedScale);
  std::optional<uint32_t> anchor = fused ? idx.find(c.prefix) : c.get(Term::F8Weight);
  if (!anchor && !fused) anchor = idx.find(c.prefix, ".weight");
  if (!anchor && !fused && (anchor = idx.find(c.prefix))) fused = true;  // X + X_weight_scale...: stacked experts
  if (!anchor) return std::nullopt;
  const TensorInfo& w = idx.at(*anchor);
  if (dtype_is_fp8(w.dtype)) return decode_fp8(idx, c, *anchor, fused);
  // DeepSeek's converter rule: any one-byte X with X_scale_inv is block-scaled.
  bool scale_inv = fused ? c.has(Term::FusedScaleInv) : c.has(Term::WeightScaleInv);
  if (scale_inv && dtype_bits(w.dtype) == 8) return decode_fp8(idx, c, *anchor, fused);
  if (c.has(Term::FusedScale) || c.has(Term::FusedScaleInv)) return std::nullopt;
  if (w.dtype == Dtype::U8) {
    auto ws = c.get(Term::WeightScale);
    bool nvfp4 = ws ? idx.at(*ws).dtype == Dtype::F8_E4M3 : !c.has(Term::PreQuantScale) && c.has(Term::WeightScale2);
    bool int4 = c.has(Term::PreQuantScale) || (ws && !nvfp4);
    if (nvfp4) return decode_modelopt_nvfp4(idx, c, *anchor);
    if (int4) return decode_modelopt_int4(idx, c, *anchor);
    return std::nullopt;
  }
  if (w.dtype == Dtype::I8 && c.has(Term::WeightScale)) return decode_int8_scaled(idx, c, *anchor);
  return std::nullopt;
}

}  // namespace hfi::quant
