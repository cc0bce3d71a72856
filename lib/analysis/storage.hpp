// Turns stored tensors into logical weights. Quantized formats store one logical weight as
// several tensors (FP8 values + block scales; MXFP4 packed nibbles + exponents; GPTQ qweight +
// qzeros + scales + g_idx; ...); counting stored elements would undercount packed weights 2-8x and
// add scales as parameters. Here every stored tensor is either a logical weight or bookkeeping
// attached to one, and every quantized linear is also described as a QuantModule. The format
// rules (../shared/docs/quant-formats.md) live in lib/quant/decode*.cpp and signatures.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.hpp"
#include "formats/dtype.hpp"
#include "quant/quant_layout.hpp"
#include "source/snapshot.hpp"

namespace hfi {

struct LogicalTensor {
  // Logical name: "<module>.weight" for packed formats (GPTQ "P.qweight" -> "P.weight"); the
  // fused name for MXFP4 ("X_blocks" -> "X") and fused FP8 experts. A view into
  // StorageView::names (the headers' name blocks, or a block of the names decoding made): a heap
  // string apiece cost DeepSeek-V3 92k allocations here and 46k more for its bookkeeping.
  std::string_view name;
  // Logical shape: [out, in] or [E, out, in] (EETQ's transposed [in, out] turned back). For
  // bitsandbytes 4-bit, HQQ and quanto 4/2-bit the header does not hold [out, in] (it is tensor
  // data): [n] flattened, or [out, n / out] when the module stores a bias [out].
  Shape shape;
  uint64_t params = 0;          // logical elements; 0 for rank-0 scalars, as the Hub counts them
  // How the values are stored: the dtype ("BF16", "F8_E4M3") for plain tensors; for quantized
  // weights a readable scheme: "FP8 block 128x128", "FP8 per-channel", "MXFP4", "GPTQ int4 g128",
  // "AWQ int4 g128", "NF4", "INT8 (LLM.int8)", "CT int4 g128", "NVFP4", "HQQ int4 g64", ...
  std::string_view format;  // a dtype name or interned (core/intern.hpp): alive for the whole process
  uint64_t stored_bytes = 0;    // bytes of the values themselves
  uint64_t bookkeeping_bytes = 0;  // scales and the like that belong to this weight
  bool block_scaled = false;       // FP8 values with a weight_scale_inv beside them
  QuantScheme scheme = QuantScheme::None;  // how the values are stored (None: plain float/int tensor)
};

struct BookkeepingTensor {
  std::string_view name;  // a stored tensor's name, in StorageView::names
  // The logical weight it belongs to, as a position in StorageView::logical (a name apiece cost
  // DeepSeek-V3 46k string copies); kNoOwner for scales of a whole module with no quantized
  // weight (KV-cache scales, AWQ act.scales), whose module prefix is then `module`.
  static constexpr size_t kNoOwner = SIZE_MAX;
  size_t owner = kNoOwner;
  std::string_view module;  // a leading part of a stored tensor's name, in StorageView::names
  // Static text: "block scale", "mx exponent", "scale", "zero point", "g_idx", "global scale",
  // "input scale", "kv scale", "absmax", "quant map", "quant state", "nested absmax",
  // "nested quant map", "SCB", "weight format", "weight shape", "pre-quant scale", "output scale",
  // "metadata", "bias buffer".
  std::string_view kind;
  Dtype dtype = Dtype::F32;
  uint64_t elements = 0;
  uint64_t bytes = 0;
};

struct StorageView {
  // What every name below views: the shards' name blocks, and one block of the names decoding
  // made (GPTQ's "P.weight"). Shared, so that a copy of the view (or of a Report) stays valid
  // after the snapshot it was decoded from is gone.
  std::vector<std::shared_ptr<const std::string>> names;
  std::vector<LogicalTensor> logical;
  std::vector<BookkeepingTensor> bookkeeping;
  uint64_t stored_elements = 0;  // every element of every stored tensor, as naive counters report
  uint64_t stored_bytes = 0;     // tensor data bytes over all shards
  uint64_t file_bytes = 0;       // whole files: headers + data
  uint64_t scalar_tensors = 0;   // rank-0 tensors (not counted as parameters)
  std::vector<QuantModule> quant_modules;  // every quantized linear, in stored order
  // Tensors whose suffix belongs to a quantization vocabulary but that no module claims
  // (a scale without its weight); they are also in `logical` so that nothing is lost.
  std::vector<std::string> orphan_quant_tensors;
};

StorageView decode_storage(const std::vector<ShardHeader>& shards);

// What a bookkeeping tensor belongs to: its logical weight's name, or its module's prefix.
std::string_view owner_name(const StorageView& view, const BookkeepingTensor& b);

// AutoGPTQ up to 0.4 built every QuantLinear with a bias buffer (make_quant passed bias=True) and
// saved it: `<module>.bias` F16 [out] beside qweight, all zeros where the float Linear had no bias
// (TheBloke's 2023 GPTQ uploads; vLLM skips these on load). A GPTQ module's `.bias` of shape [out]
// that the architecture does not expect (`expected_of[i] < 0`, from reconcile()) is that buffer:
// it moves from `logical` to `bookkeeping` (kind "bias buffer") of its module, so it is neither a
// parameter nor unexplained. A bias the architecture expects (Qwen2's q/k/v) stays a parameter.
// Returns how many moved; the caller reconciles again when any did.
size_t absorb_gptq_bias_buffers(StorageView& view, const std::vector<int64_t>& expected_of);

}  // namespace hfi
