# Everything comes from Debian's packages (see README): libcurl, libcrypto (OpenSSL, which libcurl links
# anyway), simdjson, CLI11, spdlog, Catch2.
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(Threads REQUIRED)
find_package(simdjson REQUIRED)
find_package(CLI11 REQUIRED)
find_package(spdlog REQUIRED)
if(HFINSPECT_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()
