#include "formats/ggml_types.hpp"

#include <array>

namespace hfi {
namespace {

// Block sizes: QK = 32 for the legacy and IQ4_NL/MXFP4 blocks, QK_K = 256 for the k-quants and the
// i-quants. The bytes of a block are its packed values plus its scales (an f16 `d`, and for the
// "_1"/K types a minimum), as each block struct in ggml-common.h lays them out.
constexpr GgmlType kTypes[] = {
    {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},      {3, "Q4_1", 32, 20},
    {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},      {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},
    {10, "Q2_K", 256, 84},    {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
    {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},   {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},
    {22, "IQ2_S", 256, 82},   {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {25, "I16", 1, 2},
    {26, "I32", 1, 4},        {27, "I64", 1, 8},        {28, "F64", 1, 8},        {29, "IQ1_M", 256, 56},
    {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},   {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},
    {40, "NVFP4", 64, 36},    {41, "Q1_0", 128, 18},    {42, "Q2_0", 64, 18},
};

struct FileTypeName {
  uint64_t value;
  std::string_view name;
};

// llama.h's llama_ftype: what general.file_type records about the mix a quantization chose.
constexpr FileTypeName kFileTypes[] = {
    {0, "F32"},      {1, "F16"},      {2, "Q4_0"},    {3, "Q4_1"},     {7, "Q8_0"},    {8, "Q5_0"},     {9, "Q5_1"},
    {10, "Q2_K"},    {11, "Q3_K_S"},  {12, "Q3_K_M"}, {13, "Q3_K_L"},  {14, "Q4_K_S"}, {15, "Q4_K_M"},  {16, "Q5_K_S"},
    {17, "Q5_K_M"},  {18, "Q6_K"},    {19, "IQ2_XXS"}, {20, "IQ2_XS"}, {21, "Q2_K_S"}, {22, "IQ3_XS"},  {23, "IQ3_XXS"},
    {24, "IQ1_S"},   {25, "IQ4_NL"},  {26, "IQ3_S"},  {27, "IQ3_M"},   {28, "IQ2_S"},  {29, "IQ2_M"},   {30, "IQ4_XS"},
    {31, "IQ1_M"},   {32, "BF16"},    {36, "TQ1_0"},  {37, "TQ2_0"},   {38, "MXFP4_MOE"}, {39, "NVFP4"}, {40, "Q1_0"},
};

}  // namespace

std::optional<GgmlType> ggml_type(uint32_t id) {
  for (const auto& t : kTypes)
    if (t.id == id) return t;
  return std::nullopt;
}

std::optional<std::string_view> llama_file_type_name(uint64_t file_type) {
  for (const auto& f : kFileTypes)
    if (f.value == file_type) return f.name;
  return std::nullopt;
}

}  // namespace hfi
