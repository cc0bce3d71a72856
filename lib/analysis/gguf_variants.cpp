#include "analysis/gguf_variants.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace hfi {
namespace {

struct SplitName {
  std::string stem;  // the name without "-0000N-of-0000M.gguf"
  uint64_t part = 0, of = 0;
};

// "-00001-of-00003.gguf" as llama.cpp's gguf-split names the parts.
std::optional<SplitName> split_name(const std::string& path) {
  static constexpr size_t kTail = std::string_view("-00001-of-00003.gguf").size();
  if (path.size() <= kTail) return std::nullopt;
  const std::string tail = path.substr(path.size() - kTail);
  auto digits = [&](size_t at) {
    uint64_t v = 0;
    for (size_t i = at; i < at + 5; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(tail[i]))) return uint64_t{0};
      v = v * 10 + static_cast<uint64_t>(tail[i] - '0');
    }
    return v;
  };
  if (tail[0] != '-' || tail.compare(6, 4, "-of-") != 0 || !tail.ends_with(".gguf")) return std::nullopt;
  SplitName s{path.substr(0, path.size() - kTail), digits(1), digits(10)};
  if (s.part == 0 || s.of == 0 || s.part > s.of) return std::nullopt;
  return s;
}

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The quantization as the file's name spells it ("...-Q4_K_M.gguf" -> "Q4_K_M"): the last
// '-' or '.' separated word that starts like a ggml type.
std::string label_from_name(const std::string& stem) {
  std::string name = base_name(stem);
  if (name.ends_with(".gguf")) name.resize(name.size() - 5);
  size_t end = name.size();
  while (end > 0) {
    size_t start = name.find_last_of("-.", end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    const std::string word = upper(name.substr(start, end - start));
    auto digit_at = [&](size_t i) { return word.size() > i && std::isdigit(static_cast<unsigned char>(word[i])); };
    const bool type_like = (word.starts_with("Q") && digit_at(1)) || ((word.starts_with("IQ") || word.starts_with("TQ")) && digit_at(2)) ||
                           word == "F16" || word == "F32" || word == "BF16" || word.starts_with("MXFP4");
    if (type_like) return word;
    if (start == 0) break;
    end = start - 1;
  }
  return name;
}

void count(GgufVariant& v) {
  std::map<std::string_view, GgufTypeCount> types;
  for (const GgufFile* f : v.parts) {
    v.file_bytes += f->size;
    v.tensor_bytes += f->header.tensor_bytes;
    v.elements += f->header.elements;
    for (const auto& t : f->header.tensors) {
      auto& c = types[t.type.name];
      c.type = t.type.name;
      ++c.tensors;
      c.elements += t.elements;
      c.bytes += t.bytes;
    }
  }
  for (auto& [name, c] : types) v.by_type.push_back(c);
  std::stable_sort(v.by_type.begin(), v.by_type.end(), [](const GgufTypeCount& a, const GgufTypeCount& b) { return a.elements > b.elements; });
}

bool is_projector(const GgufFile& f) {
  if (auto type = f.header.string("general.type")) return *type == "mmproj";
  return base_name(f.path).starts_with("mmproj");
}

}  // namespace

double GgufVariant::bits_per_weight() const {
  return elements == 0 ? 0.0 : static_cast<double>(tensor_bytes) * 8.0 / static_cast<double>(elements);
}

Result<std::vector<GgufVariant>> group_gguf_variants(const std::vector<GgufFile>& files) {
  std::map<std::string, GgufVariant> sets;  // by stem, for split parts
  std::vector<GgufVariant> out;
  for (const auto& f : files) {
    auto split = split_name(f.path);
    if (!split) {
      GgufVariant v;
      v.first_file = f.path;
      v.parts = {&f};
      out.push_back(std::move(v));
      continue;
    }
    if (auto declared = f.header.unsigned_value("split.count"); declared && *declared != split->of)
      return malformed(f.path, "split.count", "is " + std::to_string(*declared) + ", but the file's name says " + std::to_string(split->of) + " parts");
    GgufVariant& v = sets[split->stem];
    v.expected_parts = split->of;
    v.parts.push_back(&f);
    std::sort(v.parts.begin(), v.parts.end(), [](const GgufFile* a, const GgufFile* b) { return a->path < b->path; });
    for (size_t i = 1; i < v.parts.size(); ++i)
      if (split_name(v.parts[i]->path)->part == split_name(v.parts[i - 1]->path)->part)
        return malformed(v.parts[i]->path, "name", "names the same part as " + v.parts[i - 1]->path);
    if (v.parts.size() > split->of) return malformed(f.path, "name", "is one part more than the " + std::to_string(split->of) + " its set announces");
  }
  for (auto& [stem, v] : sets) {
    v.first_file = v.parts.front()->path;
    out.push_back(std::move(v));
  }
  for (auto& v : out) {
    v.projector = is_projector(*v.parts.front());
    if (auto ft = v.header().unsigned_value("general.file_type"); ft && llama_file_type_name(*ft) && !v.projector)
      v.label = std::string(*llama_file_type_name(*ft));
    else v.label = label_from_name(v.first_file);
    count(v);
  }
  std::stable_sort(out.begin(), out.end(), [](const GgufVariant& a, const GgufVariant& b) {
    if (a.projector != b.projector) return !a.projector;
    return a.file_bytes < b.file_bytes;
  });
  return out;
}

Result<const GgufVariant*> select_gguf_variant(const std::vector<GgufVariant>& variants, const std::string& wanted) {
  std::vector<const GgufVariant*> by_label;
  for (const auto& v : variants) {
    if (v.first_file == wanted || base_name(v.first_file) == wanted) return &v;
    if (!v.projector && upper(v.label) == upper(wanted)) by_label.push_back(&v);
  }
  if (by_label.size() == 1) return by_label.front();
  std::string choices;
  for (const auto& v : variants)
    if (!v.projector) choices += (choices.empty() ? "" : ", ") + v.label + " (" + base_name(v.first_file) + ")";
  if (by_label.size() > 1)
    return Error{ErrorKind::Usage, "--variant", wanted, "names " + std::to_string(by_label.size()) + " variants of this type", "give the file name instead: " + choices};
  return Error{ErrorKind::Usage, "--variant", wanted, "names no GGUF variant of this repository", "choose one of: " + choices};
}

}  // namespace hfi
