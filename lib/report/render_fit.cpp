#include "report/render_fit.hpp"

#include "core/text.hpp"
#include "report/format.hpp"
#include "report/json_builder.hpp"
#include "report/text_layout.hpp"

namespace hfi {
namespace {

std::string fraction_text(const Fraction& f) {
  // As given: 9/10 is "0.9", 1/1 is "1".
  if (f.numerator == f.denominator) return "1";
  std::string digits = std::to_string(f.numerator);
  size_t places = 0;
  for (uint64_t d = f.denominator; d > 1; d /= 10) ++places;
  while (digits.size() <= places) digits.insert(0, "0");
  return digits.substr(0, digits.size() - places) + "." + digits.substr(digits.size() - places);
}

std::string sequences(uint64_t n) { return with_commas(n) + (n == 1 ? " sequence" : " sequences"); }

std::string deployment_text(const FitAnswer& a) {
  const FitPlan& p = a.plan;
  std::string out = std::to_string(p.gpus) + " × " +
                    (a.gpu_source == "--gpu-mem" ? "GPU of " + a.gpu_label : a.gpu_label + " (" + short_bytes(p.deployment.gpu_bytes) + ")");
  out += " · TP " + std::to_string(p.deployment.tp) + ", PP " + std::to_string(p.deployment.pp) + (p.deployment.ep ? ", EP" : "");
  if (a.searched) out += " · the smallest preset deployment that fits";
  return out;
}

}  // namespace

std::string render_fit_text(const Report& r, const FitAnswer& a, size_t width) {
  using text::line;
  const FitPlan& p = a.plan;
  const Style st{false, width};
  std::string out = "hfinspect fit · " + r.repo_id + "\n\n";
  line(out, st, "Deployment", deployment_text(a));
  line(out, st, "Workload",
       with_commas(p.workload.context) + " tokens × " + sequences(p.workload.batch) + " · KV " + r.kv_dtype + " · " +
           (p.workload.max_context ? "model maximum " + with_commas(p.workload.max_context) + " tokens" : "no declared maximum"));
  line(out, st, "Usable",
       short_bytes(p.usable_bytes) + " per GPU: " + short_bytes(p.deployment.gpu_bytes) + " × utilization " +
           fraction_text(p.deployment.utilization) + " − reserve " + short_bytes(p.deployment.reserve_bytes) +
           (a.reserve_derived ? " (derived: docs/fit.md)" : ""));
  line(out, st, "Per GPU",
       "weights " + short_bytes(p.per_gpu.weight_bytes) + " · KV " + with_commas(p.per_gpu.kv_bytes_per_token) + " B/token" +
           (p.per_gpu.state_bytes_per_sequence ? " · state " + short_bytes(p.per_gpu.state_bytes_per_sequence) + "/sequence" : ""));
  line(out, st, "Fits", p.fits ? std::string("yes") : "no: " + short_bytes(p.missing_bytes) + " short on the busiest GPU");
  line(out, st, "Capacity",
       with_commas(p.kv_capacity_tokens) + " tokens of KV · at most " + sequences(p.max_batch) + " of " +
           with_commas(p.workload.context) + " tokens · " + (p.workload.batch == 1 ? "one sequence of at most " : sequences(p.workload.batch) + " of at most ") +
           with_commas(p.max_context) + " tokens");
  if (!p.by_context.empty()) {
    out += "\nPer GPU total (weights + KV for " + sequences(p.workload.batch) + ")\n";
    out += "  " + text::pad_right("context", 14) + text::pad_left("KV bf16", 14) + text::pad_left("KV fp8", 14) + "\n";
    for (const auto& row : p.by_context)
      out += "  " + text::pad_right(with_commas(row.context), 14) + text::pad_left(short_bytes(row.bf16_bytes), 14) +
             text::pad_left(short_bytes(row.fp8_bytes), 14) + "\n";
  }
  if (!p.notes.empty()) out += "\n";
  for (const auto& n : p.notes) line(out, st, "Note", n);
  if (!a.gpu_source.empty() && a.gpu_source != "--gpu-mem") line(out, st, "Source", a.gpu_label + ": " + a.gpu_source);
  return printable(out);
}

std::string render_fit_markdown(const Report& r, const FitAnswer& a) {
  const FitPlan& p = a.plan;
  std::string out = "### hfinspect fit: `" + r.repo_id + "`\n\n| figure | value |\n|---|---|\n";
  out += "| deployment | " + deployment_text(a) + " |\n";
  out += "| workload | " + with_commas(p.workload.context) + " tokens × " + sequences(p.workload.batch) + ", KV " + r.kv_dtype + " |\n";
  out += "| usable per GPU | " + short_bytes(p.usable_bytes) + " (" + short_bytes(p.deployment.gpu_bytes) + " × " + fraction_text(p.deployment.utilization) +
         " − reserve " + short_bytes(p.deployment.reserve_bytes) + ") |\n";
  out += "| weights per GPU | " + short_bytes(p.per_gpu.weight_bytes) + " |\n";
  out += "| KV per token per GPU | " + with_commas(p.per_gpu.kv_bytes_per_token) + " B |\n";
  if (p.per_gpu.state_bytes_per_sequence) out += "| state per sequence | " + short_bytes(p.per_gpu.state_bytes_per_sequence) + " |\n";
  out += "| fits | " + (p.fits ? std::string("yes") : "no: " + short_bytes(p.missing_bytes) + " short") + " |\n";
  out += "| KV capacity | " + with_commas(p.kv_capacity_tokens) + " tokens |\n";
  out += "| max sequences at this context | " + with_commas(p.max_batch) + " |\n";
  out += "| max context | " + with_commas(p.max_context) + " tokens |\n";
  if (!p.by_context.empty()) {
    out += "\n| context | per GPU, KV bf16 | per GPU, KV fp8 |\n|---:|---:|---:|\n";
    for (const auto& row : p.by_context)
      out += "| " + with_commas(row.context) + " | " + short_bytes(row.bf16_bytes) + " | " + short_bytes(row.fp8_bytes) + " |\n";
  }
  for (const auto& n : p.notes) out += "\n> " + n + "\n";
  return printable(out);
}

std::string render_fit_json(const Report& r, const FitAnswer& a) {
  const FitPlan& p = a.plan;
  std::vector<Json> rows, notes;
  for (const auto& row : p.by_context)
    rows.push_back(Obj().add("context", row.context).add("kv_bf16_bytes", row.bf16_bytes).add("kv_fp8_bytes", row.fp8_bytes).done());
  for (const auto& n : p.notes) notes.push_back(Json::make_string(n));
  Json fit = Obj()
                 .add("gpu", a.gpu_label)
                 .add("gpu_source", a.gpu_source)
                 .add("gpu_bytes", p.deployment.gpu_bytes)
                 .add("gpus", uint64_t{p.gpus})
                 .add("tp", uint64_t{p.deployment.tp})
                 .add("pp", uint64_t{p.deployment.pp})
                 .add("ep", p.deployment.ep)
                 .add("searched", a.searched)
                 .add("utilization", Json::make_double(static_cast<double>(p.deployment.utilization.numerator) /
                                                       static_cast<double>(p.deployment.utilization.denominator)))
                 .add("reserve_bytes", p.deployment.reserve_bytes)
                 .add("reserve_derived", a.reserve_derived)
                 .add("usable_bytes", p.usable_bytes)
                 .add("context", p.workload.context)
                 .add("batch", p.workload.batch)
                 .add_optional("model_max_context", p.workload.max_context ? std::optional<uint64_t>(p.workload.max_context) : std::nullopt)
                 .add("kv_bytes_per_element", uint64_t{p.workload.kv_bytes_per_element})
                 .add("weight_dtype", p.workload.weight_format ? Json::make_string(weight_format_name(*p.workload.weight_format)) : Json())
                 .add("per_gpu", Obj()
                                     .add("weight_bytes", p.per_gpu.weight_bytes)
                                     .add("kv_bytes_per_token", p.per_gpu.kv_bytes_per_token)
                                     .add("state_bytes_per_sequence", p.per_gpu.state_bytes_per_sequence)
                                     .done())
                 .add("kv_capacity_tokens", p.kv_capacity_tokens)
                 .add("fits", p.fits)
                 .add("missing_bytes", p.missing_bytes)
                 .add("max_batch", p.max_batch)
                 .add("max_context", p.max_context)
                 .add("by_context", Json::make_array(std::move(rows)))
                 .add("notes", Json::make_array(std::move(notes)))
                 .done();
  Json doc = Obj().add("schema_version", uint64_t{kReportSchemaVersion}).add("repo", r.repo_id).add("fit", std::move(fit)).done();
  return doc.dump_pretty(2) + "\n";
}

}  // namespace hfi
