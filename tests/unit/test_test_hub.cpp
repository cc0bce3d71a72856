// Wire-level checks of the loopback test hub (tests/hub) with cpp-httplib's client, redirects off.
// Expected numbers are derived here from the fixture files or written as literals, never taken
// from the hub's own code.
#include <httplib.h>
#include <openssl/evp.h>
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "hub/test_hub.hpp"
#include "support/fixture_repo.hpp"
#include "support/run_cli.hpp"

namespace fs = std::filesystem;
using hfi::testhub::FaultKind;
using hfi::testhub::FaultRule;
using hfi::testhub::Options;
using hfi::testhub::TestHub;
using hfi::testhub::VirtualFile;

namespace {

const std::string kSmol = "HuggingFaceTB/SmolLM2-135M";
// fixtures/README.md: SmolLM2-135M has 134,515,008 parameters, all BF16 (2 bytes each).
constexpr uint64_t kSmolParams = 134'515'008;
constexpr uint64_t kSmolDataBytes = kSmolParams * 2;

using hfi::testing::slurp;

std::string hex_digest(const EVP_MD* md, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  REQUIRE(EVP_Digest(data.data(), data.size(), out, &n, md, nullptr) == 1);
  std::string hex;
  char buf[3];
  for (unsigned int i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", out[i]);
    hex += buf;
  }
  return hex;
}

// git's object id for a blob: sha1 over "blob <size>\0" then the bytes.
std::string git_blob_id(const std::string& content) {
  return hex_digest(EVP_sha1(), "blob " + std::to_string(content.size()) + std::string(1, '\0') + content);
}

// SmolLM2's virtual model.safetensors: 8-byte length, header padded to a multiple of 8, data.
uint64_t smol_padded_header() {
  uint64_t raw = fs::file_size(hfi::testing::fixtures_dir() / kSmol / "model.safetensors.header.json");
  return (raw + 7) / 8 * 8;
}
uint64_t smol_virtual_size() { return 8 + smol_padded_header() + kSmolDataBytes; }

Options fixture_options() {
  Options o;
  o.fixtures = hfi::testing::fixtures_dir();
  return o;
}

std::unique_ptr<httplib::Client> client(const std::string& origin) {
  auto c = std::make_unique<httplib::Client>(origin);
  c->set_url_encode(false);  // send targets byte for byte
  c->set_follow_location(false);
  c->set_read_timeout(10, 0);
  return c;
}

// cpp-httplib's client percent-decodes Location values; the only escapes the hub puts there are the
// quotes around the etag of a resolve-cache URL.
std::string as_sent(std::string location) {
  for (size_t p = location.find('"'); p != std::string::npos; p = location.find('"', p)) location.replace(p, 1, "%22");
  return location;
}

bool is_quoted_hex(const std::string& s, size_t digits) {
  if (s.size() != digits + 2 || s.front() != '"' || s.back() != '"') return false;
  return s.substr(1, digits).find_first_not_of("0123456789abcdef") == std::string::npos;
}

simdjson::dom::element parse_json(simdjson::dom::parser& parser, const std::string& text) {
  simdjson::dom::element doc;
  REQUIRE(parser.parse(text).get(doc) == simdjson::SUCCESS);
  return doc;
}

simdjson::dom::array array_of(simdjson::dom::element e) {
  simdjson::dom::array a;
  REQUIRE(e.get(a) == simdjson::SUCCESS);
  return a;
}

std::vector<std::string> keys_of(simdjson::dom::element e) {
  simdjson::dom::object o;
  REQUIRE(e.get(o) == simdjson::SUCCESS);
  std::vector<std::string> keys;
  for (auto field : o) keys.emplace_back(field.key);
  return keys;
}

}  // namespace

TEST_CASE("test hub: regular file answers a relative 307, then resolve-cache serves it", "[testhub]") {
  TestHub hub(fixture_options());
  auto c = client(hub.endpoint());
  std::string content = slurp(hfi::testing::fixtures_dir() / kSmol / "config.json");
  std::string blob = git_blob_id(content);
  std::string commit = hub.commit_of(kSmol);
  REQUIRE(commit.size() == 40);

  for (const char* method : {"GET", "HEAD"}) {
    INFO(method);
    std::string target = "/" + kSmol + "/resolve/main/config.json";
    auto r = std::string(method) == "GET" ? c->Get(target) : c->Head(target);
    REQUIRE(r);
    CHECK(r->status == 307);
    std::string location = as_sent(r->get_header_value("Location"));
    CHECK(location.rfind("/api/resolve-cache/models/" + kSmol + "/" + commit + "/config.json?", 0) == 0);
    CHECK(location.find("etag=%22" + blob + "%22") != std::string::npos);
    CHECK(r->get_header_value("X-Repo-Commit") == commit);
    CHECK(r->get_header_value("X-Linked-Etag") == "\"" + blob + "\"");

    auto cached = std::string(method) == "GET" ? c->Get(location) : c->Head(location);
    REQUIRE(cached);
    CHECK(cached->status == 200);
    CHECK(cached->get_header_value("Content-Length") == std::to_string(content.size()));
    CHECK(cached->get_header_value("ETag") == "\"" + blob + "\"");
    CHECK(cached->get_header_value("X-Repo-Commit") == commit);
    CHECK(cached->get_header_value("Accept-Ranges") == "bytes");
    CHECK(cached->body == (std::string(method) == "GET" ? content : ""));
  }

  SECTION("legacy mode answers 200 directly") {
    Options o = fixture_options();
    o.direct_regular_files = true;
    TestHub legacy(o);
    auto r = client(legacy.endpoint())->Get("/" + kSmol + "/resolve/main/config.json");
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(r->body == content);
    CHECK(r->get_header_value("ETag") == "\"" + blob + "\"");
  }
}

TEST_CASE("test hub: LFS file answers a 302 to the CDN origin, which serves ranges", "[testhub]") {
  TestHub hub(fixture_options());
  auto c = client(hub.endpoint());
  auto r = c->Get("/" + kSmol + "/resolve/main/model.safetensors", {{"Range", "bytes=0-7"}});
  REQUIRE(r);
  CHECK(r->status == 302);
  std::string location = r->get_header_value("Location");
  REQUIRE(location.rfind(hub.cdn_origin() + "/repos/", 0) == 0);
  CHECK(location.find("Expires=") != std::string::npos);
  CHECK(r->get_header_value("X-Linked-Size") == std::to_string(smol_virtual_size()));
  CHECK(smol_virtual_size() == 269'060'552);  // 8 + 30,528 + 269,030,016
  std::string linked = r->get_header_value("X-Linked-Etag");
  CHECK(is_quoted_hex(linked, 64));
  CHECK(r->get_header_value("ETag") != linked);
  CHECK(r->get_header_value("X-Repo-Commit") == hub.commit_of(kSmol));
  CHECK(!r->body.empty());
  CHECK(r->get_header_value("Content-Length") == std::to_string(r->body.size()));

  auto cdn = client(hub.cdn_origin());
  std::string cdn_target = location.substr(hub.cdn_origin().size());
  auto head = cdn->Get(cdn_target, {{"Range", "bytes=0-7"}});
  REQUIRE(head);
  CHECK(head->status == 206);
  CHECK(head->get_header_value("Content-Range") == "bytes 0-7/" + std::to_string(smol_virtual_size()));
  CHECK(head->get_header_value("Accept-Ranges") == "bytes");
  CHECK(!head->get_header_value("ETag").empty());
  CHECK(head->get_header_value("ETag") != linked);
  for (const char* h : {"X-Repo-Commit", "X-Linked-Etag", "X-Linked-Size"}) CHECK_FALSE(head->has_header(h));
  REQUIRE(head->body.size() == 8);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(head->body[static_cast<size_t>(i)]);
  CHECK(n == smol_padded_header());

  std::string header_json = slurp(hfi::testing::fixtures_dir() / kSmol / "model.safetensors.header.json");
  auto header = cdn->Get(cdn_target, {{"Range", "bytes=8-" + std::to_string(7 + n)}});
  REQUIRE(header);
  CHECK(header->status == 206);
  CHECK(header->body.substr(0, header_json.size()) == header_json);
  CHECK(header->body.substr(header_json.size()) == std::string(n - header_json.size(), ' '));

  SECTION("a tampered signature is refused") {
    std::string bad = cdn_target;
    bad.replace(bad.find("Signature=") + 10, 4, "0000");
    auto refused = cdn->Get(bad);
    REQUIRE(refused);
    CHECK(refused->status == 403);
  }
}

TEST_CASE("test hub: Range forms, clamping and 416", "[testhub]") {
  TestHub hub(Options{});
  hub.add_repo("org/ranges", {{"data.bin", VirtualFile{"0123456789", 100, false}}});
  auto c = client(hub.endpoint());
  const std::string target = "/org/ranges/raw/main/data.bin";
  struct Case {
    const char* range;
    int status;
    const char* content_range;
    std::string body;
  };
  const Case cases[] = {
      {"bytes=2-5", 206, "bytes 2-5/100", "2345"},
      {"bytes=8-11", 206, "bytes 8-11/100", std::string("89") + std::string(2, '\0')},
      {"bytes=95-100000", 206, "bytes 95-99/100", std::string(5, '\0')},
      {"bytes=98-", 206, "bytes 98-99/100", std::string(2, '\0')},
      {"bytes=-3", 206, "bytes 97-99/100", std::string(3, '\0')},
      {"bytes=-500", 206, "bytes 0-99/100", "0123456789" + std::string(90, '\0')},
      {"bytes=100-200", 416, "bytes */100", ""},
      {"bytes=5000-10000", 416, "bytes */100", ""},
  };
  for (const auto& k : cases) {
    INFO(k.range);
    auto r = c->Get(target, {{"Range", k.range}});
    REQUIRE(r);
    CHECK(r->status == k.status);
    CHECK(r->get_header_value("Content-Range") == k.content_range);
    CHECK(r->body == k.body);
  }
  auto whole = c->Get(target);
  REQUIRE(whole);
  CHECK(whole->status == 200);
  CHECK(whole->body.size() == 100);
  CHECK(whole->body.substr(0, 10) == "0123456789");
}

TEST_CASE("test hub: missing file, bad revision and revision forms", "[testhub]") {
  TestHub hub(fixture_options());
  auto c = client(hub.endpoint());
  std::string commit = hub.commit_of(kSmol);

  auto missing = c->Head("/" + kSmol + "/resolve/main/nope.json");
  REQUIRE(missing);
  CHECK(missing->status == 404);
  CHECK(missing->get_header_value("X-Error-Code") == "EntryNotFound");
  CHECK(missing->get_header_value("X-Error-Message") == "Entry not found");
  CHECK(missing->get_header_value("X-Repo-Commit") == commit);

  auto bad = c->Get("/" + kSmol + "/resolve/nosuchbranch/config.json");
  REQUIRE(bad);
  CHECK(bad->status == 404);
  CHECK(bad->get_header_value("X-Error-Code") == "RevisionNotFound");
  CHECK(bad->get_header_value("X-Error-Message") == "Invalid rev id: nosuchbranch");

  for (std::string rev : {std::string("main"), std::string("v1.0"), std::string("refs%2Fpr%2F1"),
                          std::string("refs/pr/1"), commit, commit.substr(0, 7)}) {
    INFO(rev);
    auto r = c->Head("/" + kSmol + "/resolve/" + rev + "/config.json");
    REQUIRE(r);
    CHECK(r->status == 307);
    CHECK(r->get_header_value("X-Repo-Commit") == commit);
  }
  simdjson::dom::parser parser;
  auto info = c->Get("/api/models/" + kSmol + "/revision/HEAD");
  REQUIRE(info);
  CHECK(info->status == 200);
  std::string_view sha;
  REQUIRE(parse_json(parser, info->body)["sha"].get(sha) == simdjson::SUCCESS);
  CHECK(sha == commit);
  auto unknown = c->Get("/api/models/" + kSmol + "/revision/deadbeefdeadbeef");
  REQUIRE(unknown);
  CHECK(unknown->status == 404);
  CHECK(unknown->get_header_value("X-Error-Code") == "RevisionNotFound");
}

TEST_CASE("test hub: missing, private, disabled repos and tokens", "[testhub]") {
  Options o = fixture_options();
  o.private_repos = {"Qwen/Qwen2.5-0.5B"};
  o.disabled_repos = {"mistralai/Mistral-7B-v0.1"};
  o.tokens = {{"hf_reader", {}}, {"hf_owner", {"Qwen/Qwen2.5-0.5B"}}};
  TestHub hub(o);
  auto c = client(hub.endpoint());
  httplib::Headers reader{{"Authorization", "Bearer hf_reader"}};
  httplib::Headers owner{{"Authorization", "Bearer hf_owner"}};

  for (std::string target : {std::string("/api/models/nobody/nothing"), std::string("/nobody/nothing/resolve/main/config.json"),
                             std::string("/api/models/Qwen/Qwen2.5-0.5B"), std::string("/Qwen/Qwen2.5-0.5B/resolve/main/config.json")}) {
    INFO(target);
    auto anonymous = c->Get(target);
    REQUIRE(anonymous);
    CHECK(anonymous->status == 401);
    CHECK(anonymous->get_header_value("X-Error-Message") == "Invalid username or password.");
    CHECK(anonymous->get_header_value("WWW-Authenticate").rfind("Bearer realm=", 0) == 0);
    CHECK_FALSE(anonymous->has_header("X-Error-Code"));
    auto authed = c->Get(target, reader);
    REQUIRE(authed);
    CHECK(authed->status == 404);
    CHECK(authed->get_header_value("X-Error-Code") == "RepoNotFound");
  }
  auto granted = c->Get("/api/models/Qwen/Qwen2.5-0.5B", owner);
  REQUIRE(granted);
  CHECK(granted->status == 200);
  CHECK(granted->body.find("\"private\":true") != std::string::npos);

  auto invalid = c->Get("/api/models/" + kSmol, {{"Authorization", "Bearer hf_unknown"}});
  REQUIRE(invalid);
  CHECK(invalid->status == 401);
  CHECK(invalid->get_header_value("X-Error-Message") == "Invalid credentials in Authorization header");

  auto disabled = c->Get("/mistralai/Mistral-7B-v0.1/resolve/main/config.json");
  REQUIRE(disabled);
  CHECK(disabled->status == 403);
  CHECK(disabled->get_header_value("X-Error-Message") == "Access to this resource is disabled.");
}

TEST_CASE("test hub: gated repo shows metadata but gates files", "[testhub]") {
  Options o = fixture_options();
  o.gated_repos = {"meta-llama/Llama-3.1-8B"};
  o.tokens = {{"hf_pending", {}}, {"hf_approved", {"meta-llama/Llama-3.1-8B"}}};
  TestHub hub(o);
  auto c = client(hub.endpoint());
  const std::string file = "/meta-llama/Llama-3.1-8B/resolve/main/config.json";

  auto info = c->Get("/api/models/meta-llama/Llama-3.1-8B");
  REQUIRE(info);
  CHECK(info->status == 200);
  CHECK(info->body.find("\"gated\":\"auto\"") != std::string::npos);
  auto tree = c->Get("/api/models/meta-llama/Llama-3.1-8B/tree/main");
  REQUIRE(tree);
  CHECK(tree->status == 200);

  auto anonymous = c->Get(file);
  REQUIRE(anonymous);
  CHECK(anonymous->status == 401);
  CHECK(anonymous->get_header_value("X-Error-Code") == "GatedRepo");
  CHECK(anonymous->get_header_value("X-Error-Message").find("You must have access to it and be authenticated") !=
        std::string::npos);
  auto pending = c->Get(file, {{"Authorization", "Bearer hf_pending"}});
  REQUIRE(pending);
  CHECK(pending->status == 403);
  CHECK(pending->get_header_value("X-Error-Code") == "GatedRepo");
  CHECK(pending->get_header_value("X-Error-Message").find("not in the authorized list") != std::string::npos);
  auto approved = c->Get(file, {{"Authorization", "Bearer hf_approved"}});
  REQUIRE(approved);
  CHECK(approved->status == 307);
}

TEST_CASE("test hub: repo info, expand filtering and blobs", "[testhub]") {
  TestHub hub(fixture_options());
  auto c = client(hub.endpoint());
  simdjson::dom::parser parser;

  auto full = c->Get("/api/models/" + kSmol);
  REQUIRE(full);
  REQUIRE(full->status == 200);
  auto doc = parse_json(parser, full->body);
  std::string_view id;
  CHECK((doc["id"].get(id) == simdjson::SUCCESS && id == kSmol));
  uint64_t total = 0, bf16 = 0;
  CHECK(doc.at_pointer("/safetensors/total").get(total) == simdjson::SUCCESS);
  CHECK(doc.at_pointer("/safetensors/parameters/BF16").get(bf16) == simdjson::SUCCESS);
  CHECK(total == kSmolParams);
  CHECK(bf16 == kSmolParams);
  size_t siblings = array_of(doc["siblings"]).size();
  CHECK(siblings == 2);  // config.json, model.safetensors

  auto some = c->Get("/api/models/" + kSmol + "?expand=sha&expand%5B%5D=safetensors");
  REQUIRE(some);
  REQUIRE(some->status == 200);
  auto keys = keys_of(parse_json(parser, some->body));
  CHECK(keys == std::vector<std::string>{"_id", "id", "sha", "safetensors"});

  auto bad = c->Get("/api/models/" + kSmol + "?expand=nonsense");
  REQUIRE(bad);
  CHECK(bad->status == 400);

  auto blobs = c->Get("/api/models/" + kSmol + "?blobs=true");
  REQUIRE(blobs);
  auto bdoc = parse_json(parser, blobs->body);
  bool saw_lfs = false;
  auto bsiblings = array_of(bdoc["siblings"]);
  for (auto s : bsiblings) {
    std::string_view name;
    REQUIRE(s["rfilename"].get(name) == simdjson::SUCCESS);
    uint64_t size = 0;
    CHECK(s["size"].get(size) == simdjson::SUCCESS);
    std::string_view blob_id;
    CHECK(s["blobId"].get(blob_id) == simdjson::SUCCESS);
    CHECK(blob_id.size() == 40);
    if (name == "model.safetensors") {
      saw_lfs = true;
      uint64_t lfs_size = 0;
      std::string_view sha256;
      CHECK(s.at_pointer("/lfs/size").get(lfs_size) == simdjson::SUCCESS);
      CHECK(s.at_pointer("/lfs/sha256").get(sha256) == simdjson::SUCCESS);
      CHECK(lfs_size == smol_virtual_size());
      CHECK(size == smol_virtual_size());
      CHECK(sha256.size() == 64);
    } else {
      CHECK(s["lfs"].error() == simdjson::NO_SUCH_FIELD);
    }
  }
  CHECK(saw_lfs);
}

TEST_CASE("test hub: tree listing, sub-paths and Link pagination", "[testhub]") {
  Options o;
  o.tree_page_size = 2;
  TestHub hub(o);
  hub.add_repo("org/tree", {{"a.json", VirtualFile{"{}", 2, false}},
                            {"b.json", VirtualFile{"[]", 2, false}},
                            {"sub/c.json", VirtualFile{"{}", 2, false}},
                            {"sub/d.safetensors", VirtualFile{"", 4096, true}}});
  auto c = client(hub.endpoint());
  simdjson::dom::parser parser;

  std::vector<std::string> paths;
  std::string next = "/api/models/org/tree/tree/main?recursive=true";
  int pages = 0;
  while (!next.empty()) {
    auto r = c->Get(next);
    REQUIRE(r);
    REQUIRE(r->status == 200);
    ++pages;
    auto page = array_of(parse_json(parser, r->body));
    for (auto e : page) {
      std::string_view p;
      REQUIRE(e["path"].get(p) == simdjson::SUCCESS);
      paths.emplace_back(p);
      if (p == "sub/d.safetensors") {
        uint64_t size = 0, lfs_size = 0;
        CHECK(e["size"].get(size) == simdjson::SUCCESS);
        CHECK(e.at_pointer("/lfs/size").get(lfs_size) == simdjson::SUCCESS);
        CHECK(size == 4096);
        CHECK(lfs_size == 4096);
      }
    }
    std::string link = r->get_header_value("Link");
    next.clear();
    if (!link.empty()) {
      REQUIRE(link.rfind("<" + hub.endpoint(), 0) == 0);
      REQUIRE(link.find(">; rel=\"next\"") != std::string::npos);
      CHECK(link.find("cursor=") != std::string::npos);
      next = link.substr(1 + hub.endpoint().size(), link.find('>') - 1 - hub.endpoint().size());
    }
  }
  CHECK(pages == 3);
  CHECK(paths == std::vector<std::string>{"a.json", "b.json", "sub", "sub/c.json", "sub/d.safetensors"});

  auto top = c->Get("/api/models/org/tree/tree/main?limit=10");
  REQUIRE(top);
  CHECK(array_of(parse_json(parser, top->body)).size() == 2);  // page size 2 caps limit
  auto sub = c->Get("/api/models/org/tree/tree/main/sub");
  REQUIRE(sub);
  CHECK(sub->status == 200);
  CHECK(array_of(parse_json(parser, sub->body)).size() == 2);
  auto not_dir = c->Get("/api/models/org/tree/tree/main/a.json");
  REQUIRE(not_dir);
  CHECK(not_dir->status == 404);

  auto refs = c->Get("/api/models/org/tree/refs");
  REQUIRE(refs);
  std::string_view target;
  REQUIRE(parse_json(parser, refs->body).at_pointer("/branches/0/targetCommit").get(target) == simdjson::SUCCESS);
  CHECK(target == hub.commit_of("org/tree"));
}

TEST_CASE("test hub: a fault fires the given number of times, then service is normal", "[testhub]") {
  TestHub hub(fixture_options());
  FaultRule rule;
  rule.kind = FaultKind::Status;
  rule.origin = "hub";
  rule.path_contains = "config.json";
  rule.status = 429;
  rule.retry_after_s = 2;
  rule.ratelimit = "\"resolvers\";r=0;t=1";
  rule.times = 1;
  hub.add_fault(rule);
  auto c = client(hub.endpoint());
  const std::string target = "/" + kSmol + "/resolve/main/config.json";
  auto first = c->Get(target);
  REQUIRE(first);
  CHECK(first->status == 429);
  CHECK(first->get_header_value("Retry-After") == "2");
  CHECK(first->get_header_value("RateLimit") == "\"resolvers\";r=0;t=1");
  auto second = c->Get(target);
  REQUIRE(second);
  CHECK(second->status == 307);
  auto other = c->Get("/api/models/" + kSmol);  // did not match the rule
  REQUIRE(other);
  CHECK(other->status == 200);

  SECTION("redirect loop") {
    hub.add_fault({FaultKind::RedirectLoop, "hub", "config.json", 0, -1, "", -1, {}});
    for (int i = 0; i < 3; ++i) {
      auto r = c->Get(target);
      REQUIRE(r);
      CHECK(r->status == 302);
      CHECK(r->get_header_value("Location") == target);
    }
    hub.clear_faults();
    auto after = c->Get(target);
    REQUIRE(after);
    CHECK(after->status == 307);
  }
}

TEST_CASE("test hub: IgnoreRange and ResetMidBody on the CDN", "[testhub]") {
  TestHub hub(Options{});
  constexpr uint64_t size = 1 << 20;
  hub.add_repo("org/big", {{"w.safetensors", VirtualFile{"HEAD", size, true}}});
  auto c = client(hub.endpoint());
  auto redirect = c->Get("/org/big/resolve/main/w.safetensors");
  REQUIRE(redirect);
  REQUIRE(redirect->status == 302);
  std::string cdn_target = redirect->get_header_value("Location").substr(hub.cdn_origin().size());
  auto cdn = client(hub.cdn_origin());

  hub.add_fault({FaultKind::IgnoreRange, "cdn", "", 0, -1, "", 1, {}});
  auto whole = cdn->Get(cdn_target, {{"Range", "bytes=0-7"}});
  REQUIRE(whole);
  CHECK(whole->status == 200);
  CHECK(whole->body.size() == size);
  CHECK(whole->body.substr(0, 4) == "HEAD");

  hub.clear_requests();
  hub.add_fault({FaultKind::ResetMidBody, "cdn", "", 0, -1, "", 1, {}});
  auto cut = cdn->Get(cdn_target);
  CHECK_FALSE(cut);  // the connection closed before Content-Length bytes arrived
  auto log = hub.requests();
  REQUIRE(log.size() == 1);
  CHECK(log[0].status == 200);
  CHECK(log[0].body_bytes == size / 2);

  auto normal = cdn->Get(cdn_target, {{"Range", "bytes=0-3"}});
  REQUIRE(normal);
  CHECK(normal->status == 206);
  CHECK(normal->body == "HEAD");
}

TEST_CASE("test hub: a Hang fault does not hold up shutdown", "[testhub]") {
  auto hub = std::make_unique<TestHub>(fixture_options());
  hub->add_fault({FaultKind::Hang, "", "", 0, -1, "", -1, {}});
  std::string origin = hub->endpoint();
  std::atomic<bool> answered{false};
  std::thread waiter([&] {
    auto c = client(origin);
    auto r = c->Get("/api/models/" + kSmol);
    answered = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  CHECK_FALSE(answered);
  auto t0 = std::chrono::steady_clock::now();
  hub.reset();
  auto took = std::chrono::steady_clock::now() - t0;
  waiter.join();
  CHECK(answered);
  CHECK(took < std::chrono::seconds(1));
}

TEST_CASE("test hub: request log keeps Authorization per origin; ids, renames, raw, latency", "[testhub]") {
  Options o = fixture_options();
  o.tokens = {{"hf_token", {}}};
  o.renames = {{"old-org/old-name", kSmol}, {"smol", kSmol}};
  TestHub hub(o);
  auto c = client(hub.endpoint());
  auto cdn = client(hub.cdn_origin());

  SECTION("Authorization is recorded on each origin as received") {
    auto r = c->Get("/" + kSmol + "/resolve/main/model.safetensors", {{"Authorization", "Bearer hf_token"}});
    REQUIRE(r);
    REQUIRE(r->status == 302);
    std::string cdn_target = r->get_header_value("Location").substr(hub.cdn_origin().size());
    REQUIRE(cdn->Get(cdn_target, {{"Range", "bytes=0-7"}}));
    REQUIRE(cdn->Get(cdn_target, {{"Range", "bytes=0-7"}, {"Authorization", "Bearer leaked"}}));
    auto log = hub.requests();
    REQUIRE(log.size() == 3);
    CHECK(log[0].origin == "hub");
    CHECK(log[0].authorization == "Bearer hf_token");
    CHECK(log[0].status == 302);
    CHECK(log[1].origin == "cdn");
    CHECK(log[1].authorization == "");
    CHECK(log[1].range == "bytes=0-7");
    CHECK(log[1].status == 206);
    CHECK(log[1].body_bytes == 8);
    CHECK(log[2].authorization == "Bearer leaked");
    CHECK(log[1].path + log[1].target.substr(log[1].path.size()) == cdn_target);

    // The standalone binary's view of the same log; control routes are not logged themselves.
    auto json = c->Get("/_testhub/requests");
    REQUIRE(json);
    CHECK(json->body.find("\"authorization\":\"Bearer leaked\"") != std::string::npos);
    CHECK(hub.requests().size() == 3);
  }

  SECTION("request ids echo X-Amzn-Trace-Id; RateLimit headers on the hub") {
    auto r = c->Get("/api/models/" + kSmol, {{"X-Amzn-Trace-Id", "trace-123"}});
    REQUIRE(r);
    std::string id = r->get_header_value("X-Request-Id");
    CHECK(id.rfind("Root=1-", 0) == 0);
    CHECK(id.size() > 9);
    CHECK(id.substr(id.size() - 10) == ";trace-123");
    CHECK(r->get_header_value("RateLimit").rfind("\"api\";r=", 0) == 0);
    CHECK(r->get_header_value("RateLimit-Policy").find("\"fixed window\"") == 0);
    auto f = c->Head("/" + kSmol + "/resolve/main/config.json");
    REQUIRE(f);
    CHECK(f->get_header_value("RateLimit").rfind("\"resolvers\";", 0) == 0);
    CHECK_FALSE(f->get_header_value("X-Request-Id").empty());
  }

  SECTION("renamed and legacy ids answer a relative 307") {
    auto api = c->Get("/api/models/old-org/old-name?expand=sha");
    REQUIRE(api);
    CHECK(api->status == 307);
    CHECK(api->get_header_value("Location") == "/api/models/" + kSmol + "?expand=sha");
    auto legacy = c->Get("/api/models/smol/revision/main");
    REQUIRE(legacy);
    CHECK(legacy->status == 307);
    CHECK(legacy->get_header_value("Location") == "/api/models/" + kSmol + "/revision/main");
    auto file = c->Head("/old-org/old-name/resolve/main/config.json");
    REQUIRE(file);
    CHECK(file->status == 307);
    CHECK(file->get_header_value("Location") == "/" + kSmol + "/resolve/main/config.json");
  }

  SECTION("raw serves the LFS pointer; encoded paths are decoded") {
    auto linked = c->Head("/" + kSmol + "/resolve/main/model.safetensors")->get_header_value("X-Linked-Etag");
    auto pointer = c->Get("/" + kSmol + "/raw/main/model.safetensors");
    REQUIRE(pointer);
    CHECK(pointer->status == 200);
    std::string expected = "version https://git-lfs.github.com/spec/v1\noid sha256:" + linked.substr(1, 64) +
                           "\nsize " + std::to_string(smol_virtual_size()) + "\n";
    CHECK(pointer->body == expected);
    CHECK(pointer->get_header_value("ETag") == "\"" + git_blob_id(expected) + "\"");
    auto head = c->Head("/" + kSmol + "/raw/main/model.safetensors");
    REQUIRE(head);
    CHECK(head->get_header_value("Content-Length") == std::to_string(expected.size()));

    hub.add_repo("org/odd", {{"dir/with space+plus#.json", VirtualFile{"{}", 2, false}}});
    auto odd = c->Get("/org/odd/raw/main/dir/with%20space%2Bplus%23.json");
    REQUIRE(odd);
    CHECK(odd->status == 200);
    CHECK(odd->body == "{}");
  }

  SECTION("latency is added to every response") {
    Options slow;
    slow.latency = std::chrono::milliseconds(120);
    TestHub slow_hub(slow);
    auto t0 = std::chrono::steady_clock::now();
    auto r = client(slow_hub.endpoint())->Get("/api/models/nobody/nothing");
    REQUIRE(r);
    CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(120));
    // The log says when each request came in and when its answer left: the latency apart, and a
    // request sent after the answer to the one before comes in after that answer left.
    auto again = client(slow_hub.endpoint())->Get("/api/models/nobody/nothing");
    REQUIRE(again);
    auto log = slow_hub.requests();
    REQUIRE(log.size() == 2);
    for (const auto& e : log) {
      CHECK(e.answered_us - e.received_us >= 120'000);
      CHECK(e.answered_us - e.received_us < 5'000'000);
    }
    CHECK(log[1].received_us >= log[0].answered_us);
    auto json = client(slow_hub.endpoint())->Get("/_testhub/requests");
    REQUIRE(json);
    CHECK(json->body.find("\"received_us\":" + std::to_string(log[0].received_us) + ",\"answered_us\":" +
                          std::to_string(log[0].answered_us)) != std::string::npos);
  }
}
