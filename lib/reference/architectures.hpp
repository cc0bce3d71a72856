// What `hfinspect --list-architectures` shows: each registered model_type, the spec that serves it
// and the bundled fixtures whose published figures prove it.
#pragma once

#include <string>
#include <vector>

namespace hfi {

struct ArchitectureRow {
  std::string model_type;
  std::string spec;                   // the builder's name, e.g. "llama_spec"
  std::vector<std::string> fixtures;  // repositories under fixtures/ with a published figure; may be empty
  bool exact = false;                 // some fixture's figure is an exact published one, not derived by hand
};

// Sorted by model_type. A fixture proves the type its config names at the top, or, when that type
// has no spec of its own, its text_config's (the spec that served it); and it proves every other
// type that the same spec serves.
std::vector<ArchitectureRow> architecture_rows();

}  // namespace hfi
