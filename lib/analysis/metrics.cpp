#include "analysis/metrics.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "core/checked.hpp"
#include "core/running_sums.hpp"

namespace hfi {
namespace {

bool is_input_embedding(Role r) { return r == Role::Embedding || r == Role::PerLayerEmbedding; }
// Encoders and the projectors that map their output into the text width run once per image or
// audio clip, not once per generated token; selection-only biases do no multiply-adds. A model that
// is a vision tower alone counts its image patches as its tokens.
bool off_token_path(Role r, const ArchModel* spec) {
  if (r == Role::Vision) return !(spec && spec->tokens_are_image_patches);
  return r == Role::RoutingBias || r == Role::Buffer || r == Role::Audio || r == Role::Projector;
}

// Without a spec, the only roles we dare guess are the embedding and the head.
Role guess_role(std::string_view name) {
  if (name.find(".layers.") == std::string_view::npos && name.find("embed_tokens") != std::string_view::npos)
    return name.find("per_layer") != std::string_view::npos ? Role::PerLayerEmbedding : Role::Embedding;
  if (name.find("lm_head") != std::string_view::npos) return Role::LmHead;
  return Role::Other;
}

// Routed experts are active k/E of the time; summing numerators per denominator keeps the total
// exact even when one expert's share is fractional.
class ExactShareSum {
 public:
  void add(uint64_t params, uint32_t num, uint32_t den) { parts_[den] += static_cast<unsigned __int128>(params) * num; }
  uint64_t total() const {
    uint64_t out = 0;
    for (const auto& [den, sum] : parts_) out += static_cast<uint64_t>(sum / den);
    return out;
  }

 private:
  std::map<uint32_t, unsigned __int128> parts_;
};

std::vector<std::pair<std::string, uint64_t>> sorted(const std::map<std::string, uint64_t>& m) {
  std::vector<std::pair<std::string, uint64_t>> out(m.begin(), m.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

}  // namespace

ParamBreakdown compute_params(const ArchModel* spec, const StorageView& storage, const Reconciliation& rec) {
  ParamBreakdown p;
  p.stored_elements = storage.stored_elements;
  // Per-tensor sums go to small arrays (a slot per role; the few storage formats found so far),
  // and the named maps are built once at the end: 92k string-keyed map updates showed in profiles.
  constexpr size_t kRoles = static_cast<size_t>(Role::Other) + 1;
  struct Sum {
    uint64_t params = 0;
    bool seen = false;
    void add(uint64_t n) {
      params += n;
      seen = true;
    }
  };
  std::array<Sum, kRoles> spec_role{}, inferred_role{};
  Sum mtp_sum, unexplained_sum;
  RunningSums format_sums;
  ExactShareSum active;
  uint64_t input_embedding_active = 0, head_active = 0, unexplained_active = 0;
  for (size_t i = 0; i < storage.logical.size(); ++i) {
    const LogicalTensor& t = storage.logical[i];
    p.total += t.params;
    format_sums[t.format] += t.params;
    const ExpectedTensor* x = rec.expected_of[i] >= 0 ? &spec->tensors[static_cast<size_t>(rec.expected_of[i])] : nullptr;
    Role role = x ? x->role : guess_role(t.name);
    bool mtp = x && x->mtp;
    if (mtp) mtp_sum.add(t.params);
    else if (x) spec_role[static_cast<size_t>(role)].add(t.params);
    else if (role == Role::Other) unexplained_sum.add(t.params);
    else inferred_role[static_cast<size_t>(role)].add(t.params);
    if (mtp) {
      p.mtp += t.params;
      continue;
    }
    if (is_input_embedding(role)) p.embedding += t.params;
    if (role == Role::LmHead) p.lm_head += t.params;
    if (off_token_path(role, spec)) continue;
    uint32_t num = x ? x->active_num : 1, den = x ? x->active_den : 1;
    active.add(t.params, num, den);
    if (x && x->runs_per_token > 1) p.repeated_runs += t.params * (x->runs_per_token - 1u);
    if (is_input_embedding(role)) input_embedding_active += t.params;
    if (role == Role::LmHead) head_active += t.params;
    if (!x) unexplained_active += t.params;
  }
  std::map<std::string, uint64_t> by_dtype, by_role;
  for (auto& [format, n] : format_sums.sorted()) by_dtype[format] += n;
  for (size_t r = 0; r < kRoles; ++r) {
    if (spec_role[r].seen) by_role[role_name(static_cast<Role>(r))] += spec_role[r].params;
    if (inferred_role[r].seen) by_role[role_name(static_cast<Role>(r)) + std::string(" (inferred)")] += inferred_role[r].params;
  }
  if (mtp_sum.seen) by_role["mtp"] += mtp_sum.params;
  if (unexplained_sum.seen) by_role["unexplained"] += unexplained_sum.params;
  p.active = active.total();
  p.non_embedding = p.total - p.embedding - p.lm_head;
  p.active_without_input_embedding = p.active - input_embedding_active;
  p.active_non_embedding = p.active_without_input_embedding - head_active;
  p.active_known = spec != nullptr;
  if (!spec) p.active_notes.push_back("no architecture spec: every stored parameter is counted as active");
  else if (unexplained_active > 0)
    p.active_notes.push_back(std::to_string(unexplained_active) +
                             " unexplained parameters are counted as active (their role is unknown)");
  if (spec)
    for (const auto& t : spec->tensors)
      if (t.role == Role::RoutingBias) {
        p.active_notes.push_back("expert-selection biases (e_score_correction_bias) are not counted as active: "
                                 "they only steer which experts are chosen and do no multiply-adds");
        break;
      }
  if (by_role.count("buffer") && by_role["buffer"] > 0)
    p.active_notes.push_back("stored buffers (position ids, causal-mask tables, rotary frequencies) count in the total, as the Hub counts "
                             "them, but not as active: they are not weights");
  if (p.repeated_runs > 0)
    p.active_notes.push_back("a block shared across depths counts once here; FLOPs per token count each of its runs (" +
                             std::to_string(p.repeated_runs) + " more multiply-adds per token)");
  if (p.mtp > 0) p.active_notes.push_back("the multi-token-prediction module is not part of the per-token path");
  p.by_dtype = sorted(by_dtype);
  p.by_role = sorted(by_role);
  return p;
}

ParamBreakdown formula_params(const ArchModel& spec) { return formula_params(spec, {}); }

ParamBreakdown formula_params(const ArchModel& spec, const std::vector<size_t>& stored_optional) {
  ParamBreakdown p;
  ExactShareSum active;
  std::vector<bool> stored(spec.tensors.size(), false);
  for (size_t i : stored_optional)
    if (i < stored.size()) stored[i] = true;
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const ExpectedTensor& t = spec.tensors[i];
    if (t.optional && !stored[i]) continue;
    p.total += t.params();
    if (t.mtp) {
      p.mtp += t.params();
      continue;
    }
    if (is_input_embedding(t.role)) p.embedding += t.params();
    if (t.role == Role::LmHead) p.lm_head += t.params();
    if (off_token_path(t.role, &spec)) continue;
    active.add(t.params(), t.active_num, t.active_den);
    if (t.runs_per_token > 1) p.repeated_runs += t.params() * (t.runs_per_token - 1u);
  }
  p.active = active.total();
  p.non_embedding = p.total - p.embedding - p.lm_head;
  p.active_without_input_embedding = p.active - p.embedding;
  p.active_non_embedding = p.active_without_input_embedding - p.lm_head;
  p.active_known = true;
  return p;
}

namespace {

// a * b * ..., or nullopt past 64 bits.
std::optional<uint64_t> product(std::initializer_list<uint64_t> factors) {
  std::optional<uint64_t> out = 1;
  for (uint64_t f : factors) out = out ? checked_mul(*out, f) : std::nullopt;
  return out;
}

// `sum` += `term`, false past 64 bits.
bool accumulate(uint64_t& sum, std::optional<uint64_t> term) {
  auto next = term ? checked_add(sum, *term) : std::nullopt;
  if (next) sum = *next;
  return next.has_value();
}

Error too_large(const char* what, uint64_t context) {
  return Error{ErrorKind::Usage, "--ctx", std::to_string(context),
               std::string(what) + " at this context overflows 64 bits", "give a context the model can hold"};
}

}  // namespace

Result<FlopsPerToken> compute_flops(const ArchModel* spec, const ParamBreakdown& params, uint64_t context) {
  FlopsPerToken f;
  f.context = context;
  // Embedding lookups do no arithmetic; every other active weight is one multiply-add.
  bool ok = accumulate(f.fixed, product({2, params.active_without_input_embedding})) &&
            accumulate(f.fixed, product({2, params.repeated_runs}));
  if (spec && spec->tied_embeddings && params.lm_head == 0) ok = ok && accumulate(f.fixed, product({2, spec->vocab_size, spec->hidden_size}));
  if (spec)
    for (const auto& a : spec->attention) {
      if (a.kind == AttentionKind::None) continue;
      uint64_t span = a.window ? std::min(context, a.window) : context;
      ok = ok && accumulate(f.attention, product({2, a.heads, uint64_t{a.qk_dim} + a.v_dim, span}));
    }
  if (!ok) return too_large("the attention FLOPs per token", context);
  return f;
}

Result<KvCache> compute_kv_cache(const ArchModel* spec, uint64_t context, uint32_t bytes_per_element, StateDtypes state) {
  KvCache kv;
  kv.context = context;
  kv.bytes_per_element = bytes_per_element;
  kv.state_dtypes = state;
  if (!spec) return kv;
  kv.encoder_only = spec->encoder_only;
  if (kv.encoder_only) return kv;
  bool ok = true;
  for (const auto& a : spec->attention) {
    if (a.recurrent_state_elements) {
      ++kv.recurrent_layers;
      const uint64_t conv = a.recurrent_state_elements - std::min(a.recurrent_ssm_elements, a.recurrent_state_elements);
      ok = ok && accumulate(kv.recurrent_state_bytes, product({conv, state.conv_bytes})) &&
           accumulate(kv.recurrent_state_bytes, product({a.recurrent_ssm_elements, state.ssm_bytes}));
    }
    if (a.kind == AttentionKind::None) continue;
    if (a.kv_source_layer >= 0) {
      ++kv.shared_kv_layers;
      continue;
    }
    ++kv.attention_layers;
    if (a.window) ++kv.windowed_layers;
    if (a.kind == AttentionKind::Mla) ++kv.mla_layers;
    auto per_token = product({a.kv_elements_per_token(), bytes_per_element});
    ok = ok && accumulate(kv.bytes_per_token, per_token) &&
         accumulate(kv.bytes_at_context, product({per_token.value_or(0), a.window ? std::min(context, a.window) : context}));
  }
  if (!ok) return too_large("the KV cache", context);
  return kv;
}

const char* weight_source_name(WeightSource source) {
  switch (source) {
    case WeightSource::Headers: return "headers";
    case WeightSource::IndexTotalSize: return "index_total_size";
    case WeightSource::Formula: return "estimate";
  }
  return "headers";
}

std::optional<uint32_t> kv_dtype_bytes(const std::string& raw) {
  std::string n;
  for (char c : raw) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "bf16" || n == "bfloat16" || n == "fp16" || n == "f16" || n == "float16" || n == "half") return 2;
  if (n == "fp32" || n == "f32" || n == "float32" || n == "float") return 4;
  if (n.rfind("fp8", 0) == 0 || n.rfind("f8", 0) == 0 || n.rfind("float8", 0) == 0 || n == "int8" || n == "i8") return 1;
  return std::nullopt;
}

}  // namespace hfi
