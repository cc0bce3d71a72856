#include "app/fit.hpp"

#include "core/quantity.hpp"
#include "pipeline/fit.hpp"
#include "report/render_fit.hpp"

namespace hfi::cli {
namespace {

Error bad(const char* flag, const std::string& value, const std::string& accepted) {
  return Error{ErrorKind::Usage, flag, "", "'" + value + "' is not accepted", accepted};
}

Result<FitRequest> fit_request(const FitFlags& f) {
  FitRequest q;
  q.gpu = f.gpu;
  if (!f.gpu_mem.empty()) {
    q.gpu_bytes = parse_byte_size(f.gpu_mem);
    if (!q.gpu_bytes || *q.gpu_bytes == 0) return bad("--gpu-mem", f.gpu_mem, "give a size such as 80GiB, 24GB or 93.5GB (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)");
  }
  if (!f.gpu.empty() && q.gpu_bytes) return Error{ErrorKind::Usage, "--gpu", "", "and --gpu-mem both name the GPU", "give one of them"};
  q.gpus = f.gpus;
  q.tp = f.tp;
  q.pp = f.pp;
  q.ep = f.ep;
  auto utilization = parse_fraction(f.utilization);
  if (!utilization) return bad("--utilization", f.utilization, "give a fraction above 0 and at most 1, such as 0.9");
  q.utilization = *utilization;
  if (!f.reserve.empty()) {
    q.reserve_bytes = parse_byte_size(f.reserve);
    if (!q.reserve_bytes) return bad("--reserve", f.reserve, "give a size such as 2GiB or 0");
  }
  if (!f.weight_dtype.empty()) {
    q.weight_format = parse_weight_format(f.weight_dtype);
    if (!q.weight_format) return bad("--weight-dtype", f.weight_dtype, "use bf16, fp16, fp8, int8, int4, nvfp4 or mxfp4");
  }
  return q;
}

}  // namespace

void define_fit(CLI::App& command, FitFlags& flags) {
  command.add_option("target", flags.target, "a directory, a cache snapshot, or org/name[@revision]")->required();
  command.add_option("--gpu", flags.gpu, "a GPU by name (h100-80gb, a100-80gb, l4, rtx-4090, mi300x, ...); default: the smallest that fits")
      ->type_name("NAME");
  command.add_option("--gpu-mem", flags.gpu_mem, "memory of one GPU instead of a preset: 80GiB, 24GB")->type_name("SIZE");
  command.add_option("--gpus", flags.gpus, "GPUs in all (default: TP x PP)")->check(CLI::Range(1u, 4096u).description(""))->type_name("N");
  command.add_option("--tp", flags.tp, "tensor-parallel size (default: --gpus / PP, else 1)")->check(CLI::Range(1u, 4096u).description(""))->type_name("N");
  command.add_option("--pp", flags.pp, "pipeline-parallel size (default 1)")->check(CLI::Range(1u, 4096u).description(""))->type_name("N");
  command.add_flag("--ep", flags.ep, "spread whole routed experts over the TP ranks instead of splitting each");
  command.add_option("--utilization", flags.utilization, "share of each GPU the engine takes (default 0.90)")->type_name("F");
  command.add_option("--reserve", flags.reserve, "of that share, what activations, CUDA graphs and the runtime keep (default: derived)")
      ->type_name("SIZE");
  command.add_option("--weight-dtype", flags.weight_dtype, "serve the linear weights as bf16, fp16, fp8, int8, int4, nvfp4 or mxfp4")
      ->type_name("TYPE");
  command.add_option("--format", flags.format, "text, json (docs/fit.md) or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}).description(""))
      ->type_name("FORMAT");
  add_format_aliases(command, flags.format);
}

int run_fit(const FitFlags& fit, const CommonFlags& common, spdlog::logger& log) {
  auto request = fit_request(fit);
  if (!request) return fail(request.error());
  auto report = inspect_target(fit.target, common.fetch, common.report_options(), log);
  if (!report) return fail(report.error());
  auto answer = fit_report(*report, *request);
  if (!answer) return fail(answer.error());
  if (fit.format == "json") return print(render_fit_json(*report, *answer), 0);
  if (fit.format == "markdown") return print(render_fit_markdown(*report, *answer), 0);
  return print(render_fit_text(*report, *answer, terminal_width()), 0);
}

}  // namespace hfi::cli
