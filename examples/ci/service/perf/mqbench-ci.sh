#!/bin/sh
# Runs one mqbench scenario in a service's pipeline and fails the job the way a pipeline can
# tell apart: exit 99 an SLA (threshold) breached, 117 the load generator could not keep the
# schedule (the measurement is invalid, the broker breached nothing), 112/113 the broker
# unreachable or refusing, 111 the scenario invalid. Copy it beside your scenarios; the CI
# templates call only this.
# POSIX sh: it runs in the runner image (Alpine) as well as on a CI host.
#
# Environment:
#   MQBENCH_SCENARIO  the scenario file (required), e.g. perf/orders-kafka.yaml
#   MQBENCH_K6        a k6 binary with mqbench (xk6 build, or the image's /usr/bin/k6), or
#   MQBENCH_IMAGE     the runner image, run with MQBENCH_RUNTIME (docker) on the host network,
#                     given every variable the scenario reads (docker run -e NAME)
#   MQBENCH_BROKER    host:port to wait for before the run (optional; a service container
#                     may still be starting)
#   MQBENCH_RESULTS   results folder (default results)
#   MQBENCH_JUNIT     where junit.xml is copied for the CI's test report (default mqbench-junit.xml)
#
# The report is always this run's: its own results folder's junit.xml, or, when the run wrote
# none (111: the scenario is invalid, nothing ran), a junit.xml written here with one failing
# case naming the exit code and the run's last error lines. Never an older run's.
set -eu
scenario=${MQBENCH_SCENARIO:?set MQBENCH_SCENARIO to the scenario file}
results=${MQBENCH_RESULTS:-results}
junit=${MQBENCH_JUNIT:-mqbench-junit.xml}
name=$(basename "$scenario" .yaml)
nl='
'
rm -f "$junit" # a report left from an earlier job must not stand for this one
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# runs_in lists the run folders under the results folder, one a line.
runs_in() {
  for d in "$results"/*/*/; do
    if [ -d "$d" ]; then printf '%s\n' "$d"; fi
  done
}

# run_tee runs a command with its stderr shown as it comes and kept in $tmp/stderr, for a
# junit.xml written here; its exit code goes to $tmp/code.
run_tee() {
  { { "$@" 2>&1 1>&3 3>&-; echo "$?" >"$tmp/code"; } | tee "$tmp/stderr" >&2; } 3>&1
}

# xml_text escapes its input for XML and drops the control characters XML 1.0 refuses.
xml_text() {
  tr -d '\000-\010\013\014\016-\037' | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'
}

# Wait up to 120 s for the broker's port: nc -z where nc has it, a connect with a timeout
# where it has not (busybox's, in the runner image), bash's /dev/tcp where there is no nc.
reachable() {
  if command -v nc >/dev/null 2>&1; then
    if nc -h 2>&1 | grep -q -e '-z'; then nc -z "$1" "$2" 2>/dev/null
    else nc -w 2 "$1" "$2" </dev/null >/dev/null 2>&1; fi
  else
    bash -c ": >/dev/tcp/$1/$2" 2>/dev/null
  fi
}
if [ -n "${MQBENCH_BROKER:-}" ]; then
  host=${MQBENCH_BROKER%:*} port=${MQBENCH_BROKER##*:} i=0
  until reachable "$host" "$port"; do
    i=$((i + 1))
    if [ "$i" -ge 120 ]; then echo "mqbench-ci: $MQBENCH_BROKER did not accept connections within 120 s" >&2; break; fi
    sleep 1
  done
fi

# The run folders there before the run: this run's is one that appears after it.
before=$(runs_in)
set +e
if [ -n "${MQBENCH_K6:-}" ]; then
  run_tee "$MQBENCH_K6" x mqbench run "$scenario" --results "$results"
elif [ -n "${MQBENCH_IMAGE:-}" ]; then
  mkdir -p "$results"
  # A container sees none of the job's variables unless named: pass every one the scenario
  # reads (${NAME} and *_env options), as the image itself lists them. A scenario it cannot
  # read lists none; the run then says what is wrong with it.
  # shellcheck disable=SC2086 # MQBENCH_RUNTIME may carry arguments (sudo docker, podman --remote)
  names=$(${MQBENCH_RUNTIME:-docker} run --rm --network host -v "$PWD:/work" --entrypoint k6 "$MQBENCH_IMAGE" \
    x mqbench validate --list-env "$scenario" 2>/dev/null) || names=""
  set --
  for n in $names; do set -- "$@" -e "$n"; done
  # shellcheck disable=SC2086
  run_tee ${MQBENCH_RUNTIME:-docker} run --rm --network host -v "$PWD:/work" "$@" "$MQBENCH_IMAGE" "$scenario" --results "$results"
else
  echo "mqbench-ci: set MQBENCH_K6 (a k6 binary with mqbench) or MQBENCH_IMAGE (the runner image)" | tee "$tmp/stderr" >&2
  echo 2 >"$tmp/code"
fi
set -e
code=$(cat "$tmp/code")

case $code in
  0) verdict="passed: every threshold held" ;;
  2) verdict="bad arguments" ;;
  99) verdict="FAILED: an SLA threshold was breached" ;;
  105) verdict="stopped by a signal (what was measured is in $results)" ;;
  111) verdict="the scenario is invalid" ;;
  112) verdict="the broker was unreachable" ;;
  113) verdict="the broker refused the run (credentials, permissions, destination)" ;;
  115) verdict="the results folder $results cannot be written" ;;
  117) verdict="INVALID: this runner could not send on schedule (mqbench dropped sends), so the broker was not measured at the scenario's rate; no SLA threshold was breached. Give the job a bigger runner or fewer parallel jobs, or lower the rate" ;;
  125) verdict="the container runtime could not run $MQBENCH_IMAGE (its own exit 125: an image it cannot pull, or a bad option)" ;;
  126 | 127) verdict="${MQBENCH_K6:-the container runtime} could not be started (not found or not executable)" ;;
  *) verdict="failed" ;;
esac

# This run's folder: the newest of those that were not there before (none when it wrote none).
run=$(runs_in | while IFS= read -r d; do
  case "$nl$before$nl" in
    *"$nl$d$nl"*) ;;
    *) printf '%s\n' "$d" ;;
  esac
done | tail -n 1)

if [ -n "$run" ] && [ -f "${run}junit.xml" ]; then
  cp "${run}junit.xml" "$junit"
  where="results in $run"
else
  # No junit.xml of this run: one failing case says so, so the pipeline's test report shows it.
  if [ -n "$run" ]; then where="no junit.xml in $run"; else where="this run wrote no results"; fi
  xname=$(printf '%s' "$name" | xml_text)
  {
    printf '<?xml version="1.0" encoding="UTF-8"?>\n'
    printf '<testsuites name="mqbench %s" tests="1" failures="1" errors="0">\n' "$xname"
    printf '  <testsuite name="%s" tests="1" failures="1" errors="0" skipped="0">\n' "$xname"
    printf '    <testcase classname="%s" name="run" time="0">\n' "$xname"
    printf '      <failure message="%s" type="exit %s">' "$(printf 'exit %s, %s; %s' "$code" "$verdict" "$where" | xml_text)" "$code"
    tail -n 20 "$tmp/stderr" | xml_text
    printf '</failure>\n    </testcase>\n  </testsuite>\n</testsuites>\n'
  } >"$junit"
  where="$where; $junit says so"
fi
# A failed run's reasons again, as summary.txt words them (a dropped send names its cell and
# the fix), so the job's last lines say why without opening the report.
if [ -n "$run" ] && [ -f "${run}summary.txt" ]; then
  sed -n 's/^  FAIL  /mqbench-ci: failed: /p; s/^  no data  /mqbench-ci: no data: /p' "${run}summary.txt" >&2
fi
echo "mqbench-ci: $scenario: exit $code, $verdict; $where" >&2
exit "$code"
