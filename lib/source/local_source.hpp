// A directory on disk holding a model's metadata files and .safetensors shards (only the headers
// of the shards are read). Also used for Hugging Face cache snapshots, whose files are symlinks.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "source/source.hpp"

namespace hfi {

// How far a listing goes: a model repository is shallow, so the walk is bounded, and a wrong path
// (say, $HOME) is refused instead of walked.
struct ListingLimits {
  size_t max_entries = 100'000;
  int max_depth = 3;
};

class LocalSource final : public Source {
 public:
  explicit LocalSource(std::filesystem::path root, SourceKind kind = SourceKind::Local, std::string commit = {},
                       ListingLimits limits = {});

  SourceKind kind() const override { return kind_; }
  std::string location() const override { return root_.string(); }
  std::string commit() const override { return commit_; }
  Result<std::vector<FileEntry>> list_files() override;
  Result<std::optional<std::string>> read_file(const std::string& path, uint64_t max_bytes) override;
  std::vector<Result<std::string>> read_ranges(const std::vector<RangeRequest>& requests) override;

 private:
  Status check_readable(const std::filesystem::path& p) const;

  std::filesystem::path root_;
  SourceKind kind_;
  std::string commit_;
  std::vector<std::filesystem::path> allowed_;  // where a symlink may lead (real paths)
  ListingLimits limits_;
};

}  // namespace hfi
