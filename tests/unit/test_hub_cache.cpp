// HubCache's writes: a file the file system refuses part of is not put in place.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>

#include "source/hub_cache.hpp"

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
