# Everything comes from Debian's packages (see README): libcurl, simdjson, CLI11, spdlog, Catch2.
find_package(CURL REQUIRED)
# The library opens libcurl itself at its first request (lib/http/curl_library.hpp), by the soname
# of the one found here: libcurl.so.4.8.0 -> libcurl.so.4.
get_target_property(HFINSPECT_LIBCURL_FILE CURL::libcurl LOCATION)
file(REAL_PATH "${HFINSPECT_LIBCURL_FILE}" HFINSPECT_LIBCURL_FILE)
get_filename_component(HFINSPECT_LIBCURL_SONAME "${HFINSPECT_LIBCURL_FILE}" NAME)
string(REGEX REPLACE "^(.*\\.so\\.[0-9]+).*$" "\\1" HFINSPECT_LIBCURL_SONAME "${HFINSPECT_LIBCURL_SONAME}")
message(STATUS "libcurl, opened at run time as ${HFINSPECT_LIBCURL_SONAME}")
find_package(Threads REQUIRED)
find_package(simdjson REQUIRED)
find_package(CLI11 REQUIRED)
find_package(spdlog REQUIRED)
if(HFINSPECT_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()
