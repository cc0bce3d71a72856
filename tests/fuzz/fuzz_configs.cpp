// libFuzzer target: config.json (then every spec that claims its model_type, and the report),
// generation_config.json and tokenizer_config.json parsers on the same bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "arch/spec.hpp"
#include "formats/model_config.hpp"
#include "formats/side_configs.hpp"
#include "report/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)hfi::parse_generation_config(text, "generation_config.json");
  (void)hfi::parse_tokenizer_config(text, "tokenizer_config.json");
  auto cfg = hfi::ModelConfig::parse(text, "config.json");
  if (!cfg) return 0;
  // Bound the work a fuzzed config can ask for: specs allocate per layer and per expert.
  for (const char* key : {"num_hidden_layers", "n_routed_experts", "num_experts", "num_local_experts",
                          "num_nextn_predict_layers"})
    if (auto v = cfg->integer({key}); v && *v > 64) return 0;
  if (const hfi::SpecEntry* spec = hfi::find_spec(cfg->text_model_type())) {
    auto model = spec->build(*cfg);
    if (model) {
      hfi::Snapshot snap;
      snap.config = *cfg;
      hfi::ReportOptions options;
      auto report = hfi::build_report(snap, options);
      if (report) (void)hfi::render_json(*report);
    }
  }
  return 0;
}
