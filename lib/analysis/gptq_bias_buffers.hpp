// AutoGPTQ up to 0.4 built every QuantLinear with a bias buffer (make_quant passed bias=True) and
// saved it: `<module>.bias` F16 [out] beside qweight, all zeros where the float Linear had no bias
// (TheBloke's 2023 GPTQ uploads; vLLM skips these on load). Only the architecture can tell such a
// buffer from a real bias (Qwen2's q/k/v carry one), so reconcile() moves them once it has matched
// the checkpoint's tensors to the spec's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/storage.hpp"

namespace hfi {

// A GPTQ module's `.bias` of shape [out] that the architecture does not expect
// (`expected_of[i] < 0`: per logical tensor, the spec tensor it matched) is a buffer: it moves
// from `logical` to `bookkeeping` (kind "bias buffer") of its module, so it is neither a parameter
// nor unexplained, and its entry leaves `expected_of`, which stays parallel to `logical`.
// Returns how many moved.
size_t absorb_gptq_bias_buffers(StorageView& view, std::vector<int64_t>& expected_of);

}  // namespace hfi
