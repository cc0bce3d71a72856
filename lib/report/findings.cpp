#include "report/findings.hpp"

namespace hfi {

std::string_view finding_kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::UnknownField: return "unknown-fields";
    case FindingKind::Unexplained: return "unexplained";
    case FindingKind::Missing: return "missing";
    case FindingKind::ShapeMismatch: return "shape-mismatch";
    case FindingKind::IndexMismatch: return "index-mismatch";
    case FindingKind::Quant: return "quant";
    case FindingKind::NoWeights: return "no-weights";
    case FindingKind::NoSpec: return "no-spec";
    case FindingKind::Adapter: return "adapter";
  }
  return "unknown";
}

std::string_view finding_kind_description(FindingKind kind) {
  switch (kind) {
    case FindingKind::UnknownField: return "a config field the architecture spec neither reads nor knows to be irrelevant";
    case FindingKind::Unexplained: return "stored tensors that match nothing the config predicts";
    case FindingKind::Missing: return "a tensor the config predicts that the checkpoint does not store";
    case FindingKind::ShapeMismatch: return "a stored tensor whose shape differs from the one the config predicts";
    case FindingKind::IndexMismatch: return "the safetensors index disagrees with the shard headers";
    case FindingKind::Quant: return "the stored quantized tensors disagree with the declared quantization";
    case FindingKind::NoWeights: return "no weights were read: nothing stored was checked";
    case FindingKind::NoSpec: return "no architecture spec covers this model_type: the structure is not checked";
    case FindingKind::Adapter: return "a PEFT adapter's LoRA pair does not fit its rank or the base model's layer";
  }
  return "";
}

const std::vector<FindingKind>& all_finding_kinds() {
  static const std::vector<FindingKind> kinds = {FindingKind::UnknownField, FindingKind::Unexplained, FindingKind::Missing,
                                                 FindingKind::ShapeMismatch, FindingKind::IndexMismatch, FindingKind::Quant,
                                                 FindingKind::NoWeights, FindingKind::NoSpec, FindingKind::Adapter};
  return kinds;
}

std::optional<FindingKind> parse_finding_kind(std::string_view name) {
  for (FindingKind k : all_finding_kinds())
    if (finding_kind_name(k) == name) return k;
  return std::nullopt;
}

std::string Finding::key() const { return std::string(finding_kind_name(kind)) + ":" + subject; }

}  // namespace hfi
