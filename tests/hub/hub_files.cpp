// Response bodies: virtual (prefix + zeros) contents streamed through a content provider that
// counts the bytes handed to the socket, honours Range, and can cut the body (ResetMidBody).
#include <array>
#include <cstring>

#include "hub/hub_impl.hpp"

namespace hfi::testhub {

namespace {

constexpr size_t kChunk = 64 * 1024;

}  // namespace

void TestHub::Impl::send_bytes(httplib::Response& res, int status, std::shared_ptr<const std::string> prefix,
                               uint64_t first, uint64_t length, const std::string& content_type) {
  const auto& ctx = detail::current();
  res.status = status;
  res.body.clear();
  res.headers.erase("Content-Type");
  res.headers.erase("Content-Length");
  if (length == 0) {
    res.content_length_ = 0;
    res.content_provider_ = nullptr;
    put(res, "Content-Type", content_type);
    put(res, "Content-Length", "0");
    return;
  }
  bool reset = ctx.reset_mid_body;
  if (reset) put(res, "Connection", "close");
  auto counter = ctx.body_bytes ? ctx.body_bytes : std::make_shared<std::atomic<uint64_t>>(0);
  res.set_content_provider(
      static_cast<size_t>(length), content_type,
      [prefix = std::move(prefix), first, length, counter, reset](size_t offset, size_t want, httplib::DataSink& sink) {
        uint64_t limit = reset ? length / 2 : length;  // ResetMidBody: about half, then hang up
        if (offset >= limit) return false;
        size_t n = static_cast<size_t>(std::min<uint64_t>({want, limit - offset, kChunk}));
        uint64_t pos = first + offset;  // position in the virtual file
        static const std::array<char, kChunk> zeros{};
        // Counted before the write so a client holding the whole body never sees a smaller count.
        *counter += n;
        bool ok;
        if (pos >= prefix->size()) {
          ok = sink.write(zeros.data(), n);
        } else if (pos + n <= prefix->size()) {
          ok = sink.write(prefix->data() + pos, n);
        } else {
          std::string chunk(n, '\0');
          std::memcpy(chunk.data(), prefix->data() + pos, static_cast<size_t>(prefix->size() - pos));
          ok = sink.write(chunk.data(), n);
        }
        if (!ok) *counter -= n;
        return ok;
      });
}

void TestHub::Impl::send_text(httplib::Response& res, int status, std::string body, const std::string& content_type) {
  auto shared = std::make_shared<const std::string>(std::move(body));
  uint64_t n = shared->size();
  send_bytes(res, status, std::move(shared), 0, n, content_type);
}

void TestHub::Impl::send_ranged(const httplib::Request&, httplib::Response& res,
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
