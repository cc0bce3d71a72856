#include "quant/quant_config.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>

#include "core/text.hpp"

namespace hfi {
namespace {


const Json* member(const Json& obj, std::initializer_list<std::string_view> keys) {
  for (auto k : keys)
    if (const Json* v = obj.find(k); v && !v->is_null()) return v;
  return nullptr;
}

std::optional<std::string> text(const Json& obj, std::initializer_list<std::string_view> keys) {
  const Json* v = member(obj, keys);
  if (v && v->is_string()) return v->as_string();
  return std::nullopt;
}

std::optional<int64_t> integer(const Json& obj, std::initializer_list<std::string_view> keys) {
  const Json* v = member(obj, keys);
  if (v && v->is_integer()) return v->as_int();
  return std::nullopt;
}

std::optional<bool> boolean(const Json& obj, std::initializer_list<std::string_view> keys) {
  const Json* v = member(obj, keys);
  if (v && v->is_bool()) return v->as_bool();
  return std::nullopt;
}

// Bits and group sizes are small positive numbers; anything else is malformed input.
Result<std::optional<uint32_t>> small_count(const Json& obj, std::initializer_list<std::string_view> keys,
                                            const std::string& file, bool minus_one_means_none) {
  const Json* v = member(obj, keys);
  if (!v) return std::optional<uint32_t>{};
  auto n = v->as_int();
  if (!v->is_integer() || !n) return malformed(file, std::string(*keys.begin()), "is not an integer");
  if (*n == -1 && minus_one_means_none) return std::optional<uint32_t>{};
  if (*n <= 0 || *n > (1 << 20)) return malformed(file, std::string(*keys.begin()), "is out of range: " + std::to_string(*n));
  return std::optional<uint32_t>{static_cast<uint32_t>(*n)};
}

void add_patterns(QuantDeclaration& d, const Json* list, PatternSyntax syntax) {
  if (!list || !list->is_array()) return;
  for (const Json& item : list->items())
    if (item.is_string()) d.excluded.push_back(make_excluded_pattern(item.as_string(), syntax));
}

// compressed-tensors QuantizationArgs for the KV cache -> a dtype name.
std::optional<std::string> kv_dtype_of(const Json* scheme) {
  if (!scheme || !scheme->is_object()) return std::nullopt;
  auto bits = integer(*scheme, {"num_bits"});
  auto type = text(*scheme, {"type"}).value_or("int");
  if (bits == 8) return type == "float" ? "fp8" : "int8";
  if (bits) return type + std::to_string(*bits);
  return std::nullopt;
}

Result<QuantDeclaration> parse_gptq_like(QuantDeclaration d, const Json& qc, const std::string& file) {
  auto bits = small_count(qc, {"bits", "w_bit"}, file, false);
  if (!bits) return bits.error();
  d.bits = *bits;
  auto group = small_count(qc, {"group_size", "q_group_size"}, file, true);
  if (!group) return group.error();
  d.group_size = *group;
  d.desc_act = boolean(qc, {"desc_act"});
  d.sym = boolean(qc, {"sym"});
  d.checkpoint_format = lowercase(text(qc, {"checkpoint_format", "format"}).value_or("gptq"));
  if (boolean(qc, {"is_marlin_format"}).value_or(false)) d.checkpoint_format = "marlin";
  d.scheme = d.checkpoint_format == "marlin" ? QuantScheme::GptqMarlin : QuantScheme::Gptq;
  if (const Json* dyn = member(qc, {"dynamic"}); dyn && dyn->is_object()) {
    for (const auto& [key, value] : dyn->members()) {
      DynamicRule rule;
      rule.skip = key.rfind("-:", 0) == 0;
      rule.regex = key.rfind("+:", 0) == 0 || rule.skip ? key.substr(2) : key;
      rule.compiled = Regex::compile(rule.regex);
      if (value.is_object()) {
        auto b = small_count(value, {"bits"}, file, false);
        auto g = small_count(value, {"group_size"}, file, true);
        if (!b) return b.error();
        if (!g) return g.error();
        rule.bits = *b;
        rule.group_size = *g;
      }
      d.dynamic.push_back(std::move(rule));
    }
  }
  return d;
}

Result<QuantDeclaration> parse_awq(QuantDeclaration d, const Json& qc, const std::string& file) {
  auto bits = small_count(qc, {"bits", "w_bit"}, file, false);
  if (!bits) return bits.error();
  d.bits = bits->value_or(4);
  auto group = small_count(qc, {"group_size", "q_group_size"}, file, true);
  if (!group) return group.error();
  d.group_size = *group;
  if (auto zp = boolean(qc, {"zero_point"})) d.sym = !*zp;
  d.version = lowercase(text(qc, {"version"}).value_or("gemm"));
  d.scheme = d.version == "gemv" || d.version == "gemv_fast" ? QuantScheme::AwqGemv : QuantScheme::AwqGemm;
  add_patterns(d, member(qc, {"modules_to_not_convert"}), PatternSyntax::Substring);
  return d;
}

Result<QuantDeclaration> parse_compressed_tensors(QuantDeclaration d, const Json& qc, const std::string& file) {
  std::string format = lowercase(text(qc, {"format"}).value_or(""));
  const Json* groups = member(qc, {"config_groups"});
  const Json* weights = nullptr;
  const Json* inputs = nullptr;
  size_t group_count = 0;
  if (groups && groups->is_object()) {
    for (const auto& [name, group] : groups->members()) {
      if (!group.is_object()) continue;
      if (++group_count > 1) continue;
      weights = member(group, {"weights"});
      inputs = member(group, {"input_activations"});
      if (auto f = text(group, {"format"})) format = lowercase(*f);
    }
  }
  if (group_count > 1) d.notes.push_back(std::to_string(group_count) + " config_groups: the audit checks the first one");
  std::string strategy, type;
  if (weights && weights->is_object()) {
    auto bits = small_count(*weights, {"num_bits"}, file, false);
    if (!bits) return bits.error();
    d.bits = *bits;
    auto group = small_count(*weights, {"group_size"}, file, true);
    if (!group) return group.error();
    d.group_size = *group;
    d.sym = boolean(*weights, {"symmetric"});
    strategy = lowercase(text(*weights, {"strategy"}).value_or(""));
    type = lowercase(text(*weights, {"type"}).value_or("int"));
    if (const Json* block = member(*weights, {"block_structure"}); block && block->is_array())
      for (const Json& b : block->items())
        if (auto v = b.as_uint()) d.block_size.push_back(*v);
  }
  d.checkpoint_format = format;
  if (format == "nvfp4-pack-quantized") d.scheme = QuantScheme::CtNvfp4;
  else if (format == "pack-quantized" || format == "marlin-24") d.scheme = QuantScheme::CtPacked;
  else if (format == "float-quantized" || (type == "float" && d.bits == 8u))
    d.scheme = strategy == "block" ? QuantScheme::Fp8Block : strategy == "tensor" ? QuantScheme::Fp8Tensor : QuantScheme::Fp8Channel;
  else {
    d.scheme = QuantScheme::Unsupported;
    d.notes.push_back("compressed-tensors format '" + format + "' is recognised but its tensors are not decoded");
  }
  if (inputs && inputs->is_object()) {
    const Json* dyn = member(*inputs, {"dynamic"});
    d.activation_scheme = dyn && dyn->is_bool() && !dyn->as_bool() ? "static" : "dynamic";
  }
  add_patterns(d, member(qc, {"ignore"}), PatternSyntax::RegexOrExact);
  d.kv_cache_dtype = kv_dtype_of(member(qc, {"kv_cache_scheme"}));
  return d;
}

Result<QuantDeclaration> parse_modelopt(QuantDeclaration d, const Json& root, const std::string& file) {
  // hf_quant_config.json nests the settings under "quantization"; config.json does not.
  const Json* nested = member(root, {"quantization"});
  const Json& qc = nested && nested->is_object() ? *nested : root;
  std::string algo = text(qc, {"quant_algo"}).value_or("");
  d.checkpoint_format = algo;
  std::string a = lowercase(algo);
  if (a == "fp8") d.scheme = QuantScheme::Fp8Tensor, d.bits = 8;
  else if (a == "fp8_per_channel_per_token") d.scheme = QuantScheme::Fp8Channel, d.bits = 8;
  else if (a == "nvfp4" || a == "nvfp4_awq") d.scheme = QuantScheme::ModeloptNvfp4, d.bits = 4;
  else if (a == "w4a16_awq" || a == "w4a8_awq") d.scheme = QuantScheme::ModeloptInt4Awq, d.bits = 4;
  else {
    d.scheme = QuantScheme::Unsupported;
    d.notes.push_back("ModelOpt quant_algo '" + algo + "' is recognised but its tensors are not decoded");
  }
  auto group = small_count(qc, {"group_size"}, file, true);
  if (!group) return group.error();
  d.group_size = *group;
  if (!d.group_size && d.scheme == QuantScheme::ModeloptNvfp4) d.group_size = 16;
  add_patterns(d, member(qc, {"exclude_modules", "ignore"}), PatternSyntax::Glob);
  if (auto kv = text(qc, {"kv_cache_quant_algo"})) d.kv_cache_dtype = lowercase(*kv);
  else d.kv_cache_dtype = kv_dtype_of(member(qc, {"kv_cache_scheme"}));
  return d;
}

}  // namespace

const char* quant_scheme_name(QuantScheme s) {
  switch (s) {
    case QuantScheme::None: return "none";
    case QuantScheme::Fp8Block: return "fp8-block";
    case QuantScheme::Fp8Channel: return "fp8-channel";
    case QuantScheme::Fp8Tensor: return "fp8-tensor";
    case QuantScheme::Mxfp4: return "mxfp4";
    case QuantScheme::Gptq: return "gptq";
    case QuantScheme::GptqMarlin: return "gptq-marlin";
    case QuantScheme::AwqGemm: return "awq-gemm";
    case QuantScheme::AwqGemv: return "awq-gemv";
    case QuantScheme::Bnb4: return "bnb-4bit";
    case QuantScheme::Bnb8: return "bnb-int8";
    case QuantScheme::CtPacked: return "ct-pack-quantized";
    case QuantScheme::CtNvfp4: return "nvfp4-ct";
    case QuantScheme::ModeloptNvfp4: return "nvfp4-modelopt";
    case QuantScheme::ModeloptInt4Awq: return "int4-awq-modelopt";
    case QuantScheme::Hqq: return "hqq";
    case QuantScheme::Eetq: return "eetq";
    case QuantScheme::Torchao: return "torchao";
    case QuantScheme::Quanto: return "quanto";
    case QuantScheme::Unsupported: return "unsupported";
  }
  return "unsupported";
}

ExcludedPattern make_excluded_pattern(std::string pattern, PatternSyntax syntax) {
  ExcludedPattern p;
  p.syntax = syntax;
  if (syntax == PatternSyntax::RegexOrExact && pattern.rfind("re:", 0) == 0) p.regex = Regex::compile(pattern.substr(3));
  p.pattern = std::move(pattern);
  return p;
}

bool ExcludedPattern::matches(const std::string& module) const {
  switch (syntax) {
    case PatternSyntax::Substring:
      return !pattern.empty() && module.find(pattern) != std::string::npos;
    case PatternSyntax::RegexOrExact:
      if (pattern.rfind("re:", 0) == 0)
        return regex && regex->matches_start(module);
      return module == pattern || module.ends_with("." + pattern);
    case PatternSyntax::Glob:
      return fnmatch(pattern.c_str(), module.c_str(), 0) == 0 || fnmatch((pattern + ".*").c_str(), module.c_str(), 0) == 0;
    case PatternSyntax::Prefix:
      return fnmatch(pattern.c_str(), module.c_str(), 0) == 0 || fnmatch((pattern + ".*").c_str(), module.c_str(), 0) == 0;
  }
  return false;
}

Result<QuantDeclaration> parse_quant_declaration(const Json& qc, const std::string& file) {
  if (!qc.is_object()) return malformed(file, "quantization_config", "is not an object");
  QuantDeclaration d;
  d.file = file;
  std::string method = lowercase(text(qc, {"quant_method", "method"}).value_or(""));
  // Side-cars name their method by their file: AutoGPTQ's quantize_config.json, ModelOpt's
  // hf_quant_config.json ({"producer": {"name": "modelopt"}, "quantization": {...}}).
  if (method.empty() && file.ends_with("quantize_config.json") && !file.ends_with("hf_quant_config.json")) method = "gptq";
  if (method.empty() && (member(qc, {"quantization"}) || file.ends_with("hf_quant_config.json"))) method = "modelopt";
  d.quant_method = method;
  if (method == "fp8") {
    d.bits = 8;
    if (const Json* b = member(qc, {"weight_block_size"}); b && b->is_array())
      for (const Json& v : b->items())
        if (auto n = v.as_uint()) d.block_size.push_back(*n);
    d.scheme = d.block_size.empty() ? QuantScheme::Fp8Tensor : QuantScheme::Fp8Block;
    d.activation_scheme = text(qc, {"activation_scheme"});
    add_patterns(d, member(qc, {"modules_to_not_convert"}), PatternSyntax::Substring);
    return d;
  }
  if (method == "fbgemm_fp8") {
    d.bits = 8;
    d.scheme = QuantScheme::Fp8Channel;
    add_patterns(d, member(qc, {"modules_to_not_convert"}), PatternSyntax::Substring);
    return d;
  }
  if (method == "mxfp4") {
    d.bits = 4;
    d.group_size = 32;
    d.scheme = QuantScheme::Mxfp4;
    add_patterns(d, member(qc, {"modules_to_not_convert"}), PatternSyntax::Prefix);
    return d;
  }
  if (method == "gptq") return parse_gptq_like(std::move(d), qc, file);
  if (method == "auto-round" || method == "autoround") {
    std::string packing = lowercase(text(qc, {"packing_format"}).value_or("auto_round:gptq"));
    if (packing.find("awq") != std::string::npos) return parse_awq(std::move(d), qc, file);
    return parse_gptq_like(std::move(d), qc, file);
  }
  if (method == "awq") return parse_awq(std::move(d), qc, file);
  if (method == "bitsandbytes") {
    bool four = boolean(qc, {"load_in_4bit", "_load_in_4bit"}).value_or(false);
    bool eight = boolean(qc, {"load_in_8bit", "_load_in_8bit"}).value_or(false);
    if (four == eight) return malformed(file, "load_in_4bit", "bitsandbytes config must set exactly one of load_in_4bit and load_in_8bit");
    d.scheme = four ? QuantScheme::Bnb4 : QuantScheme::Bnb8;
    d.bits = four ? 4 : 8;
    if (four) {
      d.bnb_quant_type = lowercase(text(qc, {"bnb_4bit_quant_type"}).value_or("fp4"));
      d.bnb_double_quant = boolean(qc, {"bnb_4bit_use_double_quant"}).value_or(false);
    }
    add_patterns(d, member(qc, {"llm_int8_skip_modules"}), PatternSyntax::Substring);
    return d;
  }
  if (method == "compressed-tensors" || method == "compressed_tensors") return parse_compressed_tensors(std::move(d), qc, file);
  if (method == "modelopt") return parse_modelopt(std::move(d), qc, file);
  if (method == "hqq") {
    d.scheme = QuantScheme::Hqq;
    d.notes.push_back("HQQ: recognised; its nbits, group size and shapes also live in tiny data tensors that hfinspect does not read, so logical shapes come from the packed codes and the config");
    if (const Json* qcfg = member(qc, {"quant_config"}); qcfg && qcfg->is_object())
      if (const Json* w = member(*qcfg, {"weight_quant_params"}); w && w->is_object()) {
        auto bits = small_count(*w, {"nbits"}, file, false);
        if (bits) d.bits = *bits;
        auto group = small_count(*w, {"group_size"}, file, true);
        if (group) d.group_size = *group;
      }
    add_patterns(d, member(qc, {"skip_modules"}), PatternSyntax::Substring);
    return d;
  }
  if (method == "eetq") {
    d.scheme = QuantScheme::Eetq;
    d.notes.push_back("EETQ: recognised; int8 weights stored transposed [in, out] with per-channel scales");
    d.bits = 8;
    add_patterns(d, member(qc, {"modules_to_not_convert"}), PatternSyntax::Substring);
    return d;
  }
  if (method == "torchao") {
    d.scheme = QuantScheme::Torchao;
    std::string type = lowercase(text(qc, {"quant_type"}).value_or(""));
    if (type.rfind("int4", 0) == 0) d.bits = 4;
    else if (type.rfind("int8", 0) == 0 || type.rfind("float8", 0) == 0) d.bits = 8;
    d.notes.push_back("torchao: tensor layout lives in the safetensors __metadata__; counts are taken as stored");
    return d;
  }
  if (method == "quanto") {
    d.scheme = QuantScheme::Quanto;
    d.notes.push_back("optimum-quanto: recognised; 4- and 2-bit weights keep their logical shape only in the config, so they are checked against the architecture spec");
    std::string w = lowercase(text(qc, {"weights"}).value_or(""));
    if (w == "int8" || w == "float8") d.bits = 8;
    else if (w == "int4") d.bits = 4;
    else if (w == "int2") d.bits = 2;
    add_patterns(d, member(qc, {"modules_to_not_convert"}), PatternSyntax::Substring);
    return d;
  }
  static const char* const kKnown[] = {"aqlm", "vptq", "higgs", "spqr", "bitnet", "quark", "fp_quant", "mxfp8", "fp8_e4m3"};
  d.scheme = QuantScheme::Unsupported;
  bool known = std::find_if(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return method == k; }) != std::end(kKnown);
  d.notes.push_back(method.empty() ? "quantization_config has no quant_method"
                    : known ? "quant_method '" + method + "' is recognised but its tensors are not decoded"
                            : "quant_method '" + method + "' is not one hfinspect knows");
  return d;
}

}  // namespace hfi
