#include "arch/spec.hpp"

#include <algorithm>

namespace hfi {

const char* role_name(Role r) {
  switch (r) {
    case Role::Embedding: return "embedding";
    case Role::PerLayerEmbedding: return "per_layer_embedding";
    case Role::LmHead: return "lm_head";
    case Role::Attention: return "attention";
    case Role::Ssm: return "ssm";
    case Role::LinearAttention: return "linear_attention";
    case Role::ShortConv: return "short_conv";
    case Role::Mlp: return "mlp";
    case Role::Router: return "router";
    case Role::RoutingBias: return "routing_bias";
    case Role::RoutedExpert: return "routed_expert";
    case Role::SharedExpert: return "shared_expert";
    case Role::Norm: return "norm";
    case Role::Mtp: return "mtp";
    case Role::Vision: return "vision";
    case Role::Audio: return "audio";
    case Role::Projector: return "projector";
    case Role::Buffer: return "buffer";
    case Role::Other: return "other";
  }
  return "other";
}

uint64_t ExpectedTensor::params() const {
  if (shape.empty()) return 0;  // rank-0 scalars: counted as 0, as the Hub does
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

std::string ArchModel::head_summary() const {
  bool has_head = std::any_of(tensors.begin(), tensors.end(), [](const ExpectedTensor& t) { return t.role == Role::LmHead; });
  if (!has_head) return "no LM head";
  return tied_embeddings ? "tied embeddings" : "untied embeddings";
}

const TensorAlternatives& ArchModel::alternatives_of(const ExpectedTensor& t) const {
  static const TensorAlternatives kNone;
  return t.alternatives < alternatives.size() ? alternatives[t.alternatives] : kNone;
}

TensorAlternatives& ArchModel::last_alternatives() {
  ExpectedTensor& t = tensors.back();
  if (t.alternatives == ExpectedTensor::kNoAlternatives) {
    t.alternatives = static_cast<uint32_t>(alternatives.size());
    alternatives.emplace_back();
  }
  return alternatives[t.alternatives];
}

uint64_t AttentionLayer::kv_elements_per_token() const {
  switch (kind) {
    case AttentionKind::None: return 0;
    case AttentionKind::Mla: return uint64_t{mla_latent} + mla_rope;
    default: return uint64_t{kv_heads} * (uint64_t{qk_dim} + v_dim);
  }
}

}  // namespace hfi
