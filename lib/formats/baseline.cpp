#include "formats/baseline.hpp"

#include <map>
#include <vector>

#include "core/json.hpp"

namespace hfi {

Result<Baseline> parse_baseline(std::string_view text, std::string_view file) {
  std::string f(file);
  auto doc = parse_json(text, file);
  if (!doc) return doc.error();
  const Json* accepted = doc->is_object() ? doc->find("accepted") : nullptr;
  if (!accepted || !accepted->is_object()) return malformed(f, "accepted", "missing or not an object of repository -> keys");
  Baseline b;
  for (const auto& [repo, keys] : accepted->members()) {
    if (!keys.is_array()) return malformed(f, "accepted." + repo, "is not an array of finding keys");
    for (const auto& k : keys.items()) {
      if (!k.is_string()) return malformed(f, "accepted." + repo, "holds a key that is not a string");
      b.accepted.insert({repo, k.as_string()});
    }
  }
  return b;
}

std::string render_baseline(const Baseline& baseline) {
  std::map<std::string, std::vector<Json>> by_repo;
  for (const auto& [repo, key] : baseline.accepted) by_repo[repo].push_back(Json::make_string(key));
  std::vector<Json::Member> repos;
  for (auto& [repo, keys] : by_repo) repos.emplace_back(repo, Json::make_array(std::move(keys)));
  Json doc = Json::make_object({{"schema_version", Json::make_int(1)}, {"accepted", Json::make_object(std::move(repos))}});
  return doc.dump_pretty() + "\n";
}

}  // namespace hfi
