#include "hub/repo_store.hpp"

#include <simdjson.h>

#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "hub/hub_util.hpp"
#include "support/fixture_repo.hpp"

namespace hfi::testhub::detail {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) { return s.size() >= suffix.size() && s.ends_with(suffix); }

// Beyond this size a regular file's blob id is a stand-in instead of a hash over every zero byte.
constexpr uint64_t kExactBlobLimit = uint64_t{256} << 20;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("testhub: cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

uint64_t read_le64(const std::string& s) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(s[static_cast<size_t>(i)]);
  return n;
}

// Adds one safetensors header's element counts per dtype; false if the bytes are not a header.
bool count_parameters(const std::string& prefix, SafetensorsTotals& totals) {
  if (prefix.size() < 8) return false;
  uint64_t n = read_le64(prefix);
  if (n > prefix.size() - 8) return false;
  simdjson::dom::parser parser;
  simdjson::padded_string text(prefix.data() + 8, static_cast<size_t>(n));
  simdjson::dom::object root;
  if (parser.parse(text).get(root) != simdjson::SUCCESS) return false;
  SafetensorsTotals local;
  for (auto field : root) {
    if (field.key == "__metadata__") continue;
    simdjson::dom::object tensor;
    std::string_view dtype;
    simdjson::dom::array shape;
    if (field.value.get(tensor) || tensor["dtype"].get(dtype) || tensor["shape"].get(shape)) return false;
    uint64_t count = 1;  // a rank-0 scalar holds one element
    for (auto dim : shape) {
      uint64_t d = 0;
      if (dim.get(d)) return false;
      count *= d;
    }
    local.parameters[std::string(dtype)] += count;
    local.total += count;
  }
  for (const auto& [dtype, count] : local.parameters) totals.parameters[dtype] += count;
  totals.total += local.total;
  return true;
}

std::string config_summary(const std::string& text) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::object root;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS) return "";
  util::JsonWriter w;
  w.begin_object();
  simdjson::dom::array arch;
  if (root["architectures"].get(arch) == simdjson::SUCCESS) {
    w.key("architectures").begin_array();
    for (auto a : arch) {
      std::string_view s;
      if (a.get(s) == simdjson::SUCCESS) w.value(s);
    }
    w.end_array();
  }
  std::string_view model_type;
  if (root["model_type"].get(model_type) == simdjson::SUCCESS) w.key("model_type").value(model_type);
  w.end_object();
  return w.str();
}

}  // namespace

bool is_lfs_name(const std::string& path) {
  for (const char* ext : {".safetensors", ".bin", ".gguf", ".pt", ".pth"})
    if (ends_with(path, ext)) return true;
  return false;
}

std::shared_ptr<const Repo> make_repo(const std::string& repo_id, const std::map<std::string, VirtualFile>& files) {
  auto repo = std::make_shared<Repo>();
  repo->id = repo_id;
  repo->mongo_id = util::sha1_hex("testhub-repo\n" + repo_id).substr(0, 24);
  SafetensorsTotals totals;
  bool any_header = false;
  for (const auto& [path, vf] : files) {
    if (path.empty() || path.front() == '/' || path.back() == '/')
      throw std::invalid_argument("testhub: bad file path '" + path + "' in " + repo_id);
    if (vf.prefix.size() > vf.size) throw std::invalid_argument("testhub: prefix longer than size for " + path);
    RepoFile f;
    f.path = path;
    f.prefix = std::make_shared<const std::string>(vf.prefix);
    f.size = vf.size;
    f.lfs = vf.lfs;
    if (vf.lfs) {
      // The real SHA-256 when the whole file is held (the Hub's ETag for it, which a client may
      // check); a stand-in derived from the prefix for the sparse weights, whose bytes are not held.
      f.sha256 = vf.prefix.size() == vf.size ? util::sha256_hex(vf.prefix)
                                             : util::sha256_hex("testhub-lfs\n" + std::to_string(vf.size) + "\n" + vf.prefix);
      f.xet_hash = util::sha256_hex("testhub-xet\n" + f.sha256);
      f.pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:" + f.sha256 + "\nsize " +
                  std::to_string(vf.size) + "\n";
      f.blob_id = util::git_blob_sha1(f.pointer, f.pointer.size());
      if (ends_with(path, ".safetensors") && count_parameters(vf.prefix, totals)) any_header = true;
    } else if (vf.size <= kExactBlobLimit) {
      f.blob_id = util::git_blob_sha1(vf.prefix, vf.size);
    } else {
      f.blob_id = util::sha1_hex("testhub-large\n" + std::to_string(vf.size) + "\n" + vf.prefix);
    }
    if (path == "config.json" && vf.prefix.size() == vf.size) repo->config_json = config_summary(vf.prefix);
    repo->used_storage += vf.size;
    repo->files.emplace(path, std::move(f));
  }
  if (any_header) repo->safetensors = std::move(totals);
  std::string material = "testhub-commit\n" + repo_id + "\n";
  for (const auto& [path, f] : repo->files) {
    material += path;
    material += '\0';
    material += f.blob_id + "\n";
  }
  repo->commit = util::sha1_hex(material);
  return repo;
}

namespace {

std::map<std::string, VirtualFile> read_fixture_dir(const fs::path& dir) {
  static const std::string header_suffix = ".safetensors.header.json";
  std::map<std::string, VirtualFile> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::string rel = fs::relative(entry.path(), dir).generic_string();
    std::string content = read_file(entry.path());
    VirtualFile vf;
    if (ends_with(rel, hfi::testing::kGgufDumpSuffix)) {
      rel.resize(rel.size() - std::string(hfi::testing::kGgufDumpSuffix).size() + std::string(".gguf").size());
      uint64_t data = 0;
      vf.prefix = hfi::testing::gguf_prefix_from_dump(content, data);
      vf.size = vf.prefix.size() + data;
      vf.lfs = true;
    } else if (ends_with(rel, header_suffix)) {
      rel.resize(rel.size() - std::string(".header.json").size());
      uint64_t data = hfi::testing::max_data_offset(content);
      vf.prefix = hfi::testing::padded_safetensors_prefix(std::move(content));
      vf.size = vf.prefix.size() + data;
      vf.lfs = true;
    } else {
      vf.size = content.size();
      vf.prefix = std::move(content);
      vf.lfs = is_lfs_name(rel);
    }
    files[rel] = std::move(vf);
  }
  return files;
}

}  // namespace

std::shared_ptr<const std::map<std::string, std::shared_ptr<const Repo>>> load_fixture_repos(const fs::path& root) {
  using RepoMap = std::map<std::string, std::shared_ptr<const Repo>>;
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const RepoMap>> cache;
  if (root.empty()) return std::make_shared<const RepoMap>();
  std::string key = fs::weakly_canonical(root).string();
  std::lock_guard lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  auto repos = std::make_shared<RepoMap>();
  if (!fs::is_directory(root)) throw std::runtime_error("testhub: fixtures directory not found: " + root.string());
  for (const auto& org : fs::directory_iterator(root)) {
    if (!org.is_directory() || org.path().filename() == "tools") continue;
    for (const auto& name : fs::directory_iterator(org.path())) {
      if (!name.is_directory()) continue;
      auto files = read_fixture_dir(name.path());
      if (files.empty()) continue;
      std::string id = org.path().filename().string() + "/" + name.path().filename().string();
      (*repos)[id] = make_repo(id, files);
    }
  }
  cache[key] = repos;
  return repos;
}

std::optional<std::string> resolve_revision(const Repo& repo, const std::string& rev, bool allow_head) {
  static const std::set<std::string> names = {"main", "refs/heads/main", "v1.0", "refs/tags/v1.0", "refs/pr/1"};
  if (names.count(rev) || (allow_head && rev == "HEAD")) return repo.commit;
  if (rev.size() >= 7 && rev.size() <= 40 && util::is_hex(rev) && repo.commit.starts_with(rev)) return repo.commit;
  return std::nullopt;
}

std::optional<std::vector<TreeEntry>> list_tree(const Repo& repo, const std::string& dir, bool recursive) {
  std::string base = dir.empty() ? "" : dir + "/";
  std::map<std::string, TreeEntry> out;  // by path
  bool exists = dir.empty();
  for (const auto& [path, file] : repo.files) {
    if (!path.starts_with(base)) continue;
    exists = true;
    std::string rest = path.substr(base.size());
    // Every directory between `dir` and the file, as deep as the listing goes.
    for (size_t slash = rest.find('/'); slash != std::string::npos; slash = rest.find('/', slash + 1)) {
      std::string sub = base + rest.substr(0, slash);
      if (!out.count(sub)) {
        TreeEntry d;
        d.directory = true;
        d.path = sub;
        d.oid = util::sha1_hex("testhub-tree\n" + repo.commit + "\n" + sub);
        out.emplace(sub, std::move(d));
      }
      if (!recursive) break;
    }
    if (recursive || rest.find('/') == std::string::npos) {
      TreeEntry f;
      f.path = path;
      f.file = &file;
      out.emplace(path, std::move(f));
    }
  }
  if (!exists) return std::nullopt;
  std::vector<TreeEntry> entries;
  entries.reserve(out.size());
  for (auto& [path, entry] : out) entries.push_back(std::move(entry));
  return entries;
}

}  // namespace hfi::testhub::detail
