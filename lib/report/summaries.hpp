// One-line summaries of report parts that the text and the Markdown renderers both show, so that
// the two say the same thing in the same words.
#pragma once

#include <string>

#include "report/report.hpp"

namespace hfi {

std::string generation_summary(const GenerationConfig& g);  // "temperature 0.6, top_p 0.95, eos 1,2"
std::string tokenizer_summary(const TokenizerConfig& t);    // "PreTrainedTokenizerFast, bos <s>, ..."
std::string unknown_fields_summary(const Report& r);        // "name=value, ..."; "" when none
std::string declared_quant_summary(const QuantSummary& q);  // "fp8 (fp8-block, 8-bit) in config.json"
std::string stored_quant_summary(const QuantSummary& q);    // "5,600 fp8-block module(s)"; "" when none
std::string quant_bits_summary(const QuantSummary& q);      // "N params quantized at 4.250 bits/weight; ..."
std::string quant_roles_summary(const QuantSummary& q);     // "attention 4.250 · mlp 4.250"; "" when none
std::string kept_high_precision_summary(const QuantSummary& q);  // "lm_head ×1, ..."; "" when none
// "weights 14.96 GiB + KV 16.00 GiB = 30.96 GiB at 131,072 tokens, batch 1", or the weights alone
// when there is no KV cache to add.
std::string memory_summary(const Report& r);

}  // namespace hfi
