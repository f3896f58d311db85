#!/usr/bin/env bash
# The xk6 install path, tested (make test): build k6 + mqbench with xk6, then, from an empty
# folder holding only that binary and a scenario (an in-process NATS server), run it: a passing
# run exits 0 with received == sent in ./results/<name>/<ts>/summary.json, a breached
# threshold exits 99.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
"$repo/scripts/xk6/build.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$repo/.cache/xk6/k6" "$work/k6"
scenario() { # NAME LIMIT
  cat >"$work/$1.yaml" <<YAML
name: $1
broker: { type: nats, url: embedded }
workload: { destination: xk6.test, warmup: 1s, duration: 2s, drain: 1s }
matrix:
  - { size: 256B, rate: 200 }
thresholds:
  mq_e2e_latency: ["$2"]
YAML
}
scenario pass "p(99) < 500ms"
scenario breach "p(50) < 1ns"
fail=0
for c in pass:0 breach:99; do
  name=${c%%:*} want=${c##*:}
  set +e
  (cd "$work" && env -u K6_AUTO_EXTENSION_RESOLUTION -u K6_NO_USAGE_REPORT ./k6 x mqbench run "$name.yaml" >"$name.out" 2>"$name.err")
  code=$?
  set -e
  summary=$(find "$work/results/$name" -name summary.json 2>/dev/null | head -1)
  sent=0 received=-1
  [[ -z $summary ]] || read -r sent received <<<"$(cd "$work" && ./k6 x mqbench figure "$summary" sent received)"
  if [[ $code != "$want" || -z $summary ]] || ! ((sent > 0 && received == sent)); then
    echo "xk6 test $name: exit $code (want $want), summary.json ${summary:-missing}" >&2
    tail -5 "$work/$name.err" >&2
    fail=1
  elif grep -q "Loading the subcommand list" "$work/$name.err"; then
    echo "xk6 test $name: k6 fetched its extension catalogue for a command this binary has" >&2
    fail=1
  else
    echo "xk6 test $name: exit $code, received == sent in $summary"
  fi
done
# The build names its version (scripts/version.sh's stamp: a folder replacement has no
# module version) alike in `k6 version`, `k6 x mqbench version` and summary.json.
v=$(cd "$work" && ./k6 x mqbench version --json | sed -n 's/^{"mqbench":"\([^"]*\)".*/\1/p')
summary=$(find "$work/results/pass" -name summary.json 2>/dev/null | head -1)
if [[ -z $v || $v == devel ]] || ! (cd "$work" && ./k6 version) | grep -qF "github.com/mqbench/xk6-mqbench $v," ||
  [[ -z $summary || $(cd "$work" && ./k6 x mqbench figure "$summary" mqbench) != "$v" ]]; then
  echo "xk6 test version: mqbench ${v:-unnamed}; k6 version and summary.json ${summary:-missing} should name it:" >&2
  (cd "$work" && ./k6 version) >&2 || true
  fail=1
else
  echo "xk6 test version: mqbench $v in k6 version, x mqbench version and summary.json"
fi
exit "$fail"
