#include "analysis/infer.hpp"

#include <algorithm>
#include <map>

#include "core/text.hpp"

namespace hfi {
namespace {

bool has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// "<prefix>.<index>.<rest>" where prefix ends in a known block-stack name.
struct StackPosition {
  std::string prefix;
  uint64_t index = 0;
  std::string rest;
};

std::optional<StackPosition> stack_position(std::string_view name) {
  static const std::vector<std::string_view> kStacks = {"layers", "h", "blocks", "layer", "block"};
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) return std::nullopt;
    std::string_view part(name.data() + start, dot - start);
    size_t next = name.find('.', dot + 1);
    if (next != std::string::npos && std::find(kStacks.begin(), kStacks.end(), part) != kStacks.end()) {
      std::string_view index(name.data() + dot + 1, next - dot - 1);
      if (all_digits(index) && index.size() < 10)
        return StackPosition{std::string(name.substr(0, dot)), std::stoull(std::string(index)), std::string(name.substr(next + 1))};
    }
    start = dot + 1;
  }
}

std::optional<uint64_t> expert_index(const std::string& rest) {
  auto at = rest.find("experts.");
  if (at == std::string::npos) return std::nullopt;
  size_t from = at + 8, to = rest.find('.', from);
  std::string_view index(rest.data() + from, (to == std::string::npos ? rest.size() : to) - from);
  if (!all_digits(index) || index.size() >= 10) return std::nullopt;
  return std::stoull(std::string(index));
}

bool is_embedding(std::string_view n) {
  for (std::string_view end : {"embed_tokens.weight", "wte.weight", "word_embeddings.weight", "tok_embeddings.weight", "embed_in.weight"})
    if (n.ends_with(end)) return true;
  return false;
}

bool is_head(std::string_view n) {
  return n == "lm_head.weight" || n.ends_with(".lm_head.weight") || n == "embed_out.weight" || n == "output.weight";
}

}  // namespace

InferredStructure infer_structure(const StorageView& storage) {
  InferredStructure s;
  // The main stack is the prefix that holds the most tensors (a vision tower may have its own).
  std::map<std::string, uint64_t> tensors_per_stack;
  for (const auto& t : storage.logical)
    if (auto pos = stack_position(t.name)) ++tensors_per_stack[pos->prefix];
  for (const auto& [prefix, count] : tensors_per_stack)
    if (s.stack.empty() || count > tensors_per_stack[s.stack]) s.stack = prefix;

  std::map<std::string, PatternGroup> unplaced;
  for (const auto& t : storage.logical) {
    bool placed = true;
    auto pos = stack_position(t.name);
    if (pos && pos->prefix == s.stack) {
      s.layers = std::max(s.layers, pos->index + 1);
      const std::string& rest = pos->rest;
      if (auto e = expert_index(rest)) {
        s.experts = std::max(s.experts, *e + 1);
        if (s.mlp.empty() && (has(rest, "gate_proj") || has(rest, "w1"))) s.mlp = "gated (gate/up/down), in routed experts";
      } else if (has(rest, "router") || rest.ends_with("mlp.gate.weight") || rest.ends_with("block_sparse_moe.gate.weight")) {
        s.router = true;
      } else if (has(rest, "attn") || has(rest, "attention") || has(rest, "q_proj") || has(rest, "kv_a_proj")) {
        if (has(rest, "kv_a_proj")) s.attention = "low-rank (MLA) projections";
        else if (s.attention.empty() && (has(rest, "qkv") || has(rest, "query_key_value") || has(rest, "c_attn")))
          s.attention = "fused qkv projection";
        else if (s.attention.empty() && has(rest, "q_proj")) s.attention = "separate q/k/v/o projections";
      } else if (has(rest, "mlp") || has(rest, "feed_forward") || has(rest, "ffn")) {
        if (has(rest, "gate_up_proj")) s.mlp = "gated, fused gate_up";
        else if (s.mlp.empty() && has(rest, "gate_proj")) s.mlp = "gated (gate/up/down)";
        else if (s.mlp.empty() && (has(rest, "fc1") || has(rest, "c_fc") || has(rest, "dense_h_to_4h"))) s.mlp = "two-layer";
      } else if (!has(rest, "norm") && !has(rest, "ln_")) {
        placed = false;
      }
    } else if (!pos && is_embedding(t.name)) {
      if (s.embedding.empty() || t.name.size() < s.embedding.size()) {
        s.embedding = std::string(t.name);
        if (t.shape.size() == 2) {
          s.vocab_size = t.shape[0];
          s.hidden_size = t.shape[1];
        }
      }
    } else if (!pos && is_head(t.name)) {
      s.lm_head = std::string(t.name);
    } else if (!pos && (has(t.name, "norm") || has(t.name, "ln_f"))) {
      // final norm
    } else {
      placed = false;
    }
    if (placed) {
      ++s.placed_tensors;
      s.placed_params += t.params;
      continue;
    }
    std::string key = name_pattern(t.name);
    PatternGroup& g = unplaced[key];
    g.pattern = key;
    ++g.tensors;
    g.params += t.params;
    g.bytes += t.stored_bytes + t.bookkeeping_bytes;
  }
  for (auto& [key, g] : unplaced) s.unplaced.push_back(g);
  std::stable_sort(s.unplaced.begin(), s.unplaced.end(), [](const PatternGroup& a, const PatternGroup& b) { return a.params > b.params; });
  return s;
}

}  // namespace hfi
