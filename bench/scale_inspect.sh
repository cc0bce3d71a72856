#!/usr/bin/env bash
# Scale benchmark: hfinspect against @huggingface/hub's parseSafetensorsMetadata on a synthetic
# ~500,000-tensor repository (bench/make_scale_repo.py: DeepSeek-V3 with 2816 routed experts in
# BF16, 400 shards, a 46 MB index), both reading it from the loopback test hub in the same
# invocation. See bench/README.md ("Scale") for the method and the targets.
#
#   bash bench/scale_inspect.sh                       # builds Release into build-bench, npm ci, runs
#   SKIP_BUILD=1 RUNS=5 bash bench/scale_inspect.sh   # reuse build-bench; runs per row (medians)
#   HFINSPECT=build/app/hfinspect SKIP_BUILD=1 bash bench/scale_inspect.sh   # another binary
#   LATENCY_MS=0 PAUSE_MS=0 bash bench/scale_inspect.sh
#   EXPERTS=256 SHARDS=163 bash bench/scale_inspect.sh   # a smaller repository of the same kind
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
latency_ms="${LATENCY_MS:-50}"
runs="${RUNS:-3}"
pause_ms="${PAUSE_MS:-1000}"
max_failures="${MAX_FAILURES:-6}"  # failed peer runs dropped and run again, per invocation
experts="${EXPERTS:-2816}"
shards="${SHARDS:-400}"
repo="bench-scale/DeepSeek-V3-E${experts}"
build="$root/build-bench"
peer="$root/bench/peer"
# The issue's targets for hfinspect's cold run against the peer's.
rss_target=0.5
wall_target=0.3

die() { echo "scale_inspect: $*" >&2; exit 1; }
for tool in cmake ninja node npm curl python3; do command -v "$tool" >/dev/null || die "$tool is required"; done
[ -x /usr/bin/time ] || die "/usr/bin/time is required (Debian package: time)"

hub_bin="$build/tests/hfinspect-testhub"
hfi_bin="${HFINSPECT:-$build/app/hfinspect}"
if [ -z "${SKIP_BUILD:-}" ]; then
  echo "== building Release into build-bench" >&2
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHFINSPECT_TESTS=ON >/dev/null ||
    die "cmake configure failed"
  targets=(hfinspect-testhub)
  [ -n "${HFINSPECT:-}" ] || targets+=(hfinspect)
  ninja -C "$build" -j "${JOBS:-2}" "${targets[@]}" >&2 || die "building ${targets[*]} failed"
  echo "== npm ci in bench/peer" >&2
  (cd "$peer" && npm ci --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed"
fi
[ -x "$hub_bin" ] || die "missing $hub_bin"
[ -x "$hfi_bin" ] || die "missing $hfi_bin"
[ -d "$peer/node_modules/@huggingface/hub" ] || die "run npm ci in bench/peer first"

work="$(mktemp -d "${TMPDIR:-/tmp}/hfinspect-scale.XXXXXX")"
hub_pid=""
cleanup() {
  if [ -n "$hub_pid" ]; then kill -TERM "$hub_pid" 2>/dev/null; wait "$hub_pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

load_before="$(uptime)"
echo "== generating $repo ($experts experts, $shards shards)" >&2
python3 "$root/bench/make_scale_repo.py" --out "$work/fixtures" --repo "$repo" --experts "$experts" \
  --shards "$shards" >"$work/generated" || die "the generator failed"
cat "$work/generated" >&2

echo "== starting hfinspect-testhub (latency ${latency_ms} ms)" >&2
"$hub_bin" --fixtures "$work/fixtures" --latency-ms "$latency_ms" \
  --ready-file "$work/ready" >"$work/hub.out" 2>"$work/hub.err" &
hub_pid=$!
# The hub reads and parses every header before it listens: seconds for this repository.
for _ in $(seq 600); do [ -s "$work/ready" ] && break; kill -0 "$hub_pid" 2>/dev/null || break; sleep 0.1; done
[ -s "$work/ready" ] || die "the test hub did not start: $(cat "$work/hub.err")"
endpoint="$(head -n1 "$work/ready")"

# JSON field extraction with node, which the peer needs anyway: json_get a.b.c < file.
json_get() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{let v=JSON.parse(s);for(const k of process.argv[1].split("."))v=v?.[k];console.log(v===undefined||v===null?"":v)})' "$1"; }
# Requests in the hub's log, both origins: "TOTAL HUB CDN".
count_requests() { curl -fsS "$endpoint/_testhub/requests" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);const h=r.filter(x=>x.origin==="hub").length;console.log(`${r.length} ${h} ${r.length-h}`)})'; }
reset_log() { curl -fsS -X POST "$endpoint/_testhub/reset" >/dev/null; }
now_ms() { local t=${EPOCHREALTIME//[!0-9]/}; printf -v "$1" '%s' $((t / 1000)); }  # microseconds, whatever the locale's point
pause() { [ "$pause_ms" -gt 0 ] && sleep "$(awk -v m="$pause_ms" 'BEGIN { printf "%.3f", m / 1000 }')"; return 0; }

commit="$(curl -fsS "$endpoint/api/models/$repo" | json_get sha)"
[ -n "$commit" ] || die "no sha for $repo from $endpoint"

rows=()  # "tool|requests|hub|cdn|median_ms|min_ms|max_ms|runs|peak_kb|least_peak_kb|failed|status"
# run NAME [--fresh-cache] [--retry] COMMAND... : $runs runs, each with the request log reset (and,
# with --fresh-cache, an empty $cache). Records the median, fastest and slowest wall time, the
# largest and the smallest peak RSS, and the requests of the last run; keeps the last run's output as $work/NAME.out.
# A failing run ends the row, unless --retry: then it is counted, dropped and run again, up to
# $max_failures times in the row.
run() {
  local name="$1"; shift
  local fresh="" retry=""
  if [ "$1" = --fresh-cache ]; then fresh=1; shift; fi
  if [ "$1" = --retry ]; then retry=1; shift; fi
  local walls=() peak=0 least="" rc=0 failed=0 t0 t1 kb error=""
  while [ "${#walls[@]}" -lt "$runs" ]; do
    if [ -n "$fresh" ]; then rm -rf "$cache"; mkdir -p "$cache"; fi
    reset_log
    pause
    now_ms t0
    /usr/bin/time -f %M -o "$work/rss" "$@" >"$work/out" 2>"$work/err"
    rc=$?
    now_ms t1
    if [ "$rc" -ne 0 ]; then
      error="$(grep -v '^Command exited' "$work/err" | head -n1 | cut -c1-160)"
      failed=$((failed + 1))
      [ -n "$retry" ] && [ "$failed" -le "$max_failures" ] && continue
      break
    fi
    walls+=($((t1 - t0)))
    kb=$(tail -n1 "$work/rss")
    [ "${kb:-0}" -gt "$peak" ] && peak=$kb
    { [ -z "$least" ] || [ "${kb:-0}" -lt "$least" ]; } && least=$kb
  done
  local counts; counts=($(count_requests))
  if [ "$rc" -ne 0 ]; then
    rows+=("$name|${counts[0]}|${counts[1]}|${counts[2]}|-|-|-|-|-|-|$failed|FAILED (exit $rc): $error")
    return
  fi
  local sorted; sorted=($(printf '%s\n' "${walls[@]}" | sort -n))
  local status=ok
  [ "$failed" -gt 0 ] && status="ok; $failed failed run(s) dropped, the last: $error"
  rows+=("$name|${counts[0]}|${counts[1]}|${counts[2]}|${sorted[$(( (runs - 1) / 2 ))]}|${sorted[0]}|${sorted[-1]}|$runs|$peak|$least|$failed|$status")
  cp "$work/out" "$work/$name.out"
}
row_field() {  # row_field NAME FIELD : a field (1-based, as in rows) of a row that ran, else nothing
  local row
  for row in "${rows[@]}"; do
    [ "${row%%|*}" = "$1" ] && [[ "${row##*|}" = ok* ]] && cut -d'|' -f"$2" <<<"$row"
  done
}

cache="$work/hf-cache"
isolated=(env -u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_HUB_OFFLINE HF_HOME="$work/hf-home" HF_ENDPOINT="$endpoint"
          HF_HUB_CACHE="$cache")
# One untimed cold run first: the hub has just started, and its first answers (and the machine's
# caches) are not what the timed runs should measure.
rm -rf "$cache"; mkdir -p "$cache"
"${isolated[@]}" "$hfi_bin" "$repo" --json >/dev/null 2>&1
echo "== hfinspect cold ($repo), $runs runs" >&2
run hfinspect-cold --fresh-cache "${isolated[@]}" "$hfi_bin" "$repo" --json
# The cache the last cold run left: a second run of the same commit, as a user repeats it.
echo "== hfinspect warm ($repo@$commit), $runs runs" >&2
run hfinspect-warm "${isolated[@]}" "$hfi_bin" "$repo@$commit" --json
echo "== @huggingface/hub parseSafetensorsMetadata, $runs runs" >&2
# --retry: through this hub, the peer's fetch (undici) sometimes sends a request on a connection
# the hub is closing ("fetch failed", "other side closed"; the library reports one that hits a
# header read as "not valid JSON"). The hub drops connections idle for 2 s, undici keeps them for
# 4 s unless told otherwise, and its event loop, busy on the 46 MB index for seconds, sees the
# close too late. Such runs are dropped and counted.
run huggingface.js --fresh-cache --retry "${isolated[@]}" node "$peer/parse.mjs" "$endpoint" "$repo"
load_after="$(uptime)"

echo
sed 's/^/generated: /' "$work/generated"
echo "repo $repo at $commit, ${latency_ms} ms added to every response (hub and CDN), ${pause_ms} ms pause before each run"
echo "load before: $load_before"
echo "load after:  $load_after"
printf '%-16s %9s %6s %6s %9s %15s %9s %13s  %s\n' tool requests hub cdn wall_ms "min-max (n)" peak_MB "peaks_MB" status
for row in "${rows[@]}"; do
  IFS='|' read -r name req hub cdn wall lo hi n kb least _ status <<<"$row"
  mb=- spread=- peaks=-
  if [ "$wall" != - ]; then
    mb=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
    spread="$lo-$hi ($n)"
    peaks=$(awk -v a="$least" -v b="$kb" 'BEGIN { printf "%.0f-%.0f", a / 1024, b / 1024 }')
  fi
  printf '%-16s %9s %6s %6s %9s %15s %9s %13s  %s\n' "$name" "$req" "$hub" "$cdn" "$wall" "$spread" "$mb" "$peaks" "$status"
done
echo "(wall_ms is the median of the runs, process start to exit; peak_MB the largest maximum RSS of the runs, peaks_MB the range of them)"
# The hub holds every file in memory; its peak so far, for the machine's budget.
echo "(the test hub's own peak RSS: $(awk '/^VmHWM/ { printf "%.0f MB", $2 / 1024 }' "/proc/$hub_pid/status" 2>/dev/null))"

# hfinspect's cold run against the peer's, with the issue's targets.
h_wall="$(row_field hfinspect-cold 5)"; h_kb="$(row_field hfinspect-cold 9)"
p_wall="$(row_field huggingface.js 5)"; p_kb="$(row_field huggingface.js 9)"
verdict() {  # verdict RATIO TARGET
  awk -v r="$1" -v t="$2" 'BEGIN { print (r <= t ? "pass" : "FAIL") }'
}
if [ -n "$h_wall" ] && [ -n "$p_wall" ]; then
  rss_ratio=$(awk -v h="$h_kb" -v p="$p_kb" 'BEGIN { printf "%.2f", h / p }')
  wall_ratio=$(awk -v h="$h_wall" -v p="$p_wall" 'BEGIN { printf "%.2f", h / p }')
  echo "peak RSS hfinspect cold / huggingface.js: ${rss_ratio} (target <= ${rss_target}): $(verdict "$rss_ratio" "$rss_target")"
  echo "wall     hfinspect cold / huggingface.js: ${wall_ratio} (target <= ${wall_target}): $(verdict "$wall_ratio" "$wall_target")"
else
  echo "ratios: n/a (a row failed)"
fi
peer_inner="$(json_get wall_ms <"$work/huggingface.js.out" 2>/dev/null)"
[ -n "$peer_inner" ] && echo "(huggingface.js inside node, without process start-up, last run: ${peer_inner} ms)"

# Both read the same headers, so their parameter totals must agree.
h_total="$(json_get params.total <"$work/hfinspect-cold.out" 2>/dev/null)"
# parse.mjs prints the library's parameterTotal, which 2.17.5 leaves null: then the sum of its
# per-dtype counts (exact: every count is an integer below 2^53, which JSON.parse keeps exactly).
p_total="$(node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);const c=r.total==null?Object.values(r.parameters):[r.total];console.log(c.every(Number.isSafeInteger)?String(c.reduce((a,b)=>a+BigInt(b),0n)):"")})' \
  <"$work/huggingface.js.out" 2>/dev/null)"
echo "parameters: hfinspect params.total ${h_total:-?}, huggingface.js total ${p_total:-?}: $(
  [ -n "$h_total" ] && [ "$h_total" = "$p_total" ] && echo equal || echo DIFFERENT)"
