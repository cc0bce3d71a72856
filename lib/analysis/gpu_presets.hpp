// The accelerators `fit --gpu` knows: one row each, with the memory the driver reports (what an
// engine's utilization share is taken of) and where that figure was seen.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace hfi {

struct GpuPreset {
  std::string_view name;    // as --gpu takes it, e.g. "h100-80gb"
  std::string_view label;   // as people say it, e.g. "H100 80GB"
  uint64_t bytes;           // total memory as the driver reports it
  std::string_view source;  // where that figure comes from
};

std::span<const GpuPreset> gpu_presets();
// By name, ignoring case, '-', '_' and spaces ("H100 80GB" finds "h100-80gb"); null when unknown.
const GpuPreset* find_gpu_preset(std::string_view name);
// "h100-80gb, h100-nvl, ..." for messages.
std::string gpu_preset_names();

}  // namespace hfi
