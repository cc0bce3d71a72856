#include "analysis/adapter.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace hfi {
namespace {

constexpr std::string_view kPeftPrefix = "base_model.model.";

struct Pair {
  const LogicalTensor* a = nullptr;
  const LogicalTensor* b = nullptr;
};

// The rank PEFT gives `module`: a rank_pattern key that is its path or ends it, else r.
uint64_t rank_of(const AdapterConfig& c, const std::string& module) {
  for (const auto& [key, rank] : c.rank_pattern)
    if (module == key || (module.size() > key.size() && module.ends_with("." + key))) return rank;
  return c.r;
}

std::string last_component(std::string_view path) {
  auto dot = path.rfind('.');
  return std::string(dot == std::string_view::npos ? path : path.substr(dot + 1));
}

bool targeted(const AdapterConfig& c, const std::string& module) {
  const std::string name = last_component(module);
  for (const auto& t : c.target_modules)
    if (t == name || t == module) return true;
  return false;
}

// "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight" -> ("model.layers.0.self_attn.q_proj", 'A')
bool lora_part(std::string_view name, std::string& module, char& side) {
  for (char s : {'A', 'B'}) {
    const std::string marker = std::string(".lora_") + s + ".";
    if (auto at = name.find(marker); at != std::string_view::npos) {
      module = std::string(name.substr(0, at));
      if (module.starts_with(kPeftPrefix)) module.erase(0, kPeftPrefix.size());
      side = s;
      return true;
    }
  }
  return false;
}

}  // namespace

AdapterSummary analyse_adapter(const AdapterConfig& config, const StorageView& stored, const ArchModel* base) {
  AdapterSummary out;
  out.config = config;
  out.base_checked = base != nullptr;
  std::map<std::string, Pair> pairs;
  for (const LogicalTensor& t : stored.logical) {
    out.params += t.params;
    std::string module;
    char side = 0;
    if (lora_part(t.name, module, side)) {
      (side == 'A' ? pairs[module].a : pairs[module].b) = &t;
      continue;
    }
    for (const auto& saved : config.modules_to_save)
      if (std::string_view(t.name).find("." + saved + ".") != std::string_view::npos) out.saved_params += t.params;
  }
  out.lora_modules = pairs.size();
  std::unordered_map<std::string, const ExpectedTensor*> linear;
  if (base)
    for (const ExpectedTensor& x : base->tensors)
      if (x.shape.size() == 2 && std::string_view(x.name).ends_with(".weight")) linear.emplace(x.name.substr(0, x.name.size() - 7), &x);
  for (const auto& [module, pair] : pairs) {
    if (!pair.a || !pair.b) {
      out.issues.push_back({"unpaired", module, module + " has lora_" + std::string(pair.a ? "A" : "B") + " without its other half"});
      continue;
    }
    const uint64_t r = rank_of(config, module);
    const Shape& a = pair.a->shape;
    const Shape& b = pair.b->shape;
    if (a.size() != 2 || b.size() != 2 || a[0] != r || b[1] != r) {
      out.issues.push_back({"rank", module, module + ": lora_A " + shape_text(a) + ", lora_B " + shape_text(b) + " for rank " + std::to_string(r)});
      continue;
    }
    if (!base) continue;
    auto it = linear.find(module);
    if (it == linear.end()) {
      out.issues.push_back({"unmatched", module, module + " is no linear layer of the base model"});
      continue;
    }
    const Shape& w = it->second->shape;  // [out, in]
    if (a[1] != w[1] || b[0] != w[0])
      out.issues.push_back({"shape", module, module + ": lora_A " + shape_text(a) + " and lora_B " + shape_text(b) + " do not fit the base's " +
                                                 shape_text(w) + " (expected [" + std::to_string(r) + ", " + std::to_string(w[1]) + "] and [" +
                                                 std::to_string(w[0]) + ", " + std::to_string(r) + "])"});
  }
  if (base && config.target_regex.empty())
    for (const auto& [module, x] : linear)
      if (targeted(config, module) && !pairs.count(module) && x->role != Role::LmHead && x->role != Role::Embedding)
        out.issues.push_back({"missing", module, module + " is a target (" + last_component(module) + ") with no LoRA pair"});
  std::sort(out.issues.begin(), out.issues.end(), [](const AdapterIssue& x, const AdapterIssue& y) {
    return std::tie(x.kind, x.module) < std::tie(y.kind, y.module);
  });
  return out;
}

}  // namespace hfi
