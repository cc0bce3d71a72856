#include "analysis/quant_audit.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>

#include "core/running_sums.hpp"

namespace hfi {
namespace {

// Index into the audit's buckets, in report order: attention, experts, mlp, embeddings, other.
// The buckets bits per weight is given by; the non-attention mixers each have their own.
constexpr const char* kBuckets[] = {"attention", "ssm", "linear_attention", "short_conv", "experts", "mlp", "embeddings", "other"};
constexpr size_t kOtherBucket = std::size(kBuckets) - 1;
size_t role_bucket(Role r) {
  switch (r) {
    case Role::Attention: return 0;
    case Role::Ssm: return 1;
    case Role::LinearAttention: return 2;
    case Role::ShortConv: return 3;
    case Role::RoutedExpert:
    case Role::SharedExpert:
    case Role::Router:
    case Role::RoutingBias: return 4;
    case Role::Mlp: return 5;
    case Role::Embedding:
    case Role::PerLayerEmbedding:
    case Role::LmHead: return 6;
    default: return kOtherBucket;
  }
}

bool linear_role(Role r) { return is_mixer(r) || r == Role::Mlp || r == Role::RoutedExpert || r == Role::SharedExpert; }

// A weight matrix (or fused expert stack), not a bias, norm or scalar.
bool is_matrix_weight(const LogicalTensor& t) {
  if (t.shape.size() < 2) return false;
  return !t.name.ends_with("bias") && t.name.find("norm") == std::string::npos;
}

std::string_view module_of(std::string_view weight) {
  return weight.ends_with(".weight") ? weight.substr(0, weight.size() - 7) : weight;
}

bool decodable(QuantScheme s) {
  return s != QuantScheme::None && s != QuantScheme::Unsupported && s != QuantScheme::Torchao;
}

bool excluded(const std::vector<QuantDeclaration>& decls, std::string_view module) {
  std::string name;  // made only when a declaration has something to match (the patterns take C strings)
  for (const auto& d : decls) {
    if (d.excluded.empty() && d.dynamic.empty()) continue;
    if (name.empty()) name = module;
    for (const auto& p : d.excluded)
      if (p.matches(name)) return true;
    for (const auto& rule : d.dynamic)
      if (rule.skip && rule.compiled && rule.compiled->found_in(name)) return true;
  }
  return false;
}

// GPTQModel `dynamic` "+:" rules override bits and group size for the modules they match.
std::pair<std::optional<uint32_t>, std::optional<uint32_t>> declared_bits_and_group(const QuantDeclaration& d,
                                                                                    std::string_view module) {
  auto bits = d.bits;
  auto group = d.group_size;
  for (const auto& rule : d.dynamic)
    if (!rule.skip && rule.compiled && rule.compiled->found_in(module)) {
      if (rule.bits) bits = rule.bits;
      if (rule.group_size) group = rule.group_size;
      break;
    }
  return {bits, group};
}

std::string opt_text(const std::optional<uint32_t>& v) { return v ? std::to_string(*v) : std::string("none"); }

void check_sidecars(const std::vector<QuantDeclaration>& decls, QuantSummary& s) {
  if (decls.size() < 2 || decls.front().file != "config.json") return;
  const QuantDeclaration& main = decls.front();
  for (size_t i = 1; i < decls.size(); ++i) {
    const QuantDeclaration& side = decls[i];
    auto differ = [&](const std::string& field, const std::string& a, const std::string& b) {
      s.findings.push_back({"sidecar-mismatch", side.file + ":" + field,
                            side.file + " says " + field + " = " + b + ", config.json says " + a});
    };
    if (decodable(main.scheme) && decodable(side.scheme) && main.scheme != side.scheme)
      differ("scheme", quant_scheme_name(main.scheme), quant_scheme_name(side.scheme));
    if (main.bits && side.bits && main.bits != side.bits) differ("bits", opt_text(main.bits), opt_text(side.bits));
    if ((main.group_size || side.group_size) && main.group_size != side.group_size && main.bits && side.bits)
      differ("group_size", opt_text(main.group_size), opt_text(side.group_size));
    if (main.desc_act && side.desc_act && main.desc_act != side.desc_act)
      differ("desc_act", *main.desc_act ? "true" : "false", *side.desc_act ? "true" : "false");
    if (main.sym && side.sym && main.sym != side.sym) differ("sym", *main.sym ? "true" : "false", *side.sym ? "true" : "false");
  }
}

void check_modules(const std::vector<QuantDeclaration>& decls, const StorageView& storage, QuantSummary& s) {
  const QuantDeclaration* d = s.declared ? &*s.declared : nullptr;
  std::map<QuantScheme, std::string> foreign;  // scheme -> first module stored that way
  for (const auto& m : storage.quant_modules) {
    if (!d) foreign.try_emplace(m.scheme, m.module);
    else if (decodable(d->scheme) && m.scheme != d->scheme) foreign.try_emplace(m.scheme, m.module);
    const std::string_view module = m.module;
    auto about = [&m](std::string_view text) { return std::string(m.module).append(text); };  // "<module> ..."
    if (!m.missing.empty()) {
      std::string list;
      for (const auto& c : m.missing) list += (list.empty() ? "" : ", ") + c;
      s.findings.push_back({"incomplete-set", std::string(module), about(" (") + quant_scheme_name(m.scheme) + ") lacks " + list});
    }
    if (excluded(decls, module))
      s.findings.push_back({"excluded-but-quantized", std::string(module),
                            about(" is excluded from quantization by the config but stored as ") + quant_scheme_name(m.scheme)});
    if (!m.problems.empty())
      s.findings.push_back({"scale-shape", std::string(module), about(": ") + m.problems.front()});
    if (d && m.scheme == d->scheme) {
      auto [bits, group] = declared_bits_and_group(*d, module);
      if (bits && m.bits && *bits != *m.bits)
        s.findings.push_back({"bits-packing", std::string(module),
                              about(" is packed as ") + std::to_string(*m.bits) + "-bit values, the config declares " +
                                  std::to_string(*bits) + " bits"});
      if (group && m.group_size && *group != *m.group_size && m.problems.empty())
        s.findings.push_back({"scale-shape", std::string(module),
                              about(" has one scale per ") + std::to_string(*m.group_size) + " inputs, the config declares group_size " +
                                  std::to_string(*group)});
      if (d->block_size.size() == 2 && m.block[0] != 0 && (d->block_size[0] != m.block[0] || d->block_size[1] != m.block[1]) && m.problems.empty())
        s.findings.push_back({"scale-shape", std::string(module),
                              about(" has ") + std::to_string(m.block[0]) + "x" + std::to_string(m.block[1]) +
                                  " scale blocks, the config declares " + std::to_string(d->block_size[0]) + "x" +
                                  std::to_string(d->block_size[1])});
    }
  }
  for (const auto& [scheme, module] : foreign)
    s.findings.push_back({"format-mismatch", module,
                          d ? std::string("tensors such as ") + module + " are stored as " + quant_scheme_name(scheme) + ", but " +
                                  d->file + " declares " + d->quant_method + " (" + quant_scheme_name(d->scheme) + ")"
                            : std::string("tensors such as ") + module + " are stored as " + quant_scheme_name(scheme) +
                                  ", but no quantization_config declares it"});
}

}  // namespace

QuantSummary audit_quantization(const std::vector<QuantDeclaration>& decls, const StorageView& storage,
                                const ArchModel* spec, const Reconciliation& rec, uint64_t total_params) {
  QuantSummary s;
  if (!decls.empty()) {
    s.declared = decls.front();
    for (const auto& d : decls) s.notes.insert(s.notes.end(), d.notes.begin(), d.notes.end());
    s.kv_cache_dtype = s.declared->kv_cache_dtype;
  }
  RunningSums detected;
  std::vector<bool> quantized(storage.logical.size(), false);
  for (const auto& m : storage.quant_modules) {
    ++detected[quant_scheme_name(m.scheme)];
    ++s.quantized_modules;
    s.value_bytes += m.value_bytes;
    if (m.logical < storage.logical.size()) {
      quantized[m.logical] = true;
      s.quantized_params += storage.logical[m.logical].params;
    }
  }
  s.detected = detected.sorted();
  uint64_t module_bookkeeping = 0;
  for (const auto& m : storage.quant_modules) module_bookkeeping += m.bookkeeping_bytes;
  RunningSums by_kind;
  for (const auto& b : storage.bookkeeping) {
    by_kind[b.kind] += b.bytes;
    s.bookkeeping_bytes += b.bytes;
  }
  s.bookkeeping_by_kind = by_kind.sorted();
  uint64_t accounted = s.value_bytes + s.bookkeeping_bytes;
  s.high_precision_bytes = storage.stored_bytes > accounted ? storage.stored_bytes - accounted : 0;
  if (s.quantized_params)
    s.quantized_bits_per_weight = 8.0 * static_cast<double>(s.value_bytes + module_bookkeeping) / static_cast<double>(s.quantized_params);
  if (total_params) s.overall_bits_per_weight = 8.0 * static_cast<double>(storage.stored_bytes) / static_cast<double>(total_params);

  // Per role, and the decoder linears that stay in float, through the spec's roles.
  std::array<RoleBits, std::size(kBuckets)> roles;
  std::map<std::string, uint64_t> high_precision;
  for (size_t i = 0; i < storage.logical.size(); ++i) {
    const LogicalTensor& t = storage.logical[i];
    std::optional<Role> role;
    if (spec && i < rec.expected_of.size() && rec.expected_of[i] >= 0)
      role = spec->tensors[static_cast<size_t>(rec.expected_of[i])].role;
    RoleBits& rb = roles[role ? role_bucket(*role) : kOtherBucket];
    rb.params += t.params;
    rb.bytes += t.stored_bytes + t.bookkeeping_bytes;
    if (role && linear_role(*role) && !quantized[i] && is_matrix_weight(t) && t.scheme == QuantScheme::None) {
      ++high_precision[name_pattern(t.name)];
      bool quant_repo = s.quantized_modules > 0 && s.declared && decodable(s.declared->scheme);
      if (quant_repo && !excluded(decls, module_of(t.name)) && !excluded(decls, t.name))
        s.findings.push_back({"unquantized-linear", std::string(module_of(t.name)),
                              std::string(t.name) + " is stored as " + std::string(t.format) + " although " + s.declared->file +
                                  " quantizes it (no exclusion matches)"});
    }
  }
  for (size_t b = 0; b < roles.size(); ++b) {
    if (!roles[b].params) continue;
    roles[b].role = kBuckets[b];
    s.by_role.push_back(roles[b]);
  }
  if (s.quantized_modules) s.high_precision_linears.assign(high_precision.begin(), high_precision.end());

  check_modules(decls, storage, s);
  check_sidecars(decls, s);
  return s;
}

}  // namespace hfi
