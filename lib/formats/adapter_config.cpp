#include "formats/adapter_config.hpp"

#include "core/json.hpp"

namespace hfi {
namespace {

constexpr uint64_t kMostRank = uint64_t{1} << 20;

Result<uint64_t> rank(const Json& v, const std::string& file, const std::string& field) {
  auto n = v.as_uint();
  if (!v.is_integer() || !n || *n == 0 || *n > kMostRank)
    return malformed(file, field, "is " + v.dump() + ", not a rank (a positive integer of at most " + std::to_string(kMostRank) + ")");
  return *n;
}

Result<std::vector<std::string>> names(const Json& v, const std::string& file, const std::string& field) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array()) return malformed(file, field, "is neither a list of module names nor null");
  for (const Json& item : v.items()) {
    if (!item.is_string()) return malformed(file, field, "holds " + item.dump() + ", not a module name");
    out.push_back(item.as_string());
  }
  return out;
}

}  // namespace

Result<AdapterConfig> parse_adapter_config(std::string_view text, std::string_view file_name) {
  const std::string file(file_name);
  AdapterConfig a;
  auto json = parse_json(text, file_name, JsonLimits{16u << 20, 64}, &a.repeated_keys);
  if (!json) return json.error();
  if (!json->is_object()) return malformed(file, "", "is not a JSON object");
  const Json& j = *json;
  if (const Json* v = j.find("peft_type"); v && v->is_string()) a.peft_type = v->as_string();
  if (const Json* v = j.find("base_model_name_or_path"); v && v->is_string()) a.base_model = v->as_string();
  if (const Json* v = j.find("r"); v && !v->is_null()) {
    auto r = rank(*v, file, "r");
    if (!r) return r.error();
    a.r = *r;
  }
  if (const Json* v = j.find("lora_alpha"); v && !v->is_null()) {
    auto alpha = v->as_double();
    if (!v->is_number() || !alpha || !(*alpha > 0) || *alpha > 1e9) return malformed(file, "lora_alpha", "is " + v->dump() + ", not a positive number");
    a.alpha = *alpha;
  }
  if (const Json* v = j.find("target_modules"); v && v->is_string()) {
    a.target_regex = v->as_string();
  } else if (v) {
    auto list = names(*v, file, "target_modules");
    if (!list) return list.error();
    a.target_modules = std::move(list.value());
  }
  if (const Json* v = j.find("modules_to_save")) {
    auto list = names(*v, file, "modules_to_save");
    if (!list) return list.error();
    a.modules_to_save = std::move(list.value());
  }
  if (const Json* v = j.find("rank_pattern"); v && !v->is_null()) {
    if (!v->is_object()) return malformed(file, "rank_pattern", "is not an object of module -> rank");
    for (const auto& [key, value] : v->members()) {
      auto r = rank(value, file, "rank_pattern." + key);
      if (!r) return r.error();
      a.rank_pattern[key] = *r;
    }
  }
  if (const Json* v = j.find("use_dora"); v && v->is_bool()) a.use_dora = v->as_bool();
  return a;
}

}  // namespace hfi
