// `hfinspect fit TARGET`: will the model fit on these GPUs, and with how much context and how
// many sequences (docs/fit.md).
#pragma once

#include <string>

#include "app/inspect.hpp"

namespace hfi::cli {

struct FitFlags {
  std::string target;
  std::string gpu;          // --gpu
  std::string gpu_mem;      // --gpu-mem, parsed by run_fit
  uint32_t gpus = 0, tp = 0, pp = 1;
  bool ep = false;
  std::string utilization = "0.90";
  std::string reserve;      // --reserve; empty: derived
  std::string weight_dtype;
  std::string format = "text";  // --format, or --json / --markdown
};

void define_fit(CLI::App& command, FitFlags& flags);
int run_fit(const FitFlags& fit, const CommonFlags& common, spdlog::logger& log);

}  // namespace hfi::cli
