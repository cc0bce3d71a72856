// Integer codes packed into I32 words with group scales: GPTQ v1/v2 (quant-formats.md §5.2; the
// two differ only in zero-point values), legacy GPTQ-Marlin (.B/.s), and AWQ in its GEMM, GEMV and
// Marlin layouts (§6.2). Which one a `.qweight` is comes from shapes (C-GPTQ-7): GPTQ keeps `out`
// as qweight's columns (= scales' columns), AWQ GEMM packs `out` (scales have 8x qweight's
// columns), AWQ GEMV keeps `out` as rows. `g_idx` is GPTQ's alone; with `desc_act` its values
// are not `k // g`, which is invisible in the header: the module only requires it.
#include "quant/decode.hpp"

namespace hfi::quant {
namespace {

std::string in_text(uint64_t in) { return "in = " + std::to_string(in); }

// bits b with ceil(count * b / pack) == words, b in 2..8; nullopt when none fits.
void check_group_divides(Builder& b, uint64_t in) {
  if (auto g = b.module().group_size; g && in % *g != 0)
    b.problem(in_text(in) + " is not divisible by group " + std::to_string(*g));
}

std::optional<Decoded> decode_gptq(const TensorIndex& idx, const Candidate& c, uint32_t qw) {
  const TensorInfo& q = idx.at(qw);
  uint32_t pack = dtype_bits(q.dtype);
  Builder b(idx, c.prefix, QuantScheme::Gptq, qw, MadeName{std::string(c.prefix) + ".weight"});
  uint64_t out = q.shape[1];
  const TensorInfo* zeros = b.require(c.get(Term::QZeros), "qzeros", "zero point");
  const TensorInfo* scales = b.require(".scales", "scale");
  const TensorInfo* gidx = b.require(c.get(Term::GIdx), "g_idx", "g_idx");
  std::optional<uint32_t> bits_g, bits_z;
  if (gidx && gidx->shape.size() == 1) bits_g = bits_from_words(gidx->shape[0], q.shape[0], pack);
  if (zeros && zeros->shape.size() == 2) bits_z = bits_from_words(out, zeros->shape[1], pack);
  if (gidx && !bits_g)
    b.problem("qweight rows " + std::to_string(q.shape[0]) + " do not pack g_idx's " + std::to_string(gidx->elements) +
              " inputs at 2..8 bits");
  if (bits_g && bits_z && *bits_g != *bits_z)
    b.problem("qweight implies " + std::to_string(*bits_g) + " bits, qzeros " + std::to_string(*bits_z));
  b.module().bits = bits_g ? bits_g : bits_z;
  uint32_t bits = b.module().bits.value_or(4);
  if (!b.module().bits) b.problem("bits not implied by the tensors (no usable g_idx or qzeros): 4 assumed");
  uint64_t in = gidx && gidx->shape.size() == 1 ? gidx->shape[0] : q.shape[0] * pack / bits;
  if (scales) {
    if (scales->shape.size() != 2 || scales->shape[1] != out)
      b.problem("scales " + shape_text(scales->shape) + " columns do not match out = " + std::to_string(out));
    else
      b.module().group_size = group_from(in, scales->shape[0]);
    if (zeros && scales->shape.size() == 2 && zeros->shape.size() == 2 &&
        (zeros->shape[0] != scales->shape[0] || zeros->shape[1] != ceil_div(out * bits, pack)))
      b.problem("qzeros " + shape_text(zeros->shape) + " should be [" + std::to_string(scales->shape[0]) + ", " +
                std::to_string(ceil_div(out * bits, pack)) + "]");
  }
  std::string format = "GPTQ int" + std::to_string(bits) + " " + group_text(b.module().group_size);
  return b.finish({out, in}, std::move(format));
}

std::optional<Decoded> decode_awq_gemm(const TensorIndex& idx, const Candidate& c, uint32_t qw) {
  const TensorInfo& q = idx.at(qw);
  uint32_t pack = dtype_bits(q.dtype);
  Builder b(idx, c.prefix, QuantScheme::AwqGemm, qw, MadeName{std::string(c.prefix) + ".weight"});
  const TensorInfo* zeros = b.require(c.get(Term::QZeros), "qzeros", "zero point");
  const TensorInfo* scales = b.require(".scales", "scale");
  uint64_t in = q.shape[0];
  uint64_t out = q.shape[1] * pack / 4;
  b.module().bits = 4;
  if (scales && scales->shape.size() == 2 && scales->shape[1] % q.shape[1] == 0) {
    out = scales->shape[1];
    uint64_t per_word = out / q.shape[1];
    if (pack % per_word == 0) b.module().bits = static_cast<uint32_t>(pack / per_word);
    else b.problem(std::to_string(per_word) + " values per " + std::to_string(pack) + "-bit word is no whole bit width");
    b.module().group_size = group_from(in, scales->shape[0]);
    check_group_divides(b, in);
    if (zeros && (zeros->shape.size() != 2 || zeros->shape[0] != scales->shape[0] || zeros->shape[1] != q.shape[1]))
      b.problem("qzeros " + shape_text(zeros->shape) + " should be [" + std::to_string(scales->shape[0]) + ", " +
                std::to_string(q.shape[1]) + "]");
  } else if (scales) {
    b.problem("scales " + shape_text(scales->shape) + " columns are not a multiple of qweight's " + std::to_string(q.shape[1]));
  }
  if (b.module().bits != 4u) b.problem("AWQ GEMM packs 4-bit codes; the shapes imply " + std::to_string(*b.module().bits));
  std::string format = "AWQ int" + std::to_string(*b.module().bits) + " " + group_text(b.module().group_size);
  return b.finish({out, in}, std::move(format));
}

// AutoAWQ calculate_zeros_width: int32 words of zero codes per row for group g.
uint64_t awq_zeros_width(uint64_t in, uint64_t g) {
  uint64_t w = ceil_div(ceil_div(in, g), 8);
  if (g == 64) w = ceil_div(w, 2) * 2;
  if (g == 32) w = ceil_div(w, 4) * 4;
  return w;
}

std::optional<Decoded> decode_awq_gemv(const TensorIndex& idx, const Candidate& c, uint32_t qw) {
  const TensorInfo& q = idx.at(qw);
  uint32_t pack = dtype_bits(q.dtype);
  Builder b(idx, c.prefix, QuantScheme::AwqGemv, qw, MadeName{std::string(c.prefix) + ".weight"});
  const TensorInfo* zeros = b.require(c.get(Term::QZeros), "qzeros", "zero point");
  const TensorInfo* scales = b.require(".scales", "scale");
  uint64_t out = q.shape[0], in = q.shape[1] * pack / 4;
  b.module().bits = 4;
  // Zero codes are padded to whole (and for g 64 / 32, even / 4-aligned) words: the group is the
  // candidate whose width matches.
  uint64_t width = zeros && zeros->shape.size() == 2 ? zeros->shape[1]
                   : scales && scales->shape.size() == 2 ? scales->shape[1] / 8
                                                           : 0;
  if (width) {
    bool found = false;
    for (uint64_t g : {uint64_t{128}, uint64_t{64}, uint64_t{32}, uint64_t{256}, uint64_t{512}, uint64_t{1024}, in}) {
      if (g == 0 || g > in || awq_zeros_width(in, g) != width) continue;
      if (g < in) b.module().group_size = static_cast<uint32_t>(g);
      found = true;
      break;
    }
    if (!found) b.problem("zero-point width " + std::to_string(width) + " fits no group size for " + in_text(in));
  }
  if (zeros && (zeros->shape.size() != 2 || zeros->shape[0] != out))
    b.problem("qzeros " + shape_text(zeros->shape) + " rows do not match out = " + std::to_string(out));
  if (scales && (scales->shape.size() != 2 || scales->shape[0] != out || (zeros && scales->shape[1] != 8 * zeros->shape.back())))
    b.problem("scales " + shape_text(scales->shape) + " should be [out, 8 x qzeros columns]");
  check_group_divides(b, in);
  std::string format = "AWQ GEMV int4 " + group_text(b.module().group_size);
  return b.finish({out, in}, std::move(format));
}

// AutoAWQ version "marlin": qweight [in/16, 2*out] in Marlin tile order, scales [in/g, out], no qzeros.
std::optional<Decoded> decode_awq_marlin(const TensorIndex& idx, const Candidate& c, uint32_t qw) {
  const TensorInfo& q = idx.at(qw);
  Builder b(idx, c.prefix, QuantScheme::GptqMarlin, qw, MadeName{std::string(c.prefix) + ".weight"});
  const TensorInfo* scales = b.require(".scales", "scale");
  uint64_t in = q.shape[0] * 16, out = q.shape[1] / 2;
  b.module().bits = 4;
  if (scales) b.module().group_size = group_from(in, scales->shape[0]);
  check_group_divides(b, in);
  std::string format = "AWQ Marlin int4 " + group_text(b.module().group_size);
  return b.finish({out, in}, std::move(format));
}

}  // namespace

std::optional<Decoded> decode_gptq_awq(const TensorIndex& idx, const Candidate& c) {
  auto qw = c.get(Term::QWeight);
  if (!qw) return std::nullopt;
  const TensorInfo& q = idx.at(*qw);
  if (q.shape.size() != 2 || q.shape[0] == 0 || q.shape[1] == 0 || dtype_bits(q.dtype) < 8 || dtype_is_float(q.dtype))
    return std::nullopt;
  if (c.has(Term::GIdx)) return decode_gptq(idx, c, *qw);
  auto scales_i = idx.find(c.prefix, ".scales");
  auto zeros_i = c.get(Term::QZeros);
  if (scales_i && idx.at(*scales_i).shape.size() == 2) {
    const auto& s = idx.at(*scales_i).shape;
    if (q.shape[1] == s[1]) return decode_gptq(idx, c, *qw);
    if (s[1] > q.shape[1] && s[1] % q.shape[1] == 0 && zeros_i) return decode_awq_gemm(idx, c, *qw);
    if (!zeros_i && q.shape[1] == 2 * s[1]) return decode_awq_marlin(idx, c, *qw);
    if (s[1] > q.shape[1] && s[1] % q.shape[1] == 0) return decode_awq_gemm(idx, c, *qw);
    if (q.shape[0] == s[0]) return decode_awq_gemv(idx, c, *qw);
  }
  if (zeros_i && idx.at(*zeros_i).shape.size() == 2) {
    const auto& z = idx.at(*zeros_i).shape;
    if (q.shape[1] == z[1]) return decode_awq_gemm(idx, c, *qw);
    if (q.shape[0] == z[0]) return decode_awq_gemv(idx, c, *qw);
  }
  auto d = decode_gptq(idx, c, *qw);
  d->module.problems.push_back("layout not decidable from the stored tensors (GPTQ and AWQ differ by scales/qzeros shapes): read as GPTQ");
  return d;
}

std::optional<Decoded> decode_marlin(const TensorIndex& idx, const Candidate& c) {
  auto bi = c.get(Term::MarlinB);
  if (!bi) return std::nullopt;
  const TensorInfo& q = idx.at(*bi);
  if (q.shape.size() != 2) return std::nullopt;
  Builder b(idx, c.prefix, QuantScheme::GptqMarlin, *bi, MadeName{std::string(c.prefix) + ".weight"});
  b.module().bits = 4;
  uint64_t in = q.shape[0] * 16, out = q.shape[1] / 2;
  if (q.shape[1] % 2) b.problem("B has an odd column count " + std::to_string(q.shape[1]));
  const TensorInfo* s = b.require(".s", "scale");
  if (s) {
    if (s->shape.size() != 2 || s->shape[1] != out)
      b.problem("s " + shape_text(s->shape) + " columns do not match out = " + std::to_string(out));
    else
      b.module().group_size = group_from(in, s->shape[0]);
  }
  check_group_divides(b, in);
  if (auto g = b.module().group_size; g && *g != 128) b.problem("Marlin checkpoints use group 128 or none, not " + std::to_string(*g));
  if (in % 128) b.problem(in_text(in) + " is not a multiple of 128 (Marlin)");
  if (out % 256) b.problem("out = " + std::to_string(out) + " is not a multiple of 256 (Marlin)");
  std::string format = "GPTQ Marlin int4 " + group_text(b.module().group_size);
  return b.finish({out, in}, std::move(format));
}

}  // namespace hfi::quant
