#!/bin/sh
# Regression gate of a change to a scenario (a producer setting, a payload, a rate): the
# scenario as it was (MQBENCH_GATE_BASELINE, a copy of the target branch's file) and as this
# change has it (MQBENCH_SCENARIO), run interleaved against the same broker in one job
# (baseline, candidate, baseline, candidate, …: a machine's slow minutes hit both sides), then
# compared: exit 1 when the candidate regressed beyond the tolerance and the run-to-run noise.
# Each run goes through mqbench-ci.sh (same variables: MQBENCH_K6 or MQBENCH_IMAGE, …); a run
# that fails for another reason than a threshold (the broker, the scenario) ends the gate with
# its code. POSIX sh.
#
# Environment, beside mqbench-ci.sh's:
#   MQBENCH_GATE_BASELINE  the baseline scenario file (required), inside the job's folder and
#                          named as the scenario is (a file's name is its scenario's name), e.g.
#                          perf/baseline/orders-kafka.yaml
#   MQBENCH_GATE_RUNS      runs a side (default 3: a ~30 % p99 change is caught 19 times in 20
#                          on a quiet machine; 5 on a noisy one)
#   MQBENCH_TOLERANCE      how much worse a metric may get (default 10%)
#   MQBENCH_GATE_METRICS   what is compared (default compare's: e2e.p99, publish.p99,
#                          receiver_rate), e.g. e2e.p50,e2e.p99
set -eu
candidate=${MQBENCH_SCENARIO:?set MQBENCH_SCENARIO to the scenario file}
baseline=${MQBENCH_GATE_BASELINE:?set MQBENCH_GATE_BASELINE to the baseline scenario file}
if [ "$(basename "$baseline")" != "$(basename "$candidate")" ]; then
  echo "mqbench-gate: MQBENCH_GATE_BASELINE $baseline must be named as $candidate is (put it in another folder)" >&2
  exit 2
fi
runs=${MQBENCH_GATE_RUNS:-3}
tolerance=${MQBENCH_TOLERANCE:-10%}
metrics=${MQBENCH_GATE_METRICS:+--metric $MQBENCH_GATE_METRICS}
junit=${MQBENCH_JUNIT:-mqbench-junit.xml}
here=$(dirname "$0")
gate=${MQBENCH_RESULTS:-results}/gate
rm -rf "$gate" "$junit"
mkdir -p "$gate"

# One run of one side into its own folder; 0 and 99 (a threshold) still compare.
run_side() { # SIDE SCENARIO
  set +e
  MQBENCH_SCENARIO=$2 MQBENCH_RESULTS="$gate/$1" MQBENCH_JUNIT="$gate/$1.junit.xml" sh "$here/mqbench-ci.sh"
  code=$?
  set -e
  case $code in
    0 | 99) ;;
    *)
      cp "$gate/$1.junit.xml" "$junit" 2>/dev/null || true # that run's report says why
      echo "mqbench-gate: a $1 run ended with exit $code: no comparison" >&2
      exit "$code" ;;
  esac
}
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  run_side baseline "$baseline"
  run_side candidate "$candidate"
done

set --
for d in "$gate"/baseline/*/*/; do set -- "$@" --baseline "$d"; done
for d in "$gate"/candidate/*/*/; do set -- "$@" --candidate "$d"; done
set +e
if [ -n "${MQBENCH_K6:-}" ]; then
  # shellcheck disable=SC2086 # $metrics is a flag and its value, or nothing
  "$MQBENCH_K6" x mqbench compare "$@" --tolerance "$tolerance" $metrics --out "$gate/compare" >"$gate/compare.txt" 2>&1
else
  # shellcheck disable=SC2086 # MQBENCH_RUNTIME may carry arguments
  ${MQBENCH_RUNTIME:-docker} run --rm --network host -v "$PWD:/work" --entrypoint k6 "$MQBENCH_IMAGE" \
    x mqbench compare "$@" --tolerance "$tolerance" $metrics --out "$gate/compare" >"$gate/compare.txt" 2>&1
fi
code=$?
set -e
cat "$gate/compare.txt" >&2

# One JUnit case for the gate; its failure holds compare's lines.
xml_text() {
  tr -d '\000-\010\013\014\016-\037' | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'
}
name=$(basename "$candidate" .yaml | xml_text)
case $code in
  0) verdict="no regression beyond $tolerance" failures=0 ;;
  1) verdict="REGRESSED beyond $tolerance and the run-to-run noise" failures=1 ;;
  *) verdict="compare failed (exit $code)" failures=1 ;;
esac
{
  printf '<?xml version="1.0" encoding="UTF-8"?>\n'
  printf '<testsuites name="mqbench gate %s" tests="1" failures="%s" errors="0">\n' "$name" "$failures"
  printf '  <testsuite name="%s.gate" tests="1" failures="%s" errors="0" skipped="0">\n' "$name" "$failures"
  printf '    <testcase classname="%s.gate" name="regression gate (%s runs a side)" time="0">' "$name" "$runs"
  if [ "$failures" = 1 ]; then
    printf '\n      <failure message="%s" type="exit %s">' "$(printf '%s' "$verdict" | xml_text)" "$code"
    grep -v '^ok ' "$gate/compare.txt" | tail -n 40 | xml_text
    printf '</failure>\n    '
  fi
  printf '</testcase>\n  </testsuite>\n</testsuites>\n'
} >"$junit"
echo "mqbench-gate: $candidate against $baseline, $runs runs a side: exit $code, $verdict; results in $gate" >&2
exit "$code"
