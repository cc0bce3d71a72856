#!/usr/bin/env bash
# Parameter counts of the quantized fixtures: hfinspect's logical total against what
# @huggingface/hub's parseSafetensorsMetadata reports, both reading the same repository through the
# loopback test hub. docs/quantization.md explains every difference this prints.
#
#   bash bench/quant_counts.sh              # builds build-bench (Release) and runs npm ci first
#   SKIP_BUILD=1 bash bench/quant_counts.sh # reuse build-bench and bench/peer as they are
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD:-$root/build-bench}"
peer="$root/bench/peer"
die() { echo "quant_counts: $*" >&2; exit 1; }
for tool in cmake ninja node npm python3; do command -v "$tool" >/dev/null || die "$tool is required"; done

if [ -z "${SKIP_BUILD:-}" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHFINSPECT_TESTS=ON >/dev/null || die "cmake configure failed"
  ninja -C "$build" hfinspect hfinspect-testhub >&2 || die "build failed"
  (cd "$peer" && npm ci --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed"
fi
hub_bin="$build/tests/hfinspect-testhub"
hfi_bin="$build/app/hfinspect"
for b in "$hub_bin" "$hfi_bin"; do [ -x "$b" ] || die "missing $b"; done

work="$(mktemp -d "${TMPDIR:-/tmp}/hfinspect-quant.XXXXXX")"
hub_pid=""
cleanup() {
  [ -n "$hub_pid" ] && kill -TERM "$hub_pid" 2>/dev/null && wait "$hub_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The hub serves every <org>/<name> folder of fixtures/ with virtual full-size shards built from
# the header files; the intact quantized fixtures are the repos quantized/<name>.
repos=()
for dir in "$root"/fixtures/quantized/*/; do
  name="$(basename "$dir")"
  [ "$name" = broken ] || repos+=("quantized/$name")
done

"$hub_bin" --fixtures "$root/fixtures" --ready-file "$work/ready" >"$work/hub.out" 2>"$work/hub.err" &
hub_pid=$!
for _ in $(seq 300); do [ -s "$work/ready" ] && break; sleep 0.1; done
[ -s "$work/ready" ] || die "the test hub did not start: $(cat "$work/hub.err")"
endpoint="$(head -n1 "$work/ready")"
env_hub=(env -u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_HUB_OFFLINE HF_HOME="$work/hf-home" HF_ENDPOINT="$endpoint")

printf '%-44s %16s %16s %16s %16s\n' fixture hfinspect_total stored_elements huggingface.js difference
for repo in "${repos[@]}"; do
  ours="$("${env_hub[@]}" "$hfi_bin" "$repo" --json 2>"$work/err" |
    python3 -c 'import json,sys; p=json.load(sys.stdin)["params"]; print(p["total"], p["stored_elements"])')" ||
    ours="error error"
  theirs="$("${env_hub[@]}" node "$peer/parse.mjs" "$endpoint" "$repo" 2>>"$work/err" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["total"] if d["total"] is not None else sum(d["parameters"].values()))')" ||
    theirs=error
  read -r total stored <<<"$ours"
  diff=-
  [[ "$total" =~ ^[0-9]+$ && "$theirs" =~ ^[0-9]+$ ]] && diff=$((theirs - total))
  printf '%-44s %16s %16s %16s %16s\n' "$repo" "$total" "$stored" "$theirs" "$diff"
done
