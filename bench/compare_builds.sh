#!/usr/bin/env bash
# Two hfinspect binaries, cold runs interleaved, through two test hubs (LATENCY_MS per response,
# default 50, and 0): median wall time at each latency, the latency rounds each paid
# ((wall at L - wall at 0) / L), median user + system CPU, and peak RSS.
#
#   bash bench/compare_builds.sh OLD_BINARY NEW_BINARY            # deepseek-ai/DeepSeek-V3, 15 runs
#   REPO=Qwen/Qwen3-30B-A3B RUNS=21 bash bench/compare_builds.sh A B
# Needs build/tests/hfinspect-testhub (or HUB=...) and /usr/bin/time.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
old=$1 new=$2
repo="${REPO:-deepseek-ai/DeepSeek-V3}" runs="${RUNS:-15}" latency="${LATENCY_MS:-50}"
hub="${HUB:-$root/build/tests/hfinspect-testhub}"
work="$(mktemp -d "${TMPDIR:-/tmp}/hfinspect-compare.XXXXXX")"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT INT TERM
for l in "$latency" 0; do
  "$hub" --fixtures "$root/fixtures" --latency-ms "$l" --ready-file "$work/ready$l" >/dev/null 2>&1 &
  pids+=($!)
done
for _ in $(seq 100); do [ -s "$work/ready$latency" ] && [ -s "$work/ready0" ] && break; sleep 0.1; done
for l in "$latency" 0; do
  endpoint="$(head -n1 "$work/ready$l")"
  for ((i = 0; i < runs; i++)); do
    for bin in "$old" "$new"; do
      rm -rf "$work/cache"
      sleep 0.3
      # The wall clock is read here, to the microsecond: time(1)'s %e has 10 ms steps, a fifth of a
      # latency round.
      start=${EPOCHREALTIME//[!0-9]/}
      /usr/bin/time -f "%U %S %M" -o "$work/time" env -u HF_TOKEN -u HF_HUB_OFFLINE HF_HOME="$work/home" \
        HF_HUB_CACHE="$work/cache" HF_ENDPOINT="$endpoint" "$bin" "$repo" --json >/dev/null 2>&1 || echo "a run of $bin failed" >&2
      end=${EPOCHREALTIME//[!0-9]/}
      echo "$l $bin $(((end - start) / 1000)) $(tail -n1 "$work/time")" >>"$work/log"
    done
  done
done
echo "$repo, $runs cold runs of each binary per latency, interleaved; load: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v L="$latency" -v old="$old" -v new="$new" '
  function median(list, n,   i, j, x, a) { n = split(list, a, " "); for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { wall[$1 " " $2] = wall[$1 " " $2] " " $3; cpu[$1 " " $2] = cpu[$1 " " $2] " " ($4 + $5) * 1000; if ($6 > peak[$2]) peak[$2] = $6 }
  END {
    printf "%-10s %12s %12s %14s %14s %10s\n", "binary", "wall@" L " ms", "wall@0 ms", "rounds paid", "user+sys ms", "peak MB"
    split(old " " new, bins, " ")
    for (k = 1; k <= 2; k++) { b = bins[k]; w = median(wall[L " " b]); w0 = median(wall["0 " b])
      printf "%-10s %12.0f %12.0f %14.2f %14.0f %10.1f\n", (k == 1 ? "old" : "new"), w, w0, (w - w0) / L, median(cpu[L " " b]), peak[b] / 1024 }
  }' "$work/log"
