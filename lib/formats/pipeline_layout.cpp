#include "formats/pipeline_layout.hpp"

#include "core/json.hpp"
#include "core/text.hpp"

namespace hfi {
namespace {

constexpr JsonLimits kLimits{1u << 20, 16};

// A folder inside the repository (no trailing '/': a component's files are "<folder>/<file>").
bool safe_folder(std::string_view path) { return safe_repo_path(path) && path.back() != '/'; }

}  // namespace

const char* pipeline_kind_name(PipelineKind kind) {
  return kind == PipelineKind::Diffusers ? "diffusers" : "sentence-transformers";
}

Result<PipelineLayout> parse_model_index(std::string_view text, std::string_view file) {
  auto doc = parse_json(text, file, kLimits);
  if (!doc) return doc.error();
  if (!doc->is_object()) return malformed(std::string(file), "", "is not a JSON object");
  PipelineLayout layout;
  layout.kind = PipelineKind::Diffusers;
  layout.file = std::string(file);
  if (const Json* cls = doc->find("_class_name"); cls && cls->is_string()) layout.class_name = cls->as_string();
  for (const auto& [key, value] : doc->members()) {
    if (key.starts_with("_")) continue;  // _class_name, _diffusers_version, _name_or_path
    // A component is [library, class]; anything else (a flag such as requires_safety_checker) is not.
    if (!value.is_array()) continue;
    if (value.items().size() != 2) return malformed(std::string(file), key, "is not a [library, class] pair");
    for (const auto& part : value.items())
      if (!part.is_string() && !part.is_null()) return malformed(std::string(file), key, "holds a value that is neither a name nor null");
    if (!safe_folder(key)) return malformed(std::string(file), key, "is not a folder name inside the repository");
    if (layout.components.size() == kMaxPipelineComponents)
      return malformed(std::string(file), key, "is one component more than the " + std::to_string(kMaxPipelineComponents) + " hfinspect reads");
    PipelineComponentRef c;
    c.name = key;
    c.path = key;
    if (value.items()[0].is_string()) c.library = value.items()[0].as_string();
    if (value.items()[1].is_string()) c.class_name = value.items()[1].as_string();
    layout.components.push_back(std::move(c));
  }
  return layout;
}

Result<PipelineLayout> parse_modules_json(std::string_view text, std::string_view file) {
  auto doc = parse_json(text, file, kLimits);
  if (!doc) return doc.error();
  if (!doc->is_array()) return malformed(std::string(file), "", "is not a JSON array of modules");
  PipelineLayout layout;
  layout.kind = PipelineKind::SentenceTransformers;
  layout.file = std::string(file);
  for (size_t i = 0; i < doc->items().size(); ++i) {
    const Json& m = doc->items()[i];
    const std::string field = "[" + std::to_string(i) + "]";
    if (!m.is_object()) return malformed(std::string(file), field, "is not a module object");
    const Json* path = m.find("path");
    const Json* type = m.find("type");
    if (!path || !path->is_string()) return malformed(std::string(file), field + ".path", "is missing or not a string");
    if (!type || !type->is_string()) return malformed(std::string(file), field + ".type", "is missing or not a string");
    if (!path->as_string().empty() && !safe_folder(path->as_string()))
      return malformed(std::string(file), field + ".path", "'" + path->as_string() + "' is not a folder inside the repository");
    if (layout.components.size() == kMaxPipelineComponents)
      return malformed(std::string(file), field, "is one module more than the " + std::to_string(kMaxPipelineComponents) + " hfinspect reads");
    PipelineComponentRef c;
    const Json* name = m.find("name");
    c.name = name && name->is_string() ? name->as_string() : std::to_string(i);
    const std::string& t = type->as_string();
    const size_t dot = t.rfind('.');
    c.class_name = dot == std::string::npos ? t : t.substr(dot + 1);
    c.library = dot == std::string::npos ? std::string() : t.substr(0, t.find('.'));
    c.path = path->as_string();
    layout.components.push_back(std::move(c));
  }
  return layout;
}

}  // namespace hfi
