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

#include "formats/safetensors_header.hpp"
#include "quant/storage_model.hpp"

namespace hfi {

// The distinct format texts of quantized weights ("FP8 block 128x128", "GPTQ int4 g128"): a
// handful, each shared by thousands of logical tensors that view it. Every text is its own
// immutable block, shared between copies, so a copy's views stay valid when the original goes.
class FormatTexts {
 public:
  // The kept copy of `format`, added if new.
  std::string_view keep(std::string_view format);

 private:
  std::vector<std::shared_ptr<const std::string>> texts_;
};

struct StorageView {
  // What every name below views: the shards' name blocks, and one block of the names decoding
  // made (GPTQ's "P.weight"). Shared, so that a copy of the view (or of a Report) stays valid
  // after the headers it was decoded from are gone.
  std::vector<std::shared_ptr<const std::string>> names;
  FormatTexts formats;  // what the quantized weights' `format` views (plain tensors view dtype names)
  std::vector<LogicalTensor> logical;
  std::vector<BookkeepingTensor> bookkeeping;  // `owner` is a position in `logical`
  uint64_t stored_elements = 0;  // every element of every stored tensor, as naive counters report
  uint64_t stored_bytes = 0;     // tensor data bytes over all shards
  uint64_t file_bytes = 0;       // whole files: headers + data
  uint64_t scalar_tensors = 0;   // rank-0 tensors (not counted as parameters)
  std::vector<QuantModule> quant_modules;  // every quantized linear, in stored order; `logical` is a position in `logical`
  // Tensors whose suffix belongs to a quantization vocabulary but that no module claims
  // (a scale without its weight); they are also in `logical` so that nothing is lost.
  std::vector<std::string> orphan_quant_tensors;
};

StorageView decode_storage(const std::vector<ShardHeader>& shards);

// What a bookkeeping tensor belongs to: its logical weight's name, or its module's prefix.
std::string_view owner_name(const StorageView& view, const BookkeepingTensor& b);

}  // namespace hfi
