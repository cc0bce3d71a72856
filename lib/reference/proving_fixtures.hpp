// The fixtures bundled as proof of the specs: each repository under fixtures/ whose total the
// catalog test holds to a published figure, with its config's model_type (and its text_config's).
#pragma once

#include <string_view>
#include <vector>

namespace hfi {

struct ProvingFixture {
  std::string_view model_type;       // config.json's
  std::string_view text_model_type;  // text_config's, or ""
  std::string_view repo;             // e.g. "google-t5/t5-small"
  // The figure is an exact published integer, or one derived from published figures and sizes.
  // False: no exact integer was found, and the count was worked out by hand from the published
  // layout, agreeing with rounded published figures (published.json's "derived_by_hand").
  bool exact = true;
};

const std::vector<ProvingFixture>& proving_fixtures();

}  // namespace hfi
