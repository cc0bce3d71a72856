// MXFP4 in the gpt-oss layout (quant-formats.md §4): X_blocks U8 [..., out, in/32, 16] holding two
// E2M1 codes per byte, X_scales U8 [..., out, in/32] holding one E8M0 exponent per 32 values. The
// logical tensor keeps the fused name X and the [..., out, in] shape, as the model's parameter.
#include "quant/decode.hpp"

namespace hfi::quant {

std::optional<Decoded> decode_mxfp4(const TensorIndex& idx, const Candidate& c) {
  auto blocks = c.get(Term::MxBlocks);
  if (!blocks) return std::nullopt;
  const TensorInfo& w = idx.at(*blocks);
  Builder b(idx, c.prefix, QuantScheme::Mxfp4, *blocks, c.prefix);
  b.module().bits = 4;
  b.module().group_size = 32;
  Shape shape = w.shape;  // classify() checked rank >= 2 and the trailing 16
  shape.pop_back();
  shape.back() *= 32;  // 16 bytes = 32 four-bit values per block
  const TensorInfo* s = b.require(c.get(Term::MxScales), "_scales", "mx exponent");
  if (s && !std::equal(w.shape.begin(), w.shape.end() - 1, s->shape.begin(), s->shape.end()))
    b.problem("exponents " + shape_text(s->shape) + " do not match blocks " + shape_text(w.shape) + " without the last axis");
  return b.finish(std::move(shape), "MXFP4");
}

}  // namespace hfi::quant
