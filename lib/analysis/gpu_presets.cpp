#include "analysis/gpu_presets.hpp"

#include "core/text.hpp"

#include <array>

namespace hfi {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// The totals nvidia-smi (amd-smi for AMD) prints, as quoted in public logs; MiB = 2^20 bytes.
constexpr std::array<GpuPreset, 14> kPresets{{
    {"h100-80gb", "H100 80GB", 81559 * kMiB, "nvidia-smi \"0MiB / 81559MiB\", github.com/NVIDIA/nccl/issues/1264"},
    {"h100-nvl", "H100 NVL 94GB", 95830 * kMiB, "nvidia-smi \"0MiB / 95830MiB\", github.com/NVIDIA/gpu-admin-tools/issues/4"},
    {"h200", "H200 141GB", 143771 * kMiB, "nvidia-smi \"124585MiB / 143771MiB\", github.com/sgl-project/sglang/issues/3196"},
    {"b200", "B200", 183359 * kMiB, "nvidia-smi \"166593MiB / 183359MiB\", github.com/NVIDIA/TensorRT-LLM/issues/10278"},
    {"a100-40gb", "A100 40GB", 40960 * kMiB, "nvidia-smi \"598MiB / 40960MiB\", github.com/bottlerocket-os/bottlerocket-core-kit/pull/834"},
    {"a100-80gb", "A100 80GB", 81920 * kMiB, "nvidia-smi \"23100MiB / 81920MiB\", github.com/XuehaiPan/nvitop/pull/8"},
    {"l40s", "L40S", 46068 * kMiB, "nvidia-smi \"46068 MiB\", github.com/akash-network/provider-configs/pull/99"},
    {"l4", "L4", 23034 * kMiB, "nvidia-smi \"0MiB / 23034MiB\", github.com/speaches-ai/speaches/pull/438"},
    {"a10g", "A10G", 23028 * kMiB, "nvidia-smi \"8722MiB / 23028MiB\", github.com/NVIDIA/DCGM/issues/232"},
    {"rtx-3090", "RTX 3090", 24576 * kMiB, "nvidia-smi \"22598MiB / 24576MiB\", github.com/noonghunna/club-3090/issues/1128"},
    {"rtx-4090", "RTX 4090", 24564 * kMiB, "nvidia-smi \"507MiB / 24564MiB\", github.com/RLinf/RLinf/issues/255"},
    {"rtx-5090", "RTX 5090", 32607 * kMiB, "nvidia-smi \"492MiB / 32607MiB\", github.com/noonghunna/club-3090/issues/617"},
    {"mi300x", "MI300X", 206'141'652'992, "rocm-smi \"VRAM Total Memory (B): 206141652992\", github.com/ROCm/legacy-rocm-build/issues/4750"},
    {"mi325x", "MI325X", 262128 * kMiB, "PyTorch \"255.98 GiB\" (262,128 MiB), github.com/vllm-project/vllm/issues/41962"},
}};


}  // namespace

std::span<const GpuPreset> gpu_presets() { return kPresets; }

const GpuPreset* find_gpu_preset(std::string_view name) {
  const std::string wanted = squashed_name(name);
  for (const GpuPreset& p : kPresets)
    if (squashed_name(p.name) == wanted || squashed_name(p.label) == wanted) return &p;
  return nullptr;
}

std::string gpu_preset_names() {
  std::string out;
  for (const GpuPreset& p : kPresets) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

}  // namespace hfi
