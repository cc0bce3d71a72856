#include "analysis/fit.hpp"

#include <algorithm>
#include <string_view>

#include "core/checked.hpp"

namespace hfi {
namespace {

using u128 = unsigned __int128;

constexpr uint64_t kVocabPadding = 64;  // vLLM's DEFAULT_VOCAB_PADDING_SIZE

uint64_t saturate(u128 v) { return v > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(v); }
// bytes × num / den, rounded up: a rank's share of a tensor.
uint64_t share(uint64_t bytes, uint64_t num, uint64_t den) {
  return saturate((u128{bytes} * num + den - 1) / den);
}
uint64_t add_sat(uint64_t a, uint64_t b) { return checked_add(a, b).value_or(UINT64_MAX); }
uint64_t mul_sat(uint64_t a, uint64_t b) { return checked_mul(a, b).value_or(UINT64_MAX); }

bool contains(std::string_view name, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](std::string_view p) { return name.find(p) != std::string_view::npos; });
}

// KV heads one TP rank caches: an even share, or one head, replicated, when TP exceeds them
// (vLLM's QKVParallelLinear: num_kv_heads_per_rank = max(1, total // tp)).
uint64_t kv_heads_per_rank(uint64_t kv_heads, uint32_t tp) { return std::max<uint64_t>(1, kv_heads / tp); }

// Layers of each pipeline stage, as vLLM's get_pp_indices lays them out: an even share, and the
// remainder one each to the stages before the last (which also holds the head).
std::vector<uint64_t> stage_of_layers(uint64_t layers, uint32_t pp) {
  std::vector<uint64_t> counts(pp, layers / pp);
  for (uint64_t i = 2; i < layers % pp + 2; ++i) ++counts[pp - i];
  std::vector<uint64_t> stage(layers);
  uint64_t layer = 0;
  for (uint32_t s = 0; s < pp; ++s)
    for (uint64_t k = 0; k < counts[s]; ++k) stage[layer++] = s;
  return stage;
}

// What one stage holds, on each of its TP ranks. The cache is kept in elements, so that one
// plan answers for any KV dtype.
struct Stage {
  uint64_t weights = 0;
  uint64_t full_per_token = 0;  // elements per token of the layers that cache every token
  std::vector<std::pair<uint64_t, uint64_t>> windowed;  // (elements per token, window) per layer
  uint64_t state_per_sequence = 0;  // bytes
  std::vector<uint64_t> routed_by_layer;  // routed-expert bytes per layer, before the EP share

  uint64_t per_token(uint32_t kv_bytes) const {
    uint64_t out = full_per_token;
    for (const auto& [elements, window] : windowed) out = add_sat(out, elements);
    return mul_sat(out, kv_bytes);
  }
  // One sequence of `context` tokens: KV with windows applied, and the state.
  uint64_t sequence(uint64_t context, uint32_t kv_bytes) const {
    uint64_t elements = mul_sat(full_per_token, context);
    for (const auto& [per_token, window] : windowed) elements = add_sat(elements, mul_sat(per_token, std::min(context, window)));
    return add_sat(mul_sat(elements, kv_bytes), state_per_sequence);
  }
};

class Planner {
 public:
  Planner(const FitModel& model, const Deployment& d, const Workload& w) : model_(model), d_(d), w_(w) {}

  Status check_split() const {
    for (const AttentionLayer& a : model_.spec.attention) {
      if (a.kind == AttentionKind::None) continue;
      if (a.heads % d_.tp != 0)
        return usage("--tp", "--tp " + std::to_string(d_.tp) + " does not divide the " + std::to_string(a.heads) +
                                 " attention heads (engines give every rank the same number of heads)");
      if (a.kind != AttentionKind::Mla && a.kv_heads % d_.tp != 0 && d_.tp % a.kv_heads != 0)
        return usage("--tp", "--tp " + std::to_string(d_.tp) + " and the " + std::to_string(a.kv_heads) +
                                 " KV heads do not divide one another (engines split them evenly, or replicate one per rank)");
    }
    if (d_.pp > std::max<size_t>(1, model_.spec.attention.size()))
      return usage("--pp", "--pp " + std::to_string(d_.pp) + " is more stages than the " + std::to_string(model_.spec.attention.size()) +
                               " decoder layers");
    return Ok{};
  }

  std::vector<Stage> stages() {
    std::vector<Stage> out(d_.pp);
    layer_stage_ = stage_of_layers(model_.spec.attention.size(), d_.pp);
    for (auto& s : out) s.routed_by_layer.assign(model_.spec.attention.size(), 0);
    add_weights(out);
    for (auto& s : out) fold_routed(s);
    add_cache(out);
    return out;
  }


 private:
  static Error usage(const char* flag, std::string message) { return Error{ErrorKind::Usage, flag, "", std::move(message), ""}; }

  uint32_t stage_of(const ExpectedTensor* x) const {
    if (x && x->layer >= 0 && static_cast<size_t>(x->layer) < layer_stage_.size()) return static_cast<uint32_t>(layer_stage_[x->layer]);
    // Outside the layer stack: the head and the final norm sit with the last layers, the
    // embeddings and any encoder tower with the first.
    if (x && (x->role == Role::LmHead || x->role == Role::Norm)) return d_.pp - 1;
    return 0;
  }

  const AttentionLayer* attention_of(const ExpectedTensor& x) const {
    if (x.layer < 0 || static_cast<size_t>(x.layer) >= model_.spec.attention.size()) return nullptr;
    return &model_.spec.attention[static_cast<size_t>(x.layer)];
  }

  // One rank's bytes of an attention tensor.
  uint64_t attention_share(const ExpectedTensor& x, uint64_t bytes) const {
    const AttentionLayer* a = attention_of(x);
    // MLA's down-projections and their norms are replicated (vLLM: ReplicatedLinear), as are
    // per-head norms and other 1-D parts (a few KB).
    if (!a || x.shape.size() < 2 || contains(x.name, {"kv_a_proj", "q_a_proj", "_a_layernorm"})) return bytes;
    if (a->kind == AttentionKind::Mla || a->kv_heads == 0) return share(bytes, 1, d_.tp);
    const uint64_t kv_rank = kv_heads_per_rank(a->kv_heads, d_.tp);
    if (contains(x.name, {"k_proj", "v_proj", ".key.", ".value."})) return share(bytes, kv_rank, a->kv_heads);
    if (contains(x.name, {"qkv", "query_key_value", "c_attn"})) {
      const uint64_t q = uint64_t{a->heads} * a->qk_dim, kv = uint64_t{a->kv_heads} * (a->qk_dim + a->v_dim);
      const uint64_t q_rank = q / d_.tp, kv_r = kv_rank * (a->qk_dim + a->v_dim);
      return share(bytes, q_rank + kv_r, q + kv);
    }
    return share(bytes, 1, d_.tp);  // q, o and MLA's up-projections: split by heads
  }

  // One rank's bytes of a vocabulary-parallel table: the rows padded to 64, then split.
  uint64_t vocab_share(const ExpectedTensor& x, uint64_t bytes) const {
    if (x.shape.size() != 2 || x.shape[0] == 0) return bytes;
    const uint64_t rows = x.shape[0];
    return share(bytes, ceil_div(ceil_div(rows, kVocabPadding) * kVocabPadding, d_.tp), rows);
  }

  // Bytes of one tensor on one rank of its stage; routed experts are set aside for the EP share.
  void place(const ExpectedTensor* x, uint64_t bytes, std::vector<Stage>& out) {
    Stage& s = out[stage_of(x)];
    if (!x) {
      s.weights = add_sat(s.weights, bytes);  // unexplained: kept whole on every rank
      return;
    }
    uint64_t mine = bytes;
    switch (x->role) {
      case Role::Embedding:
      case Role::PerLayerEmbedding:
      case Role::LmHead: mine = vocab_share(*x, bytes); break;
      case Role::Attention:
      case Role::Ssm:
      case Role::LinearAttention:
      case Role::ShortConv: mine = attention_share(*x, bytes); break;
      case Role::Mlp:
      case Role::SharedExpert: mine = x->shape.size() >= 2 ? share(bytes, 1, d_.tp) : bytes; break;
      case Role::RoutedExpert:
        if (x->layer >= 0 && static_cast<size_t>(x->layer) < s.routed_by_layer.size()) {
          s.routed_by_layer[static_cast<size_t>(x->layer)] = add_sat(s.routed_by_layer[static_cast<size_t>(x->layer)], bytes);
          experts_ = std::max<uint64_t>(experts_, x->active_den);
          return;
        }
        mine = share(bytes, 1, d_.tp);
        break;
      default: break;  // norms, routers, buffers, encoder towers, projectors: replicated
    }
    s.weights = add_sat(s.weights, mine);
  }

  // Routed experts: split across the TP ranks (each expert's matrices cut in d_.tp), or with EP
  // whole experts per rank, the busiest holding ceil(E / tp) of them.
  void fold_routed(Stage& s) const {
    for (uint64_t bytes : s.routed_by_layer) {
      if (bytes == 0) continue;
      const uint64_t mine = d_.ep && experts_ > 0 ? share(bytes, ceil_div(experts_, d_.tp), experts_) : share(bytes, 1, d_.tp);
      s.weights = add_sat(s.weights, mine);
    }
  }

  uint64_t served_bytes(const ExpectedTensor* x, uint64_t stored) const {
    if (!w_.weight_format || !x || x->shape.size() < 2) return stored;
    const bool linear = is_mixer(x->role) || x->role == Role::Mlp || x->role == Role::RoutedExpert || x->role == Role::SharedExpert;
    if (!linear || !std::string_view(x->name).ends_with("weight")) return stored;
    return linear_weight_bytes(x->shape, *w_.weight_format).value_or(UINT64_MAX);
  }

  void add_weights(std::vector<Stage>& out) {
    const StorageView& st = model_.storage;
    if (st.logical.empty()) {
      uint64_t params = 0;  // what the index's total_size is spread over
      for (const ExpectedTensor& x : model_.spec.tensors)
        if (!x.optional) params = add_sat(params, x.params());
      const bool shared = model_.index_total_size && params > 0;
      for (const ExpectedTensor& x : model_.spec.tensors) {
        if (x.optional || x.mtp) continue;
        const uint64_t bytes = shared ? saturate(u128{x.params()} * *model_.index_total_size / params)
                                      : mul_sat(x.params(), model_.weight_bytes_per_param);
        place(&x, served_bytes(&x, bytes), out);
      }
      if (shared) estimated_ = true;
      return;
    }
    const auto& of = model_.reconcile.expected_of;
    for (size_t i = 0; i < st.logical.size(); ++i) {
      const ExpectedTensor* x = i < of.size() && of[i] >= 0 ? &model_.spec.tensors[static_cast<size_t>(of[i])] : nullptr;
      if (x && x->mtp) continue;  // engines load the MTP module only for speculative decoding
      const LogicalTensor& t = st.logical[i];
      place(x, served_bytes(x, add_sat(t.stored_bytes, t.bookkeeping_bytes)), out);
    }
    uint64_t loose = 0;  // module-wide scales with no weight of their own (KV-cache scales)
    for (const auto& b : st.bookkeeping)
      if (b.owner == BookkeepingTensor::kNoOwner) loose = add_sat(loose, b.bytes);
    for (auto& s : out) s.weights = add_sat(s.weights, loose);
  }

  void add_cache(std::vector<Stage>& out) const {
    for (size_t l = 0; l < model_.spec.attention.size(); ++l) {
      const AttentionLayer& a = model_.spec.attention[l];
      Stage& s = out[layer_stage_[l]];
      if (a.kv_source_layer >= 0) continue;  // reads an earlier layer's cache
      if (a.recurrent_state_elements > 0) {  // split over heads with them
        const uint64_t ssm = std::min(a.recurrent_ssm_elements, a.recurrent_state_elements), conv = a.recurrent_state_elements - ssm;
        s.state_per_sequence = add_sat(s.state_per_sequence, mul_sat(ceil_div(conv, d_.tp), w_.state.conv_bytes));
        s.state_per_sequence = add_sat(s.state_per_sequence, mul_sat(ceil_div(ssm, d_.tp), w_.state.ssm_bytes));
        continue;
      }
      if (a.kind == AttentionKind::None) continue;
      // MLA's latent and RoPE key are the same on every rank: replicated, not split.
      const uint64_t elements = a.kind == AttentionKind::Mla ? a.kv_elements_per_token()
                                                             : kv_heads_per_rank(a.kv_heads, d_.tp) * (uint64_t{a.qk_dim} + a.v_dim);
      if (a.window) s.windowed.emplace_back(elements, a.window);
      else s.full_per_token = add_sat(s.full_per_token, elements);
    }
  }

  const FitModel& model_;
  const Deployment& d_;
  const Workload& w_;
  std::vector<uint64_t> layer_stage_;
  uint64_t experts_ = 0;

 public:
  bool estimated_ = false;  // weights spread from the index's total_size
};

// The longest context whose `batch` sequences fit in `room` (binary search: the bytes grow with
// the context), at most `cap`.
uint64_t longest_context(const Stage& s, uint32_t kv_bytes, uint64_t batch, uint64_t room, uint64_t cap) {
  auto fits = [&](uint64_t c) { return u128{s.sequence(c, kv_bytes)} * batch <= room; };
  if (!fits(1)) return 0;
  uint64_t lo = 1, hi = cap;
  if (fits(hi)) return hi;
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

std::optional<Fraction> parse_fraction(const std::string& text) {
  Fraction f{0, 1};
  bool dot = false, digits = false;
  for (char c : text) {
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    // Ten digits are plenty for a share of a GPU, and keep the products in 64 bits.
    if (c < '0' || c > '9' || f.denominator > 1'000'000'000 || f.numerator > 1'000'000'000) return std::nullopt;
    digits = true;
    f.numerator = f.numerator * 10 + static_cast<uint64_t>(c - '0');
    if (dot) f.denominator *= 10;
  }
  if (!digits || f.numerator == 0 || f.numerator > f.denominator) return std::nullopt;
  return f;
}

Result<FitPlan> plan_fit(const FitModel& model, const Deployment& d, const Workload& w) {
  if (d.tp == 0 || d.pp == 0) return Error{ErrorKind::Usage, "--tp", "", "--tp and --pp must be at least 1", ""};
  Planner planner(model, d, w);
  if (auto ok = planner.check_split(); !ok) return ok.error();
  const std::vector<Stage> stages = planner.stages();
  FitPlan plan;
  plan.deployment = d;
  plan.workload = w;
  plan.gpus = d.tp * d.pp;
  const uint64_t share = saturate(u128{d.gpu_bytes} * d.utilization.numerator / d.utilization.denominator);
  plan.usable_bytes = share > d.reserve_bytes ? share - d.reserve_bytes : 0;
  const uint64_t cap = w.max_context ? w.max_context : std::max<uint64_t>(w.context, 1);
  bool first = true;
  for (const Stage& s : stages) {
    const uint64_t room = plan.usable_bytes > s.weights ? plan.usable_bytes - s.weights : 0;
    const uint64_t per_token = s.per_token(w.kv_bytes_per_element);
    const uint64_t tokens = per_token ? room / per_token : UINT64_MAX;
    const uint64_t sequence = s.sequence(w.context, w.kv_bytes_per_element);
    const uint64_t batch = sequence ? room / sequence : UINT64_MAX;
    const uint64_t context = s.weights > plan.usable_bytes ? 0 : longest_context(s, w.kv_bytes_per_element, w.batch, room, cap);
    const u128 needed = u128{s.weights} + u128{sequence} * w.batch;
    plan.per_gpu.weight_bytes = std::max(plan.per_gpu.weight_bytes, s.weights);
    plan.per_gpu.kv_bytes_per_token = std::max(plan.per_gpu.kv_bytes_per_token, per_token);
    plan.per_gpu.state_bytes_per_sequence = std::max(plan.per_gpu.state_bytes_per_sequence, s.state_per_sequence);
    plan.missing_bytes = std::max(plan.missing_bytes, needed > plan.usable_bytes ? saturate(needed - plan.usable_bytes) : 0);
    plan.kv_capacity_tokens = first ? tokens : std::min(plan.kv_capacity_tokens, tokens);
    plan.max_batch = first ? batch : std::min(plan.max_batch, batch);
    plan.max_context = first ? context : std::min(plan.max_context, context);
    first = false;
  }
  plan.fits = plan.missing_bytes == 0;
  for (uint64_t c : {uint64_t{4096}, uint64_t{32768}, uint64_t{131072}, w.max_context}) {
    if (c == 0 || (w.max_context && c > w.max_context) || (!plan.by_context.empty() && plan.by_context.back().context >= c)) continue;
    FitPlan::Row row{c, 0, 0};
    for (const Stage& s : stages) {
      row.bf16_bytes = std::max(row.bf16_bytes, saturate(u128{s.weights} + u128{s.sequence(c, 2)} * w.batch));
      row.fp8_bytes = std::max(row.fp8_bytes, saturate(u128{s.weights} + u128{s.sequence(c, 1)} * w.batch));
    }
    plan.by_context.push_back(row);
  }
  if (model.storage.logical.empty())
    plan.notes.push_back(planner.estimated_ ? "no shard headers: each tensor's bytes are its parameters' share of the index's total_size"
                                            : "no shard headers or index: the weights are the config formula at torch_dtype");
  if (d.ep) plan.notes.push_back("--ep: each rank holds whole experts, the busiest ceil(E / TP) of them per layer");
  if (w.weight_format)
    plan.notes.push_back(std::string("linear weights as ") + weight_format_name(*w.weight_format) + ": " +
                         weight_format_layout(*w.weight_format) + "; embeddings, norms and routers as stored");
  return plan;
}

}  // namespace hfi
