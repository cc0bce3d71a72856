#include "app/architectures.hpp"

#include <cstdio>

#include "reference/architectures.hpp"

namespace hfi::cli {
namespace {

std::string padded(const std::string& text, size_t width) { return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' '); }

}  // namespace

std::string architectures_text() {
  auto rows = architecture_rows();
  size_t proved = 0, by_hand = 0;
  for (const auto& row : rows) {
    proved += row.fixtures.empty() ? 0 : 1;
    by_hand += !row.fixtures.empty() && !row.exact ? 1 : 0;
  }
  std::string out = std::to_string(rows.size()) + " model_types have a spec; " + std::to_string(proved) +
                    " are proved by a bundled fixture that reproduces a published count";
  if (by_hand > 0)
    out += " (" + std::to_string(by_hand) + " of them a count derived by hand that agrees with the published rounded figures: \"by hand\")";
  out += "\n\n";
  out += padded("model_type", 20) + padded("spec", 26) + "fixture\n";
  for (const auto& row : rows) {
    std::string fixture = row.fixtures.empty() ? "-" : row.fixtures.front();
    if (row.fixtures.size() > 1) fixture += " (+" + std::to_string(row.fixtures.size() - 1) + ")";
    if (!row.fixtures.empty() && !row.exact) fixture += " by hand";
    out += padded(row.model_type, 20) + padded(row.spec, 26) + fixture + "\n";
  }
  return out;
}

void define_list_architectures(CLI::App& app) {
  app.add_flag_callback(
      "--list-architectures",
      [] {
        std::string text = architectures_text();
        std::fwrite(text.data(), 1, text.size(), stdout);
        throw CLI::Success();
      },
      "list the model_types hfinspect has a spec for, with the fixture that proves each, and exit");
}

}  // namespace hfi::cli
