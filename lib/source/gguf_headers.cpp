#include "source/gguf_headers.hpp"

#include <algorithm>
#include <optional>
#include <span>

namespace hfi {
namespace {

struct Pending {
  size_t file;         // position in `paths`
  std::string bytes;   // read so far, from offset 0
  uint64_t want = 0;   // bytes the next round should bring the prefix to
};

}  // namespace

Result<std::vector<GgufFile>> read_gguf_headers(Source& source, const std::vector<std::string>& paths,
                                                const std::unordered_map<std::string, uint64_t>& sizes) {
  std::vector<std::optional<GgufFile>> done(paths.size());
  std::vector<Pending> pending;
  for (size_t i = 0; i < paths.size(); ++i)
    pending.push_back({i, {}, std::min<uint64_t>(kGgufFirstWindow, sizes.at(paths[i]))});
  while (!pending.empty()) {
    std::vector<Pending> next;
    for (size_t from = 0; from < pending.size();) {
      std::vector<RangeRequest> batch;
      uint64_t batch_bytes = 0;
      size_t end = from;
      for (; end < pending.size(); ++end) {
        const Pending& p = pending[end];
        const uint64_t length = p.want - p.bytes.size();
        if (end > from && batch_bytes + length > kReadBatchBytes) break;
        batch_bytes += length;
        batch.push_back({paths[p.file], p.bytes.size(), length, false});
      }
      auto answers = source.read_ranges(batch);
      for (size_t k = from; k < end; ++k) {
        Pending& p = pending[k];
        const std::string& path = paths[p.file];
        const uint64_t size = sizes.at(path);
        auto& answer = answers[k - from];
        if (!answer) return answer.error();
        if (answer->empty()) return malformed(path, "bytes " + std::to_string(p.bytes.size()) + "+", "the source returned no bytes for this range");
        p.bytes += *answer;
        std::string().swap(*answer);
        if (p.bytes.size() > size) p.bytes.resize(static_cast<size_t>(size));
        auto parsed = parse_gguf_header({reinterpret_cast<const unsigned char*>(p.bytes.data()), p.bytes.size()}, path, size);
        if (!parsed) return parsed.error();
        if (auto* more = std::get_if<GgufNeedMore>(&*parsed)) {
          // A window that came back short (end of what a cache holds) asks again from there.
          const uint64_t grown = std::max<uint64_t>(more->bytes, p.bytes.size() * 4);
          p.want = std::min({grown, size, kMaxGgufHeader});
          if (p.want <= p.bytes.size()) return malformed(path, "header", "the file ends inside its header: a download cut short?");
          next.push_back(std::move(p));
          continue;
        }
        GgufHeader& header = std::get<GgufHeader>(*parsed);
        p.bytes.resize(static_cast<size_t>(std::min<uint64_t>(p.bytes.size(), header.data_offset)));
        source.keep_header(path, std::move(p.bytes));
        done[p.file] = GgufFile{path, size, std::move(header)};
      }
      from = end;
    }
    pending = std::move(next);
  }
  std::vector<GgufFile> out;
  out.reserve(done.size());
  for (auto& f : done) out.push_back(std::move(*f));
  return out;
}

}  // namespace hfi
