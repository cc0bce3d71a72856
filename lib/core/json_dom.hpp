// The simdjson DOM behind parse_json(), for the few readers that walk it directly. Kept apart from
// json.hpp because simdjson.h is the heaviest header in the build.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "core/json.hpp"

namespace hfi {

// The simdjson DOM itself, for the few documents too large to copy into Json trees: shard headers
// and indexes of big MoE checkpoints hold 100k entries. Same limits and error wording as
// parse_json; the element is valid while this JsonDom lives and until its next parse.
class JsonDom {
 public:
  Result<simdjson::dom::element> parse(std::string_view text, std::string_view file, JsonLimits limits = {});

 private:
  simdjson::dom::parser parser_;
  std::string padded_;  // the document, then SIMDJSON_PADDING bytes the parser may read past it
};

// A non-negative whole number in the DOM: an integer, or a double with no fractional part.
std::optional<uint64_t> whole_number(simdjson::dom::element e);

}  // namespace hfi
