// HubCache's writes: a file the file system refuses part of is not put in place.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "source/hub_cache.hpp"
#include "support/bytes.hpp"

namespace fs = std::filesystem;

TEST_CASE("hub cache: a header pack cut short by the file system is not renamed into place", "[cache]") {
  // A file size limit stands in for a full disk: writes past it fail with EFBIG. The pack is
  // written in pieces under 1 KB (six 800-byte headers, their names and lengths), about 5 KB in
  // all: the stream buffers them, so they reach the file only when it is closed, after every write
  // call has succeeded. The limit is per process: the write runs in a child.
  const fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "hub-cache-fsize";
  fs::remove_all(dir);
  const std::string commit(40, 'a');
  std::map<std::string, std::string> headers;
  for (int i = 1; i <= 6; ++i) headers["model-0000" + std::to_string(i) + "-of-00006.safetensors"] = std::string(800, 'x');
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    rlimit limit{4096, 4096};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(90);
    hfi::HubCache cache(dir, "org/name");
    _exit(cache.store_header_pack(commit, headers) ? 1 : 0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // the write reports failure
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() || entry.is_symlink()) {
      ++files;
      UNSCOPED_INFO("left behind: " << entry.path() << " (" << (entry.is_regular_file() ? fs::file_size(entry.path()) : 0) << " bytes)");
    }
  CHECK(files == 0);  // neither the pack nor its temporary
}

namespace {

// Writes `bytes` as headers.pack of `commit` and returns the pack's path.
fs::path write_pack(const fs::path& dir, const std::map<std::string, std::string>& headers) {
  fs::remove_all(dir);
  hfi::HubCache cache(dir, "org/name");
  const std::string commit(40, 'b');
  REQUIRE(cache.store_header_pack(commit, headers));
  return cache.own_dir(commit) / "headers.pack";
}


}  // namespace

TEST_CASE("header pack: read record by record, each checked on its own", "[cache]") {
  const fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "hub-cache-pack";
  const std::map<std::string, std::string> headers{{"a.safetensors", std::string(100, 'a')}, {"b.safetensors", std::string(200, 'b')}};
  const fs::path pack = write_pack(dir, headers);
  // The layout by hand: 24 bytes of magic; a's record is 4 + 13 + 8 + 100 + 8 bytes; b's bytes
  // start 4 + 13 + 8 bytes into its own.
  REQUIRE(fs::file_size(pack) == 24 + (4 + 13 + 8 + 100 + 8) + (4 + 13 + 8 + 200 + 8));
  std::string bytes;
  {
    hfi::HeaderPackReader reader(pack);
    CHECK_FALSE(reader.damaged());
    CHECK(reader.read("b.safetensors", bytes) == hfi::HeaderPackReader::Lookup::Found);
    CHECK(bytes == headers.at("b.safetensors"));
    CHECK(reader.read("c.safetensors", bytes) == hfi::HeaderPackReader::Lookup::Absent);
  }
  hfi::testing::flip_byte(pack, 24 + 133 + 25 + 50);  // inside b's bytes
  {
    hfi::HeaderPackReader reader(pack);
    CHECK_FALSE(reader.damaged());  // the framing holds
    CHECK(reader.read("a.safetensors", bytes) == hfi::HeaderPackReader::Lookup::Found);
    CHECK(bytes == headers.at("a.safetensors"));
    CHECK(reader.read("b.safetensors", bytes) == hfi::HeaderPackReader::Lookup::Damaged);
  }
  SECTION("a length that runs past the end of the file") {
    hfi::testing::flip_byte(pack, 24 + 4 + 13 + 7);  // the top byte of a's byte count
    hfi::HeaderPackReader reader(pack);
    CHECK(reader.damaged());
    CHECK(reader.read("a.safetensors", bytes) == hfi::HeaderPackReader::Lookup::Absent);
  }
  SECTION("a file cut short") {
    fs::resize_file(pack, fs::file_size(pack) - 3);
    CHECK(hfi::HeaderPackReader(pack).damaged());
  }
  SECTION("another version's magic") {
    hfi::testing::flip_byte(pack, 22);  // the version digit
    CHECK(hfi::HeaderPackReader(pack).damaged());
  }
  SECTION("no pack at all") { CHECK_FALSE(hfi::HeaderPackReader(dir / "none").damaged()); }
}
