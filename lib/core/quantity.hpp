// Quantities as people type them on a command line: token counts ("32k") and byte sizes
// ("80GiB", "24GB"). Exact integers, or nullopt for anything else (the caller says what is
// accepted).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hfi {

// "4096", "32k" / "32K" (k = 1024, as context lengths are counted), "1M" / "1m" (1024 × 1024).
std::optional<uint64_t> parse_token_count(std::string_view text);

// A whole number or a decimal with a unit: B, kB/KB, MB, GB, TB (powers of 1000), KiB, MiB, GiB,
// TiB (powers of 1024); case-insensitive, a space allowed before the unit. "80GiB", "24 GB",
// "93.5GB". A bare number is bytes. A fraction of a byte is dropped.
std::optional<uint64_t> parse_byte_size(std::string_view text);

}  // namespace hfi
