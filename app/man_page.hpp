// hfinspect(1) in roff: the synopsis, options and subcommands from the command line's own
// definitions (app/cli_model.hpp), the environment it reads and its exit codes.
#pragma once

#include <string>
#include <vector>

#include "app/cli_model.hpp"

namespace hfi::cli {

std::string man_page(const std::vector<CommandModel>& commands);

}  // namespace hfi::cli
