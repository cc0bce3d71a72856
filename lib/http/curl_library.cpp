#include "http/curl_library.hpp"

#include <dlfcn.h>


namespace hfi::http {
namespace {

struct Loaded {
  CurlLibrary api{};
  bool ok = false;
  std::string why;
};

// dlsym hands back a void*; each entry point is stored with its own declared type.
template <typename Fn>
bool resolve(void* handle, const char* name, Fn& out, std::string& why) {
  void* symbol = dlsym(handle, name);
  if (!symbol) {
    why = std::string("libcurl has no ") + name;
    return false;
  }
  out = reinterpret_cast<Fn>(symbol);
  return true;
}

Loaded load() {
  Loaded l;
  // The soname the build linked against (libcurl4-openssl-dev's libcurl.so points at it). Never
  // closed: the library stays for the rest of the process, as a linked one would. Lazy binding,
  // as the loader does for linked libraries: resolving every symbol of libcurl's thirty-odd
  // dependencies up front cost about 0.5 ms more; the entry points below are checked one by one.
  void* handle = dlopen(HFI_LIBCURL_SONAME, RTLD_LAZY | RTLD_LOCAL);
  if (!handle) {
    const char* error = dlerror();
    l.why = std::string("cannot load " HFI_LIBCURL_SONAME ": ") + (error ? error : "unknown error");
    return l;
  }
  CurlLibrary& a = l.api;
  l.ok = resolve(handle, "curl_global_init", a.global_init, l.why) &&
         resolve(handle, "curl_version_info", a.version_info, l.why) &&
         resolve(handle, "curl_easy_init", a.easy_init, l.why) &&
         resolve(handle, "curl_easy_setopt", a.easy_setopt, l.why) &&
         resolve(handle, "curl_easy_getinfo", a.easy_getinfo, l.why) &&
         resolve(handle, "curl_easy_cleanup", a.easy_cleanup, l.why) &&
         resolve(handle, "curl_easy_strerror", a.easy_strerror, l.why) &&
         resolve(handle, "curl_multi_init", a.multi_init, l.why) &&
         resolve(handle, "curl_multi_setopt", a.multi_setopt, l.why) &&
         resolve(handle, "curl_multi_add_handle", a.multi_add_handle, l.why) &&
         resolve(handle, "curl_multi_remove_handle", a.multi_remove_handle, l.why) &&
         resolve(handle, "curl_multi_socket_action", a.multi_socket_action, l.why) &&
         resolve(handle, "curl_multi_info_read", a.multi_info_read, l.why) &&
         resolve(handle, "curl_multi_cleanup", a.multi_cleanup, l.why) &&
         resolve(handle, "curl_slist_append", a.slist_append, l.why) &&
         resolve(handle, "curl_slist_free_all", a.slist_free_all, l.why);
  if (l.ok && a.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    l.ok = false;
    l.why = "curl_global_init failed";
  }
  return l;
}

}  // namespace

const CurlLibrary* curl_library(std::string* why) {
  static const Loaded loaded = load();  // C++ runs this once, even with several threads asking
  if (!loaded.ok && why) *why = loaded.why;
  return loaded.ok ? &loaded.api : nullptr;
}

}  // namespace hfi::http
