// One folder of another source, seen as a repository of its own: a pipeline's component
// ("unet/", "2_Dense/") read by the same loader as a whole repository. Paths are the base's with
// the folder in front; nothing is fetched that the base would not fetch.
#pragma once

#include <string>

#include "source/source.hpp"

namespace hfi {

class SubdirSource final : public Source {
 public:
  // `folder` without a trailing '/', non-empty; `base` outlives this view.
  SubdirSource(Source& base, std::string folder) : base_(base), prefix_(std::move(folder) + "/") {}

  SourceKind kind() const override { return base_.kind(); }
  std::string location() const override { return base_.location() + "/" + prefix_.substr(0, prefix_.size() - 1); }
  std::string commit() const override { return base_.commit(); }
  Result<std::vector<FileEntry>> list_files() override;
  Result<std::optional<std::string>> read_file(const std::string& path, uint64_t max_bytes) override {
    return base_.read_file(prefix_ + path, max_bytes);
  }
  std::vector<Result<std::string>> read_ranges(const std::vector<RangeRequest>& requests) override;
  std::optional<Result<SafetensorsIndex>> take_parsed_index(const std::string& path) override {
    return base_.take_parsed_index(prefix_ + path);
  }
  std::optional<Result<SafetensorsHeader>> take_parsed_header(const std::string& path, uint64_t file_size) override {
    return base_.take_parsed_header(prefix_ + path, file_size);
  }
  void keep_header(const std::string& path, std::string bytes) override { base_.keep_header(prefix_ + path, std::move(bytes)); }
  void prefetch(const std::vector<std::string>& files, const std::vector<RangeRequest>& header_reads) override;

 private:
  Source& base_;
  std::string prefix_;
};

}  // namespace hfi
