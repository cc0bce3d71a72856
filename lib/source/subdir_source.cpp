#include "source/subdir_source.hpp"

namespace hfi {

Result<std::vector<FileEntry>> SubdirSource::list_files() {
  auto all = base_.list_files();
  if (!all) return all.error();
  std::vector<FileEntry> out;
  for (const auto& f : *all)
    if (f.path.starts_with(prefix_)) out.push_back({f.path.substr(prefix_.size()), f.size});
  return out;
}

std::vector<Result<std::string>> SubdirSource::read_ranges(const std::vector<RangeRequest>& requests) {
  std::vector<RangeRequest> inside = requests;
  for (auto& r : inside) r.path = prefix_ + r.path;
  return base_.read_ranges(inside);
}

void SubdirSource::prefetch(const std::vector<std::string>& files, const std::vector<RangeRequest>& header_reads) {
  std::vector<std::string> f;
  for (const auto& p : files) f.push_back(prefix_ + p);
  std::vector<RangeRequest> h = header_reads;
  for (auto& r : h) r.path = prefix_ + r.path;
  base_.prefetch(f, h);
}

}  // namespace hfi
