// The keys every transformers PretrainedConfig carries, with the value a config holds when nobody
// set it. transformers 4.x wrote them all into config.json (the generation parameters too, until
// GenerationConfig took them over), so a key at its default says nothing about the model.
#pragma once

#include "core/json.hpp"

namespace hfi {

// One JSON object: key -> default value.
const Json& pretrained_config_defaults();

}  // namespace hfi
