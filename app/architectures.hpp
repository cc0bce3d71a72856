// `hfinspect --list-architectures`: the registered model_types, each with its spec and the
// bundled fixture that proves it, then exit.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace hfi::cli {

void define_list_architectures(CLI::App& app);
// The listing as printed: a count line, then one line per model_type.
std::string architectures_text();

}  // namespace hfi::cli
