// Small helpers the JSON renderers share to build an ordered Json object in one expression.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace hfi {

struct Obj {
  std::vector<Json::Member> members;
  Obj& add(std::string key, Json value) {
    members.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  Obj& add(std::string key, uint64_t v) { return add(std::move(key), Json::make_uint(v)); }
  Obj& add(std::string key, const std::string& v) { return add(std::move(key), Json::make_string(v)); }
  Obj& add(std::string key, const char* v) { return add(std::move(key), Json::make_string(v)); }
  Obj& add(std::string key, bool v) { return add(std::move(key), Json::make_bool(v)); }
  Obj& add_optional(std::string key, const std::optional<uint64_t>& v) {
    return add(std::move(key), v ? Json::make_uint(*v) : Json());
  }
  Json done() { return Json::make_object(std::move(members)); }
};

inline Json shape(std::span<const uint64_t> v) {
  std::vector<Json> items;
  for (auto d : v) items.push_back(Json::make_uint(d));
  return Json::make_array(std::move(items));
}

}  // namespace hfi
