#!/usr/bin/env bash
# Remote-inspection benchmark: hfinspect against @huggingface/hub's parseSafetensorsMetadata, both
# reading the same repository from the loopback test hub with a fixed latency per response.
# See bench/README.md for the method.
#
#   bash bench/remote_inspect.sh                     # deepseek-ai/DeepSeek-V3, 50 ms
#   REPO=Qwen/Qwen3-30B-A3B LATENCY_MS=100 bash bench/remote_inspect.sh
#   SKIP_BUILD=1 bash bench/remote_inspect.sh        # reuse build-bench as it is
#   RUNS=9 PEER_RUNS=1 bash bench/remote_inspect.sh  # runs per row (the table shows medians)
#   HFINSPECT=build/app/hfinspect bash bench/remote_inspect.sh   # measure another hfinspect binary
#   PAUSE_MS=0 bash bench/remote_inspect.sh          # runs back to back (default: 1000 ms apart)
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="${REPO:-deepseek-ai/DeepSeek-V3}"
latency_ms="${LATENCY_MS:-50}"
build="$root/build-bench"
peer="$root/bench/peer"

die() { echo "remote_inspect: $*" >&2; exit 1; }
for tool in cmake ninja node npm curl; do command -v "$tool" >/dev/null || die "$tool is required"; done
[ -x /usr/bin/time ] || die "/usr/bin/time is required (Debian package: time)"

hub_bin="$build/tests/hfinspect-testhub"
hfi_bin="${HFINSPECT:-$build/app/hfinspect}"
hfi_broken=""   # why the hfinspect rows cannot run, if they cannot
if [ -z "${SKIP_BUILD:-}" ]; then
  echo "== building Release into build-bench" >&2
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHFINSPECT_TESTS=ON >/dev/null ||
    die "cmake configure failed"
  # The hub and the peer do not depend on hfinspect: a failing hfinspect build only loses its rows.
  ninja -C "$build" hfinspect-testhub >&2 || die "building hfinspect-testhub failed"
  if [ -z "${HFINSPECT:-}" ] && ! ninja -C "$build" hfinspect >"$build/hfinspect-build.log" 2>&1; then
    hfi_broken="build failed, see build-bench/hfinspect-build.log"
    echo "remote_inspect: hfinspect did not build; its rows are skipped" >&2
  fi
  echo "== npm ci in bench/peer" >&2
  (cd "$peer" && npm ci --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed"
fi
[ -x "$hub_bin" ] || die "missing $hub_bin"
[ -n "$hfi_broken" ] || [ -x "$hfi_bin" ] || hfi_broken="missing $hfi_bin"
[ -d "$peer/node_modules/@huggingface/hub" ] || die "run npm ci in bench/peer first"

work="$(mktemp -d "${TMPDIR:-/tmp}/hfinspect-bench.XXXXXX")"
hub_pid=""
hub0_pid=""
cleanup() {
  for pid in $hub_pid $hub0_pid; do
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "== starting hfinspect-testhub (latency ${latency_ms} ms)" >&2
# The same hub also listens for HTTP/2 over TLS, as the real Hub and its CDN speak; its
# certificate goes to ca.pem for libcurl (CURL_CA_BUNDLE).
"$hub_bin" --fixtures "$root/fixtures" --latency-ms "$latency_ms" --ready-file "$work/ready" \
  --tls-certificate "$work/ca.pem" >"$work/hub.out" 2>"$work/hub.err" &
hub_pid=$!
for _ in $(seq 100); do [ -s "$work/ready" ] && break; sleep 0.1; done
[ -s "$work/ready" ] || die "the test hub did not start: $(cat "$work/hub.err")"
endpoint="$(head -n1 "$work/ready")"
tls_endpoint="$(sed -n 2p "$work/ready")"

# A second hub without added latency: the same runs there show what each tool spends apart from
# waiting, so (wall at L ms - wall at 0 ms) / L counts the latency rounds it really paid.
"$hub_bin" --fixtures "$root/fixtures" --latency-ms 0 --ready-file "$work/ready0" >/dev/null 2>"$work/hub0.err" &
hub0_pid=$!
for _ in $(seq 100); do [ -s "$work/ready0" ] && break; sleep 0.1; done
[ -s "$work/ready0" ] || die "the zero-latency test hub did not start: $(cat "$work/hub0.err")"
endpoint0="$(head -n1 "$work/ready0")"

# JSON field extraction with node, which the peer needs anyway.
json_get() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];console.log(v===undefined?"":v)})' "$1"; }
# Requests in the hub's log, both origins (control routes are not logged).
count_requests() { curl -fsS "$endpoint/_testhub/requests" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);const h=r.filter(x=>x.origin==="hub").length;console.log(`${r.length} ${h} ${r.length-h}`)})'; }
# Connections the last run opened to each origin, and the protocols it spoke.
count_connections() { curl -fsS "$endpoint/_testhub/requests" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);const n=o=>new Set(r.filter(x=>x.origin===o).map(x=>x.connection)).size;console.log(`${n("hub")} to the hub, ${n("cdn")} to the CDN, ${[...new Set(r.map(x=>x.protocol))].join("+")}`)})'; }
reset_log() { curl -fsS -X POST "$endpoint/_testhub/reset" >/dev/null; }
# When the hub answered the last run's shard redirects and its CDN answered the header reads: the
# latest of each, in ms after the run's first request reached the hub (the log's received_us and
# answered_us). Prints "REDIRECTS CDN".
hub_stages() { curl -fsS "$endpoint/_testhub/requests" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);const t0=Math.min(...r.map(x=>x.received_us));const last=f=>Math.max(...r.filter(f).map(x=>x.answered_us))-t0;console.log(((last(x=>x.origin==="hub"&&x.status===302))/1000).toFixed(1)+" "+((last(x=>x.origin==="cdn"))/1000).toFixed(1))})'; }
# now_ms VAR: the clock in ms into VAR, read by bash itself. $(date ...) forked a subshell and a
# process at each end of a timed run: 3-4 ms of the harness inside every figure (timing /bin/true
# read 3-4 ms that way, 0 this way).
now_ms() { local t=${EPOCHREALTIME//[!0-9]/}; printf -v "$1" '%s' $((t / 1000)); }  # microseconds, whatever the locale's point

commit="$(curl -fsS "$endpoint/api/models/$repo" | json_get sha)"
[ -n "$commit" ] || die "no sha for $repo from $endpoint"

# Runs per hfinspect and curl row; the table shows the median. Single cold runs on a 2-core VM
# spread widely (242-339 ms in one row of 5), so 11: a fraction of a second each.
runs="${RUNS:-11}"
peer_runs="${PEER_RUNS:-3}"  # the peer takes seconds a run
# A pause before each timed run, as between a user's invocations. Back to back, a run gets the
# memory the one before it has just freed, already backed by the host; after a second or more on
# this VM it gets memory the host must supply again (bench/fresh_memory.cpp), as a real run does.
pause_ms="${PAUSE_MS:-1000}"
pause() { [ "$pause_ms" -gt 0 ] && sleep "$(awk -v m="$pause_ms" 'BEGIN { printf "%.3f", m / 1000 }')"; return 0; }
rows=()    # "tool|requests|hub|cdn|median_ms|min_ms|max_ms|runs|peak_kb|note"
stages=()  # "tool REDIRECTS_MS CDN_MS WALL_MS", one per timed cold run of hfinspect and curl-floor
# run NAME N [--fresh-cache] COMMAND... : N runs, each with the request log reset (and, with
# --fresh-cache, an empty $cache). Records the median, fastest and slowest wall time, the largest
# peak RSS, and the requests of the last run. A failing run ends the row.
run() {
  local name="$1" n="$2"; shift 2
  local fresh=""
  if [ "$1" = --fresh-cache ]; then fresh=1; shift; fi
  if [ "$name" != huggingface.js ] && [ -n "$hfi_broken" ]; then
    rows+=("$name|-|-|-|-|-|-|-|-|SKIPPED ($hfi_broken)")
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
    # Read after the timed part (about 50 ms of node): with PAUSE_MS=0 these two rows are then not
    # quite back to back, which the hfinspect-cold-b2b row still is.
    if [ "$name" = hfinspect-cold ] || [ "$name" = curl-floor ]; then stages+=("$name $(hub_stages) $((t1 - t0))"); fi
    kb=$(tail -n1 "$work/rss")
    [ "${kb:-0}" -gt "$peak" ] && peak=$kb
  done
  local counts; counts=($(count_requests))
  if [ "$rc" -ne 0 ]; then
    rows+=("$name|${counts[0]}|${counts[1]}|${counts[2]}|-|-|-|-|-|FAILED (exit $rc): $(grep -v '^Command exited' "$work/err" | tail -n1 | cut -c1-100)")
    return
  fi
  local sorted; sorted=($(printf '%s\n' "${walls[@]}" | sort -n))
  local median=${sorted[$(( (${#sorted[@]} - 1) / 2 ))]}
  rows+=("$name|${counts[0]}|${counts[1]}|${counts[2]}|$median|${sorted[0]}|${sorted[-1]}|${#sorted[@]}|$peak|ok")
  cp "$work/out" "$work/$name.out"
}

cache="$work/hf-cache"
mkdir -p "$cache"
# One untimed cold run against each hub first: the hubs have just started, and their first
# requests (and the machine's caches) are not what the timed runs should measure.
if [ -z "$hfi_broken" ]; then
  for ep in "$endpoint" "$endpoint0" "$tls_endpoint"; do
    env -u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_HUB_OFFLINE HF_HOME="$work/hf-home" HF_ENDPOINT="$ep" \
      CURL_CA_BUNDLE="$work/ca.pem" HF_HUB_CACHE="$work/warmup-cache" "$hfi_bin" "$repo" --json >/dev/null 2>&1
    rm -rf "$work/warmup-cache"
  done
fi
# What a fresh page costs right now (bench/fresh_memory.cpp), before the timed rows and after them:
# on this VM it swings from one minute to the next, and every row pays it.
fresh_memory=""
if "${CXX:-c++}" -O2 -std=c++20 -o "$work/fresh_memory" "$root/bench/fresh_memory.cpp" 2>"$work/fresh_memory.err"; then
  fresh_before="$("$work/fresh_memory" 64 5)"
  fresh_memory=1
fi
echo "== hfinspect cold ($repo), $runs runs" >&2
isolated=(env -u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_HUB_OFFLINE HF_HOME="$work/hf-home" HF_ENDPOINT="$endpoint"
          HF_HUB_CACHE="$cache")
run "hfinspect-cold" "$runs" --fresh-cache "${isolated[@]}" "$hfi_bin" "$repo" --json
conn_h1="$(count_connections)"
# The same runs back to back, for comparison with figures taken that way (and to show what the
# pause costs on this machine).
if [ "$pause_ms" -gt 0 ]; then
  echo "== hfinspect cold, back to back, $runs runs" >&2
  saved_pause="$pause_ms"; pause_ms=0
  run "hfinspect-cold-b2b" "$runs" --fresh-cache "${isolated[@]}" "$hfi_bin" "$repo" --json
  pause_ms="$saved_pause"
fi
echo "== hfinspect warm ($repo@$commit), $runs runs" >&2
run "hfinspect-warm" "$runs" "${isolated[@]}" "$hfi_bin" "$repo@$commit" --json
# HTTP/2 over TLS, the protocol of the real Hub: one connection carries many reads, TLS costs CPU.
# The hub allows 100 streams per connection (RFC 9113's recommended least), so a 163-shard burst
# also shows what libcurl does past that limit.
echo "== hfinspect cold over HTTP/2 + TLS, $runs runs" >&2
isolated_tls=(env -u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_HUB_OFFLINE HF_HOME="$work/hf-home" HF_ENDPOINT="$tls_endpoint"
              HF_HUB_CACHE="$cache" CURL_CA_BUNDLE="$work/ca.pem")
run "hfinspect-cold-h2" "$runs" --fresh-cache "${isolated_tls[@]}" "$hfi_bin" "$repo" --json
conn_h2="$(count_connections)"
echo "== @huggingface/hub parseSafetensorsMetadata" >&2
run "huggingface.js" "$peer_runs" "${isolated[@]}" node "$peer/parse.mjs" "$endpoint" "$repo"
peer_inner="$(json_get wall_ms <"$work/huggingface.js.out" 2>/dev/null)"

# The floor this hub and machine set for any client: curl fetching only what a cold run needs (the
# repository info, then every shard's header, exactly its 8-byte length and the N bytes of header
# that the fixture file gives, through the Hub's 302, all in parallel), parsing nothing.
# hfinspect's cold wall time minus this row is what its own work costs.
echo "== network floor: curl, no parsing" >&2
curl -fsS "$endpoint/api/models/$repo" |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const f of JSON.parse(s).siblings||[])if(f.rfilename.endsWith(".safetensors"))console.log(f.rfilename)})' |
  { sep=""
    while read -r shard; do
      last=$(stat -c %s "$root/fixtures/$repo/$shard.header.json")
      last=$(( (last + 7) / 8 * 8 + 7 ))  # the header is padded to 8 bytes: bytes 0 to 8 + N - 1
      # One operation per shard (curl's "next"), each with its own range, all in parallel.
      printf '%surl = "%s/%s/resolve/%s/%s"\nrange = "0-%s"\noutput = "/dev/null"\nlocation\nfail\nsilent\nshow-error\n' \
        "$sep" "$endpoint" "$repo" "$commit" "$shard" "$last"
      sep=$'next\n'
    done; } >"$work/floor.curl"
run "curl-floor" "$runs" bash -c 'curl -fsS "$1/api/models/$2/revision/main?blobs=true" >/dev/null &&
  curl -sS --no-progress-meter --parallel --parallel-immediate --parallel-max 512 -K "$3"' _ "$endpoint" "$repo" "$work/floor.curl"
[ -n "$fresh_memory" ] && fresh_after="$("$work/fresh_memory" 64 5)"

echo
echo "repo $repo at $commit, ${latency_ms} ms added to every response (hub and CDN), ${pause_ms} ms pause before each run"
printf '%-18s %9s %6s %6s %9s %7s %13s %9s  %s\n' tool requests hub cdn wall_ms rounds "min-max (n)" peak_MB status
cold_rounds="" peer_rounds=""
for row in "${rows[@]}"; do
  IFS='|' read -r name req hub cdn wall lo hi n kb note <<<"$row"
  rounds=- mb=- spread=-
  if [ "$wall" != - ]; then
    rounds=$(awk -v w="$wall" -v l="$latency_ms" 'BEGIN { printf "%.1f", w / l }')
    mb=$(awk -v k="${kb:-0}" 'BEGIN { printf "%.1f", k / 1024 }')
    spread="$lo-$hi ($n)"
  fi
  printf '%-18s %9s %6s %6s %9s %7s %13s %9s  %s\n' "$name" "$req" "$hub" "$cdn" "$wall" "$rounds" "$spread" "$mb" "$note"
  if [ "$note" = ok ]; then
    [ "$name" = hfinspect-cold ] && cold_rounds="$rounds"
    [ "$name" = huggingface.js ] && peer_rounds="$rounds"
  fi
done
echo "(wall_ms is the median of the runs; rounds = wall_ms / ${latency_ms} ms; peak_MB is the largest of the runs)"
[ -n "$peer_inner" ] && echo "(huggingface.js inside node, without process start-up: ${peer_inner} ms)"
# The hub's side of the cold runs: how long its own pipeline took, and what each client added.
for tool in hfinspect-cold curl-floor; do
  printf '%s\n' "${stages[@]}" | awk -v t="$tool" '
    function median(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    $1 == t { n++; r[n] = $2; c[n] = $3; rest[n] = $4 - $3 }
    END { if (n) printf "(%s, hub side, medians of %d runs: the last shard redirect answered %.1f ms and the last CDN header read %.1f ms after the first request reached the hub; the wall time past that, %.1f ms, is the client'"'"'s own start-up and its work after the last answer)\n", t, n, median(r, n), median(c, n), median(rest, n) }'
done
echo "(connections, last cold run: HTTP/1.1 ${conn_h1:-?}; over TLS ${conn_h2:-?})"
echo "(huggingface.js runs in the clear: its fetch (undici) offers only HTTP/1.1, and the hub's TLS listener only h2)"
if [ -n "$fresh_memory" ]; then
  echo "fresh memory before the rows:"
  echo "$fresh_before" | sed 's/^/  /'
  echo "fresh memory after the rows:"
  echo "$fresh_after" | sed 's/^/  /'
  echo "(hfinspect's heaps are on 4 KB pages: a cold DeepSeek-V3 run touches about 86 MB, some 39 ms of faults at 0.45 ms per MB, 10 of them in the idle wait for the 302s)"
else
  echo "(fresh-memory probe not built: $(head -n1 "$work/fresh_memory.err"))"
fi

# Latency actually paid: each tool's median at 50 ms is its row above; the same number of cold runs
# against the zero-latency hub gives its median at 0 ms. (Three fresh runs at each latency, as
# this once did, made the ratio swing by a tenth between two invocations.)
median_wall() {  # median_wall N ENDPOINT COMMAND... : prints the median wall time in ms of N cold runs
  local n="$1" ep="$2"; shift 2
  local walls=() i
  for ((i = 1; i <= n; i++)); do
    local c="$work/cache0-$i"
    rm -rf "$c"
    pause
    local t0 t1; now_ms t0
    env -u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_HUB_OFFLINE HF_HOME="$work/hf-home" HF_ENDPOINT="$ep" HF_HUB_CACHE="$c" \
      "$@" >/dev/null 2>&1 || { echo -; return; }
    now_ms t1
    walls+=($((t1 - t0)))
  done
  local sorted; sorted=($(printf '%s\n' "${walls[@]}" | sort -n))
  echo "${sorted[$(( (${#sorted[@]} - 1) / 2 ))]}"
}
row_wall() {  # row_wall NAME : the median wall of a row that ran, else nothing
  local row
  for row in "${rows[@]}"; do
    IFS='|' read -r name _ _ _ wall _ _ _ _ note <<<"$row"
    [ "$name" = "$1" ] && [ "$note" = ok ] && echo "$wall"
  done
}
h50="$(row_wall hfinspect-cold)"; p50="$(row_wall huggingface.js)"
if [ -n "$h50" ] && [ -n "$p50" ]; then
  echo "== latency paid: the same cold runs against the zero-latency hub" >&2
  h0=$(median_wall "$runs" "$endpoint0" "$hfi_bin" "$repo" --json); p0=$(median_wall "$peer_runs" "$endpoint0" node "$peer/parse.mjs" "$endpoint0" "$repo")
  echo
  echo "latency rounds paid = (median wall at ${latency_ms} ms - median wall at 0 ms) / ${latency_ms} ms, ${runs} and ${peer_runs} runs"
  printf '%-16s %10s %10s %8s\n' tool "wall@${latency_ms}" "wall@0" rounds
  awk -v a="$h50" -v b="$h0" -v l="$latency_ms" 'BEGIN { printf "%-16s %10s %10s %8.1f\n", "hfinspect-cold", a, b, (a - b) / l }'
  awk -v a="$p50" -v b="$p0" -v l="$latency_ms" 'BEGIN { printf "%-16s %10s %10s %8.1f\n", "huggingface.js", a, b, (a - b) / l }'
  awk -v h50="$h50" -v h0="$h0" -v p50="$p50" -v p0="$p0" 'BEGIN { h = h50 - h0; p = p50 - p0; if (h > 0) printf "latency rounds ratio huggingface.js / hfinspect: %.1fx\n", p / h }'
fi
if [ -n "$cold_rounds" ] && [ -n "$peer_rounds" ]; then
  awk -v p="$peer_rounds" -v h="$cold_rounds" 'BEGIN { if (h > 0) printf "rounds ratio huggingface.js / hfinspect (cold): %.1fx\n", p / h }'
else
  echo "rounds ratio: n/a (a run failed)"
fi
