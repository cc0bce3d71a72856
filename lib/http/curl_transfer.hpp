// One HTTP request as libcurl transfers it: the easy handle's setup, what of the body is kept (a
// range cut out of a 200, a safetensors header that ends at its own length, a capped error page),
// and what the finished transfer means (an answer, a redirect to follow, a retry). The event loop
// that runs many of these at once is curl_transport.cpp.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>

#include "http/http.hpp"

namespace hfi::http {

using Clock = std::chrono::steady_clock;

// What a finished transfer leads to.
enum class Next { Done, Follow, Retry };

struct Transfer {
  size_t index = 0;  // its place in the run
  Request request;
  Response response;
  std::string url;  // of the current hop
  bool authorize = false;
  CURL* easy = nullptr;
  curl_slist* header_list = nullptr;
  Clock::time_point due{};  // when a retry may start
  // State of the hop being received.
  Headers headers;
  long status = 0;
  bool mode_chosen = false;
  uint64_t skip = 0;         // bytes of a 200 body to drop before the wanted range starts
  uint64_t keep = 0;         // bytes to keep
  bool prefix_read = false;  // length_prefixed: `keep` has been cut to 8 + N
  bool cut = false;          // the transfer was ended on purpose (enough bytes)
  bool too_large = false;
  uint64_t drained = 0;      // bytes of a redirect's body thrown away
  Clock::time_point started{};   // when the hop was prepared
  long slack_ms = 0;             // of the hop's deadline, the part that does not grow with its size
  Clock::time_point deadline{};  // the hop's deadline, brought forward once Content-Length is known
  bool past_deadline = false;    // the hop was cut at its deadline
};

// Starts the chain again at the request's own URL (a new request, or a retry: a CDN's signed
// URL may have expired meanwhile), keeping the count of attempts.
void restart_chain(Transfer& transfer, const ClientOptions& options);

// Makes the easy handle for the transfer's current hop; the caller adds it to its multi handle.
void prepare_easy(Transfer& transfer, const ClientOptions& options, const std::string& user_agent);

// Frees the easy handle and its header list.
void release_easy(Transfer& transfer);

// Reads a finished hop (libcurl's result `code`) into the response and says what comes next.
// With Next::Retry, the transfer's `due` is set.
Next finish_hop(Transfer& transfer, CURLcode code, const ClientOptions& options, std::mt19937& rng);

}  // namespace hfi::http
