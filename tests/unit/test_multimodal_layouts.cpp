// Multimodal checkpoints spell their towers in more than one way: original Qwen2.5-VL uploads keep
// the text under "model." and the vision tower at "visual.", re-saves by transformers >= 4.52 use
// "model.language_model." and "model.visual.", LLaVA-style ones "language_model.model." with the
// towers at the root. One spec must match all of them.
#include <catch2/catch.hpp>
#include <memory>

#include "analysis/reconcile.hpp"
#include "arch/spec.hpp"
#include "formats/model_config.hpp"
#include "support/inspect.hpp"

namespace {

// A small Qwen2.5-VL config: 2 text layers, 2 vision blocks, untied head.
constexpr const char* kSmallQwen25VlConfig = R"({
  "model_type": "qwen2_5_vl", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
  "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 100, "tie_word_embeddings": false,
  "image_token_id": 99,
  "vision_config": {"depth": 2, "hidden_size": 32, "intermediate_size": 48, "num_heads": 4,
                    "out_hidden_size": 64, "patch_size": 14, "spatial_merge_size": 2,
                    "temporal_patch_size": 2, "in_chans": 3, "fullatt_block_indexes": [1]}
})";

hfi::ArchModel spec() {
  auto cfg = hfi::ModelConfig::parse(kSmallQwen25VlConfig, "config.json");
  REQUIRE(cfg.ok());
  const hfi::SpecEntry* entry = hfi::find_spec("qwen2_5_vl");
  REQUIRE(entry != nullptr);
  auto m = entry->build(*cfg);
  REQUIRE(m.ok());
  return std::move(m.value());
}

// The spec's tensors under the given language-model and tower prefixes.
hfi::StorageView stored_as(const hfi::ArchModel& m, const std::string& lm, const std::string& towers) {
  hfi::StorageView v;
  for (const auto& t : m.tensors) {
    std::string name = t.name.starts_with("model.")     ? lm + t.name.substr(6)
                       : t.name.starts_with("lm_head.") ? t.name
                                                        : towers + t.name;
    auto owned = std::make_shared<const std::string>(std::move(name));  // the view keeps what its names view
    v.names.push_back(owned);
    v.logical.push_back({*owned, t.shape, t.params(), "BF16", 2 * t.params(), 0, false});
  }
  return v;
}

}  // namespace

TEST_CASE("qwen2_5_vl: the vision tower is found beside the language model in every layout") {
  hfi::ArchModel m = spec();
  for (auto [lm, towers] : {std::pair<std::string, std::string>{"model.", ""},
                            {"model.language_model.", "model."},
                            {"language_model.model.", ""}}) {
    INFO(lm);
    hfi::StorageView v = stored_as(m, lm, towers);
    auto r = hfi::reconcile(&m, v);
    CHECK(r.lm_prefix == lm);
    CHECK(r.status == hfi::ReconcileStatus::Complete);
    CHECK(r.unexplained_tensors == 0);
    CHECK(r.missing.empty());
  }
  // The patch embedding is a bias-free conv3d over (time, height, width) patches.
  auto conv = std::find_if(m.tensors.begin(), m.tensors.end(),
                           [](const hfi::ExpectedTensor& t) { return t.name == "visual.patch_embed.proj.weight"; });
  REQUIRE(conv != m.tensors.end());
  CHECK(conv->shape == std::vector<uint64_t>{32, 3, 2, 14, 14});
}

TEST_CASE("llava_next: a text_config's explicit null stays null (full attention, not Mistral's default window)") {
  // llava-v1.6-mistral-7b-hf's text_config says "sliding_window": null; MistralConfig's default
  // 4096 applies only when the key is absent. Two configs differing only in that: the null one has
  // no windowed layer, the absent one has every layer windowed at 4096.
  auto build = [](const std::string& window) {
    auto cfg = hfi::ModelConfig::parse(R"({"model_type": "llava_next", "text_config": {"model_type": "mistral",
      "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2,
      "num_hidden_layers": 2, "vocab_size": 100)" + window + R"(}})", "config.json");
    REQUIRE(cfg.ok());
    auto m = hfi::find_spec("llava_next")->build(*cfg);
    REQUIRE(m.ok());
    return std::move(m.value());
  };
  hfi::ArchModel explicit_null = build(R"(, "sliding_window": null)");
  hfi::ArchModel absent = build("");
  REQUIRE(explicit_null.attention.size() == 2);
  REQUIRE(absent.attention.size() == 2);
  for (const auto& a : explicit_null.attention) CHECK(a.window == 0);
  for (const auto& a : absent.attention) CHECK(a.window == 4096);
}

TEST_CASE("mllama: cross-attention keys and values are per image, not per text token") {
  // Llama-3.2-11B-Vision-Instruct's text_config: hidden 4096, intermediate 14336, 40 layers of which
  // 8 cross-attention (3, 8, ..., 38), 32 q / 8 kv heads of 128, vocab 128256 (+ 8 embedding rows),
  // untied head. By hand:
  //   self-attention layer: q, o 2 x 4096^2 + k, v 2 x 1024 x 4096 = 41,943,040; SwiGLU
  //     3 x 4096 x 14336 = 176,160,768; two norms 8,192 -> 218,112,000
  //   cross-attention layer: the same + q_norm, k_norm 2 x 128 + two tanh gates -> 218,112,258,
  //     of which k_proj, v_proj and k_norm (8,388,736) read the image features, once per image
  //   text model: embed 128,264 x 4096 = 525,369,344 + 32 x 218,112,000 + 8 x 218,112,258
  //     + final norm 4,096 + head 128,256 x 4096 = 525,336,576 -> 9,775,192,080
  //   active: 9,775,192,080 - 8 x 8,388,736 = 9,708,082,192 (the vision model and projector run
  //     per image too); fixed FLOPs = 2 x (active - the input embedding) = 18,365,425,696.
  hfi::Report r = hfi::testing::inspect_fixture("meta-llama/Llama-3.2-11B-Vision-Instruct").report;
  REQUIRE(r.spec.has_value());
  CHECK(r.params.active == 9'708'082'192ull);
  CHECK(r.flops.fixed == 18'365'425'696ull);
}
