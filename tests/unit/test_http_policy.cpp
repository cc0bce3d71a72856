// The pure parts of the network layer: origins (who may see the token), Location resolution,
// percent-encoding as huggingface_hub sends it, and the retry policy.
#include <catch2/catch.hpp>

#include "core/text.hpp"
#include "http/retry.hpp"
#include "http/url.hpp"
#include "source/hf_cache.hpp"
#include "source/hub_cache.hpp"

using namespace hfi::http;

TEST_CASE("origins compare scheme, host and port") {
  CHECK(origin_of("https://huggingface.co/api/models/x") == "https://huggingface.co:443");
  CHECK(origin_of("HTTPS://HuggingFace.co:443/x") == "https://huggingface.co:443");
  CHECK(origin_of("http://127.0.0.1:8080/a?b") == "http://127.0.0.1:8080");
  CHECK(origin_of("http://127.0.0.1:8080") != origin_of("http://127.0.0.1:8081"));
  CHECK(origin_of("https://hf.co/x") != origin_of("http://hf.co/x"));  // a downgrade is another origin
  CHECK(origin_of("http://user@host/x") == "http://host:80");
  CHECK(origin_of("/relative/path").empty());
}

TEST_CASE("Location headers resolve like a browser would") {
  std::string base = "https://huggingface.co/org/m/resolve/main/config.json";
  CHECK(resolve_location(base, "/api/resolve-cache/models/org/m/abc/config.json?etag=%22x%22") ==
        "https://huggingface.co/api/resolve-cache/models/org/m/abc/config.json?etag=%22x%22");
  CHECK(resolve_location(base, "https://cdn.example/x?Expires=1") == "https://cdn.example/x?Expires=1");
  CHECK(resolve_location(base, "//cdn.example/y") == "https://cdn.example/y");
  CHECK(resolve_location("http://h:1/a/b/c?q", "d") == "http://h:1/a/b/d");
}

TEST_CASE("revisions and paths are percent-encoded as huggingface_hub does") {
  CHECK(encode_component("refs/pr/1") == "refs%2Fpr%2F1");
  CHECK(encode_component("main") == "main");
  CHECK(encode_path("sub dir/model-00001.safetensors") == "sub%20dir/model-00001.safetensors");
  CHECK(encode_path("a#b+c.json") == "a%23b%2Bc.json");
  CHECK(encode_path("\xC3\xA9.json") == "%C3%A9.json");  // UTF-8 bytes, each encoded
}

TEST_CASE("retry policy: transient statuses, server-named waits, capped backoff") {
  for (int s : {408, 429, 500, 502, 503, 504}) CHECK(retryable_status(s));
  for (int s : {200, 206, 301, 400, 401, 403, 404, 416, 501}) CHECK_FALSE(retryable_status(s));

  // RateLimit r=0;t=7: the window resets in 7 s; one second of margin, as huggingface_hub adds.
  CHECK(server_requested_wait_ms({{"ratelimit", "\"resolvers\";r=0;t=7"}}) == 8000);
  // Requests remain in the window: the header names no wait, Retry-After does.
  CHECK(server_requested_wait_ms({{"ratelimit", "\"api\";r=12;t=7"}, {"retry-after", "3"}}) == 4000);
  CHECK_FALSE(server_requested_wait_ms({{"retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"}}));
  CHECK_FALSE(server_requested_wait_ms({}));

  // 1 s, 2 s, 4 s, 8 s, then capped at 8 s; jitter scales by at most 20 %.
  CHECK(backoff_ms(1, 1000, 8000, 1.0) == 1000);
  CHECK(backoff_ms(3, 1000, 8000, 1.0) == 4000);
  CHECK(backoff_ms(5, 1000, 8000, 1.0) == 8000);
  CHECK(backoff_ms(30, 1000, 8000, 1.0) == 8000);
  CHECK(backoff_ms(2, 1000, 8000, 5.0) == 2400);
}

TEST_CASE("paths from the network are checked before they touch the cache") {
  CHECK(hfi::safe_repo_path("model-00001-of-00002.safetensors"));
  CHECK(hfi::safe_repo_path("transformer/diffusion_pytorch_model.safetensors"));
  for (const std::string& bad : std::vector<std::string>{"", "/etc/passwd", "../x", "a/../b", "a//b", "a/./b", "a\\b", std::string("a\0b", 3), "a/"})
    CHECK_FALSE(hfi::safe_repo_path(bad));
}

TEST_CASE("repository references: ids, revisions and Hub URLs") {
  auto plain = hfi::parse_repo_ref("Qwen/Qwen3-30B-A3B");
  REQUIRE(plain);
  CHECK(plain->repo_id == "Qwen/Qwen3-30B-A3B");
  CHECK(plain->revision == "main");
  auto at = hfi::parse_repo_ref("org/m@refs/pr/3");
  REQUIRE(at);
  CHECK(at->revision == "refs/pr/3");
  auto tree = hfi::parse_repo_ref("https://huggingface.co/org/m/tree/v1.0");
  REQUIRE(tree);
  CHECK(tree->repo_id == "org/m");
  CHECK(tree->revision == "v1.0");
  auto pr = hfi::parse_repo_ref("https://huggingface.co/org/m/tree/refs%2Fpr%2F7");
  REQUIRE(pr);
  CHECK(pr->revision == "refs/pr/7");
  auto raw_pr = hfi::parse_repo_ref("https://huggingface.co/org/m/blob/refs/pr/7/config.json");
  REQUIRE(raw_pr);
  CHECK(raw_pr->revision == "refs/pr/7");
  CHECK_FALSE(hfi::parse_repo_ref("https://huggingface.co/org"));
  CHECK_FALSE(hfi::parse_repo_ref("a/b/c"));
  // Copied from a URL: decoded once, not encoded twice.
  auto encoded = hfi::parse_repo_ref("org/m@refs%2Fpr%2F3");
  REQUIRE(encoded);
  CHECK(encoded->revision == "refs/pr/3");
  // The Hub's canonical ids from before organisations.
  auto canonical = hfi::parse_repo_ref("bert-base-uncased");
  REQUIRE(canonical);
  CHECK(canonical->repo_id == "bert-base-uncased");
  auto canonical_at = hfi::parse_repo_ref("gpt2@main");
  REQUIRE(canonical_at);
  CHECK(canonical_at->repo_id == "gpt2");
  CHECK_FALSE(hfi::parse_repo_ref("model.safetensors"));  // a file name, not an id
}

TEST_CASE("repository references: ids whose cache folders would collide are refused") {
  // a--b/c and a/b--c would both live in models--a--b--c.
  for (const char* id : {"a--b/c", "a/b--c", "org/na..me"}) {
    auto ref = hfi::parse_repo_ref(id);
    REQUIRE_FALSE(ref);
    CHECK(ref.error().kind == hfi::ErrorKind::Usage);
    CHECK_THAT(ref.error().describe(), Catch::Contains("'--'"));
  }
  CHECK(hfi::parse_repo_ref("a-b/c-d"));
}

TEST_CASE("printable: control characters become visible, hfinspect's own colours may stay") {
  CHECK(hfi::printable("a\tb\nc") == "a\tb\nc");
  CHECK(hfi::printable("\x1b]0;t\x07\x1b[2J\r\x7f") == "\\x1b]0;t\\x07\\x1b[2J\\x0d\\x7f");
  CHECK(hfi::printable("x\xc2\x9by \xc2\xa0") == "x\\x9by \xc2\xa0");  // C1 CSI escaped, a no-break space kept
  CHECK(hfi::printable("\x1b[1mbold\x1b[0m", true) == "\x1b[1mbold\x1b[0m");
  CHECK(hfi::printable("\x1b[1mbold\x1b[0m", false) == "\\x1b[1mbold\\x1b[0m");
  CHECK(hfi::printable("\x1b[2J", true) == "\\x1b[2J");  // not one of the colours hfinspect writes
}
