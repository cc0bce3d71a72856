// When to try an HTTP request again, and how long to wait first. Pure functions, so the policy is
// tested without a network: 408, 429 and 5xx gateway/server errors are transient; a 429 names its
// own wait through the RateLimit header (draft-ietf-httpapi-ratelimit-headers, which the Hub sends)
// or Retry-After.
#pragma once

#include <optional>

#include "http/http.hpp"

namespace hfi::http {

bool retryable_status(int status);

// The wait the server asked for, in milliseconds: RateLimit "r=0;t=N" or an integer Retry-After,
// plus one second because both count whole seconds of a window that is already running.
std::optional<long> server_requested_wait_ms(const Headers& headers);

// Exponential backoff for attempt 1, 2, ...: base, 2*base, ... capped at `max`, then scaled by
// `jitter` in [0.8, 1.2] so that many clients retrying at once do not stay in step.
long backoff_ms(int attempt, long base, long max, double jitter);

}  // namespace hfi::http
