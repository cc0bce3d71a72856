#include "reference/architectures.hpp"

#include <algorithm>

#include "arch/spec.hpp"
#include "reference/proving_fixtures.hpp"

namespace hfi {

std::vector<ArchitectureRow> architecture_rows() {
  std::vector<ArchitectureRow> rows;
  for (const SpecEntry& entry : registered_specs()) rows.push_back({entry.model_type, entry.spec_name, {}});
  auto row_of = [&rows](std::string_view type) -> ArchitectureRow* {
    for (auto& row : rows)
      if (row.model_type == type) return &row;
    return nullptr;
  };
  for (const ProvingFixture& f : proving_fixtures()) {
    ArchitectureRow* row = row_of(f.model_type);
    if (!row && !f.text_model_type.empty()) row = row_of(f.text_model_type);
    if (!row) continue;
    // An exact figure proves more than one derived by hand: it goes first.
    if (f.exact && !row->exact) row->fixtures.emplace(row->fixtures.begin(), f.repo);
    else row->fixtures.emplace_back(f.repo);
    row->exact = row->exact || f.exact;
  }
  // Several model_types served by one spec (gemma4 and gemma4_text): a fixture proves the spec, so
  // it stands for each of them.
  for (auto& row : rows)
    if (row.fixtures.empty())
      for (const auto& other : rows)
        if (other.spec == row.spec && !other.fixtures.empty()) {
          row.fixtures = other.fixtures;
          row.exact = other.exact;
          break;
        }
  std::sort(rows.begin(), rows.end(), [](const ArchitectureRow& a, const ArchitectureRow& b) { return a.model_type < b.model_type; });
  return rows;
}

}  // namespace hfi
