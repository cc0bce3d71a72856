// The report people read in a terminal: aligned sections, a bar chart of where the parameters
// live, colour only when asked (the CLI asks on a TTY without NO_COLOR). One function per
// section, in the order kSections gives; "gap" is the blank line between groups of sections.
#include <algorithm>

#include "report/format.hpp"
#include "report/summaries.hpp"
#include "report/report.hpp"
#include "report/text_layout.hpp"

namespace hfi {
namespace {

using text::bar;
using text::bpw_text;
using text::fit_column;
using text::line;
using text::pad_left;
using text::pad_right;
using text::percent;

// A blank line between groups of sections; a group that printed nothing leaves no second one.
void gap(std::string& out, const Style&, const Report&) {
  if (!out.ends_with("\n\n")) out += "\n";
}

void title_section(std::string& out, const Style& st, const Report& r) {
  std::string title = r.repo_id.empty() ? r.location : r.repo_id;
  out += st.bold("hfinspect · " + title) +
         st.dim("  (" + std::string(source_kind_name(r.source_kind)) + (r.commit.empty() ? "" : " @ " + r.commit.substr(0, 12)) + ")") +
         "\n\n";
}

void inferred_lines(std::string& out, const Style& st, const InferredStructure& i) {
  std::string shape = std::to_string(i.layers) + " blocks in " + (i.stack.empty() ? std::string("no stack") : i.stack);
  if (i.hidden_size) shape += ", hidden " + with_commas(*i.hidden_size);
  if (i.vocab_size) shape += ", vocabulary " + with_commas(*i.vocab_size);
  line(out, st, "", st.dim("inferred from tensor names: ") + shape);
  std::string parts = (i.attention.empty() ? std::string("attention not recognised") : "attention: " + i.attention) + "; " +
                      (i.mlp.empty() ? std::string("MLP not recognised") : "MLP: " + i.mlp);
  if (i.experts > 0) parts += "; " + std::to_string(i.experts) + " experts per layer" + (i.router ? " with a router" : "");
  parts += i.lm_head.empty() ? "; no stored head (tied?)" : "; head " + i.lm_head;
  line(out, st, "", parts);
  if (!i.unplaced.empty()) {
    uint64_t params = 0;
    for (const auto& g : i.unplaced) params += g.params;
    line(out, st, "", st.warn("could not place ") + std::to_string(i.unplaced.size()) + " name pattern(s), " + with_commas(params) +
                          " params: " + i.unplaced.front().pattern + (i.unplaced.size() > 1 ? ", ..." : ""));
  }
}

void architecture_section(std::string& out, const Style& st, const Report& r) {
  if (r.adapter && r.model_type.empty()) {  // an adapter folder: its base has the architecture
    line(out, st, "Architecture", "a PEFT adapter" + (r.adapter->config.base_model.empty() ? std::string() : " of " + r.adapter->config.base_model));
    return;
  }
  std::string arch = !r.model_type.empty() ? r.model_type
                     : r.gguf            ? "GGUF architecture " + r.gguf->architecture + ", which no transformers family maps"
                                         : "unknown model_type";
  if (r.text_model_type != r.model_type && !r.text_model_type.empty()) arch += " (language model: " + r.text_model_type + ")";
  if (!r.architectures.empty()) arch += " · " + r.architectures.front();
  line(out, st, "Architecture", arch);
  if (r.spec) {
    for (const auto& piece : {r.spec->attention_summary, r.spec->position_summary,
                              r.spec->norm_summary + ", " + r.spec->activation_summary + ", " +
                                  r.spec->head_summary(),
                              r.spec->layer_summary})
      line(out, st, "", piece);
  }
  if (r.inferred) inferred_lines(out, st, *r.inferred);
}

std::string file_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void gguf_section(std::string& out, const Style& st, const Report& r) {
  if (!r.gguf || r.gguf->selected.empty()) return;
  const GgufSummary& g = *r.gguf;
  line(out, st, "GGUF", g.type + " · " + g.architecture + (g.name.empty() ? "" : " \"" + g.name + "\"") + " · version " +
                            std::to_string(g.version) + " · " + bpw_text(g.bits_per_weight) + " bits per weight");
  std::string types;
  for (const auto& t : g.types)
    types += (types.empty() ? "" : ", ") + std::string(t.type) + " " + std::to_string(t.tensors) + (t.tensors == 1 ? " tensor " : " tensors ") +
             short_bytes(t.bytes);
  line(out, st, "", "by type: " + types);
  for (const auto& m : g.config_mismatches) line(out, st, "", st.warn("config.json disagrees: ") + m);
}

void gguf_variants_section(std::string& out, const Style& st, const Report& r) {
  if (!r.gguf || (r.gguf->variants.size() < 2 && !r.gguf->selected.empty())) return;
  if (!r.gguf->selected.empty()) out += "\n";
  out += st.bold("GGUF variants") + "\n";
  out += st.dim("  " + pad_right("type", 10) + pad_left("size", 11) + pad_left("bits/w", 8) + pad_left("params", 14) + "   file") + "\n";
  for (const auto& v : r.gguf->variants) {
    std::string file = file_name(v.file);
    if (v.expected_parts > 1) file += " (" + std::to_string(v.parts) + " of " + std::to_string(v.expected_parts) + " parts)";
    const bool chosen = v.file == r.gguf->selected;
    out += (chosen ? "* " : "  ") + pad_right(v.type, 10) + pad_left(short_bytes(v.bytes), 11) + pad_left(bpw_text(v.bits_per_weight), 8) +
           pad_left(short_count(v.params), 14) + "   " + file + "\n";
  }
}

// The bar chart takes what the width leaves after the role, the count and the share.
int bar_width(const Style& st) { return static_cast<int>(std::clamp<size_t>(st.width, 64, 80) - 56); }

void stored_params_lines(std::string& out, const Style& st, const Report& r) {
  const ParamBreakdown& p = r.params;
  const std::string files = r.params_source == ParamsSource::Gguf ? " GGUF file" : " shard header";
  line(out, st, "Parameters", st.bold(with_commas(p.total)) + " (" + short_count(p.total) + ") from " + std::to_string(r.shard_count) +
                                  files + (r.shard_count == 1 ? "" : "s") + ", " + with_commas(r.tensor_count) + " tensors");
  std::string dtypes;
  for (const auto& [name, n] : p.by_dtype) dtypes += (dtypes.empty() ? "" : ", ") + name + " " + short_count(n);
  line(out, st, "", "by dtype: " + dtypes);
  if (p.stored_elements != p.total)
    line(out, st, "", "stored elements " + with_commas(p.stored_elements) +
                          " (as naive counters see them: packed values, scales and scalars counted as elements)");
  line(out, st, "", "embedding " + with_commas(p.embedding) + " · lm_head " + with_commas(p.lm_head) + " · non-embedding " +
                        with_commas(p.non_embedding) + (p.mtp ? " · MTP " + with_commas(p.mtp) : ""));
  line(out, st, "Active",
       with_commas(p.active) + " (" + short_count(p.active) + ") per token" + (p.active_known ? "" : st.warn(" (no spec: all counted)")));
  line(out, st, "", "without input embedding " + with_commas(p.active_without_input_embedding) + " · non-embedding " +
                        with_commas(p.active_non_embedding));
  for (const auto& n : p.active_notes) line(out, st, "", st.dim(n));
  out += "\n" + st.bold("Where the parameters live") + "\n";
  for (const auto& [role, n] : p.by_role)
    out += "  " + pad_right(role, 20) + pad_left(with_commas(n), 17) + "  " + bar(n, p.total, bar_width(st)) + percent(n, p.total) + "\n";
}

void parameters_section(std::string& out, const Style& st, const Report& r) {
  bool stored = counted_from_tensors(r.params_source);
  if (stored) {
    stored_params_lines(out, st, r);
  } else if (r.params_source == ParamsSource::IndexTotalSize) {
    line(out, st, "Parameters", "≈" + with_commas(r.params.total) + " (" + short_count(r.params.total) +
                                    ") derived from the index's total_size at torch_dtype (no headers, no spec)");
  } else if (r.formula_total) {
    // r.params is the formula plus any optional tensor (tied head copy, buffer) the index lists.
    line(out, st, "Parameters", with_commas(r.params.total) + " (" + short_count(r.params.total) + ") from the config formula (no safetensors headers)" +
                                    (r.params.total != *r.formula_total ? ", incl. optional tensors the index lists" : ""));
  }
  if (r.formula_total && stored && *r.formula_total != r.reconcile.matched_params)
    line(out, st, "Formula", "config predicts " + with_commas(*r.formula_total) + "; the checkpoint's matched tensors hold " +
                                 with_commas(r.reconcile.matched_params));
}

void kv_cache_lines(std::string& out, const Style& st, const Report& r) {
  const KvCache& kv = r.kv;
  if (kv.encoder_only) {
    line(out, st, "KV cache", "encoder: no KV cache");
    line(out, st, "", st.dim("bidirectional attention over the whole sequence, recomputed on every pass; nothing is kept between passes"));
    return;
  }
  line(out, st, "KV cache", std::string(kv.inferred ? "≈" : "") + with_commas(kv.bytes_per_token) + " B/token at " + std::to_string(kv.bytes_per_element) + " B/element (" +
                                r.kv_dtype + ") · " + short_bytes(kv.bytes_at_context) + " at " + with_commas(kv.context) + " tokens" +
                                (r.max_context && kv.context == *r.max_context ? " (the model's maximum)" : ""));
  std::string detail = std::to_string(kv.attention_layers) + " attention layers" + (kv.inferred ? ", inferred from the config's generic fields (no spec)" : "");
  if (kv.windowed_layers) detail += ", " + std::to_string(kv.windowed_layers) + " windowed (capped at their window)";
  if (kv.mla_layers) detail += ", MLA: compressed latent + RoPE key cached";
  if (kv.shared_kv_layers) detail += ", " + std::to_string(kv.shared_kv_layers) + " more reuse an earlier layer's KV (not cached)";
  if (kv.recurrent_layers)
    detail += "; " + std::to_string(kv.recurrent_layers) + " recurrent layers keep " + short_bytes(kv.recurrent_state_bytes) +
              " of state per sequence, whatever the context";
  line(out, st, "", st.dim(detail));
}

void runtime_section(std::string& out, const Style& st, const Report& r) {
  const bool figures = r.spec || r.kv.inferred;
  if (figures) {
    line(out, st, "Compute", short_flops(r.flops.fixed) + "/token fixed + " + short_flops(r.flops.attention) + "/token attention at " +
                                 with_commas(r.flops.context) + " context");
    kv_cache_lines(out, st, r);
  }
  line(out, st, "Memory", memory_summary(r));
}


void quant_detail_lines(std::string& out, const Style& st, const QuantSummary& q) {
  if (std::string roles = quant_roles_summary(q); !roles.empty()) line(out, st, "", st.dim("bits/weight by role: " + roles));
  if (std::string kept = kept_high_precision_summary(q); !kept.empty()) line(out, st, "", st.dim("kept in high precision: " + kept));
  if (q.kv_cache_dtype) line(out, st, "", st.dim("KV cache declared as " + *q.kv_cache_dtype));
  for (const auto& n : q.notes) line(out, st, "", st.dim(n));
  for (size_t i = 0; i < q.findings.size() && i < 10; ++i) line(out, st, "", st.warn("quant " + q.findings[i].check + ": ") + q.findings[i].message);
  if (q.findings.size() > 10) line(out, st, "", st.warn("and " + std::to_string(q.findings.size() - 10) + " more quantization findings"));
}

void quantization_section(std::string& out, const Style& st, const Report& r) {
  if (!r.quant) return;
  const QuantSummary& q = *r.quant;
  std::string stored = stored_quant_summary(q);
  line(out, st, "Quantization", declared_quant_summary(q) + (stored.empty() ? "" : " · stored: " + stored));
  if (q.quantized_modules) line(out, st, "", quant_bits_summary(q));
  std::string bytes = "values " + short_bytes(q.value_bytes) + ", bookkeeping " + short_bytes(q.bookkeeping_bytes);
  std::string kinds;
  for (const auto& [kind, b] : q.bookkeeping_by_kind) kinds += (kinds.empty() ? "" : ", ") + kind + " " + short_bytes(b);
  if (!kinds.empty()) bytes += " (" + kinds + ")";
  bytes += ", high precision " + short_bytes(q.high_precision_bytes);
  line(out, st, "", st.dim(bytes));
  quant_detail_lines(out, st, q);
}

// One row of a name and its right-aligned figures within the report's width: a name too long for
// its column gets a line of its own, the figures go under it, so neither is cut.
void name_and_figures(std::string& out, const Style& st, const std::string& name, const std::string& figures) {
  const size_t indent = 4, figure_width = text::visible_width(figures);
  const size_t name_width = st.width > indent + figure_width + 16 ? st.width - indent - figure_width : 16;
  if (text::visible_width(name) < name_width) {
    out += std::string(indent, ' ') + pad_right(name, name_width) + figures + "\n";
    return;
  }
  out += std::string(indent, ' ') + name + "\n" + std::string(indent + name_width, ' ') + figures + "\n";
}

void unexplained_lines(std::string& out, const Style& st, const Reconciliation& rc) {
  if (rc.source == ReconcileSource::Index) {  // names only: no sizes to show
    for (const auto& g : rc.unexplained) line(out, st, "", st.warn("unexplained ") + g.pattern + " ×" + with_commas(g.tensors));
    return;
  }
  if (rc.unexplained_structures.empty()) return;
  line(out, st, "", "unexplained structures:");
  for (const auto& g : rc.unexplained_structures)
    name_and_figures(out, st, g.pattern, pad_left(with_commas(g.tensors), 7) + " tensors " + pad_left(with_commas(g.params), 15) + " params");
  line(out, st, "", "unexplained patterns:");
  size_t shown = 0;
  for (const auto& g : rc.unexplained) {
    if (++shown > 25) {
      out += "    … " + std::to_string(rc.unexplained.size() - 25) + " more patterns (see --json)\n";
      break;
    }
    name_and_figures(out, st, g.pattern, " ×" + pad_left(with_commas(g.tensors), 6) + pad_left(with_commas(g.params), 15));
  }
}

void reconcile_section(std::string& out, const Style& st, const Report& r) {
  const Reconciliation& rc = r.reconcile;
  std::string status = rc.status == ReconcileStatus::Complete ? st.good("complete") : st.warn(reconcile_status_name(rc.status));
  if (rc.source == ReconcileSource::Index && r.index_reconcile)
    line(out, st, "Reconcile", status + " (no shard headers): " + with_commas(r.index_reconcile->listed_tensors) +
                                   " tensors listed in the index, " + with_commas(r.index_reconcile->expected_tensors) + " expected by the " +
                                   r.family + " spec; " + with_commas(rc.missing.size()) + " missing, " +
                                   with_commas(rc.unexplained_tensors) + " unexplained");
  if (counted_from_tensors(r.params_source))
    line(out, st, "Reconcile", status + ": " + with_commas(rc.matched_tensors) + " tensors matched the " + (r.family.empty() ? "(no)" : r.family) +
                                   " spec, " + with_commas(rc.unexplained_tensors) + " unexplained (" + with_commas(rc.unexplained_params) + " params)");
  for (const auto& name : rc.absent_by_design) line(out, st, "", st.dim(name + " not stored: tied to the input embedding"));
  if (!rc.absent_parts.empty()) {
    std::string parts;
    for (size_t i = 0; i < rc.absent_parts.size() && i < 4; ++i) parts += (parts.empty() ? "" : ", ") + rc.absent_parts[i];
    if (rc.absent_parts.size() > 4) parts += " and " + std::to_string(rc.absent_parts.size() - 4) + " more";
    line(out, st, "", st.dim("optional, not in this checkpoint: " + parts));
  }
  for (const auto& m : rc.missing) line(out, st, "", st.warn("missing ") + m.name + " (" + role_name(m.role) + ", " + with_commas(m.params) + ")");
  for (const auto& m : rc.shape_mismatches)
    line(out, st, "", st.warn("shape ") + m.name + ": expected " + shape_text(m.expected) + ", found " + shape_text(m.actual));
  unexplained_lines(out, st, rc);
}

void index_section(std::string& out, const Style& st, const Report& r) {
  for (size_t i = 0; i < r.index_mismatches.size() && i < 20; ++i) line(out, st, "", st.warn("index ") + r.index_mismatches[i]);
  if (r.index_mismatches.size() > 20) line(out, st, "", "… " + with_commas(r.index_mismatches.size() - 20) + " more index mismatches (see --json)");
  if (!r.index_reconcile) return;
  const auto& ir = *r.index_reconcile;
  if (ir.total_size)
    line(out, st, "Index check",
         "total_size " + with_commas(*ir.total_size) + " B vs " + with_commas(ir.expected_bytes) + " B expected at the config's dtype" +
             (*ir.total_size == ir.expected_bytes ? st.good(" (equal)") : st.warn(" (differ)")));
}

void unknown_fields_section(std::string& out, const Style& st, const Report& r) {
  if (!r.unknown_fields.empty()) line(out, st, "Unknown fields", unknown_fields_summary(r));
}

void generation_section(std::string& out, const Style& st, const Report& r) {
  if (r.generation) line(out, st, "Generation", generation_summary(*r.generation));
}

void tokenizer_section(std::string& out, const Style& st, const Report& r) {
  if (r.tokenizer) line(out, st, "Tokenizer", tokenizer_summary(*r.tokenizer));
}

void notes_section(std::string& out, const Style& st, const Report& r) {
  for (const auto& n : r.notes) line(out, st, "Note", n);
}

void adapter_section(std::string& out, const Style& st, const Report& r) {
  if (!r.adapter) return;
  const AdapterSummary& a = *r.adapter;
  const AdapterConfig& c = a.config;
  std::string targets = c.target_regex;
  for (const auto& t : c.target_modules) targets += (targets.empty() ? "" : ", ") + t;
  line(out, st, "Adapter", (c.peft_type.empty() ? std::string("PEFT") : c.peft_type) + " r=" + std::to_string(c.r) + " alpha=" + Json::make_double(c.alpha).dump() +
                               (targets.empty() ? "" : " on " + targets) + (c.base_model.empty() ? "" : " · base " + c.base_model));
  line(out, st, "", with_commas(a.params) + " params in " + with_commas(a.lora_modules) + " LoRA pairs" +
                        (a.saved_params ? " · " + with_commas(a.saved_params) + " in full copies of " + std::to_string(c.modules_to_save.size()) + " modules" : "") +
                        (a.base_checked ? " · checked against the base's linear layers" : " · base not checked"));
  for (size_t i = 0; i < a.issues.size() && i < 20; ++i) line(out, st, "", st.warn("adapter " + a.issues[i].kind + ": ") + a.issues[i].message);
  if (a.issues.size() > 20) line(out, st, "", "… " + with_commas(a.issues.size() - 20) + " more (see --json)");
}

void render_body(std::string& out, const Style& st, const Report& r);

// A pipeline: one row per component, the sum, then each component that holds a model in full.
void pipeline_section(std::string& out, const Style& st, const Report& r) {
  const PipelineSummary& p = *r.pipeline;
  size_t models = 0;
  for (const auto& c : p.components) models += c.report && c.report->params_source != ParamsSource::None ? 1 : 0;
  line(out, st, "Pipeline", (p.class_name.empty() ? std::string() : p.class_name + " · ") + pipeline_kind_name(p.kind) + " (" + p.file +
                                ") · " + std::to_string(p.components.size()) + " components, " + std::to_string(models) + " holding a model");
  // Columns as wide as the longest name and class, so that a long class name does not push its row out.
  size_t name_width = 10, class_width = 6;
  for (const auto& c : p.components) {
    name_width = std::max(name_width, std::min<size_t>(c.ref.name.size() + 1, 24));
    class_width = std::max(class_width, std::min<size_t>(c.ref.class_name.size() + 1, 32));
  }
  // ... within the width: the figures and a dtype or two keep their room.
  const size_t figures = 2 + name_width + 15 + 11 + 2 + 9;
  class_width = std::min(class_width, st.width > figures + 12 ? st.width - figures : 12);
  out += st.dim("  " + pad_right("component", name_width) + pad_right("class", class_width) + pad_left("params", 15) + pad_left("weights", 11) +
                "  dtype") + "\n";
  for (const auto& c : p.components) {
    std::string row = "  " + pad_right(c.ref.name, name_width) + fit_column(c.ref.class_name.empty() ? "(none)" : c.ref.class_name, class_width);
    if (c.report && c.report->params_source != ParamsSource::None) {
      std::string dtypes;
      for (const auto& [name, n] : c.report->params.by_dtype) dtypes += (dtypes.empty() ? "" : ", ") + name;
      if (c.report->params_source != ParamsSource::Safetensors && c.report->params_source != ParamsSource::Gguf)
        dtypes = st.dim(std::string("(") + params_source_name(c.report->params_source) + ")");  // no tensors read: an estimate
      row += pad_left(short_count(c.report->params.total), 15) + pad_left(short_bytes(c.report->memory.weight_bytes), 11) + "  " + dtypes;
    } else {
      row += st.dim(pad_left("-", 15) + pad_left("-", 11));
    }
    out += row + "\n";
  }
  line(out, st, "Total", st.bold(with_commas(r.params.total)) + " params (" + short_count(r.params.total) + ") · weights " +
                             short_bytes(r.memory.weight_bytes) + " in " + std::to_string(r.shard_count) + " files, " +
                             with_commas(r.tensor_count) + " tensors");
  for (const auto& c : p.components) {
    if (!c.report || (c.report->params_source == ParamsSource::None && !c.report->spec)) continue;  // nothing more to say
    out += "\n" + st.bold("── " + c.ref.name + " · " + c.ref.class_name + " ──") + "\n";
    render_body(out, st, *c.report);
  }
}

using TextSection = void (*)(std::string&, const Style&, const Report&);

constexpr TextSection kSections[] = {
    title_section, architecture_section, gguf_section, gap,
    parameters_section, gap,
    runtime_section, quantization_section, gap,
    adapter_section, reconcile_section, index_section, unknown_fields_section, gap,
    generation_section, tokenizer_section, notes_section, gguf_variants_section,
};

// A repository of several GGUF variants, none chosen: the table, and how to choose.
constexpr TextSection kVariantsOnly[] = {title_section, gguf_variants_section, gap, notes_section};
constexpr TextSection kPipeline[] = {title_section, pipeline_section, gap, notes_section};

// Everything but the title: a pipeline component's report, under the pipeline's title.
void render_body(std::string& out, const Style& st, const Report& r) {
  for (TextSection section : kSections)
    if (section != title_section) section(out, st, r);
}

}  // namespace

std::string render_text(const Report& r, bool color, size_t width) {
  Style st{color, width};
  std::string out;
  if (r.pipeline)
    for (TextSection section : kPipeline) section(out, st, r);
  else if (r.gguf && r.gguf->selected.empty())
    for (TextSection section : kVariantsOnly) section(out, st, r);
  else
    for (TextSection section : kSections) section(out, st, r);
  return printable(out, color);
}

}  // namespace hfi
