#!/usr/bin/env bash
# Header-reading benchmark: hfinspect's shard-header reader against what @huggingface/hub does with
# a header once its bytes are in (UTF-8 decode, JSON.parse, parameter counts by dtype), on the same
# header files held in memory, in the same invocation. No network: bench/remote_inspect.sh
# measures the fetching. See bench/README.md.
#
#   bash bench/header_parse.sh                          # deepseek-ai/DeepSeek-V3, 20 passes
#   REPO=Qwen/Qwen3-30B-A3B PASSES=40 bash bench/header_parse.sh
#   SKIP_BUILD=1 bash bench/header_parse.sh             # reuse build-bench and bench/peer/node_modules
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="${REPO:-deepseek-ai/DeepSeek-V3}"
passes="${PASSES:-20}"
build="$root/build-bench"
peer="$root/bench/peer"
folder="$root/fixtures/$repo"

die() { echo "header_parse: $*" >&2; exit 1; }
for tool in cmake ninja node npm; do command -v "$tool" >/dev/null || die "$tool is required"; done
[ -d "$folder" ] || die "no fixture folder $folder"

if [ -z "${SKIP_BUILD:-}" ]; then
  echo "== building Release into build-bench" >&2
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHFINSPECT_TESTS=ON >/dev/null || die "cmake configure failed"
  ninja -C "$build" hfinspect-header-parse >&2 || die "building hfinspect-header-parse failed"
  echo "== npm ci in bench/peer" >&2
  (cd "$peer" && npm ci --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed"
fi
[ -x "$build/bench/hfinspect-header-parse" ] || die "missing $build/bench/hfinspect-header-parse"
[ -d "$peer/node_modules/@huggingface/hub" ] || die "run npm ci in bench/peer first"

echo "== hfinspect, $passes passes" >&2
ours="$("$build/bench/hfinspect-header-parse" "$folder" "$passes")" || die "hfinspect-header-parse failed"
echo "== huggingface.js, $passes passes" >&2
theirs="$(cd "$peer" && node parse_headers.mjs "$folder" "$passes")" || die "parse_headers.mjs failed"
json_bytes="$(cat "$folder"/*.safetensors.header.json | wc -c)"

node -e '
const [ours, theirs] = [JSON.parse(process.argv[1]), JSON.parse(process.argv[2])];
const repo = process.argv[3], bytes = Number(process.argv[4]);
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const rows = [
  ["hfinspect (simdjson DOM, kept across headers)", median(ours.ms)],
  ["huggingface.js (decode + JSON.parse + counts)", median(theirs.pass_ms)],
];
console.log(`\nrepo ${repo}: ${ours.files} headers, ${ours.tensors} tensors, ${(bytes / 1e6).toFixed(1)} MB of header JSON, ${ours.ms.length} passes (median pass shown)`);
console.log(`${"reader".padEnd(48)} ${"ms/pass".padStart(8)} ${"ns/tensor".padStart(10)} ${"MB/s".padStart(7)}`);
for (const [name, ms] of rows)
  console.log(`${name.padEnd(48)} ${ms.toFixed(2).padStart(8)} ${(ms * 1e6 / ours.tensors).toFixed(0).padStart(10)} ${(bytes / 1e3 / ms).toFixed(0).padStart(7)}`);
console.log(`ratio huggingface.js / hfinspect: ${(rows[1][1] / rows[0][1]).toFixed(1)}x`);
const same = ours.tensors === theirs.tensors && ours.elements === theirs.elements;
console.log(same ? `both read ${ours.tensors} tensors holding ${ours.elements} elements`
                 : `the readers differ: hfinspect ${ours.tensors} tensors / ${ours.elements} elements, huggingface.js ${theirs.tensors} / ${theirs.elements}`);
' "$ours" "$theirs" "$repo" "$json_bytes"
