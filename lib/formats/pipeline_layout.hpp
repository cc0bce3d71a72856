// The two files that make a repository a pipeline of models: diffusers' model_index.json (each
// component in the subfolder named by its key, with its library and class) and
// sentence-transformers' modules.json (the modules in order, each in its folder; "" is the root,
// where the transformer usually is). Pure parsers, from bytes to the layout.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace hfi {

enum class PipelineKind { Diffusers, SentenceTransformers };

// "diffusers", "sentence-transformers"
const char* pipeline_kind_name(PipelineKind kind);

struct PipelineComponentRef {
  std::string name;        // the model_index key, or the module's name
  std::string library;     // "transformers", "diffusers", "sentence_transformers"; empty when null
  std::string class_name;  // "UNet2DConditionModel", "Pooling"; empty when null (a disabled component)
  std::string path;        // its folder, '/'-separated, no trailing '/'; "" for the root
};

struct PipelineLayout {
  PipelineKind kind = PipelineKind::Diffusers;
  std::string file;        // model_index.json or modules.json
  std::string class_name;  // diffusers' _class_name ("StableDiffusionPipeline"); empty for modules.json
  std::vector<PipelineComponentRef> components;  // in file order
};

// A pipeline holds at most this many components; real ones hold under a dozen.
inline constexpr size_t kMaxPipelineComponents = 256;

Result<PipelineLayout> parse_model_index(std::string_view text, std::string_view file);
Result<PipelineLayout> parse_modules_json(std::string_view text, std::string_view file);

}  // namespace hfi
