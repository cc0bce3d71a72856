// Markdown for pull-request comments: the same figures as the text report, as tables. One
// function per block, in the order kMarkdownSections gives.
#include <cstdio>

#include "report/format.hpp"
#include "report/summaries.hpp"
#include "report/report.hpp"

namespace hfi {
namespace {

void markdown_title(std::string& out, const Report& r) {
  std::string title = r.repo_id.empty() ? r.location : r.repo_id;
  out += "### hfinspect: `" + title + "`\n\n";
  if (!r.summary.empty()) out += "**" + r.model_type + "** — " + r.summary + "\n\n";
}

void runtime_rows(std::string& out, const Report& r) {
  out += "| fixed FLOPs / token | " + short_flops(r.flops.fixed) + " |\n";
  out += "| attention FLOPs / token at " + with_commas(r.flops.context) + " | " + short_flops(r.flops.attention) + " |\n";
  if (r.kv.encoder_only) {
    out += "| KV cache | encoder: no KV cache |\n";
  } else {
    out += "| KV cache / token | " + with_commas(r.kv.bytes_per_token) + " B |\n";
    out += "| KV cache at " + with_commas(r.kv.context) + " | " + short_bytes(r.kv.bytes_at_context) + " |\n";
  }
  if (r.kv.recurrent_layers)
    out += "| recurrent state / sequence (" + std::to_string(r.kv.recurrent_layers) + " layers) | " + short_bytes(r.kv.recurrent_state_bytes) +
           " |\n";
}

void markdown_figures(std::string& out, const Report& r) {
  const ParamBreakdown& p = r.params;
  out += "| figure | value |\n|---|---:|\n";
  out += "| total parameters | " + with_commas(p.total) + " |\n";
  out += "| active per token | " + with_commas(p.active) + (p.active_known ? "" : " (no spec)") + " |\n";
  out += "| embedding | " + with_commas(p.embedding) + " |\n";
  out += "| lm_head | " + with_commas(p.lm_head) + " |\n";
  if (p.mtp) out += "| MTP | " + with_commas(p.mtp) + " |\n";
  if (r.spec) runtime_rows(out, r);
  out += "| weights | " + short_bytes(r.memory.weight_bytes) + " |\n";
  out += "| memory | " + memory_summary(r) + " |\n";
  out += "\n";
}

// The declared scheme, what is stored, bits per weight overall and by role, and what was kept in
// high precision: the text report's Quantization lines.
void markdown_quantization(std::string& out, const Report& r) {
  if (!r.quant) return;
  const QuantSummary& q = *r.quant;
  std::string stored = stored_quant_summary(q);
  out += "**Quantization:** " + declared_quant_summary(q) + (stored.empty() ? "" : " · stored: " + stored) + "\n";
  if (q.quantized_modules) out += "- " + quant_bits_summary(q) + "\n";
  if (std::string roles = quant_roles_summary(q); !roles.empty()) out += "- bits/weight by role: " + roles + "\n";
  if (std::string kept = kept_high_precision_summary(q); !kept.empty()) out += "- kept in high precision: " + kept + "\n";
  if (q.kv_cache_dtype) out += "- KV cache declared as " + *q.kv_cache_dtype + "\n";
  for (const auto& f : q.findings) out += "- **quant " + f.check + ":** " + f.message + "\n";
  out += "\n";
}

void markdown_roles(std::string& out, const Report& r) {
  const ParamBreakdown& p = r.params;
  if (p.by_role.empty()) return;  // no spec, no roles: no table of headers alone
  out += "| role | params | share |\n|---|---:|---:|\n";
  for (const auto& [role, n] : p.by_role) {
    char share[16];
    std::snprintf(share, sizeof share, "%.1f%%", p.total ? 100.0 * static_cast<double>(n) / static_cast<double>(p.total) : 0.0);
    out += "| " + role + " | " + with_commas(n) + " | " + share + " |\n";
  }
}

void markdown_reconcile(std::string& out, const Report& r) {
  const Reconciliation& rc = r.reconcile;
  out += "\n**Reconcile:** `" + std::string(reconcile_status_name(rc.status)) + "`, " + with_commas(rc.matched_tensors) + " matched, " +
         with_commas(rc.unexplained_tensors) + " unexplained\n";
  if (rc.unexplained.empty()) return;
  if (rc.source == ReconcileSource::Index) {  // names from the index: no sizes to show
    out += "\n| unexplained pattern (listed in the index) | tensors |\n|---|---:|\n";
    for (const auto& g : rc.unexplained) out += "| `" + g.pattern + "` | " + with_commas(g.tensors) + " |\n";
    return;
  }
  out += "\n| unexplained pattern | tensors | params |\n|---|---:|---:|\n";
  for (const auto& g : rc.unexplained) out += "| `" + g.pattern + "` | " + with_commas(g.tensors) + " | " + with_commas(g.params) + " |\n";
}

// A GGUF repository's variants, the reported one marked.
void markdown_gguf(std::string& out, const Report& r) {
  if (!r.gguf) return;
  out += "\n| GGUF variant | size | bits/weight | params | file |\n|---|---:|---:|---:|---|\n";
  for (const auto& v : r.gguf->variants) {
    char bpw[32];
    std::snprintf(bpw, sizeof bpw, "%.3f", v.bits_per_weight);
    const bool chosen = v.file == r.gguf->selected;
    out += "| " + (chosen ? "**" + v.type + "**" : v.type) + " | " + short_bytes(v.bytes) + " | " + bpw + " | " + with_commas(v.params) + " | `" +
           v.file + "` |\n";
  }
  for (const auto& m : r.gguf->config_mismatches) out += "- config.json disagrees: " + m + "\n";
}

// A pipeline: one row per component, then their sum.
void markdown_pipeline(std::string& out, const Report& r) {
  const PipelineSummary& p = *r.pipeline;
  out += "**Pipeline:** " + (p.class_name.empty() ? std::string() : "`" + p.class_name + "` · ") + pipeline_kind_name(p.kind) + " (`" + p.file + "`)\n\n";
  out += "| component | class | params | weights |\n|---|---|---:|---:|\n";
  for (const auto& c : p.components)
    out += "| `" + c.ref.name + "` | " + (c.ref.class_name.empty() ? "(none)" : c.ref.class_name) + " | " +
           (c.report ? with_commas(c.report->params.total) : "-") + " | " + (c.report ? short_bytes(c.report->memory.weight_bytes) : "-") + " |\n";
  out += "| **total** | | **" + with_commas(r.params.total) + "** | **" + short_bytes(r.memory.weight_bytes) + "** |\n";
}

void markdown_findings(std::string& out, const Report& r) {
  for (const auto& m : r.reconcile.missing) out += "- missing `" + m.name + "`\n";
  for (const auto& m : r.reconcile.shape_mismatches) out += "- shape mismatch `" + m.name + "`\n";
  if (r.unknown_fields.empty()) return;
  out += "\n**Unknown fields:**\n";
  for (const auto& u : r.unknown_fields) out += "- `" + u.subject() + "` = `" + u.value.dump() + "`\n";
}

// Generation and tokenizer defaults, as the text report's lines say them.
void markdown_defaults(std::string& out, const Report& r) {
  if (r.generation) out += "\n**Generation:** " + generation_summary(*r.generation) + "\n";
  if (r.tokenizer) out += "\n**Tokenizer:** " + tokenizer_summary(*r.tokenizer) + "\n";
}

using MarkdownSection = void (*)(std::string&, const Report&);

void markdown_notes(std::string& out, const Report& r) {
  for (const auto& n : r.notes) out += "\n> " + n + "\n";
}

constexpr MarkdownSection kMarkdownSections[] = {markdown_title, markdown_figures, markdown_quantization, markdown_roles, markdown_reconcile,
                                         markdown_gguf,  markdown_findings, markdown_defaults,     markdown_notes};
// Several GGUF variants, none chosen: the table and the note that says how to choose.
constexpr MarkdownSection kMarkdownVariantsOnly[] = {markdown_title, markdown_gguf, markdown_notes};
constexpr MarkdownSection kMarkdownPipeline[] = {markdown_title, markdown_pipeline, markdown_notes};

}  // namespace

std::string render_markdown(const Report& r) {
  std::string out;
  if (r.pipeline)
    for (MarkdownSection section : kMarkdownPipeline) section(out, r);
  else if (r.gguf && r.gguf->selected.empty())
    for (MarkdownSection section : kMarkdownVariantsOnly) section(out, r);
  else
    for (MarkdownSection section : kMarkdownSections) section(out, r);
  return printable(out);
}

}  // namespace hfi
