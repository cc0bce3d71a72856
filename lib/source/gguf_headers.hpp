// Reads the headers of GGUF files from a Source: a header's length is not known until it has
// been walked, so every file is read in growing windows, all files of a round at once, until its
// parser has the whole header. Nothing past a header is asked for beyond the last window.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "formats/gguf_header.hpp"
#include "source/source.hpp"

namespace hfi {

// The first window covers a header with a 32k vocabulary; each later one is four times the bytes
// held, so a 10 MB header (a 256k vocabulary with its merges) takes three rounds.
inline constexpr uint64_t kGgufFirstWindow = 2u << 20;

Result<std::vector<GgufFile>> read_gguf_headers(Source& source, const std::vector<std::string>& paths,
                                                const std::unordered_map<std::string, uint64_t>& sizes);

}  // namespace hfi
