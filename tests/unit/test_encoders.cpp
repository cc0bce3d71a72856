// Encoder specs beyond what the fixture catalog checks: the same family written by different
// writers (TF-era gamma/beta vs weight/bias, with or without the task model's prefix, with or
// without heads), the transformers 5 spelling of ModernBERT's attention layout, and the rule that
// an encoder reports no KV cache.
#include <catch2/catch.hpp>
#include <memory>

#include "analysis/metrics.hpp"
#include "analysis/reconcile.hpp"
#include "arch/spec.hpp"
#include "formats/model_config.hpp"
#include "support/inspect.hpp"

namespace {

hfi::ModelConfig parse(const std::string& text) {
  auto cfg = hfi::ModelConfig::parse(text, "config.json");
  REQUIRE(cfg.ok());
  return std::move(cfg.value());
}

hfi::ArchModel build(const std::string& text) {
  hfi::ModelConfig cfg = parse(text);
  const hfi::SpecEntry* entry = hfi::find_spec(cfg.model_type());
  REQUIRE(entry != nullptr);
  auto m = entry->build(cfg);
  REQUIRE(m.ok());
  return std::move(m.value());
}

// A checkpoint holding exactly the spec's tensors under `prefix` (spec names start with "model."),
// LayerNorm leaves renamed when `legacy`, heads (names outside "model.") kept only when `heads`.
hfi::StorageView checkpoint(const hfi::ArchModel& m, const std::string& prefix, bool legacy, bool heads) {
  hfi::StorageView v;
  for (const auto& t : m.tensors) {
    bool in_model = t.name.rfind("model.", 0) == 0;
    // Tied decoder, position_ids buffer and the duplicate decoder bias: never written here.
    bool skipped_part = t.name.ends_with("position_ids") || t.name.ends_with("decoder.bias");
    if (t.optional && (!t.optional_part || !heads || skipped_part)) continue;
    std::string name = in_model ? prefix + t.name.substr(6) : t.name;
    const auto& old_names = m.alternatives_of(t).names;
    if (legacy && !old_names.empty()) name = in_model ? prefix + old_names[0].substr(6) : old_names[0];
    hfi::LogicalTensor l;
    auto owned = std::make_shared<const std::string>(std::move(name));  // the view keeps what its names view
    v.names.push_back(owned);
    l.name = *owned;
    l.shape = t.shape;
    l.params = t.params();
    l.format = "F32";
    v.logical.push_back(l);
  }
  return v;
}

const char* kBertTiny = R"({"model_type": "bert", "architectures": ["BertModel"], "hidden_size": 64,
  "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 100,
  "max_position_embeddings": 32, "type_vocab_size": 2})";

}  // namespace

TEST_CASE("bert spec: gamma/beta and weight/bias writers, prefixed or bare, with or without heads") {
  hfi::ArchModel m = build(kBertTiny);
  CHECK(m.encoder_only);
  for (bool legacy : {true, false})
    for (const char* prefix : {"bert.", ""})
      for (bool heads : {true, false}) {
        INFO(legacy << " '" << prefix << "' " << heads);
        hfi::StorageView v = checkpoint(m, prefix, legacy, heads);
        hfi::Reconciliation r = hfi::reconcile(&m, v);
        CHECK(r.lm_prefix == prefix);
        CHECK(r.status == hfi::ReconcileStatus::Complete);
        CHECK(r.missing.empty());
        CHECK(r.unexplained_tensors == 0);
        CHECK(r.matched_tensors == v.logical.size());
        if (heads) CHECK(r.absent_parts.size() == 2);  // position_ids, cls.predictions.decoder.bias
        else CHECK(r.absent_parts.size() > 2);
        CHECK(r.absent_by_design == std::vector<std::string>{"cls.predictions.decoder.weight"});
      }
}

TEST_CASE("bert spec: a classifier named by architectures is required") {
  hfi::ArchModel m = build(R"({"model_type": "bert", "architectures": ["BertForSequenceClassification"],
    "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 1, "intermediate_size": 128,
    "vocab_size": 100, "max_position_embeddings": 32, "id2label": {"0": "a", "1": "b", "2": "c"}})");
  bool found = false;
  for (const auto& t : m.tensors)
    if (t.name == "classifier.weight") {
      found = true;
      CHECK(!t.optional);
      CHECK(t.shape == std::vector<uint64_t>{3, 64});
    }
  CHECK(found);
}

TEST_CASE("encoders have no KV cache; attention FLOPs stop at the longest sequence") {
  hfi::ArchModel m = build(kBertTiny);
  hfi::KvCache kv = hfi::compute_kv_cache(&m, 8192, 2).value();
  CHECK(kv.encoder_only);
  CHECK(kv.bytes_per_token == 0);
  CHECK(kv.bytes_at_context == 0);
  hfi::ParamBreakdown p;
  hfi::FlopsPerToken at_max = hfi::compute_flops(&m, p, 32).value();
  hfi::FlopsPerToken beyond = hfi::compute_flops(&m, p, 8192).value();
  CHECK(at_max.attention == 2ull * 2 * 4 * (16 + 16) * 32);  // 2 layers, 4 heads of 16, 32 tokens
  CHECK(beyond.attention == at_max.attention);
}

TEST_CASE("modernbert spec: legacy and transformers 5 configs give the same layout") {
  const char* legacy = R"({"model_type": "modernbert", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 4, "intermediate_size": 96, "vocab_size": 100, "max_position_embeddings": 256,
    "global_attn_every_n_layers": 3, "local_attention": 16, "global_rope_theta": 160000.0,
    "local_rope_theta": 10000.0, "norm_bias": false})";
  const char* v5 = R"({"model_type": "modernbert", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 4, "intermediate_size": 96, "vocab_size": 100, "max_position_embeddings": 256,
    "local_attention": 16, "layer_types": ["full_attention", "sliding_attention", "sliding_attention", "full_attention"],
    "rope_parameters": {"full_attention": {"rope_theta": 160000.0, "rope_type": "default"},
                        "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}})";
  hfi::ArchModel a = build(legacy), b = build(v5);
  REQUIRE(a.attention.size() == 4);
  REQUIRE(b.attention.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(a.attention[i].kind == b.attention[i].kind);
    CHECK(a.attention[i].window == b.attention[i].window);
  }
  CHECK(a.attention[0].kind == hfi::AttentionKind::Full);
  CHECK(a.attention[1].kind == hfi::AttentionKind::Sliding);
  CHECK(a.attention[1].window == 17);  // 8 keys either side and the token itself
  CHECK(a.attention[3].kind == hfi::AttentionKind::Full);
  CHECK(a.position_summary == b.position_summary);
  CHECK(a.tensors.size() == b.tensors.size());
  // Layer 0 has no attention norm.
  for (const auto& t : a.tensors) CHECK(t.name != "model.layers.0.attn_norm.weight");
}

TEST_CASE("a T5 encoder alone (a pipeline's text encoder) does attention work and keeps no cache") {
  // UMT5EncoderModel of the Wan2.1 pipeline: 24 blocks of 64 heads × d_kv 64 (its config.json).
  // Attention per token at 4,096 tokens: 24 × 2 × 64 × (64 + 64) × 4096 = 1,610,612,736 FLOP.
  hfi::ArchModel m = build(R"({"model_type": "umt5", "architectures": ["UMT5EncoderModel"], "d_model": 4096,
    "d_kv": 64, "d_ff": 10240, "num_heads": 64, "num_layers": 24, "vocab_size": 256384,
    "feed_forward_proj": "gated-gelu", "tie_word_embeddings": false})");
  CHECK(m.encoder_only);
  hfi::KvCache kv = hfi::compute_kv_cache(&m, 4096, 4).value();
  CHECK(kv.encoder_only);
  CHECK(kv.bytes_per_token == 0);
  hfi::ParamBreakdown p;
  CHECK(hfi::compute_flops(&m, p, 4096).value().attention == 1'610'612'736ull);
}

TEST_CASE("a minimal SigLIP config: class defaults fill what text_config leaves out") {
  // google/siglip2-base-patch16-256's config.json gives only text_config.vocab_size (256000) and
  // vision_config.image_size. SiglipTextConfig's defaults: hidden_act gelu_pytorch_tanh,
  // max_position_embeddings 64; the tower has no LM head. The vocabulary it does give is read, so
  // it is not an unknown field, and attention work stops at the 64 positions.
  hfi::Report r = hfi::testing::inspect_fixture("google/siglip2-base-patch16-256").report;
  REQUIRE(r.spec.has_value());
  CHECK(r.summary.find("gelu_pytorch_tanh") != std::string::npos);
  CHECK(r.summary.find("silu") == std::string::npos);
  CHECK(r.summary.find("no LM head") != std::string::npos);
  CHECK(r.unknown_fields.empty());
  CHECK(r.flops.context == 64);
}

TEST_CASE("a vision tower alone counts its image patches as its tokens") {
  // h94/IP-Adapter's image encoder (CLIPVisionModelWithProjection, ViT-H/14 at 224 px): hidden
  // 1280, MLP 5120, 32 layers of 16 heads, 14 px patches -> 16² + 1 class token = 257 tokens.
  // By hand: a layer is q/k/v/out 4 x (1280² + 1280) + fc1 5120 x 1280 + 5120 + fc2 1280 x 5120
  // + 1280 + two LayerNorms 5,120 = 19,677,440; x 32 = 629,678,080; the patch conv
  // 1280 x 3 x 14² = 752,640 and pre/post LayerNorms 5,120 run per patch too, the class and
  // position tables (1,280 + 257 x 1280) are added, not multiplied; the projection runs once per
  // image. Fixed FLOPs per patch: 2 x (629,678,080 + 752,640 + 5,120) = 1,260,871,680.
  // Attention over 257 patches: 32 layers x 2 x 16 heads x (80 + 80) x 257 = 42,106,880.
  hfi::Report r = hfi::testing::inspect_fixture("InvokeAI/ip_adapter_sd_image_encoder").report;
  REQUIRE(r.spec.has_value());
  CHECK(r.spec->tokens_are_image_patches);
  CHECK(r.flops.context == 257);
  CHECK(r.flops.fixed == 1'260'871'680ull);
  CHECK(r.flops.attention == 42'106'880ull);
  CHECK(r.kv.bytes_per_token == 0);
}

TEST_CASE("siglip_vision_model: SigLIP so400m/14 at 384 px, with and without its pooling head") {
  // SiglipVisionModel of google/siglip-so400m-patch14-384 has 428,225,600 parameters (published in
  // several public training logs). Without the attention-pooling head (vision_use_head false, as
  // VLMs store it): 428,225,600 - (probe 1152 + in_proj 3 x 1152² + 3 x 1152 + out_proj 1152² + 1152
  // + LayerNorm 2 x 1152 + MLP 2 x 1152 x 4304 + 4304 + 1152) = 412,987,248.
  auto config = [](const char* head) {
    return std::string(R"({"model_type": "siglip_vision_model", "architectures": ["SiglipVisionModel"],
      "hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27, "num_attention_heads": 16,
      "patch_size": 14, "image_size": 384)") + head + "}";
  };
  hfi::ArchModel with_head = build(config(""));
  hfi::ArchModel without = build(config(R"(, "vision_use_head": false)"));
  CHECK(hfi::formula_params(with_head).total == 428'225'600ull);
  CHECK(hfi::formula_params(without).total == 412'987'248ull);
  CHECK(with_head.tokens_are_image_patches);
  CHECK(with_head.attention.size() == 27);
}
