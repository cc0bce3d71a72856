#include "core/error.hpp"

namespace hfi {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage: return "usage";
    case ErrorKind::NotFound: return "not-found";
    case ErrorKind::Network: return "network";
    case ErrorKind::Malformed: return "malformed";
  }
  return "malformed";
}

std::string Error::describe() const {
  std::string out;
  if (!file.empty()) out += file;
  if (!field.empty()) out += (out.empty() ? "" : ": ") + std::string("field '") + field + "'";
  if (!out.empty()) out += ": ";
  out += message;
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}

Error malformed(std::string file, std::string field, std::string message) {
  return Error{ErrorKind::Malformed, std::move(file), std::move(field), std::move(message), {}};
}

Error not_found(std::string file, std::string message, std::string hint) {
  return Error{ErrorKind::NotFound, std::move(file), {}, std::move(message), std::move(hint)};
}

}  // namespace hfi
