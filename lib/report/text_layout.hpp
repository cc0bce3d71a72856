// Column layout shared by the text report's sections: labels padded to one width, right-aligned
// figures, and the bar chart of where the parameters live.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "report/format.hpp"

namespace hfi::text {

std::string pad_right(std::string s, size_t width);  // width in code points
std::string pad_left(const std::string& s, size_t width);
// `s` padded to `width` code points, or cut to width - 2 and ended with "…" and a space when longer,
// so the next column keeps its place.
std::string fit_column(const std::string& s, size_t width);
// Columns `s` takes on a terminal: code points, less the colour escapes.
size_t visible_width(std::string_view s);
// "head body" on one line when it fits `width`, else body on its own line under head, indented
// by `indent`: a long tensor pattern keeps its figures in view without being cut.
std::string head_then_body(const std::string& head, const std::string& body, size_t indent, size_t width);
std::string bar(uint64_t part, uint64_t whole, int width);  // eighth-block glyphs, padded to `width`
std::string percent(uint64_t part, uint64_t whole);         // " 12.5%"
std::string bpw_text(double bpw);                           // "4.250"

// `value`, to be printed from column `indent` on, wrapped to `width` columns with a hanging
// indent: at the " · " between facts where it can, between words where one fact alone is too long.
std::string wrap(const std::string& value, size_t indent, size_t width = kDefaultWidth);

// One report line: the label in bold, padded to the value column, then the value.
void line(std::string& out, const Style& st, const std::string& label, const std::string& value);

}  // namespace hfi::text
