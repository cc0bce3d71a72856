#!/usr/bin/env bash
# GGUF remote benchmark: hfinspect against @huggingface/gguf's gguf(), both reading the same GGUF
# repositories' headers from the loopback test hub with a fixed latency per response.
# See bench/README.md ("GGUF headers over HTTP") for the method.
#
#   bash bench/gguf_remote.sh                       # 50 ms per response, 3 runs per row
#   LATENCY_MS=100 RUNS=5 bash bench/gguf_remote.sh
#   BUILD=build-bench bash bench/gguf_remote.sh     # binaries from another build tree (default: build)
#   HFINSPECT=/path/to/hfinspect bash bench/gguf_remote.sh
#   PAUSE_MS=0 bash bench/gguf_remote.sh            # runs back to back (default: 1000 ms apart)
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
latency_ms="${LATENCY_MS:-50}"
runs="${RUNS:-3}"
pause_ms="${PAUSE_MS:-1000}"
build="${BUILD:-$root/build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
peer="$root/bench/peer"
hub_bin="$build/tests/hfinspect-testhub"
hfi_bin="${HFINSPECT:-$build/app/hfinspect}"

# What is measured: "repository|variant" (an empty variant runs without --variant).
cases=(
  "TheBloke/Llama-2-7B-Chat-GGUF|Q5_K_M"
  "TheBloke/Mistral-7B-Instruct-v0.2-GGUF|"
)

die() { echo "gguf_remote: $*" >&2; exit 1; }
for tool in node npm curl; do command -v "$tool" >/dev/null || die "$tool is required"; done
[ -x /usr/bin/time ] || die "/usr/bin/time is required (Debian package: time)"

# Nothing is rebuilt unless a binary is missing.
if [ ! -x "$hub_bin" ] || { [ -z "${HFINSPECT:-}" ] && [ ! -x "$hfi_bin" ]; }; then
  [ -f "$build/CMakeCache.txt" ] || die "missing $hub_bin or $hfi_bin, and $build is not a configured build tree"
  echo "== building hfinspect and hfinspect-testhub in $build" >&2
  cmake --build "$build" --target hfinspect-testhub >&2 || die "building hfinspect-testhub failed"
  [ -n "${HFINSPECT:-}" ] || cmake --build "$build" --target hfinspect >&2 ||
    echo "gguf_remote: hfinspect did not build; its rows are skipped" >&2
fi
[ -x "$hub_bin" ] || die "missing $hub_bin"
hfi_broken=""   # why the hfinspect rows cannot run, if they cannot
[ -x "$hfi_bin" ] || hfi_broken="missing $hfi_bin"
if [ ! -d "$peer/node_modules/@huggingface/gguf" ]; then
  echo "== npm ci in bench/peer" >&2
  (cd "$peer" && npm ci --no-audit --no-fund --loglevel=error >&2) || die "npm ci in bench/peer failed"
fi
gguf_version="$(node -p 'require(process.argv[1]).version' "$peer/node_modules/@huggingface/gguf/package.json")"

work="$(mktemp -d "${TMPDIR:-/tmp}/hfinspect-gguf-bench.XXXXXX")"
hub_pid=""
cleanup() {
  trap '' INT TERM
  if [ -n "$hub_pid" ]; then
    # The hub stops on SIGTERM, closing its idle connections within about 2 s; past 5 s, SIGKILL.
    kill -TERM "$hub_pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$hub_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$hub_pid" 2>/dev/null
    wait "$hub_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The runs use copies: a rebuild of the tree while the script runs then changes nothing under it.
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null)"
hfi_label="$hfi_bin"
[ -n "${HFINSPECT:-}" ] || hfi_label="$hfi_label${build_type:+ ($build_type)}"
cp "$hub_bin" "$work/hfinspect-testhub" || die "cannot copy $hub_bin"
hub_bin="$work/hfinspect-testhub"
if [ -z "$hfi_broken" ]; then
  hfi_label="$hfi_label, built $(date -r "$hfi_bin" '+%Y-%m-%d %H:%M')"
  if cp "$hfi_bin" "$work/hfinspect"; then hfi_bin="$work/hfinspect"; else hfi_broken="cannot copy $hfi_bin"; fi
fi

echo "== starting hfinspect-testhub (latency ${latency_ms} ms)" >&2
"$hub_bin" --fixtures "$root/fixtures" --latency-ms "$latency_ms" --ready-file "$work/ready" \
  >"$work/hub.out" 2>"$work/hub.err" &
hub_pid=$!
# The hub writes the GGUF fixtures' headers before it listens: give it up to 30 s.
for _ in $(seq 300); do
  [ -s "$work/ready" ] && break
  kill -0 "$hub_pid" 2>/dev/null || die "the test hub exited: $(cat "$work/hub.err")"
  sleep 0.1
done
[ -s "$work/ready" ] || die "the test hub did not start: $(cat "$work/hub.err")"
endpoint="$(head -n1 "$work/ready")"
case "$endpoint" in http://127.0.0.1:*) ;; *) die "unexpected hub endpoint '$endpoint'" ;; esac

reset_log() { curl -fsS -X POST "$endpoint/_testhub/reset" >/dev/null; }
# The last run's requests from the hub's log (control routes are not logged): every request on
# both origins, and the body bytes the hub handed to the socket. Prints
# "REQUESTS HUB CDN BYTES HUB_BYTES CDN_BYTES".
log_summary() {
  curl -fsS "$endpoint/_testhub/requests" | node -e '
    let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
      const r = JSON.parse(s), of = o => r.filter(x => x.origin === o);
      const bytes = a => a.reduce((n, x) => n + (x.body_bytes ?? 0), 0);
      console.log([r.length, of("hub").length, of("cdn").length, bytes(r), bytes(of("hub")), bytes(of("cdn"))].join(" "));
    })'
}
# The .gguf files a repository lists, one a line.
gguf_files() {
  curl -fsS "$endpoint/api/models/$1" | node -e '
    let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
      for (const f of JSON.parse(s).siblings || []) if (f.rfilename.endsWith(".gguf")) console.log(f.rfilename);
    })'
}
now_ms() { local t=${EPOCHREALTIME//[!0-9]/}; printf -v "$1" '%s' $((t / 1000)); }
pause() { [ "$pause_ms" -gt 0 ] && sleep "$(awk -v m="$pause_ms" 'BEGIN { printf "%.3f", m / 1000 }')"; return 0; }
commas() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }

rows=()  # "case|tool|files|requests|hub|cdn|bytes|cdn_bytes|median_ms|min_ms|max_ms|runs|peak_kb|note"
# run CASE NAME FILES N [--fresh-cache] COMMAND... : N runs, each with the request log reset (and,
# with --fresh-cache, an empty $cache). Records the median, fastest and slowest wall time, the
# largest peak RSS, and the requests of the last run; keeps the last run's output as
# $work/CASE-NAME.out. A failing run ends the row.
run() {
  local c="$1" name="$2" files="$3" n="$4"; shift 4
  local fresh=""
  if [ "$1" = --fresh-cache ]; then fresh=1; shift; fi
  if [[ "$name" == hfinspect* ]] && [ -n "$hfi_broken" ]; then
    rows+=("$c|$name|$files|-|-|-|-|-|-|-|-|-|-|SKIPPED ($hfi_broken)")
    return
  fi
  local walls=() peak=0 rc=0 i t0 t1 kb
  for ((i = 1; i <= n; i++)); do
    if [ -n "$fresh" ]; then rm -rf "$cache"; mkdir -p "$cache"; fi
    reset_log
    pause
    now_ms t0
    /usr/bin/time -f %M -o "$work/rss" "$@" >"$work/out" 2>"$work/err"
    rc=$?
    now_ms t1
    [ "$rc" -eq 0 ] || break
    walls+=($((t1 - t0)))
    kb=$(tail -n1 "$work/rss")
    [ "${kb:-0}" -gt "$peak" ] && peak=$kb
  done
  local counts; counts=($(log_summary)) || true
  [ "${#counts[@]}" -eq 6 ] || counts=(- - - - - -)
  if [ "$rc" -ne 0 ]; then
    rows+=("$c|$name|$files|${counts[0]}|${counts[1]}|${counts[2]}|${counts[3]}|${counts[5]}|-|-|-|-|-|FAILED (exit $rc): $(grep -v '^Command exited' "$work/err" | tail -n1 | cut -c1-100)")
    return
  fi
  local sorted; sorted=($(printf '%s\n' "${walls[@]}" | sort -n))
  local median=${sorted[$(( (${#sorted[@]} - 1) / 2 ))]}
  rows+=("$c|$name|$files|${counts[0]}|${counts[1]}|${counts[2]}|${counts[3]}|${counts[5]}|$median|${sorted[0]}|${sorted[-1]}|${#sorted[@]}|$peak|ok")
  cp "$work/out" "$work/$c-$name.out"
}

cache="$work/hf-cache"
isolated=(env -u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_HUB_OFFLINE HF_HOME="$work/hf-home"
          HF_ENDPOINT="$endpoint" HF_HUB_CACHE="$cache")
declare -A all_urls sel_urls hfi_cmd
for c in "${!cases[@]}"; do
  IFS='|' read -r repo variant <<<"${cases[$c]}"
  mapfile -t files < <(gguf_files "$repo")
  [ "${#files[@]}" -gt 0 ] || die "$repo lists no .gguf file on $endpoint"
  urls=() sel=()
  for f in "${files[@]}"; do
    urls+=("$endpoint/$repo/resolve/main/$f")
    # The variant's file: its name ends in .<variant>.gguf, as TheBloke's do.
    if [ -n "$variant" ] && [[ "${f,,}" == *".${variant,,}.gguf" ]]; then sel+=("$endpoint/$repo/resolve/main/$f"); fi
  done
  all_urls[$c]="${urls[*]}"
  # A second peer row reads only the selected variant's file, when there is a choice.
  [ -n "$variant" ] && [ "${#files[@]}" -gt 1 ] && [ "${#sel[@]}" -gt 0 ] && sel_urls[$c]="${sel[*]}"
  hfi_cmd[$c]="$repo${variant:+ --variant $variant} --json"
done

# One untimed run of each tool per repository first: the hub has just started, and its first
# requests (and the machine's caches) are not what the timed runs should measure.
for c in "${!cases[@]}"; do
  rm -rf "$cache"
  [ -n "$hfi_broken" ] || "${isolated[@]}" "$hfi_bin" ${hfi_cmd[$c]} >/dev/null 2>&1
  node "$peer/parse_gguf.mjs" ${all_urls[$c]} >/dev/null 2>&1
done

load_before="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for c in "${!cases[@]}"; do
  IFS='|' read -r repo variant <<<"${cases[$c]}"
  read -ra urls <<<"${all_urls[$c]}"
  echo "== $repo: hfinspect cold, $runs runs" >&2
  # hfinspect picks the files itself; "files" is what the repository lists.
  run "$c" hfinspect-cold "${#urls[@]}" "$runs" --fresh-cache "${isolated[@]}" "$hfi_bin" ${hfi_cmd[$c]}
  echo "== $repo: @huggingface/gguf on ${#urls[@]} file(s), $runs runs" >&2
  run "$c" huggingface.js "${#urls[@]}" "$runs" node "$peer/parse_gguf.mjs" "${urls[@]}"
  if [ -n "${sel_urls[$c]:-}" ]; then
    read -ra sel <<<"${sel_urls[$c]}"
    echo "== $repo: @huggingface/gguf on the $variant file only, $runs runs" >&2
    run "$c" huggingface.js-variant "${#sel[@]}" "$runs" node "$peer/parse_gguf.mjs" "${sel[@]}"
  fi
done

# Parameter counts: hfinspect's params.total, its selected file and each variant's params; the
# peer's parameterCount per file. Prints "total SELECTED_FILE COUNT" then "file NAME COUNT" lines.
hfi_params() {
  node -e '
    const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(`total ${d.gguf?.selected ?? "-"} ${d.params?.total ?? "-"}`);
    for (const v of d.gguf?.variants ?? []) console.log(`file ${v.file} ${v.params ?? "-"}`);' "$1"
}
peer_params() {
  node -e '
    const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    for (const f of d.files) console.log(`file ${decodeURIComponent(f.url.split("/").pop())} ${f.parameter_count}`);' "$1"
}
json_get() { node -e 'const v = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[process.argv[2]]; console.log(v ?? "")' "$1" "$2"; }
row_field() {  # row_field CASE TOOL FIELD# : a field of an ok row, else nothing
  local row f
  for row in "${rows[@]}"; do
    IFS='|' read -ra f <<<"$row"
    [ "${f[0]}" = "$1" ] && [ "${f[1]}" = "$2" ] && [ "${f[13]}" = ok ] && echo "${f[$3]}"
  done
}

load_after="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo
echo "GGUF headers through the test hub, ${latency_ms} ms added to every response (hub and CDN), ${pause_ms} ms pause before each run"
echo "hfinspect: $hfi_label; peer: @huggingface/gguf $gguf_version gguf(url, { computeParametersCount: true }), node $(node --version)"
for c in "${!cases[@]}"; do
  IFS='|' read -r repo variant <<<"${cases[$c]}"
  echo
  echo "$repo${variant:+ (--variant $variant)}"
  printf '  %-22s %5s %8s %4s %4s %11s %8s %6s %13s %8s  %s\n' tool files requests hub cdn hub_bytes wall_ms rounds "min-max (n)" peak_MB status
  for row in "${rows[@]}"; do
    IFS='|' read -r rc name files req hub cdn bytes cdn_bytes wall lo hi n kb note <<<"$row"
    [ "$rc" = "$c" ] || continue
    rounds=- mb=- spread=-
    if [ "$wall" != - ]; then
      rounds=$(awk -v w="$wall" -v l="$latency_ms" 'BEGIN { printf "%.1f", (l > 0 ? w / l : 0) }')
      mb=$(awk -v k="${kb:-0}" 'BEGIN { printf "%.1f", k / 1024 }')
      spread="$lo-$hi ($n)"
    fi
    [ "$bytes" != - ] && bytes=$(commas "$bytes")
    printf '  %-22s %5s %8s %4s %4s %11s %8s %6s %13s %8s  %s\n' "$name" "$files" "$req" "$hub" "$cdn" "$bytes" "$wall" "$rounds" "$spread" "$mb" "$note"
  done
  h_req=$(row_field "$c" hfinspect-cold 3); h_wall=$(row_field "$c" hfinspect-cold 8)
  for peer_row in huggingface.js huggingface.js-variant; do
    p_req=$(row_field "$c" "$peer_row" 3); p_wall=$(row_field "$c" "$peer_row" 8)
    [ -n "$p_req" ] || continue
    if [ -n "$h_req" ]; then
      awk -v pr="$p_req" -v hr="$h_req" -v pw="$p_wall" -v hw="$h_wall" -v t="$peer_row" \
        'BEGIN { printf "  %s / hfinspect: requests %.2fx, wall time %.2fx\n", t, pr / hr, pw / hw }'
    fi
    inner=$(json_get "$work/$c-$peer_row.out" wall_ms 2>/dev/null)
    [ -n "$inner" ] && echo "  ($peer_row inside node, without process start-up: ${inner} ms in its last run)"
  done

  # Parameter counts, file by file.
  declare -A hcount=() pcount=()
  h_total="" h_sel=""
  if [ -s "$work/$c-hfinspect-cold.out" ]; then
    while read -r kind a b; do
      if [ "$kind" = total ]; then h_sel="$a" h_total="$b"; else hcount[$a]="$b"; fi
    done < <(hfi_params "$work/$c-hfinspect-cold.out")
  fi
  if [ -s "$work/$c-huggingface.js.out" ]; then
    while read -r _ a b; do pcount[$a]="$b"; done < <(peer_params "$work/$c-huggingface.js.out")
  fi
  echo "  parameters (hfinspect: .gguf.variants[].params; huggingface.js: parameterCount)"
  for f in $(printf '%s\n' "${!hcount[@]}" "${!pcount[@]}" | sort -u); do
    h="${hcount[$f]:--}" p="${pcount[$f]:--}" agree=n/a
    [ "$h" != - ] && [ "$p" != - ] && { [ "$h" = "$p" ] && agree=yes || agree=NO; }
    printf '    %-40s hfinspect %15s  huggingface.js %15s  agree: %s\n' "$f" "$(commas "$h")" "$(commas "$p")" "$agree"
  done
  if [ -n "$h_total" ]; then
    p="${pcount[$h_sel]:--}" agree=n/a
    [ "$p" != - ] && { [ "$h_total" = "$p" ] && agree=yes || agree=NO; }
    printf '    hfinspect .params.total %s (selected %s); huggingface.js on that file %s; agree: %s\n' \
      "$(commas "$h_total")" "$h_sel" "$(commas "$p")" "$agree"
  fi
  unset hcount pcount
done
echo
echo "(wall_ms: median of the runs, the whole process from start to exit; rounds = wall_ms / ${latency_ms} ms;"
echo " requests and hub_bytes (body bytes both origins sent, from the hub's log) are those of the last run;"
echo " peak_MB: the largest maximum RSS of the runs; every hfinspect run starts with an empty HF_HUB_CACHE)"
echo "(load average before the runs: ${load_before:-?}; after: ${load_after:-?}, on $(nproc 2>/dev/null || echo ?) CPUs)"
