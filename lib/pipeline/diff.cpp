#include "pipeline/diff.hpp"

#include <algorithm>
#include <map>

namespace hfi {
namespace {

// Keys that differ between any two uploads without meaning anything about the model.
bool is_bookkeeping(const std::string& key) {
  return key == "_name_or_path" || key == "transformers_version" || key == "auto_map";
}

// transformers 5 renamed rope_scaling to rope_parameters (moving rope_theta into it) and
// torch_dtype to dtype; both spellings are compared under the new one, so an old and a new
// config line up field by field.
std::string normalized_key(const std::string& prefix, const std::string& key) {
  if (!prefix.empty()) return prefix + "." + key;
  if (key == "rope_scaling") return "rope_parameters";
  if (key == "rope_theta") return "rope_parameters.rope_theta";
  if (key == "torch_dtype") return "dtype";
  return key;
}

// Flattens nested objects into dotted keys; arrays and scalars are leaves.
void flatten(const Json& obj, const std::string& prefix, std::map<std::string, Json>& out) {
  for (const auto& [key, value] : obj.members()) {
    std::string path = normalized_key(prefix, key);
    if (prefix.empty() && is_bookkeeping(key)) continue;
    if (value.is_object() && !value.members().empty()) flatten(value, path, out);
    else out[path] = value;
  }
}

// The language-model fields at the top (so a wrapped and a flat config line up: hidden_size is
// hidden_size in both), then the wrapper's own fields (vision_config.*, ...) where they differ in name.
std::map<std::string, Json> config_fields(const Report& r) {
  std::map<std::string, Json> out;
  if (!r.config) return out;
  const ModelConfig& c = *r.config;
  flatten(c.text(), "", out);
  if (c.has_text_config()) {
    std::map<std::string, Json> outer;
    for (const auto& [key, value] : c.root().members()) {
      if (key == c.text_config_key() || is_bookkeeping(key)) continue;
      std::string path = out.count(key) ? "root." + key : key;
      if (value.is_object() && !value.members().empty()) flatten(value, path, outer);
      else outer[path] = value;
    }
    out.insert(outer.begin(), outer.end());
  }
  return out;
}

// Canonical names for pattern matching: the language-model prefix written as "model." whatever
// the checkpoint uses, so a flat and a wrapped checkpoint compare tensor for tensor.
std::map<std::string, PatternSide> patterns(const Report& r, bool use_spec) {
  std::map<std::string, std::map<std::vector<uint64_t>, uint64_t>> shapes;
  std::map<std::string, PatternSide> out;
  auto count = [&](const std::string& name, const Shape& shape, uint64_t params) {
    std::string p = name_pattern(name);
    PatternSide& side = out[p];
    ++side.tensors;
    side.params += params;
    ++shapes[p][shape.to_vector()];
  };
  if (use_spec) {
    for (const auto& t : r.spec->tensors)
      if (!t.optional) count(t.name, t.shape, t.params());  // what every checkpoint of the config holds
  } else {
    const std::string& lm = r.reconcile.lm_prefix;
    for (const auto& t : r.storage.logical) {
      std::string name(t.name);
      if (!lm.empty() && lm != "model." && name.starts_with(lm)) name = "model." + name.substr(lm.size());
      count(name, t.shape, t.params);
    }
  }
  for (auto& [p, side] : out)
    for (const auto& [shape, n] : shapes[p]) side.shapes.emplace_back(shape, n);
  return out;
}

std::string type_label(const Report& r) {
  if (r.model_type.empty()) return "no config";
  return r.text_model_type.empty() || r.text_model_type == r.model_type ? r.model_type
                                                                         : r.model_type + " (" + r.text_model_type + ")";
}

}  // namespace

ReportDiff diff_reports(const Report& a, const Report& b) {
  ReportDiff d;
  d.a_name = a.repo_id.empty() ? a.location : a.repo_id;
  d.b_name = b.repo_id.empty() ? b.location : b.repo_id;
  d.a_type = type_label(a);
  d.b_type = type_label(b);

  auto fa = config_fields(a), fb = config_fields(b);
  for (const auto& [key, value] : fa) {
    auto it = fb.find(key);
    if (it == fb.end()) d.removed.push_back({key, value, std::nullopt});
    else if (!(it->second == value)) d.changed.push_back({key, value, it->second});
  }
  for (const auto& [key, value] : fb)
    if (!fa.count(key)) d.added.push_back({key, std::nullopt, value});

  auto figure = [&](const char* name, uint64_t x, uint64_t y) {
    if (x || y) d.figures.push_back({name, x, y});
  };
  figure("params.total", a.params.total, b.params.total);
  if (a.params.active_known && b.params.active_known) figure("params.active", a.params.active, b.params.active);
  figure("params.embedding", a.params.embedding, b.params.embedding);
  figure("params.non_embedding", a.params.non_embedding, b.params.non_embedding);
  figure("params.mtp", a.params.mtp, b.params.mtp);
  figure("layers", a.spec ? a.spec->attention.size() : 0, b.spec ? b.spec->attention.size() : 0);
  figure("kv.bytes_per_token", a.kv.bytes_per_token, b.kv.bytes_per_token);
  figure("kv.recurrent_state_bytes", a.kv.recurrent_state_bytes, b.kv.recurrent_state_bytes);
  figure("flops.fixed", a.flops.fixed, b.flops.fixed);

  // Headers on both sides: compare what the checkpoints hold (logical tensors: quantization
  // scales folded in), so a tensor the config does not predict (an adapter's lora_A, a reshaped
  // norm) shows. Otherwise compare what the configs predict, each side from its spec when it has
  // no headers.
  bool stored_a = !a.storage.logical.empty(), stored_b = !b.storage.logical.empty();
  bool spec_a = a.spec.has_value(), spec_b = b.spec.has_value();
  bool both_stored = stored_a && stored_b;
  bool use_spec_a = !both_stored && spec_a && (spec_b || !stored_a);
  bool use_spec_b = !both_stored && spec_b && (spec_a || !stored_b);
  d.structure_source = both_stored ? "checkpoints" : (use_spec_a && use_spec_b) ? "specs" : (!use_spec_a && !use_spec_b) ? "checkpoints" : "mixed";
  auto pa = patterns(a, use_spec_a);
  auto pb = patterns(b, use_spec_b);
  for (const auto& [p, side] : pa) {
    auto it = pb.find(p);
    if (it == pb.end()) d.patterns_removed.push_back({p, side, std::nullopt});
    else if (side.shapes != it->second.shapes) d.patterns_reshaped.push_back({p, side, it->second});
    else ++d.patterns_same;
  }
  for (const auto& [p, side] : pb)
    if (!pa.count(p)) d.patterns_added.push_back({p, std::nullopt, side});
  return d;
}

}  // namespace hfi
