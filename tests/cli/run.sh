#!/usr/bin/env bash
# Golden CLI tests: runs every case of tests/cli/cases/ with the built hfinspect and compares its
# stdout and exit code with tests/cli/expected/. See tests/cli/README.md.
#
#   bash tests/cli/run.sh BUILD_DIR [CASE...]                 compare (exit 1 naming every failing case)
#   bash tests/cli/run.sh --regenerate BUILD_DIR [CASE...]    rewrite the expected files instead
set -u -o pipefail

regenerate=0
if [ "${1:-}" = "--regenerate" ]; then
  regenerate=1
  shift
fi
if [ $# -lt 1 ]; then
  echo "usage: $0 [--regenerate] BUILD_DIR [CASE...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || exit 2
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fixtures=$(cd "$here/../../fixtures" && pwd)
cases_dir=$here/cases
expected_dir=$here/expected
bin=$build/app/hfinspect
fixture_tool=$build/tests/hfinspect-fixture
hub_tool=$build/tests/hfinspect-testhub
for tool in "$bin" "$fixture_tool" "$hub_tool"; do
  [ -x "$tool" ] || { echo "cli: $tool is not built" >&2; exit 2; }
done

# Everything a run writes lives here, made afresh each run: the materialized fixtures (`mat`, the
# working directory of local cases, so a target is the relative org/name and no path of this
# machine reaches the output), an empty directory for hub cases (so org/name is not a local
# folder), and each case's own HF_HOME and output.
work=$build/tests/cli-work
rm -rf "$work"
mkdir -p "$work/mat" "$work/empty" "$work/runs"

if [ $# -gt 0 ]; then
  names=("$@")
else
  names=()
  for f in "$cases_dir"/*.args; do names+=("$(basename "$f" .args)"); done
fi

# The directive lines "# NAME: VALUE" (or "# NAME") of a case, one value per line.
directive() { sed -n "s/^# $2\(: *\(.*\)\)\{0,1\}$/\2/p" "$cases_dir/$1.args"; }
has_directive() { grep -q "^# $2\(:\|$\)" "$cases_dir/$1.args"; }

need_hub=0
for name in "${names[@]}"; do
  [ -f "$cases_dir/$name.args" ] || { echo "cli: no case $name" >&2; exit 2; }
  has_directive "$name" hub && need_hub=1
  while IFS= read -r fixture; do
    [ -n "$fixture" ] || continue
    [ -d "$work/mat/$fixture" ] && continue
    "$fixture_tool" "$fixtures/$fixture" "$work/mat/$fixture" >/dev/null 2>>"$work/materialize.log" ||
      { echo "cli: cannot materialize $fixture" >&2; tail -n 5 "$work/materialize.log" >&2; exit 2; }
  done < <(directive "$name" fixture)
done

hub_pid=
stop_hub() { [ -n "$hub_pid" ] && kill "$hub_pid" 2>/dev/null && wait "$hub_pid" 2>/dev/null; }
trap stop_hub EXIT
endpoint=http://127.0.0.1:9  # the discard port: a local case that asks the Hub fails at once
cdn=
if [ $need_hub = 1 ]; then
  "$hub_tool" --fixtures "$fixtures" --latency-ms 0 --ready-file "$work/hub.ready" >"$work/hub.out" 2>"$work/hub.err" &
  hub_pid=$!
  # The hub reads every fixture before it listens: seconds under a sanitizer on a busy machine.
  for _ in $(seq 1200); do [ -s "$work/hub.ready" ] && break; sleep 0.05; done
  [ -s "$work/hub.ready" ] || { echo "cli: the test hub did not start" >&2; cat "$work/hub.err" >&2; exit 2; }
  hub_endpoint=$(head -n1 "$work/hub.ready")
  cdn=$(sed -n 's/^cdn=//p' "$work/hub.out")
fi

# Runs case $1; its stdout goes to $work/runs/$1.stdout (hub addresses replaced by fixed tokens),
# stderr to .stderr, the exit code to .rc.
run_case() {
  local name=$1 out=$work/runs/$1 args=() line cwd=$work/mat ep=$endpoint
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in "#"* | "") continue ;; esac
    args+=("$line")
  done <"$cases_dir/$name.args"
  if has_directive "$name" hub; then
    cwd=$work/empty
    ep=$hub_endpoint
  fi
  while IFS= read -r data; do
    [ -n "$data" ] && cp "$here/data/$data" "$cwd/$data"
  done < <(directive "$name" data)
  local columns
  columns=$(directive "$name" columns | head -n 1)
  rm -rf "$work/home"
  mkdir -p "$work/home/hub"
  # A clean environment: no token, no offline switch, no colour, an empty cache of the case's own.
  (cd "$cwd" && env -i PATH="$PATH" LC_ALL=C HOME="$work/home" HF_HOME="$work/home" HF_HUB_CACHE="$work/home/hub" \
    HF_ENDPOINT="$ep" ${columns:+COLUMNS="$columns"} "$bin" "${args[@]}" >"$out.raw" 2>"$out.stderr" </dev/null)
  echo $? >"$out.rc"
  if [ "$ep" != "$endpoint" ]; then
    sed -e "s#$ep#@HUB_ENDPOINT@#g" ${cdn:+-e "s#$cdn#@HUB_CDN@#g"} "$out.raw" >"$out.stdout"
  else
    cp "$out.raw" "$out.stdout"
  fi
}

failed=()
for name in "${names[@]}"; do
  run_case "$name"
  got=$work/runs/$name
  if [ $regenerate = 1 ]; then
    cp "$got.stdout" "$expected_dir/$name.stdout"
    cp "$got.rc" "$expected_dir/$name.rc"
    continue
  fi
  if [ ! -f "$expected_dir/$name.stdout" ] || [ ! -f "$expected_dir/$name.rc" ]; then
    echo "FAIL $name: no expected files (run with --regenerate)"
    failed+=("$name")
  elif ! cmp -s "$got.stdout" "$expected_dir/$name.stdout" || ! cmp -s "$got.rc" "$expected_dir/$name.rc"; then
    echo "FAIL $name: exit code $(cat "$got.rc"), expected $(cat "$expected_dir/$name.rc")"
    diff -u --label "expected/$name.stdout" --label "actual" "$expected_dir/$name.stdout" "$got.stdout" | head -n 60
    echo "--- stderr:"
    head -n 10 "$got.stderr"
    failed+=("$name")
  fi
done

# An expected file without its case is a case someone deleted by half.
if [ $# -eq 0 ]; then
  for f in "$expected_dir"/*.stdout "$expected_dir"/*.rc; do
    [ -e "$f" ] || continue
    base=$(basename "$f")
    base=${base%.*}
    [ -f "$cases_dir/$base.args" ] && continue
    if [ $regenerate = 1 ]; then
      rm "$f"
    else
      echo "FAIL $base: expected/$(basename "$f") has no case"
      failed+=("$base")
    fi
  done
fi

if [ $regenerate = 1 ]; then
  echo "cli: wrote the expected files of ${#names[@]} case(s)"
  exit 0
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "cli: ${#failed[@]} failure(s) among ${#names[@]} case(s): ${failed[*]}"
  exit 1
fi
echo "cli: all ${#names[@]} case(s) passed"
