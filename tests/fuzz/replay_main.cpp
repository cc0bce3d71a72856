// Runs a fuzz target's LLVMFuzzerTestOneInput on every file it is given, without libFuzzer, so that
// the gcc builds (plain, ASan + UBSan, TSan) replay the committed seed corpus under ctest.
// Arguments are files or directories (their regular files, not recursively, in name order).
// Each input is copied into a heap block of exactly its size, as libFuzzer does, so that a read
// past its end is an overflow ASan can see. A missing argument or an empty directory fails: a
// corpus that went missing must not pass as one that ran clean.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs_of(const fs::path& arg) {
  std::vector<fs::path> files;
  if (fs::is_regular_file(arg)) return {arg};
  if (fs::is_directory(arg))
    for (const auto& entry : fs::directory_iterator(arg))
      if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

bool replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return false;
  // new[] of 0 bytes still gives a pointer: libFuzzer never passes null either.
  auto block = std::make_unique<uint8_t[]>(bytes.size());
  std::copy(bytes.begin(), bytes.end(), block.get());
  // Named before it runs, so that the last line before a crash names the input that caused it.
  std::cout << file.string() << " (" << bytes.size() << " bytes)" << std::endl;
  LLVMFuzzerTestOneInput(block.get(), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " FILE_OR_DIR...\n";
    return 2;
  }
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    auto files = inputs_of(argv[i]);
    if (files.empty()) {
      std::cerr << argv[i] << ": no input there\n";
      return 1;
    }
    for (const auto& file : files) {
      if (!replay(file)) {
        std::cerr << file.string() << ": cannot read\n";
        return 1;
      }
      ++replayed;
    }
  }
  std::cout << "replayed " << replayed << " inputs, no finding" << std::endl;
  return 0;
}
