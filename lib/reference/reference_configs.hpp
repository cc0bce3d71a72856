// The reference configs bundled into the library: real published config.json files (the ones under
// fixtures/, with their provenance there), keyed by repository id. `hfinspect diff A` compares A
// with the nearest of them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/model_config.hpp"
#include "source/snapshot.hpp"

namespace hfi {

struct ReferenceConfig {
  std::string_view repo;  // e.g. "Qwen/Qwen3-8B"
  std::string_view text;  // config.json as published
};

const std::vector<ReferenceConfig>& reference_configs();

struct NearestReference {
  std::string repo;
  double distance = 0;  // 0: the same structure; see config_distance()
  std::string reason;   // one line: what makes it the closest
};

// How far apart two configs are structurally: a different language-model model_type weighs most,
// then the log-ratio of each size field (hidden size, depth, heads, experts, ranks...), then fields
// present in one config only. Symmetric; 0 for identical structure.
double config_distance(const ModelConfig& a, const ModelConfig& b);

// The nearest bundled config to `config`, skipping the reference with the same repository id as
// `self_repo` (a repo is not its own relative). A reference with the same content is the answer,
// at distance 0: a local copy of a published config finds where it came from. nullopt if none parse.
std::optional<NearestReference> nearest_reference(const ModelConfig& config, std::string_view self_repo);

// A config-only snapshot of a bundled reference, as if read from a folder holding just its
// config.json; nullopt for an unknown repository id.
std::optional<Snapshot> reference_snapshot(std::string_view repo);

}  // namespace hfi
