// Number formatting shared by the text and Markdown renderers.
#pragma once

#include <cstdint>
#include <string>

namespace hfi {

std::string with_commas(uint64_t v);      // 8030261248 -> "8,030,261,248"
std::string short_count(uint64_t v);      // 8030261248 -> "8.03 B"
std::string short_flops(uint64_t v);      // 15009849344 -> "15.01 G"
std::string short_bytes(uint64_t v);      // binary units: "14.96 GiB"

}  // namespace hfi
