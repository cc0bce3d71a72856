#include "source/hub_errors.hpp"

namespace hfi {
namespace {

std::string with_request_id(std::string message, const http::Response& r) {
  std::string id = r.request_id();
  if (!id.empty()) message += " (request id " + id + ")";
  return message;
}

}  // namespace

Error hub_error(const http::Response& r, const RepoRef& ref, const HubSettings& settings, const std::string& what) {
  const std::string repo_page = settings.endpoint + "/" + ref.repo_id;
  const std::string subject = what + " of " + ref.repo_id;
  if (r.status == 0) {
    std::string message = "cannot fetch " + subject + " from " + settings.endpoint + ": " + r.transport_error;
    if (r.attempts > 1) message += " (after " + std::to_string(r.attempts) + " attempts)";
    if (r.timed_out)
      return {ErrorKind::Network, r.url, "", message,
              "the server or the network is slow or stalled; --timeout and --deadline allow more time, --offline reads the cache"};
    return {ErrorKind::Network, r.url, "", message,
            "check the network, the proxy variables (https_proxy, no_proxy) and HF_ENDPOINT; --offline reads the cache"};
  }
  auto header = [&](const char* name) {
    auto it = r.headers.find(name);
    return it == r.headers.end() ? std::string() : it->second;
  };
  const std::string code = header("x-error-code");
  const std::string server_message = header("x-error-message");
  const bool token = !settings.token.empty();
  if (code == "RevisionNotFound")
    return {ErrorKind::NotFound, r.url, "revision",
            with_request_id("revision '" + ref.revision + "' does not exist in " + ref.repo_id, r),
            "branches and tags are listed at " + repo_page + "/tree/main; a commit sha works too"};
  if (code == "GatedRepo") {
    if (r.status == 401 || !token)
      return {ErrorKind::NotFound, r.url, "", with_request_id(ref.repo_id + " is gated: its files need an authenticated request", r),
              "request access at " + repo_page + ", then set HF_TOKEN (or --token) to a token of that account"};
    return {ErrorKind::NotFound, r.url, "",
            with_request_id(ref.repo_id + " is gated and the token from " + settings.token_source + " has no access" +
                                (server_message.empty() ? "" : ": " + server_message),
                            r),
            "request access at " + repo_page + " (approval may still be pending)"};
  }
  if (server_message.find("Invalid credentials") != std::string::npos)
    return {ErrorKind::NotFound, r.url, "", with_request_id("the Hub rejected the token from " + settings.token_source, r),
            "create a fresh token at https://huggingface.co/settings/tokens, or unset it to read public repositories"};
  if (r.status == 403 && server_message.find("disabled") != std::string::npos)
    return {ErrorKind::NotFound, r.url, "", with_request_id(ref.repo_id + " is disabled on the Hub", r), {}};
  if (code == "EntryNotFound")
    return {ErrorKind::NotFound, r.url, "", with_request_id(subject + " does not exist at revision " + ref.revision, r), {}};
  if (code == "RepoNotFound" || r.status == 401 || r.status == 404) {
    if (token)
      return {ErrorKind::NotFound, r.url, "",
              with_request_id(ref.repo_id + " does not exist, or the token from " + settings.token_source + " cannot see it", r),
              "check the spelling of the repository id"};
    return {ErrorKind::NotFound, r.url, "", with_request_id(ref.repo_id + " does not exist, or is private", r),
            "check the spelling; for a private repository set HF_TOKEN (or --token)"};
  }
  if (r.status == 429) {
    std::string message = "the Hub's rate limit is exhausted";
    if (r.retry_after_ms) message += "; it resets in about " + std::to_string((*r.retry_after_ms + 999) / 1000) + " s";
    return {ErrorKind::Network, r.url, "", with_request_id(message + " (fetching " + subject + ")", r),
            token ? "wait for the window to reset" : "wait, or set HF_TOKEN: authenticated requests get a higher limit"};
  }
  if (r.status >= 500 || r.status == 408)
    return {ErrorKind::Network, r.url, "",
            with_request_id("the server answered " + std::to_string(r.status) + " for " + subject + " after " +
                                std::to_string(r.attempts) + " attempt(s)",
                            r),
            "try again later"};
  if (r.status == 403)
    return {ErrorKind::NotFound, r.url, "",
            with_request_id("access to " + subject + " is refused" + (server_message.empty() ? "" : ": " + server_message), r),
            "check the token's permissions"};
  return {ErrorKind::Malformed, r.url, "", with_request_id("unexpected HTTP status " + std::to_string(r.status) + " for " + subject, r), {}};
}

}  // namespace hfi
