// Hub origin, /api/{models,datasets,spaces}/...: repo info with expand/blobs, the paginated tree,
// refs and auth-check.
#include <algorithm>
#include <set>

#include "hub/hub_impl.hpp"

namespace hfi::testhub {

using detail::RepoRequest;

namespace {

bool truthy(const std::string& v) { return v == "true" || v == "1" || v == "True"; }

// The Hub's valid `expand` values for models (hub-protocol.md §1.4).
const std::set<std::string>& valid_expands() {
  static const std::set<std::string> v = {
      "author", "baseModels", "cardData", "childrenModelCount", "config", "createdAt", "disabled", "downloads",
      "downloadsAllTime", "evalResults", "gated", "gguf", "inference", "inferenceProviderMapping", "lastModified",
      "library_name", "likes", "mask_token", "model-index", "pipeline_tag", "private", "resourceGroup",
      "safetensors", "sha", "siblings", "spaces", "tags", "transformersInfo", "trendingScore", "usedStorage",
      "widgetData"};
  return v;
}

// What a response without `expand` carries besides _id, id and modelId.
const std::vector<std::string>& default_properties() {
  static const std::vector<std::string> v = {"author",       "sha",      "lastModified", "createdAt", "private",
                                             "gated",        "disabled", "downloads",    "likes",     "tags",
                                             "library_name", "config",   "siblings",     "safetensors"};
  return v;
}

}  // namespace

void TestHub::Impl::serve_api(const http::Request& req, http::Response& res, const std::string& type,
                              const std::vector<std::string>& segs) {
  // segs: "api", "<type>s", then the id and the rest.
  std::vector<std::string> rest(segs.begin() + 2, segs.end());
  RepoRequest rr;
  rr.type = type;
  size_t id_len = 1;
  if (rest.size() >= 2) {
    std::string two = util::percent_decode(rest[0] + "/" + rest[1]);
    std::string one = util::percent_decode(rest[0]);
    bool two_known = (type == "model" && find_repo(two)) || opts.renames.count(two);
    id_len = (!two_known && opts.renames.count(one)) ? 1 : 2;
  }
  rr.id_raw = detail::join(rest, 0, id_len);
  rr.id = util::percent_decode(rr.id_raw);
  rr.rest.assign(rest.begin() + static_cast<std::ptrdiff_t>(id_len), rest.end());
  std::string after;
  if (!rr.rest.empty()) after.append("/").append(detail::join(rr.rest, 0, rr.rest.size()));
  if (redirect_renamed(res, rr, "/api/" + type + "s/", after)) return;

  const auto& r = rr.rest;
  bool files = !r.empty() && r[0] == "auth-check";
  auto repo = authorize(req, res, rr, files);
  if (!repo) return;
  if (r.empty()) return serve_model_info(req, res, *repo, repo->commit);
  if (r[0] == "revision" && r.size() >= 2) {
    std::string rev = util::percent_decode(detail::join(r, 1, r.size()));
    auto commit = detail::resolve_revision(*repo, rev, true);
    if (!commit) return revision_not_found(res, rev);
    return serve_model_info(req, res, *repo, *commit);
  }
  if (r[0] == "tree" && r.size() >= 2) {
    auto [rev, path] = detail::split_revision(r, 1);
    auto commit = detail::resolve_revision(*repo, rev, true);
    if (!commit) return revision_not_found(res, rev);
    while (!path.empty() && path.back() == '/') path.pop_back();
    return serve_tree(req, res, *repo, *commit, path);
  }
  if (r[0] == "refs" && r.size() == 1) return serve_refs(req, res, *repo);
  if (r[0] == "auth-check" && r.size() == 1) return send_text(res, 200, "{}", "application/json; charset=utf-8");
  send_error(res, 404, "", "Not Found");
}

void TestHub::Impl::serve_model_info(const http::Request&, http::Response& res, const detail::Repo& repo,
                                     const std::string& commit) {
  const auto& ctx = detail::current();
  std::vector<std::string> expand;
  bool blobs = false;
  for (const auto& [k, v] : util::parse_query(ctx.raw_query)) {
    if (k == "expand" || k == "expand[]") expand.push_back(v);
    if (k == "blobs") blobs = truthy(v);
  }
  for (const auto& e : expand) {
    if (!valid_expands().count(e)) {
      std::string all;
      for (const auto& v : valid_expands()) all += (all.empty() ? "" : ", ") + v;
      return send_error(res, 400, "", "\"expand\" must be one of [" + all + "], got \"" + e + "\"");
    }
  }
  bool gated = opts.gated_repos.count(repo.id) > 0;
  bool has_config = repo.files.count("config.json") > 0;
  bool has_safetensors = std::any_of(repo.files.begin(), repo.files.end(),
                                     [](const auto& f) { return f.first.ends_with(".safetensors"); });
  util::JsonWriter w;
  // Writes one property; properties without a value are left out, as the Hub does.
  auto property = [&](const std::string& key) {
    if (key == "author") {
      if (size_t slash = repo.id.find('/'); slash != std::string::npos) w.key(key).value(repo.id.substr(0, slash));
    } else if (key == "sha") {
      w.key(key).value(commit);
    } else if (key == "lastModified") {
      w.key(key).value(detail::kLastModified);
    } else if (key == "createdAt") {
      w.key(key).value(detail::kCreatedAt);
    } else if (key == "private") {
      w.key(key).value(opts.private_repos.count(repo.id) > 0);
    } else if (key == "gated") {
      if (gated) {
        w.key(key).value("auto");
      } else {
        w.key(key).value(false);
      }
    } else if (key == "disabled") {
      w.key(key).value(opts.disabled_repos.count(repo.id) > 0);
    } else if (key == "downloads" || key == "downloadsAllTime" || key == "likes" || key == "trendingScore" ||
               key == "childrenModelCount") {
      w.key(key).value(0);
    } else if (key == "tags") {
      w.key(key).begin_array();
      if (has_config) w.value("transformers");
      if (has_safetensors) w.value("safetensors");
      w.value("region:us").end_array();
    } else if (key == "library_name") {
      if (has_config) w.key(key).value("transformers");
    } else if (key == "config") {
      if (!repo.config_json.empty()) w.key(key).raw(repo.config_json);
    } else if (key == "siblings") {
      w.key(key).begin_array();
      const int copies = detail::current().duplicate_siblings ? 2 : 1;  // DuplicateSiblings fault
      for (int copy = 0; copy < copies; ++copy)
      for (const auto& [path, f] : repo.files) {
        w.begin_object().key("rfilename").value(path);
        if (blobs) {
          w.key("blobId").value(f.blob_id).key("size").value(f.size);
          if (f.lfs) {
            w.key("lfs").begin_object();
            w.key("sha256").value(f.sha256).key("size").value(f.size).key("pointerSize").value(uint64_t{f.pointer.size()});
            w.end_object();
          }
        }
        w.end_object();
      }
      w.end_array();
    } else if (key == "safetensors") {
      if (repo.safetensors) {
        w.key(key).begin_object().key("parameters").begin_object();
        for (const auto& [dtype, n] : repo.safetensors->parameters) w.key(dtype).value(n);
        w.end_object().key("total").value(repo.safetensors->total).end_object();
      }
    } else if (key == "usedStorage") {
      w.key(key).value(repo.used_storage);
    } else if (key == "spaces") {
      w.key(key).begin_array().end_array();
    }
    // Every other valid expand value has no value in the test hub and is omitted.
  };
  w.begin_object().key("_id").value(repo.mongo_id).key("id").value(repo.id);
  if (expand.empty()) {
    w.key("modelId").value(repo.id);
    for (const auto& key : default_properties()) property(key);
  } else {
    std::set<std::string> done;
    for (const auto& key : expand)
      if (done.insert(key).second) property(key);
  }
  w.end_object();
  send_text(res, 200, w.str(), "application/json; charset=utf-8");
}

void TestHub::Impl::serve_tree(const http::Request&, http::Response& res, const detail::Repo& repo,
                               const std::string& commit, const std::string& dir) {
  const auto& ctx = detail::current();
  bool recursive = false, expand = false;
  std::string cursor;
  uint64_t limit = 0;
  for (const auto& [k, v] : util::parse_query(ctx.raw_query)) {
    if (k == "recursive") recursive = truthy(v);
    if (k == "expand") expand = truthy(v);
    if (k == "cursor") cursor = v;
    if (k == "limit") limit = std::strtoull(v.c_str(), nullptr, 10);
  }
  auto entries = detail::list_tree(repo, dir, recursive);
  if (!entries) return entry_not_found(res, repo);
  uint64_t page = std::max<uint64_t>(opts.tree_page_size, 1);
  if (expand) page = std::min<uint64_t>(page, 50);
  if (limit > 0) page = std::min(page, limit);
  uint64_t offset = 0;
  if (!cursor.empty()) {
    // Opaque to clients: "tc" + the hex offset of the next entry.
    if (!cursor.starts_with("tc") || cursor.size() < 3 || cursor.size() > 18 || !util::is_hex(cursor.substr(2)))
      return send_error(res, 400, "", "Invalid cursor");
    offset = std::strtoull(cursor.c_str() + 2, nullptr, 16);
  }
  uint64_t end = std::min<uint64_t>(entries->size(), offset + page);
  util::JsonWriter w;
  w.begin_array();
  for (uint64_t i = offset; i < end; ++i) {
    const auto& e = (*entries)[i];
    w.begin_object();
    if (e.directory) {
      w.key("type").value("directory").key("oid").value(e.oid).key("size").value(0).key("path").value(e.path);
    } else {
      const auto& f = *e.file;
      w.key("type").value("file").key("oid").value(f.blob_id).key("size").value(f.size).key("path").value(e.path);
      if (f.lfs) {
        w.key("lfs").begin_object();
        w.key("oid").value(f.sha256).key("size").value(f.size).key("pointerSize").value(uint64_t{f.pointer.size()});
        w.end_object();
        w.key("xetHash").value(f.xet_hash);
      }
    }
    if (expand) {
      w.key("lastCommit").begin_object();
      w.key("id").value(commit).key("title").value("Initial commit").key("date").value(detail::kLastModified);
      w.end_object();
      w.key("securityFileStatus").begin_object().key("status").value("safe").end_object();
    }
    w.end_object();
  }
  w.end_array();
  send_text(res, 200, w.str(), "application/json; charset=utf-8");
  if (end < entries->size()) {
    std::string query;
    size_t start = 0;
    const std::string& raw = ctx.raw_query;
    while (start <= raw.size()) {  // keep the client's parameters except cursor and limit
      size_t amp = raw.find('&', start);
      if (amp == std::string::npos) amp = raw.size();
      std::string item = raw.substr(start, amp - start);
      std::string key = util::form_decode(item.substr(0, item.find('=')));
      if (!item.empty() && key != "cursor" && key != "limit") query += item + "&";
      start = amp + 1;
    }
    char hex[24];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(end));
    query += "limit=" + std::to_string(page) + "&cursor=tc" + hex;
    put(res, "Link", "<" + endpoint + ctx.raw_path + "?" + query + ">; rel=\"next\"");
  }
}

void TestHub::Impl::serve_refs(const http::Request&, http::Response& res, const detail::Repo& repo) {
  const auto& ctx = detail::current();
  bool prs = false;
  for (const auto& [k, v] : util::parse_query(ctx.raw_query))
    if (k == "include_prs") prs = truthy(v);
  util::JsonWriter w;
  auto ref = [&](const std::string& name, const std::string& full) {
    w.begin_object().key("name").value(name).key("ref").value(full).key("targetCommit").value(repo.commit).end_object();
  };
  w.begin_object();
  w.key("branches").begin_array();
  ref("main", "refs/heads/main");
  w.end_array();
  w.key("converts").begin_array().end_array();
  w.key("tags").begin_array();
  ref("v1.0", "refs/tags/v1.0");
  w.end_array();
  if (prs) {
    w.key("pullRequests").begin_array();
    ref("1", "refs/pr/1");
    w.end_array();
  }
  w.end_object();
  send_text(res, 200, w.str(), "application/json; charset=utf-8");
}

}  // namespace hfi::testhub
