// The storage model the decoders fill: every stored tensor is either part of a logical weight or
// bookkeeping attached to one, and every quantized linear is also a QuantModule
// (quant_layout.hpp). Names and format texts are views: whoever keeps these records keeps the
// text they view (analysis/storage.hpp's StorageView does).
#pragma once

#include <cstdint>
#include <string_view>

#include "core/shape.hpp"
#include "formats/dtype.hpp"
#include "quant/quant_config.hpp"
#include "quant/quant_layout.hpp"

namespace hfi {

struct LogicalTensor {
  // Logical name: "<module>.weight" for packed formats (GPTQ "P.qweight" -> "P.weight"); the
  // fused name for MXFP4 ("X_blocks" -> "X") and fused FP8 experts. A view into the headers' name
  // blocks, or a block of the names decoding made: a heap string apiece cost DeepSeek-V3 92k
  // allocations here and 46k more for its bookkeeping.
  std::string_view name;
  // Logical shape: [out, in] or [E, out, in] (EETQ's transposed [in, out] turned back). For
  // bitsandbytes 4-bit, HQQ and quanto 4/2-bit the header does not hold [out, in] (it is tensor
  // data): [n] flattened, or [out, n / out] when the module stores a bias [out].
  Shape shape;
  uint64_t params = 0;          // logical elements; 0 for rank-0 scalars, as the Hub counts them
  // How the values are stored: the dtype ("BF16", "F8_E4M3") for plain tensors; for quantized
  // weights a readable scheme: "FP8 block 128x128", "FP8 per-channel", "MXFP4", "GPTQ int4 g128",
  // "AWQ int4 g128", "NF4", "INT8 (LLM.int8)", "CT int4 g128", "NVFP4", "HQQ int4 g64", ...
  // A dtype name (a static string) or a text its keeper owns.
  std::string_view format;
  uint64_t stored_bytes = 0;    // bytes of the values themselves
  uint64_t bookkeeping_bytes = 0;  // scales and the like that belong to this weight
  bool block_scaled = false;       // FP8 values with a weight_scale_inv beside them
  QuantScheme scheme = QuantScheme::None;  // how the values are stored (None: plain float/int tensor)
};

struct BookkeepingTensor {
  std::string_view name;  // a stored tensor's name
  // The logical weight it belongs to, as a position in the list of logical tensors kept beside it
  // (a name apiece cost DeepSeek-V3 46k string copies); kNoOwner for scales of a whole module
  // with no quantized weight (KV-cache scales, AWQ act.scales), whose module prefix is then `module`.
  static constexpr size_t kNoOwner = SIZE_MAX;
  size_t owner = kNoOwner;
  std::string_view module;  // a leading part of a stored tensor's name
  // Static text: "block scale", "mx exponent", "scale", "zero point", "g_idx", "global scale",
  // "input scale", "kv scale", "absmax", "quant map", "quant state", "nested absmax",
  // "nested quant map", "SCB", "weight format", "weight shape", "pre-quant scale", "output scale",
  // "metadata", "bias buffer".
  std::string_view kind;
  Dtype dtype = Dtype::F32;
  uint64_t elements = 0;
  uint64_t bytes = 0;
};

}  // namespace hfi
