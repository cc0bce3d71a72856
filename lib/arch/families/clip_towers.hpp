// The CLIP / SigLIP / SigLIP 2 vision transformer, shared by the dual-encoder specs (clip.cpp) and
// the vision-language specs built on these towers (llava.cpp, paligemma.cpp, idefics3.cpp). Its
// declarations belong in families.hpp; they sit here until that shared header takes them.
#pragma once

#include <string>

#include "arch/blocks.hpp"

namespace hfi::arch {

// Clip: conv patch embedding without bias, a class token, pre-LayerNorm ("pre_layrnorm") and
// post-LayerNorm, (image/patch)² + 1 positions. Siglip: biased conv patch embedding, no class token
// nor pre-norm, (image/patch)² positions, optional attention-pooling head. Siglip2 (NaFlex): the
// patch embedding is a Linear over flattened patches and the position table holds num_patches rows.
enum class VitFlavour { Clip, Siglip, Siglip2 };

struct VitTower {
  uint64_t hidden = 0, inter = 0, layers = 0, heads = 0, patch = 0, channels = 3, image = 0, positions = 0;
  bool head = false;  // SigLIP's multi-head attention pooling head (vision_use_head)
};

// vision_config read with the defaults of transformers' CLIPVisionConfig / SiglipVisionConfig /
// Siglip2VisionConfig; `head_default` is vision_use_head when the config does not say.
VitTower read_vit_tower(const ConfigReader& v, VitFlavour flavour, bool head_default);

// Patches of a square image: the patch conv's stride is patch_size, so a remainder is dropped, as
// transformers counts (image_size // patch_size)² (SigLIP so400m/14 at 384 px: 27² = 729).
uint64_t patch_grid(uint64_t image, uint64_t patch);
// The tower's tensors under `prefix` (ending in '.', e.g. "vision_model." or
// "vision_tower.vision_model."), all Role::Vision. `position_ids_buffer`: the [1, positions] int64
// position_ids buffer that checkpoints written before transformers 4.31 store (an optional part).
void add_vit_tower(ArchModel& m, const std::string& prefix, const VitTower& t, VitFlavour flavour,
                   bool position_ids_buffer);
// One line for the notes: "vision tower: CLIP ViT, 24 layers × 1024, ...".
std::string describe_vit_tower(const VitTower& t, VitFlavour flavour);
// The pre-norm encoder layers CLIP and SigLIP towers share (layer_norm1, biased q/k/v/out_proj,
// layer_norm2, mlp.fc1/fc2) under `prefix` + "<i>.". `layer_index`: record the layer number
// (text towers, whose layers are the model's own) or leave -1 (vision towers).
void add_clip_encoder_layers(ArchModel& m, const std::string& prefix, uint64_t layers, uint64_t hidden,
                             uint64_t inter, Role attention, Role mlp, Role norm, bool layer_index);

}  // namespace hfi::arch

// Helpers of the vision-language specs (llava.cpp), shared with paligemma.cpp and idefics3.cpp.
namespace hfi::arch {

// `cfg` with its text_config completed by the JSON object `defaults` (the fields it lacks) and
// model_type `text_type`; every other key as it is.
ModelConfig with_text_defaults(const ModelConfig& cfg, const std::string& text_type, const char* defaults);
// The language model of a multimodal config, built by the registered spec its
// text_config.model_type names (`fallback_type` when it names none), on the config completed with
// that family's transformers defaults; the keys it reads are marked read on `cfg`.
ArchModel nested_text_model(const ModelConfig& cfg, const std::string& fallback_type, const char* wrapper);
// The CLIP / SigLIP / SigLIP 2 tower vision_config describes (by its model_type), or the JSON object
// `fallback` when the config has none, under `prefix`; `tower_name` receives "CLIP", "SigLIP", ...
VitTower add_vision_from_config(ArchModel& m, const ConfigReader& r, const std::string& prefix, const char* fallback,
                                std::string* tower_name);

}  // namespace hfi::arch
