// Hub origin: URL parsing, the token/repo/gate checks and the /resolve/, /raw/ and
// /api/resolve-cache/ routes.
#include <ctime>

#include "hub/hub_impl.hpp"

namespace hfi::testhub {

using detail::RepoRequest;

namespace detail {

std::string join(const std::vector<std::string>& segs, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to && i < segs.size(); ++i) {
    if (i > from) out += '/';
    out += segs[i];
  }
  return out;
}

std::pair<std::string, std::string> split_revision(const std::vector<std::string>& segs, size_t from) {
  if (from >= segs.size()) return {"", ""};
  size_t rev_end = from + 1;
  if (segs[from] == "refs" && from + 2 < segs.size() &&
      (segs[from + 1] == "pr" || segs[from + 1] == "convert" || segs[from + 1] == "heads" || segs[from + 1] == "tags"))
    rev_end = from + 3;
  std::string rev = util::percent_decode(join(segs, from, rev_end));
  std::string path = util::percent_decode(join(segs, rev_end, segs.size()));
  return {rev, path};
}

}  // namespace detail

namespace {

bool is_file_verb(const std::string& s) { return s == "resolve" || s == "raw"; }

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void TestHub::Impl::send_error(http::Response& res, int status, const std::string& code,
                               const std::string& message) {
  util::JsonWriter w;
  w.begin_object().key("error").value(message).end_object();
  send_text(res, status, w.str(), "application/json; charset=utf-8");
  if (!code.empty()) put(res, "X-Error-Code", code);
  put(res, "X-Error-Message", message);
}

bool TestHub::Impl::check_token(const http::Request& req, http::Response& res) {
  std::string auth = req.get_header_value("Authorization");
  if (auth.empty()) return true;
  if (auth.starts_with("Bearer ") && opts.tokens.count(auth.substr(7))) return true;
  send_error(res, 401, "", "Invalid credentials in Authorization header");
  return false;
}

std::shared_ptr<const detail::Repo> TestHub::Impl::authorize(const http::Request& req, http::Response& res,
                                                             const RepoRequest& rr, bool files) {
  std::string auth = req.get_header_value("Authorization");
  bool anonymous = auth.empty();
  bool granted = false;
  if (!anonymous) {
    auto it = opts.tokens.find(auth.substr(7));  // check_token ran first
    granted = it != opts.tokens.end() && it->second.count(rr.id);
  }
  auto repo = rr.type == "model" ? find_repo(rr.id) : nullptr;
  if (!repo || (opts.private_repos.count(rr.id) && !granted)) {
    if (anonymous) {
      send_error(res, 401, "", "Invalid username or password.");
      put(res, "WWW-Authenticate", "Bearer realm=\"Authentication required\", charset=\"UTF-8\"");
    } else {
      send_error(res, 404, "RepoNotFound", "Repository not found");
    }
    return nullptr;
  }
  if (opts.disabled_repos.count(rr.id)) {
    send_error(res, 403, "", "Access to this resource is disabled.");
    return nullptr;
  }
  if (files && opts.gated_repos.count(rr.id) && !granted) {
    if (anonymous) {
      send_error(res, 401, "GatedRepo",
                 "Access to model " + rr.id +
                     " is restricted. You must have access to it and be authenticated to access it. Please log in.");
    } else {
      send_error(res, 403, "GatedRepo",
                 "Access to model " + rr.id + " is restricted and you are not in the authorized list. Visit " +
                     endpoint + "/" + rr.id + " to ask for access.");
    }
    return nullptr;
  }
  return repo;
}

bool TestHub::Impl::redirect_renamed(http::Response& res, const RepoRequest& rr, const std::string& before,
                                     const std::string& after) {
  if (rr.type != "model") return false;
  auto it = opts.renames.find(rr.id);
  if (it == opts.renames.end()) return false;
  const auto& ctx = detail::current();
  std::string location = before + it->second + after + (ctx.raw_query.empty() ? "" : "?" + ctx.raw_query);
  send_text(res, 307, "Temporary Redirect. Redirecting to " + location, "text/plain; charset=utf-8");
  put(res, "Location", location);
  return true;
}

void TestHub::Impl::entry_not_found(http::Response& res, const detail::Repo& repo) {
  send_text(res, 404, "Entry not found", "text/plain; charset=utf-8");
  put(res, "X-Error-Code", "EntryNotFound");
  put(res, "X-Error-Message", "Entry not found");
  put(res, "X-Repo-Commit", repo.commit);
  put(res, "Accept-Ranges", "bytes");
}

void TestHub::Impl::revision_not_found(http::Response& res, const std::string& rev) {
  send_error(res, 404, "RevisionNotFound", "Invalid rev id: " + rev);
}

void TestHub::Impl::route_hub(const http::Request& req, http::Response& res) {
  const auto& ctx = detail::current();
  auto segs = util::split_path(ctx.raw_path);
  if (req.method != "GET" && req.method != "HEAD") {
    send_error(res, 405, "", "Method not allowed");
    return;
  }
  if (!check_token(req, res)) return;
  if (segs.empty()) {
    send_text(res, 404, "Not Found", "text/plain; charset=utf-8");
    return;
  }
  if (segs[0] == "api") {
    if (segs.size() >= 2 && segs[1] == "resolve-cache") return serve_resolve_cache(req, res, segs);
    if (segs.size() >= 3 && (segs[1] == "models" || segs[1] == "datasets" || segs[1] == "spaces"))
      return serve_api(req, res, segs[1].substr(0, segs[1].size() - 1), segs);
    if (segs.size() == 2 && segs[1] == "whoami-v2") {
      if (req.get_header_value("Authorization").empty()) return send_error(res, 401, "", "Invalid username or password.");
      util::JsonWriter w;
      w.begin_object().key("type").value("user").key("name").value("testhub-user").end_object();
      return send_text(res, 200, w.str(), "application/json; charset=utf-8");
    }
    return send_error(res, 404, "", "Not Found");
  }
  RepoRequest rr;
  size_t i = 0;
  if (segs[0] == "datasets" || segs[0] == "spaces") {
    rr.type = segs[0].substr(0, segs[0].size() - 1);
    i = 1;
  }
  size_t verb;
  if (segs.size() > i + 2 && is_file_verb(segs[i + 2])) {
    verb = i + 2;  // org/name
  } else if (segs.size() > i + 1 && is_file_verb(segs[i + 1])) {
    verb = i + 1;  // legacy single-segment id
  } else {
    send_text(res, 404, "Not Found", "text/plain; charset=utf-8");
    return;
  }
  rr.id_raw = detail::join(segs, i, verb);
  rr.id = util::percent_decode(rr.id_raw);
  rr.rest.assign(segs.begin() + static_cast<std::ptrdiff_t>(verb + 1), segs.end());
  serve_file_route(req, res, std::move(rr), segs[verb]);
}

void TestHub::Impl::serve_file_route(const http::Request& req, http::Response& res, RepoRequest rr,
                                     const std::string& verb) {
  std::string type_prefix = rr.type == "model" ? "/" : "/" + rr.type + "s/";
  if (redirect_renamed(res, rr, type_prefix, "/" + verb + "/" + detail::join(rr.rest, 0, rr.rest.size()))) return;
  auto repo = authorize(req, res, rr, true);
  if (!repo) return;
  auto [rev, path] = detail::split_revision(rr.rest, 0);
  auto commit = detail::resolve_revision(*repo, rev, false);
  if (!commit) return revision_not_found(res, rev);
  auto it = repo->files.find(path);
  if (it == repo->files.end()) return entry_not_found(res, *repo);
  const detail::RepoFile& file = it->second;
  if (verb == "raw") {
    if (!file.lfs) return serve_regular(req, res, *repo, file);
    auto pointer = std::make_shared<const std::string>(file.pointer);
    std::string etag = "\"" + file.blob_id + "\"";
    if (req.get_header_value("If-None-Match") == etag) {
      send_text(res, 304, "", "text/plain; charset=utf-8");
    } else {
      send_ranged(req, res, pointer, pointer->size(), "text/plain; charset=utf-8");
    }
    put(res, "ETag", etag);
    put(res, "X-Repo-Commit", *commit);
    return;
  }
  if (file.lfs) return redirect_to_cdn(res, *repo, file);
  if (opts.direct_regular_files) return serve_regular(req, res, *repo, file);
  std::string location = "/api/resolve-cache/models/" + repo->id + "/" + *commit + "/" +
                         util::percent_encode(path, true) + "?etag=%22" + file.blob_id + "%22";
  send_text(res, 307, "Temporary Redirect. Redirecting to " + location, "text/plain; charset=utf-8");
  put(res, "Location", location);
  put(res, "X-Repo-Commit", *commit);
  put(res, "X-Linked-Etag", "\"" + file.blob_id + "\"");
  put(res, "Accept-Ranges", "bytes");
  std::string name = basename_of(path);
  put(res, "Content-Disposition",
      "inline; filename*=UTF-8''" + util::percent_encode(name, false) + "; filename=\"" + name + "\";");
}

void TestHub::Impl::serve_resolve_cache(const http::Request& req, http::Response& res,
                                        const std::vector<std::string>& segs) {
  // /api/resolve-cache/{models|datasets|spaces}/{org}/{name}/{commit}/{path...}
  if (segs.size() < 7 || (segs[2] != "models" && segs[2] != "datasets" && segs[2] != "spaces")) {
    send_error(res, 404, "", "Not Found");
    return;
  }
  RepoRequest rr;
  rr.type = segs[2].substr(0, segs[2].size() - 1);
  rr.id_raw = detail::join(segs, 3, 5);
  rr.id = util::percent_decode(rr.id_raw);
  auto repo = authorize(req, res, rr, true);
  if (!repo) return;
  std::string rev = util::percent_decode(segs[5]);
  auto commit = detail::resolve_revision(*repo, rev, false);
  if (!commit) return revision_not_found(res, rev);
  std::string path = util::percent_decode(detail::join(segs, 6, segs.size()));
  auto it = repo->files.find(path);
  if (it == repo->files.end()) return entry_not_found(res, *repo);
  if (it->second.lfs) return redirect_to_cdn(res, *repo, it->second);
  serve_regular(req, res, *repo, it->second);
}

void TestHub::Impl::serve_regular(const http::Request& req, http::Response& res, const detail::Repo& repo,
                                  const detail::RepoFile& file) {
  std::string etag = "\"" + file.blob_id + "\"";
  if (req.get_header_value("If-None-Match") == etag) {
    send_text(res, 304, "", "text/plain; charset=utf-8");
  } else {
    send_ranged(req, res, file.prefix, file.size, "text/plain; charset=utf-8");
  }
  std::string name = basename_of(file.path);
  put(res, "ETag", etag);
  put(res, "X-Repo-Commit", repo.commit);
  put(res, "Accept-Ranges", "bytes");
  put(res, "Content-Disposition",
      "inline; filename*=UTF-8''" + util::percent_encode(name, false) + "; filename=\"" + name + "\";");
}

void TestHub::Impl::redirect_to_cdn(http::Response& res, const detail::Repo& repo, const detail::RepoFile& file) {
  std::string expires = std::to_string(std::time(nullptr) + 3600);
  std::string cdn_path = "/repos/" + repo.mongo_id + "/" + file.sha256;
  std::string signature = util::sha256_hex(signing_secret + "\n" + cdn_path + "\n" + expires).substr(0, 40);
  std::string name = basename_of(file.path);
  std::string disposition =
      "inline; filename*=UTF-8''" + util::percent_encode(name, false) + "; filename=\"" + name + "\";";
  // Real signed URLs also carry response-content-disposition; it is left out so that the URL has
  // nothing a client could percent-decode (cpp-httplib's client decodes Location values).
  std::string public_origin;
  if (detail::current().tls) {
    public_origin = cdn_tls_origin;
  } else {
    std::lock_guard lock(cdn_public_mutex);
    public_origin = cdn_public_origin.empty() ? cdn_origin : cdn_public_origin;
  }
  std::string location = public_origin + cdn_path + "?Expires=" + expires + "&Signature=" + signature +
                         "&Key-Pair-Id=TESTHUBKEYPAIR";
  send_text(res, 302, "Found. Redirecting to " + location, "text/plain; charset=utf-8");
  put(res, "Location", location);
  put(res, "X-Repo-Commit", repo.commit);
  put(res, "X-Linked-Etag", "\"" + file.sha256 + "\"");
  put(res, "X-Linked-Size", std::to_string(file.size));
  put(res, "ETag", "\"" + file.blob_id + "\"");  // the pointer's git id: deliberately not the sha256
  put(res, "Content-Disposition", disposition);
}

void TestHub::Impl::route_cdn(const http::Request& req, http::Response& res) {
  const auto& ctx = detail::current();
  auto segs = util::split_path(ctx.raw_path);
  auto cloudfront = [&] {
    put(res, "X-Cache", res.status < 400 ? "Miss from cloudfront" : "Error from cloudfront");
    put(res, "Via", "1.1 testhub.cloudfront.net (CloudFront)");
    put(res, "X-Amz-Cf-Pop", "TST1-P1");
  };
  if (req.method != "GET" && req.method != "HEAD") {
    send_text(res, 405, "MethodNotAllowed", "text/plain");
    return cloudfront();
  }
  if (segs.size() != 3 || segs[0] != "repos") {
    send_text(res, 404, "NoSuchKey", "text/plain");
    return cloudfront();
  }
  std::string expires, signature;
  for (const auto& [k, v] : util::parse_query(ctx.raw_query)) {
    if (k == "Expires") expires = v;
    if (k == "Signature") signature = v;
  }
  std::string expected = util::sha256_hex(signing_secret + "\n" + ctx.raw_path + "\n" + expires).substr(0, 40);
  if (expires.empty() || signature != expected) {
    send_text(res, 403, "AccessDenied: invalid signature", "text/plain");
    return cloudfront();
  }
  if (std::strtoll(expires.c_str(), nullptr, 10) < std::time(nullptr)) {
    send_text(res, 403, "AccessDenied: request has expired", "text/plain");
    return cloudfront();
  }
  BlobRef blob;
  {
    std::shared_lock lock(repos_mutex);
    auto it = cdn_blobs.find(segs[2]);
    if (it != cdn_blobs.end()) blob = it->second;
  }
  if (!blob.file) {
    send_text(res, 404, "NoSuchKey", "text/plain");
    return cloudfront();
  }
  send_ranged(req, res, blob.file->prefix, blob.file->size, "application/octet-stream");
  put(res, "ETag", "\"" + blob.file->xet_hash + "\"");
  put(res, "Accept-Ranges", "bytes");
  std::string name = basename_of(blob.file->path);
  put(res, "Content-Disposition",
      "inline; filename*=UTF-8''" + util::percent_encode(name, false) + "; filename=\"" + name + "\";");
  put(res, "Cache-Control", "public, max-age=604800, immutable");
  cloudfront();
}

}  // namespace hfi::testhub
