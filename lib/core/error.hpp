// Error and Result types shared by every module. Errors carry a stable kind (mapped to the CLI's
// exit codes), the file and field at fault, and a hint that tells the user what to do next.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace hfi {

enum class ErrorKind {
  Usage,      // the caller asked for something impossible (bad flag value, bad reference)
  NotFound,   // repository, revision or file absent, or access refused
  Network,    // transport failure, timeout, retries exhausted
  Malformed,  // remote or local data does not follow its format
};

// "usage", "not-found", "network", "malformed": how a kind is named in machine-readable output.
const char* error_kind_name(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::Malformed;
  std::string file;     // which input file (or URL) was at fault, if any
  std::string field;    // which field / tensor / byte range inside it, if any
  std::string message;  // what is wrong
  std::string hint;     // what the user can do about it, if anything

  std::string describe() const;
};

Error malformed(std::string file, std::string field, std::string message);
Error not_found(std::string file, std::string message, std::string hint = {});

// A value or an Error. Small on purpose: exceptions never cross module boundaries.
template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}      // NOLINT(google-explicit-constructor)

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const Error& error() const { return std::get<1>(state_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Error> state_;
};

// Result<void> equivalent.
struct Ok {};
using Status = Result<Ok>;

}  // namespace hfi
