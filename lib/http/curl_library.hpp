// libcurl, opened when the first request is made instead of when the program starts. Linked the
// usual way, libcurl brings about thirty libraries (TLS, Kerberos, LDAP, SSH, IDN...) that the
// loader maps and relocates before main() runs: about 5 ms, paid even by runs that never touch the
// network (a local directory, a pinned commit already cached).
#pragma once

#include <curl/curl.h>

#include <string>

namespace hfi::http {

// The entry points curl_transport.cpp uses, resolved from libcurl.so.4.
struct CurlLibrary {
  decltype(&curl_global_init) global_init;
  decltype(&curl_version_info) version_info;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_multi_init) multi_init;
  decltype(&curl_multi_setopt) multi_setopt;
  decltype(&curl_multi_add_handle) multi_add_handle;
  decltype(&curl_multi_remove_handle) multi_remove_handle;
  decltype(&curl_multi_socket_action) multi_socket_action;
  decltype(&curl_multi_info_read) multi_info_read;
  decltype(&curl_multi_cleanup) multi_cleanup;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
};

// Opens libcurl and runs curl_global_init once per process (thread-safe). Null when the library
// or one of its symbols is missing; `why` (if given) then says which.
const CurlLibrary* curl_library(std::string* why = nullptr);

}  // namespace hfi::http
