#include "source/hf_cache.hpp"
#include "core/text.hpp"

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

namespace hfi {

namespace fs = std::filesystem;

namespace {

bool valid_repo_part(const std::string& s) {
  if (s.empty() || s.size() > 96 || s == "." || s == "..") return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Strips "https://host/" when the host is huggingface.co or the configured endpoint's host.
bool strip_hub_url(std::string& rest) {
  std::vector<std::string> prefixes = {"https://huggingface.co/", "http://huggingface.co/", "https://hf.co/", "hf://",
                                       "huggingface.co/", "hf.co/"};
  if (const char* endpoint = std::getenv("HF_ENDPOINT"); endpoint && *endpoint) {
    std::string e = endpoint;
    while (!e.empty() && e.back() == '/') e.pop_back();
    prefixes.push_back(e + "/");
  }
  for (const auto& prefix : prefixes) {
    if (rest.rfind(prefix, 0) == 0) {
      rest = rest.substr(prefix.size());
      return true;
    }
  }
  return false;
}

}  // namespace

bool is_commit_sha(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string repo_folder_name(const std::string& repo_id) {
  std::string folder = "models--";
  for (char c : repo_id) folder += (c == '/') ? std::string("--") : std::string(1, c);
  return folder;
}

Result<RepoRef> parse_repo_ref(const std::string& text) {
  std::string rest = text;
  RepoRef ref{"", "main"};
  const bool from_url = strip_hub_url(rest);
  if (from_url) {
    rest = rest.substr(0, rest.find_first_of("?#"));
    // org/name/tree/<rev>[/path], also blob/ and resolve/. A revision is one segment, percent-encoded
    // if it holds '/', except the special refs/pr/N and refs/convert/X that the Hub shows raw.
    std::smatch m;
    static const std::regex special(R"(^([^/]+/[^/]+)/(?:tree|blob|resolve)/(refs/(?:pr|convert)/[^/]+)(?:/.*)?$)");
    static const std::regex tree(R"(^([^/]+/[^/]+)/(?:tree|blob|resolve)/([^/]+)(?:/.*)?$)");
    if (std::regex_match(rest, m, special) || std::regex_match(rest, m, tree))
      rest = m[1].str() + "@" + percent_decode(m[2].str());
  }
  if (auto at = rest.find('@'); at != std::string::npos) {
    // As copied from a URL, "refs%2Fpr%2F3" is refs/pr/3: encoded again it would name no revision.
    ref.revision = percent_decode(rest.substr(at + 1));
    rest = rest.substr(0, at);
    if (ref.revision.empty()) return Error{ErrorKind::Usage, text, "", "empty revision after '@'", {}};
  }
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  auto slash = rest.find('/');
  // A single name is one of the Hub's canonical ids from before organisations (gpt2,
  // bert-base-uncased), which it still answers, redirecting to the organisation's copy. (In a URL a
  // single name is as likely an organisation's page.)
  const bool canonical = !from_url && slash == std::string::npos && valid_repo_part(rest) && rest.find('.') == std::string::npos;
  if (!canonical && (slash == std::string::npos || rest.find('/', slash + 1) != std::string::npos ||
                     !valid_repo_part(rest.substr(0, slash)) || !valid_repo_part(rest.substr(slash + 1))))
    return Error{ErrorKind::Usage, text, "", "is neither a directory nor a repository id (org/name, or a canonical name such as gpt2)", {}};
  // The cache folder joins org and name with "--": a--b/c and a/b--c would share models--a--b--c.
  // huggingface_hub refuses such ids for that reason, and the Hub has none.
  if (rest.find("--") != std::string::npos || rest.find("..") != std::string::npos)
    return Error{ErrorKind::Usage, text, "", "a repository id may not contain '--' or '..'",
                 "check the id on the Hub; to read a cache folder models--org--name, give its snapshots/<commit> folder"};
  ref.repo_id = rest;
  return ref;
}

fs::path hf_home_dir() {
  if (const char* v = std::getenv("HF_HOME"); v && *v) return v;
  if (const char* v = std::getenv("XDG_CACHE_HOME"); v && *v) return fs::path(v) / "huggingface";
  const char* home = std::getenv("HOME");
  return fs::path(home ? home : ".") / ".cache" / "huggingface";
}

fs::path hub_cache_dir() {
  if (const char* v = std::getenv("HF_HUB_CACHE"); v && *v) return v;
  if (const char* v = std::getenv("HUGGINGFACE_HUB_CACHE"); v && *v) return v;
  return hf_home_dir() / "hub";
}

Result<CacheSnapshot> find_cache_snapshot(const fs::path& cache_dir, const RepoRef& ref) {
  fs::path repo_dir = cache_dir / repo_folder_name(ref.repo_id);
  std::error_code ec;
  if (!fs::is_directory(repo_dir, ec))
    return not_found(repo_dir.string(), ref.repo_id + " is not in the Hugging Face cache",
                     "download it first, or point HF_HUB_CACHE / HF_HOME at the cache that holds it");
  std::string commit = ref.revision;
  if (!is_commit_sha(commit)) {
    // Revisions may contain '/', e.g. refs/pr/1, stored as nested files under refs/.
    if (ref.revision.find("..") != std::string::npos)
      return Error{ErrorKind::Usage, ref.revision, "", "revision may not contain '..'", {}};
    fs::path ref_file = repo_dir / "refs" / ref.revision;
    std::ifstream in(ref_file);
    if (!in)
      return not_found(ref_file.string(), "revision '" + ref.revision + "' of " + ref.repo_id + " is not cached",
                       "cached revisions are listed under " + (repo_dir / "refs").string());
    std::stringstream ss;
    ss << in.rdbuf();
    commit = trim(ss.str());
    if (!is_commit_sha(commit))
      return malformed(ref_file.string(), "", "does not hold a 40-hex commit sha");
  }
  fs::path snap = repo_dir / "snapshots" / commit;
  if (!fs::is_directory(snap, ec))
    return not_found(snap.string(), "snapshot " + commit + " of " + ref.repo_id + " is not cached");
  return CacheSnapshot{snap, commit};
}

}  // namespace hfi
