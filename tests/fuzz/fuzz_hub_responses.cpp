// libFuzzer target: what the Hub's answers feed into — repository info and tree pages (JSON), the
// Link, RateLimit and Retry-After headers, and Location values resolved against a URL.
#include <cstddef>
#include <cstdint>
#include <string>

#include "http/retry.hpp"
#include "http/url.hpp"
#include "source/hub_cache.hpp"
#include "source/repo_info.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)hfi::parse_repo_info(text, "fuzz-info");
  std::vector<hfi::FileEntry> files;
  (void)hfi::parse_tree_page(text, "fuzz-tree", files);
  hfi::http::Headers headers{{"link", text}, {"ratelimit", text}, {"retry-after", text}};
  (void)hfi::next_link(headers);
  (void)hfi::http::server_requested_wait_ms(headers);
  (void)hfi::http::origin_of(text);
  (void)hfi::http::resolve_location("https://huggingface.co/org/m/resolve/main/config.json", text);
  (void)hfi::safe_repo_path(text);
  return 0;
}
