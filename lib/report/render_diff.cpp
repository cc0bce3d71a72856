// Renderers for `hfinspect diff`: text for people, JSON for scripts, Markdown for PR comments. Each
// is a list of section functions, in output order.
#include <algorithm>
#include <cstdio>
#include <string_view>

#include "report/diff.hpp"
#include "report/format.hpp"
#include "report/json_builder.hpp"
#include "report/text_layout.hpp"

namespace hfi {
namespace {

// A value short enough for one line: long arrays (layer_types) are cut and their length given.
std::string value_text(const std::optional<Json>& v) {
  if (!v) return "—";
  std::string s = v->dump();
  if (s.size() <= 72) return s;
  std::string cut = s.substr(0, 60) + "…";
  if (v->is_array()) cut += " (" + std::to_string(v->items().size()) + " items)";
  return cut;
}

std::string shapes_text(const PatternSide& side) {
  std::string out;
  for (const auto& [shape, n] : side.shapes) out += (out.empty() ? "" : " + ") + shape_text(shape) + " ×" + std::to_string(n);
  return out;
}

std::string signed_count(uint64_t a, uint64_t b) {
  if (b >= a) return "+" + with_commas(b - a);
  return "-" + with_commas(a - b);
}

std::string ratio(uint64_t a, uint64_t b) {
  if (a == 0 || a == b) return "";
  double r = static_cast<double>(b) / static_cast<double>(a);
  char buf[48];
  std::snprintf(buf, sizeof buf, " (×%.3g)", r);
  // A change too small to show as a ratio ("×1") is given as a percentage instead.
  if (std::string_view(buf) == " (×1)") std::snprintf(buf, sizeof buf, " (%+.2g%%)", (r - 1.0) * 100.0);
  return buf;
}

int64_t param_delta(const PatternChange& c) {
  return static_cast<int64_t>(c.b ? c.b->params : 0) - static_cast<int64_t>(c.a ? c.a->params : 0);
}

std::string delta_text(int64_t d) { return d >= 0 ? "+" + with_commas(static_cast<uint64_t>(d)) : "-" + with_commas(static_cast<uint64_t>(-d)); }

Json pattern_side_json(const std::optional<PatternSide>& side) {
  if (!side) return Json();
  std::vector<Json> shapes;
  for (const auto& [s, n] : side->shapes) shapes.push_back(Obj().add("shape", shape(s)).add("tensors", n).done());
  return Obj().add("tensors", side->tensors).add("params", side->params).add("shapes", Json::make_array(std::move(shapes))).done();
}

Json field_json(const FieldChange& f) {
  return Obj().add("key", f.key).add("a", f.a ? *f.a : Json()).add("b", f.b ? *f.b : Json()).done();
}

using DiffTextSection = void (*)(std::string&, const Style&, const ReportDiff&);

void text_header(std::string& out, const Style& st, const ReportDiff& d) {
  out += st.bold("hfinspect diff") + "\n  A  " + d.a_name + st.dim("  " + d.a_type) + "\n  B  " + d.b_name + st.dim("  " + d.b_type) + "\n";
  if (d.nearest_reason) out += "  " + st.dim(text::wrap("B is A's nearest bundled reference: " + *d.nearest_reason, 2, st.width)) + "\n";
}

bool figures_differ(const ReportDiff& d) {
  return std::any_of(d.figures.begin(), d.figures.end(), [](const FigureChange& f) { return f.a != f.b; });
}
bool config_differs(const ReportDiff& d) { return !d.changed.empty() || !d.added.empty() || !d.removed.empty(); }
bool structure_differs(const ReportDiff& d) {
  return !d.patterns_reshaped.empty() || !d.patterns_added.empty() || !d.patterns_removed.empty();
}

// A section with nothing to list is one line saying so, never a heading over nothing.
void text_figures(std::string& out, const Style& st, const ReportDiff& d) {
  out += "\n" + st.bold("Figures") + (figures_differ(d) ? "" : st.dim("  (identical)")) + "\n";
  for (const auto& f : d.figures) {
    if (f.a == f.b) continue;
    out += text::head_then_body("  " + f.name + ": " + with_commas(f.a) + " → " + with_commas(f.b),
                                st.dim(" " + signed_count(f.a, f.b) + ratio(f.a, f.b)), 5, st.width);
  }
}

void text_config(std::string& out, const Style& st, const ReportDiff& d) {
  if (!config_differs(d)) {
    out += "\n" + st.bold("Config fields") + st.dim("  (identical)") + "\n";
    return;
  }
  out += "\n" + st.bold("Config fields") +
         st.dim("  (" + std::to_string(d.changed.size()) + " changed, " + std::to_string(d.added.size()) + " added, " +
                std::to_string(d.removed.size()) + " removed)") +
         "\n";
  for (const auto& f : d.changed) out += text::head_then_body("  ~ " + f.key + ":", value_text(f.a) + " → " + value_text(f.b), 6, st.width);
  for (const auto& f : d.added) out += "  " + st.good("+ " + f.key) + " = " + value_text(f.b) + "\n";
  for (const auto& f : d.removed) out += "  " + st.warn("- " + f.key) + " = " + value_text(f.a) + "\n";
}

void text_structure(std::string& out, const Style& st, const ReportDiff& d) {
  out += "\n" + st.bold("Tensor structure") +
         st.dim("  (from " + d.structure_source + "; " + (structure_differs(d) ? "" : "all ") + std::to_string(d.patterns_same) +
                " patterns identical)") +
         "\n";
  auto params = [&](const PatternChange& c) { return "  " + st.dim(delta_text(param_delta(c)) + " params"); };
  auto row = [&](const std::string& head, const std::string& body) { out += text::head_then_body(head, body, 6, st.width); };
  for (const auto& c : d.patterns_reshaped) row("  ~ " + c.pattern + ":", shapes_text(*c.a) + " → " + shapes_text(*c.b) + params(c));
  for (const auto& c : d.patterns_added) row("  " + st.good("+ " + c.pattern) + ":", shapes_text(*c.b) + params(c));
  for (const auto& c : d.patterns_removed) row("  " + st.warn("- " + c.pattern) + ":", shapes_text(*c.a) + params(c));
}

constexpr DiffTextSection kDiffTextSections[] = {text_header, text_figures, text_config, text_structure};

Json fields_json(const std::vector<FieldChange>& v) {
  std::vector<Json> out;
  for (const auto& f : v) out.push_back(field_json(f));
  return Json::make_array(std::move(out));
}

Json patterns_json(const std::vector<PatternChange>& v) {
  std::vector<Json> out;
  for (const auto& c : v)
    out.push_back(Obj()
                      .add("pattern", c.pattern)
                      .add("a", pattern_side_json(c.a))
                      .add("b", pattern_side_json(c.b))
                      .add("params_delta", Json::make_int(param_delta(c)))
                      .done());
  return Json::make_array(std::move(out));
}

Json figures_json(const ReportDiff& d) {
  std::vector<Json> figures;
  for (const auto& f : d.figures) figures.push_back(Obj().add("name", f.name).add("a", f.a).add("b", f.b).done());
  return Json::make_array(std::move(figures));
}

Json config_json(const ReportDiff& d) {
  return Obj().add("changed", fields_json(d.changed)).add("added", fields_json(d.added)).add("removed", fields_json(d.removed)).done();
}

Json structure_json(const ReportDiff& d) {
  return Obj()
      .add("source", d.structure_source)
      .add("identical_patterns", d.patterns_same)
      .add("reshaped", patterns_json(d.patterns_reshaped))
      .add("added", patterns_json(d.patterns_added))
      .add("removed", patterns_json(d.patterns_removed))
      .done();
}

using DiffMarkdownSection = void (*)(std::string&, const ReportDiff&);

void markdown_header(std::string& out, const ReportDiff& d) {
  out += "### hfinspect diff: `" + d.a_name + "` → `" + d.b_name + "`\n\n";
  if (d.nearest_reason) out += "B is A's nearest bundled reference (" + *d.nearest_reason + ").\n\n";
}

void markdown_figures(std::string& out, const ReportDiff& d) {
  if (!figures_differ(d)) {
    out += "Figures: identical.\n";
    return;
  }
  out += "| figure | A | B |\n|---|---:|---:|\n";
  for (const auto& f : d.figures)
    if (f.a != f.b) out += "| " + f.name + " | " + with_commas(f.a) + " | " + with_commas(f.b) + " |\n";
}

void markdown_config(std::string& out, const ReportDiff& d) {
  if (!config_differs(d)) {
    out += "\nConfig fields: identical.\n";
    return;
  }
  out += "\n| config field | A | B |\n|---|---|---|\n";
  for (const auto* list : {&d.changed, &d.added, &d.removed})
    for (const auto& f : *list) out += "| `" + f.key + "` | `" + value_text(f.a) + "` | `" + value_text(f.b) + "` |\n";
}

void markdown_structure(std::string& out, const ReportDiff& d) {
  if (!structure_differs(d)) {
    out += "\nTensor structure (from " + d.structure_source + "): all " + std::to_string(d.patterns_same) + " patterns identical.\n";
    return;
  }
  out += "\n| tensor pattern | A | B | Δ params |\n|---|---|---|---:|\n";
  for (const auto* list : {&d.patterns_reshaped, &d.patterns_added, &d.patterns_removed})
    for (const auto& c : *list)
      out += "| `" + c.pattern + "` | " + (c.a ? shapes_text(*c.a) : "—") + " | " + (c.b ? shapes_text(*c.b) : "—") + " | " +
             delta_text(param_delta(c)) + " |\n";
}

constexpr DiffMarkdownSection kDiffMarkdownSections[] = {markdown_header, markdown_figures, markdown_config, markdown_structure};

}  // namespace

std::optional<DiffFormat> parse_diff_format(std::string_view name) {
  if (name == "text") return DiffFormat::Text;
  if (name == "json") return DiffFormat::Json;
  if (name == "markdown") return DiffFormat::Markdown;
  return std::nullopt;
}

std::string render_diff_text(const ReportDiff& d, bool color, size_t width) {
  Style st{color, width};
  std::string out;
  for (DiffTextSection section : kDiffTextSections) section(out, st, d);
  return printable(out, color);
}

std::string render_diff_json(const ReportDiff& d) {
  Obj root;
  root.add("schema_version", uint64_t{1})
      .add("a", Obj().add("name", d.a_name).add("model_type", d.a_type).done())
      .add("b", Obj().add("name", d.b_name).add("model_type", d.b_type).done())
      .add("nearest_reason", d.nearest_reason ? Json::make_string(*d.nearest_reason) : Json())
      .add("figures", figures_json(d))
      .add("config", config_json(d))
      .add("structure", structure_json(d));
  return root.done().dump_pretty(2) + "\n";
}

std::string render_diff_markdown(const ReportDiff& d) {
  std::string out;
  for (DiffMarkdownSection section : kDiffMarkdownSections) section(out, d);
  return printable(out);
}

std::string render_diff(const ReportDiff& d, DiffFormat format, bool color, size_t width) {
  switch (format) {
    case DiffFormat::Text: return render_diff_text(d, color, width);
    case DiffFormat::Json: return render_diff_json(d);
    case DiffFormat::Markdown: return render_diff_markdown(d);
  }
  return render_diff_text(d, color, width);
}

}  // namespace hfi
