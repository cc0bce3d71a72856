// What a repository declares about its quantization: `quantization_config` in config.json (root
// or text_config) and the side-cars `quantize_config.json` (AutoGPTQ) and `hf_quant_config.json`
// (ModelOpt). A pure parser from the JSON to an owned struct; the audit compares it with what the
// tensors show (quant/quant_layout.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/regex.hpp"

namespace hfi {

// Storage signatures, one per way of laying a quantized linear out in safetensors
// (../shared/docs/quant-formats.md §1). Both the declaration and the tensors map onto these.
enum class QuantScheme {
  None,            // float weights
  Fp8Block,        // weight F8 + weight_scale_inv [out/b, in/b]
  Fp8Channel,      // weight F8 + weight_scale [out, 1] (FBGEMM, compressed-tensors channel)
  Fp8Tensor,       // weight F8 + scalar weight_scale (+ input_scale): ModelOpt FP8, CT static
  Mxfp4,           // *_blocks U8 [..., n/32, 16] + *_scales U8
  Gptq,            // qweight [in*b/32, out] + qzeros + scales + g_idx
  GptqMarlin,      // B + s
  AwqGemm,         // qweight [in, out*b/32] + qzeros + scales
  AwqGemv,         // qweight [out, in*b/32] + qzeros + scales
  Bnb4,            // weight U8 [n/2, 1] + absmax + quant_map + quant_state.*
  Bnb8,            // weight I8 + SCB (+ weight_format)
  CtPacked,        // weight_packed I32 + weight_scale + weight_shape (+ zero_point, g_idx)
  CtNvfp4,         // weight_packed U8 + weight_scale F8 + weight_global_scale
  ModeloptNvfp4,   // weight U8 [out, in/2] + weight_scale F8 + weight_scale_2 (+ input_scale)
  ModeloptInt4Awq, // weight U8 [out/2, in] + weight_scale + pre_quant_scale
  Hqq,
  Eetq,
  Torchao,
  Quanto,
  Unsupported,     // a method we recognise by name but do not decode (aqlm, vptq, bitnet, ...)
};

const char* quant_scheme_name(QuantScheme s);  // "fp8-block", "gptq", "awq-gemm", "nvfp4-ct", ...

// How a library spells "leave these modules in high precision".
enum class PatternSyntax {
  Substring,  // AWQ, HQQ, older FP8: the pattern occurs in the module name
  RegexOrExact,  // compressed-tensors `ignore`: "re:<regex>" or an exact module name
  Glob,       // ModelOpt `exclude_modules`
  Prefix,     // transformers mxfp4 / fp8 `modules_to_not_convert`: name starts with it (also dotted components)
};

struct ExcludedPattern {
  std::string pattern;
  PatternSyntax syntax = PatternSyntax::Substring;
  // Compiled once for "re:" patterns; null when the regex does not compile (it then matches nothing).
  std::shared_ptr<const Regex> regex;
  bool matches(const std::string& module) const;
};

ExcludedPattern make_excluded_pattern(std::string pattern, PatternSyntax syntax);

// GPTQModel `dynamic`: "+:regex" overrides (bits, group_size) for matching modules, "-:regex"
// leaves them unquantized.
struct DynamicRule {
  std::string regex;
  std::shared_ptr<const Regex> compiled;  // null when the regex does not compile
  bool skip = false;
  std::optional<uint32_t> bits, group_size;
};

struct QuantDeclaration {
  std::string file;            // where it was read: "config.json", "quantize_config.json", ...
  std::string quant_method;    // as written
  QuantScheme scheme = QuantScheme::None;  // the signature this declaration implies
  std::optional<uint32_t> bits;            // nominal weight bits (quant-formats.md §12.3)
  std::optional<uint32_t> group_size;      // GPTQ/AWQ/CT group; -1 in configs becomes nullopt
  std::vector<uint64_t> block_size;        // FP8 block [128, 128]
  std::optional<bool> desc_act, sym;
  std::string checkpoint_format;           // GPTQ "gptq" | "gptq_v2" | "marlin"; CT "pack-quantized" ...
  std::string version;                     // AWQ "gemm" | "gemv" | "gemv_fast"
  std::string bnb_quant_type;              // "nf4" | "fp4"
  std::optional<bool> bnb_double_quant;
  std::vector<ExcludedPattern> excluded;
  std::vector<DynamicRule> dynamic;
  std::optional<std::string> kv_cache_dtype;      // "fp8" when a KV-cache scheme is declared
  std::optional<std::string> activation_scheme;   // "dynamic" | "static"
  std::vector<std::string> notes;                 // plain statements for the report (HQQ: "not decoded", ...)
};

// `qc` is the quantization_config object (or a side-car's root object); `file` names it in errors.
Result<QuantDeclaration> parse_quant_declaration(const Json& qc, const std::string& file);

}  // namespace hfi
