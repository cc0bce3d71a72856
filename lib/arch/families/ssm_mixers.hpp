// Mamba (selective SSM) and Mamba2 (SSD) token mixers, shared by the SSM group's specs: mamba,
// falcon_mamba, mamba2, bamba, falcon_h1, zamba2 and granitemoehybrid. They are written once here
// rather than copied into each family; the pieces belong in blocks.* (see the group's notes),
// where jamba.cpp and hybrid.cpp (nemotron_h) could use them too.
//
// Recurrent state is counted as vLLM and SGLang size their state caches: the causal depthwise
// convolution of kernel K keeps its last K - 1 inputs, and the SSM state has the shape its
// recurrence updates (d_inner × state for Mamba, heads × head_dim × state for Mamba2).
#pragma once

#include <string>

#include "arch/blocks.hpp"

namespace hfi::arch::ssm {

// Mamba-1: in_proj to x and the gate z, a depthwise conv over x, x_proj to (dt, B, C), dt_proj
// back to d_inner, A_log [d_inner, state], D [d_inner], out_proj.
struct Mamba1Dims {
  uint64_t hidden = 0, d_inner = 0, state = 0, dt_rank = 0, kernel = 0;
  bool conv_bias = true, proj_bias = false;
};

// time_step_rank (or an alias) is an integer or "auto", which means ceil(hidden_size / 16).
inline uint64_t read_dt_rank(const ConfigReader& r, std::initializer_list<std::string_view> aliases, uint64_t hidden) {
  const Json* f = r.field(aliases);
  if (!f || f->is_null() || (f->is_string() && f->as_string() == "auto")) return (hidden + 15) / 16;
  auto v = f->as_uint();
  if (!v || *v == 0) throw SpecError("config.json: the time-step rank is neither \"auto\" nor a positive integer");
  return r.within_range(aliases, *v);
}

inline void add_mamba1_mixer(ArchModel& m, const std::string& x, int layer, const Mamba1Dims& d) {
  add_linear(m, x + "in_proj", 2 * d.d_inner, d.hidden, Role::Ssm, layer, d.proj_bias);
  add(m, x + "conv1d.weight", {d.d_inner, 1, d.kernel}, Role::Ssm, layer);
  if (d.conv_bias) add(m, x + "conv1d.bias", {d.d_inner}, Role::Ssm, layer);
  add(m, x + "x_proj.weight", {d.dt_rank + 2 * d.state, d.d_inner}, Role::Ssm, layer);
  add_linear(m, x + "dt_proj", d.d_inner, d.dt_rank, Role::Ssm, layer, true);
  add(m, x + "A_log", {d.d_inner, d.state}, Role::Ssm, layer);
  add(m, x + "D", {d.d_inner}, Role::Ssm, layer);
  add_linear(m, x + "out_proj", d.hidden, d.d_inner, Role::Ssm, layer, d.proj_bias);
}

inline AttentionLayer mamba1_layer(const Mamba1Dims& d) {
  AttentionLayer a;
  a.kind = AttentionKind::None;
  a.recurrent_ssm_elements = checked_product("d_inner × state_size", {d.d_inner, d.state});
  a.recurrent_state_elements =
      checked_sum("the Mamba state", {checked_product("the conv state", {d.d_inner, d.kernel - 1}), a.recurrent_ssm_elements});
  a.recurrent_kind = "mamba";
  return a;
}

// Mamba2: one in_proj to the gate z [d_inner], xBC [conv_dim] and dt [heads]; a depthwise conv over
// xBC; dt_bias, A_log and D per head; a gated RMSNorm over d_inner (grouped by n_groups, one
// weight vector); out_proj. d_inner is heads × head_dim in every released checkpoint.
struct Mamba2Dims {
  uint64_t hidden = 0, d_inner = 0, heads = 0, head_dim = 0, groups = 1, state = 0, kernel = 0;
  bool conv_bias = true, proj_bias = false;
  bool gated_norm = true;  // Falcon-H1 can switch the mixer's RMSNorm off (mamba_rms_norm)
  uint64_t conv_dim() const {
    return checked_sum("the Mamba2 conv width", {d_inner, checked_product("2 × n_groups × state_size", {2, groups, state})});
  }
  uint64_t in_proj_out() const { return checked_sum("the Mamba2 in_proj width", {d_inner, conv_dim(), heads}); }
};

inline void add_mamba2_mixer(ArchModel& m, const std::string& x, int layer, const Mamba2Dims& d) {
  add_linear(m, x + "in_proj", d.in_proj_out(), d.hidden, Role::Ssm, layer, d.proj_bias);
  add(m, x + "conv1d.weight", {d.conv_dim(), 1, d.kernel}, Role::Ssm, layer);
  if (d.conv_bias) add(m, x + "conv1d.bias", {d.conv_dim()}, Role::Ssm, layer);
  add(m, x + "dt_bias", {d.heads}, Role::Ssm, layer);
  add(m, x + "A_log", {d.heads}, Role::Ssm, layer);
  add(m, x + "D", {d.heads}, Role::Ssm, layer);
  if (d.gated_norm) add(m, x + "norm.weight", {d.d_inner}, Role::Ssm, layer);
  add_linear(m, x + "out_proj", d.hidden, d.d_inner, Role::Ssm, layer, d.proj_bias);
}

inline AttentionLayer mamba2_layer(const Mamba2Dims& d) {
  AttentionLayer a;
  a.kind = AttentionKind::None;
  a.recurrent_ssm_elements = checked_product("the Mamba2 SSM state", {d.heads, d.head_dim, d.state});
  a.recurrent_state_elements =
      checked_sum("the Mamba2 state", {checked_product("the conv state", {d.conv_dim(), d.kernel - 1}), a.recurrent_ssm_elements});
  a.recurrent_kind = "mamba2";
  return a;
}

// d_inner must be what the heads cover: the mixer reshapes d_inner into heads × head_dim.
inline void check_mamba2_heads(const Mamba2Dims& d, const char* family) {
  if (d.heads == 0 || d.head_dim == 0 || d.heads * d.head_dim != d.d_inner)
    throw SpecError(std::string("config.json: ") + family + " Mamba2 heads × head_dim (" + std::to_string(d.heads) + " × " +
                    std::to_string(d.head_dim) + ") differ from the inner width " + std::to_string(d.d_inner));
  if (d.groups == 0 || d.heads % d.groups != 0)
    throw SpecError(std::string("config.json: ") + family + " Mamba2 heads are not a multiple of n_groups");
  if (d.kernel == 0) throw SpecError(std::string("config.json: ") + family + " conv kernel is 0");
}

inline std::string describe_mamba2(const Mamba2Dims& d) {
  return std::to_string(d.heads) + " heads × " + std::to_string(d.head_dim) + ", state " + std::to_string(d.state) + ", " +
         std::to_string(d.groups) + (d.groups == 1 ? " group" : " groups") + ", conv " + std::to_string(d.kernel);
}

inline std::string describe_mamba1(const Mamba1Dims& d) {
  return "d_inner " + std::to_string(d.d_inner) + ", state " + std::to_string(d.state) + ", dt rank " +
         std::to_string(d.dt_rank) + ", conv " + std::to_string(d.kernel);
}

}  // namespace hfi::arch::ssm
