#include "report/summaries.hpp"

#include "report/format.hpp"
#include "report/text_layout.hpp"

namespace hfi {

using text::bpw_text;

std::string generation_summary(const GenerationConfig& g) {
  std::string out;
  for (const auto& [k, v] : g.decoding) out += (out.empty() ? "" : ", ") + k + " " + v.dump();
  if (!g.eos_token_ids.empty()) {
    std::string ids;
    for (const Json& id : g.eos_token_ids) ids += (ids.empty() ? "" : ",") + id.dump();
    out += (out.empty() ? "" : ", ") + std::string("eos ") + ids;
  }
  return out.empty() ? "no decoding defaults" : out;
}

std::string tokenizer_summary(const TokenizerConfig& t) {
  std::string s = t.tokenizer_class.value_or("tokenizer");
  if (t.bos_token) s += ", bos " + *t.bos_token;
  if (t.eos_token) s += ", eos " + *t.eos_token;
  if (t.pad_token) s += ", pad " + *t.pad_token;
  if (t.add_bos_token) s += std::string(", add_bos ") + (*t.add_bos_token ? "yes" : "no");
  if (t.add_eos_token) s += std::string(", add_eos ") + (*t.add_eos_token ? "yes" : "no");
  s += t.model_max_length ? ", max length " + with_commas(*t.model_max_length) : std::string(", no max length");
  if (t.padding_side) s += ", pads " + *t.padding_side;
  s += t.has_chat_template ? ", chat template" : ", no chat template";
  return s;
}

std::string unknown_fields_summary(const Report& r) {
  std::string names;
  for (const auto& u : r.unknown_fields) names += (names.empty() ? "" : ", ") + u.subject() + "=" + u.value.dump();
  return names;
}

std::string declared_quant_summary(const QuantSummary& q) {
  const auto& d = q.declared;
  if (!d) return "none declared";
  return d->quant_method + " (" + quant_scheme_name(d->scheme) + (d->bits ? ", " + std::to_string(*d->bits) + "-bit" : "") +
         (d->group_size ? ", group " + std::to_string(*d->group_size) : "") + ") in " + d->file;
}

std::string stored_quant_summary(const QuantSummary& q) {
  std::string detected;
  for (const auto& [scheme, n] : q.detected) detected += (detected.empty() ? "" : ", ") + with_commas(n) + " " + scheme;
  return detected.empty() ? "" : detected + " module(s)";
}

std::string quant_bits_summary(const QuantSummary& q) {
  return with_commas(q.quantized_params) + " params quantized at " + bpw_text(q.quantized_bits_per_weight) + " bits/weight; whole checkpoint " +
         bpw_text(q.overall_bits_per_weight) + " bits/weight";
}

std::string quant_roles_summary(const QuantSummary& q) {
  std::string roles;
  for (const auto& rb : q.by_role) roles += (roles.empty() ? "" : " · ") + rb.role + " " + bpw_text(rb.bits_per_weight());
  return roles;
}

std::string kept_high_precision_summary(const QuantSummary& q) {
  std::string kept;
  for (size_t i = 0; i < q.high_precision_linears.size() && i < 4; ++i)
    kept += (kept.empty() ? "" : ", ") + q.high_precision_linears[i].first + " ×" + std::to_string(q.high_precision_linears[i].second);
  if (q.high_precision_linears.size() > 4) kept += " and " + std::to_string(q.high_precision_linears.size() - 4) + " more patterns";
  return kept;
}

std::string memory_summary(const Report& r) {
  const MemoryEstimate& m = r.memory;
  std::string weights = "weights " + short_bytes(m.weight_bytes);
  if (m.weight_source == WeightSource::IndexTotalSize) weights += " (the index's total_size)";
  if (m.weight_source == WeightSource::Formula) weights = "weights ≈" + short_bytes(m.weight_bytes) + " (estimate: config formula × torch_dtype)";
  const bool figures = r.spec || r.kv.inferred;
  if (!figures || r.kv.encoder_only) return weights;
  return weights + " + KV " + short_bytes(m.kv_bytes) + " = " + short_bytes(m.total_bytes) + " at " + with_commas(r.kv.context) + " tokens, batch " +
         with_commas(m.batch);
}

}  // namespace hfi
