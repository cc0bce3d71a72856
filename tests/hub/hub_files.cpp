// Response bodies: windows of virtual (prefix + zeros) files, which the server streams while
// counting the bytes handed to the socket; Range is honoured here, and ResetMidBody cuts the body.
#include "hub/hub_impl.hpp"

namespace hfi::testhub {

void TestHub::Impl::send_bytes(http::Response& res, int status, std::shared_ptr<const std::string> prefix,
                               uint64_t first, uint64_t length, const std::string& content_type) {
  const auto& ctx = detail::current();
  res.status = status;
  put(res, "Content-Type", content_type);
  res.body = http::Body{};
  res.body.prefix = std::move(prefix);
  res.body.first = first;
  res.body.length = length;
  res.body.counter = ctx.body_bytes;
  if (ctx.reset_mid_body && length > 0) {
    res.body.send_limit = length / 2;  // about half, then the server hangs up
    put(res, "Connection", "close");
  }
  res.body.drip_interval = ctx.drip_interval;
  if (ctx.alter_body && (status == 200 || status == 206) && res.body.prefix) {
    auto altered = std::make_shared<std::string>(*res.body.prefix);
    if (auto space = altered->find(' ', static_cast<size_t>(std::min<uint64_t>(first, altered->size()))); space != std::string::npos)
      (*altered)[space] = '\t';
    res.body.prefix = std::move(altered);
  }
}

void TestHub::Impl::send_text(http::Response& res, int status, std::string body, const std::string& content_type) {
  auto shared = std::make_shared<const std::string>(std::move(body));
  uint64_t n = shared->size();
  send_bytes(res, status, std::move(shared), 0, n, content_type);
}

void TestHub::Impl::send_ranged(const http::Request&, http::Response& res,
                                std::shared_ptr<const std::string> prefix, uint64_t size,
                                const std::string& content_type) {
  const auto& ctx = detail::current();
  util::RangeDecision d;
  if (!ctx.ignore_range && !ctx.range.empty()) d = util::decide_range(ctx.range, size);
  using Kind = util::RangeDecision::Kind;
  switch (d.kind) {
    case Kind::Whole:
      send_bytes(res, 200, std::move(prefix), 0, size, content_type);
      break;
    case Kind::Partial:
      send_bytes(res, 206, std::move(prefix), d.first, d.last - d.first + 1, content_type);
      put(res, "Content-Range",
          "bytes " + std::to_string(d.first) + "-" + std::to_string(d.last) + "/" + std::to_string(size));
      break;
    case Kind::Unsatisfiable:
      send_bytes(res, 416, nullptr, 0, 0, content_type);
      put(res, "Content-Range", "bytes */" + std::to_string(size));
      break;
  }
  put(res, "Accept-Ranges", "bytes");
}

}  // namespace hfi::testhub
