// Interned text: a handful of distinct strings repeated across tens of thousands of records (the
// storage format of every logical tensor: "BF16", "FP8 block 128x128") is stored once for the
// life of the process, and records hold views. Safe to call from several threads.
#pragma once

#include <string_view>

namespace hfi {

// A view of a process-lifetime copy of `text`; equal texts give the same view.
std::string_view intern(std::string_view text);

}  // namespace hfi
