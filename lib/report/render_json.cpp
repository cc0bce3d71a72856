// The --json renderer. Keys are a contract with scripts (docs/json-schema.md); add keys freely,
// rename only with a schema_version bump. One function per top-level key, in output order.
#include <cmath>

#include "report/json_builder.hpp"
#include "report/report.hpp"

namespace hfi {
namespace {

Json strings(const std::vector<std::string>& v) {
  std::vector<Json> items;
  for (const auto& s : v) items.push_back(Json::make_string(s));
  return Json::make_array(std::move(items));
}

Json counts(const std::vector<std::pair<std::string, uint64_t>>& v) {
  Obj o;
  for (const auto& [k, n] : v) o.add(k, n);
  return o.done();
}

// Groups of tensors; `sized` false when only their names are known (null params and bytes).
Json groups(const std::vector<PatternGroup>& gs, bool sized = true) {
  std::vector<Json> items;
  auto known = [sized](uint64_t v) { return sized ? std::optional<uint64_t>(v) : std::nullopt; };
  for (const auto& g : gs)
    items.push_back(
        Obj().add("pattern", g.pattern).add("tensors", g.tensors).add_optional("params", known(g.params)).add_optional("bytes", known(g.bytes)).done());
  return Json::make_array(std::move(items));
}

Json nullable_string(const std::optional<std::string>& s) { return s ? Json::make_string(*s) : Json(); }
Json nullable_bool(const std::optional<bool>& b) { return b ? Json::make_bool(*b) : Json(); }
Json empty_is_null(const std::string& s) { return s.empty() ? Json() : Json::make_string(s); }

Json layer_kind_counts(const ArchModel& spec) {
  uint64_t full = 0, sliding = 0, chunked = 0, mla = 0;
  for (const auto& a : spec.attention) {
    if (a.kind == AttentionKind::Full) ++full;
    if (a.kind == AttentionKind::Sliding) ++sliding;
    if (a.kind == AttentionKind::Chunked) ++chunked;
    if (a.kind == AttentionKind::Mla) ++mla;
  }
  return Obj().add("full", full).add("sliding", sliding).add("chunked", chunked).add("mla", mla).done();
}

Json repo_json(const Report& r) {
  return Obj()
      .add("id", r.repo_id)
      .add("revision", empty_is_null(r.revision))
      .add("commit", empty_is_null(r.commit))
      .add("source", source_kind_name(r.source_kind))
      .add("location", r.location)
      .done();
}

Json inferred_json(const InferredStructure& i) {
  std::vector<Json> unplaced;
  for (const auto& g : i.unplaced) unplaced.push_back(Obj().add("pattern", g.pattern).add("tensors", g.tensors).add("params", g.params).done());
  return Obj()
      .add("stack", i.stack)
      .add("layers", i.layers)
      .add("embedding", i.embedding)
      .add_optional("vocab_size", i.vocab_size)
      .add_optional("hidden_size", i.hidden_size)
      .add("lm_head", i.lm_head)
      .add("attention", i.attention)
      .add("mlp", i.mlp)
      .add("experts", i.experts)
      .add("router", i.router)
      .add("placed_tensors", i.placed_tensors)
      .add("placed_params", i.placed_params)
      .add("unplaced", Json::make_array(std::move(unplaced)))
      .done();
}

Json architecture_json(const Report& r) {
  Obj arch;
  arch.add("model_type", r.model_type).add("text_model_type", r.text_model_type).add("architectures", strings(r.architectures));
  arch.add("spec", empty_is_null(r.family));
  arch.add("summary", r.summary);
  if (r.spec) {
    arch.add("attention", r.spec->attention_summary)
        .add("position", r.spec->position_summary)
        .add("norm", r.spec->norm_summary)
        .add("activation", r.spec->activation_summary)
        .add("layers", r.spec->layer_summary)
        .add("tied_embeddings", r.spec->tied_embeddings)
        .add("attention_layers", layer_kind_counts(*r.spec));
  }
  if (r.inferred) arch.add("inferred", inferred_json(*r.inferred));
  return arch.done();
}

Json params_json(const Report& r) {
  const ParamBreakdown& p = r.params;
  return Obj()
      .add("total", p.total)
      .add("source", params_source_name(r.params_source))
      .add("stored_elements", p.stored_elements)
      .add("by_dtype", counts(p.by_dtype))
      .add("by_role", counts(p.by_role))
      .add("embedding", p.embedding)
      .add("lm_head", p.lm_head)
      .add("non_embedding", p.non_embedding)
      .add("active", p.active)
      .add("active_non_embedding", p.active_non_embedding)
      .add("active_without_input_embedding", p.active_without_input_embedding)
      .add("active_known", p.active_known)
      .add("active_notes", strings(p.active_notes))
      .add("mtp", p.mtp)
      .done();
}

Json formula_json(const Report& r) { return Obj().add_optional("total", r.formula_total).add_optional("active", r.formula_active).done(); }

Json flops_json(const Report& r) {
  return Obj().add("fixed", r.flops.fixed).add("attention", r.flops.attention).add("context", r.flops.context).done();
}

Json kv_cache_json(const Report& r) {
  const KvCache& kv = r.kv;
  return Obj()
      .add("bytes_per_token", kv.bytes_per_token)
      .add("bytes_at_context", kv.bytes_at_context)
      .add("context", kv.context)
      .add_optional("max_context", r.max_context)
      .add("bytes_per_element", static_cast<uint64_t>(kv.bytes_per_element))
      .add("dtype", r.kv_dtype)
      .add("attention_layers", static_cast<uint64_t>(kv.attention_layers))
      .add("windowed_layers", static_cast<uint64_t>(kv.windowed_layers))
      .add("mla_layers", static_cast<uint64_t>(kv.mla_layers))
      .add("shared_kv_layers", static_cast<uint64_t>(kv.shared_kv_layers))
      .add("recurrent_layers", static_cast<uint64_t>(kv.recurrent_layers))
      .add("recurrent_state_bytes", kv.recurrent_state_bytes)
      .add("encoder_only", kv.encoder_only)
      .add("inferred", kv.inferred)
      .done();
}

Json memory_json(const Report& r) {
  return Obj()
      .add("weight_bytes", r.memory.weight_bytes)
      .add("weight_source", weight_source_name(r.memory.weight_source))
      .add("kv_bytes", r.memory.kv_bytes)
      .add("total_bytes", r.memory.total_bytes)
      .add("batch", r.memory.batch)
      .done();
}

Json files_json(const Report& r) {
  return Obj()
      .add("shards", static_cast<uint64_t>(r.shard_count))
      .add("tensors", static_cast<uint64_t>(r.tensor_count))
      .add("tensor_bytes", r.storage.stored_bytes)
      .add("file_bytes", r.storage.file_bytes)
      .add("scalar_tensors", r.storage.scalar_tensors)
      .add_optional("index_total_size", r.index_total_size)
      .add("other_weight_files", strings(r.other_weight_files))
      .done();
}

Json index_only_json(const IndexReconciliation& ir) {
  return Obj()
      .add("expected_tensors", ir.expected_tensors)
      .add("listed_tensors", ir.listed_tensors)
      .add("expected_bytes", ir.expected_bytes)
      .add_optional("total_size", ir.total_size)
      .done();
}

Json reconcile_json(const Report& r) {
  const Reconciliation& rc = r.reconcile;
  // From the index alone, tensors have names but no sizes: their parameters are unknown, not 0.
  const bool sized = rc.source != ReconcileSource::Index;
  auto known = [sized](uint64_t v) { return sized ? std::optional<uint64_t>(v) : std::nullopt; };
  std::vector<Json> missing, mismatches;
  for (const auto& m : rc.missing) missing.push_back(Obj().add("name", m.name).add("role", role_name(m.role)).add("params", m.params).done());
  for (const auto& m : rc.shape_mismatches)
    mismatches.push_back(Obj().add("name", m.name).add("expected", shape(m.expected)).add("actual", shape(m.actual)).done());
  Obj rec;
  rec.add("status", reconcile_status_name(rc.status))
      .add("source", reconcile_source_name(rc.source))
      .add("matched", rc.matched_tensors)
      .add_optional("matched_params", known(rc.matched_params))
      .add("unexplained_tensors", rc.unexplained_tensors)
      .add_optional("unexplained_params", known(rc.unexplained_params))
      .add("unexplained", groups(rc.unexplained, sized))
      .add("unexplained_structures", groups(rc.unexplained_structures, sized))
      .add("missing", Json::make_array(std::move(missing)))
      .add("absent_by_design", strings(rc.absent_by_design))
      .add("absent_parts", strings(rc.absent_parts))
      .add("shape_mismatches", Json::make_array(std::move(mismatches)))
      .add("index_mismatches", strings(r.index_mismatches));
  if (r.index_reconcile) rec.add("index_only", index_only_json(*r.index_reconcile));
  return rec.done();
}

Json unknown_fields_json(const Report& r) {
  std::vector<Json> unknown;
  for (const auto& u : r.unknown_fields) unknown.push_back(Obj().add("name", u.name).add("file", u.file).add("value", u.value).done());
  return Json::make_array(std::move(unknown));
}

Json generation_json(const Report& r) {
  if (!r.generation) return Json();
  const GenerationConfig& g = *r.generation;
  Obj decoding;
  for (const auto& [k, v] : g.decoding) decoding.add(k, v);
  std::vector<Json> eos;
  for (const Json& id : g.eos_token_ids) eos.push_back(id);
  return Obj()
      .add("decoding", decoding.done())
      .add("eos_token_ids", Json::make_array(std::move(eos)))
      .add("bos_token_id", g.bos_token_id.value_or(Json()))
      .add("pad_token_id", g.pad_token_id.value_or(Json()))
      .done();
}

Json tokenizer_json(const Report& r) {
  if (!r.tokenizer) return Json();
  const TokenizerConfig& t = *r.tokenizer;
  return Obj()
      .add("class", nullable_string(t.tokenizer_class))
      .add("bos_token", nullable_string(t.bos_token))
      .add("eos_token", nullable_string(t.eos_token))
      .add("pad_token", nullable_string(t.pad_token))
      .add("unk_token", nullable_string(t.unk_token))
      .add("add_bos_token", nullable_bool(t.add_bos_token))
      .add("add_eos_token", nullable_bool(t.add_eos_token))
      .add_optional("model_max_length", t.model_max_length)
      .add("padding_side", nullable_string(t.padding_side))
      .add("chat_template", t.has_chat_template)
      .add("chat_template_names", strings(t.chat_template_names))
      .add("added_tokens", static_cast<uint64_t>(t.added_tokens))
      .done();
}

Json declared_quant_json(const std::optional<QuantDeclaration>& declared) {
  if (!declared) return Json();
  auto widen = [](const auto& v) { return v ? std::optional<uint64_t>(*v) : std::nullopt; };
  return Obj()
      .add("file", declared->file)
      .add("quant_method", declared->quant_method)
      .add("scheme", quant_scheme_name(declared->scheme))
      .add_optional("bits", widen(declared->bits))
      .add_optional("group_size", widen(declared->group_size))
      .done();
}

Json quantization_json(const Report& r) {
  if (!r.quant) return Json();
  const QuantSummary& q = *r.quant;
  std::vector<Json> roles, findings;
  for (const auto& rb : q.by_role)
    roles.push_back(
        Obj().add("role", rb.role).add("params", rb.params).add("bytes", rb.bytes).add("bits_per_weight", Json::make_double(rb.bits_per_weight())).done());
  for (const auto& f : q.findings) findings.push_back(Obj().add("check", f.check).add("subject", f.subject).add("message", f.message).done());
  return Obj()
      .add("method", nullable_string(r.quant_method))
      .add("declared", declared_quant_json(q.declared))
      .add("detected", counts(q.detected))
      .add("quantized_modules", q.quantized_modules)
      .add("quantized_params", q.quantized_params)
      .add("value_bytes", q.value_bytes)
      .add("bookkeeping_tensors", static_cast<uint64_t>(r.storage.bookkeeping.size()))
      .add("bookkeeping_bytes", q.bookkeeping_bytes)
      .add("bookkeeping_by_kind", counts(q.bookkeeping_by_kind))
      .add("high_precision_bytes", q.high_precision_bytes)
      .add("quantized_bits_per_weight", Json::make_double(q.quantized_bits_per_weight))
      .add("overall_bits_per_weight", Json::make_double(q.overall_bits_per_weight))
      .add("by_role", Json::make_array(std::move(roles)))
      .add("high_precision_linears", counts(q.high_precision_linears))
      .add("kv_cache_dtype", nullable_string(q.kv_cache_dtype))
      .add("notes", strings(q.notes))
      .add("findings", Json::make_array(std::move(findings)))
      .done();
}

Json notes_json(const Report& r) { return strings(r.notes); }

Json adapter_json(const Report& r) {
  if (!r.adapter) return Json();
  const AdapterSummary& a = *r.adapter;
  std::vector<Json> issues;
  for (const auto& i : a.issues) issues.push_back(Obj().add("kind", i.kind).add("module", i.module).add("message", i.message).done());
  return Obj()
      .add("base", empty_is_null(a.config.base_model))
      .add("peft_type", empty_is_null(a.config.peft_type))
      .add("r", a.config.r)
      .add("alpha", Json::make_double(a.config.alpha))
      .add("target_modules", a.config.target_regex.empty() ? strings(a.config.target_modules) : Json::make_string(a.config.target_regex))
      .add("modules_to_save", strings(a.config.modules_to_save))
      .add("params", a.params)
      .add("lora_modules", a.lora_modules)
      .add("saved_params", a.saved_params)
      .add("base_checked", a.base_checked)
      .add("issues", Json::make_array(std::move(issues)))
      .done();
}

Json bits(double bpw) { return Json::make_double(std::round(bpw * 10000) / 10000); }

Json gguf_json(const Report& r) {
  if (!r.gguf) return Json();
  const GgufSummary& g = *r.gguf;
  std::vector<Json> variants, types;
  for (const auto& v : g.variants)
    variants.push_back(Obj()
                           .add("file", v.file)
                           .add("type", v.type)
                           .add("bytes", v.bytes)
                           .add("tensor_bytes", v.tensor_bytes)
                           .add("bits_per_weight", bits(v.bits_per_weight))
                           .add("params", v.params)
                           .add("parts", static_cast<uint64_t>(v.parts))
                           .add("expected_parts", static_cast<uint64_t>(v.expected_parts))
                           .add("projector", v.projector)
                           .done());
  for (const auto& t : g.types)
    types.push_back(Obj().add("type", std::string(t.type)).add("tensors", t.tensors).add("elements", t.elements).add("bytes", t.bytes).done());
  Obj o;
  o.add("variants", Json::make_array(std::move(variants))).add("selected", empty_is_null(g.selected));
  if (!g.selected.empty())
    o.add("architecture", g.architecture)
        .add("name", empty_is_null(g.name))
        .add("type", g.type)
        .add("version", static_cast<uint64_t>(g.version))
        .add("bits_per_weight", bits(g.bits_per_weight))
        .add("types", Json::make_array(std::move(types)))
        .add("config_mismatches", strings(g.config_mismatches));
  return o.done();
}

Json report_json(const Report& r);

Json pipeline_json(const Report& r) {
  if (!r.pipeline) return Json();
  const PipelineSummary& p = *r.pipeline;
  return Obj().add("kind", pipeline_kind_name(p.kind)).add("file", p.file).add("class", empty_is_null(p.class_name)).done();
}

Json components_json(const Report& r) {
  if (!r.pipeline) return Json();
  std::vector<Json> items;
  for (const auto& c : r.pipeline->components) {
    Obj o;
    o.add("name", c.ref.name).add("library", empty_is_null(c.ref.library)).add("class", empty_is_null(c.ref.class_name)).add("path", c.ref.path);
    if (c.report)
      o.add("params", Obj().add("total", c.report->params.total).add("by_dtype", counts(c.report->params.by_dtype)).done())
          .add("weight_bytes", c.report->memory.weight_bytes)
          .add("report", report_json(*c.report));
    else
      o.add("params", Json()).add("weight_bytes", Json()).add("report", Json());
    items.push_back(o.done());
  }
  return Json::make_array(std::move(items));
}

struct JsonSection {
  const char* key;
  Json (*render)(const Report&);
};

constexpr JsonSection kJsonSections[] = {
    {"repo", repo_json},
    {"architecture", architecture_json},
    {"params", params_json},
    {"formula", formula_json},
    {"flops_per_token", flops_json},
    {"kv_cache", kv_cache_json},
    {"memory", memory_json},
    {"files", files_json},
    {"reconcile", reconcile_json},
    {"unknown_fields", unknown_fields_json},
    {"generation", generation_json},
    {"tokenizer", tokenizer_json},
    {"quantization", quantization_json},
    {"adapter", adapter_json},
    {"gguf", gguf_json},
    {"pipeline", pipeline_json},
    {"components", components_json},
    {"notes", notes_json},
};

Json report_json(const Report& r) {
  Obj root;
  root.add("schema_version", static_cast<uint64_t>(r.schema_version));
  for (const auto& section : kJsonSections) root.add(section.key, section.render(r));
  return root.done();
}

}  // namespace

std::string render_json(const Report& r) { return report_json(r).dump_pretty(2); }

}  // namespace hfi
